/**
 * Failed sign-ins: the shared counters on dynalite (the same DynamoDB code as on AWS), the
 * authorizer's decisions over them with an injected clock (no real window is slept through),
 * the 429 the functions answer for a throttled request, and constant scrypt work whatever the
 * user name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBasic } from '../../functions/authorizer/authorizer-event.ts';
import {
  addressKeyOf,
  createAuthThrottle,
  USER_POLICY,
} from '../../functions/kernel/auth-throttle.ts';
import { createDynamoAuthThrottleStore } from '../../functions/kernel/auth-throttle-dynamodb.ts';
import { hashPassword, matchClient, scryptRuns } from '../../functions/kernel/client-auth.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';
import { throttledAnswer } from '../../functions/kernel/route-guard.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';

const METHOD_ARN = 'arn:aws:execute-api:sa-east-1:123456789012:abc123defg/prod/GET/admin/leads';
const CHEAP = { N: 1024, r: 8, p: 1 };
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let dynamo: TestDynamo;
let table: string;
let clients: Client[];

beforeAll(async () => {
  dynamo = await startTestDynamo();
  table = await dynamo.createLedgerTable();
  clients = [
    { username: 'ops', passwordHash: await hashPassword('ops-secret', CHEAP), roles: ['admin'] },
    { username: 'plain', password: 'plain-secret', roles: ['admin'] },
  ];
});
afterAll(async () => {
  await dynamo?.close();
});

/** A throttle on the shared table whose clock the test moves. */
function throttleAt(start: number) {
  const clock = { now: start };
  const throttle = createAuthThrottle(
    createDynamoAuthThrottleStore({ client: dynamo.client, tableName: table }),
    { now: () => clock.now },
  );
  return { clock, throttle };
}

const signIn = (user: string, password: string, sourceIp: string) =>
  authorizeBasic(
    {
      methodArn: METHOD_ARN,
      headers: { Authorization: basic(user, password) },
      requestContext: { identity: { sourceIp } },
    },
    clients,
    { throttle: throttleAt(0).throttle },
  );

describe('failed sign-in throttling', () => {
  it('answers 200 rapid wrong guesses with 429s, then lets the right password in once the window passes', async () => {
    // Prepare: two authorizer instances sharing the table, one clock
    const { clock, throttle } = throttleAt(Date.UTC(2026, 0, 1));
    const other = createAuthThrottle(
      createDynamoAuthThrottleStore({ client: dynamo.client, tableName: table }),
      { now: () => clock.now },
    );
    const event = (password: string) => ({
      methodArn: METHOD_ARN,
      headers: { Authorization: basic('ops', password) },
      requestContext: { identity: { sourceIp: '203.0.113.7' } },
    });

    // Act: 200 wrong guesses, alternating instances, the clock moving 10 ms a guess
    const outcomes: string[] = [];
    const retryAfters: number[] = [];
    for (let i = 0; i < 200; i++) {
      const decision = await authorizeBasic(event(`guess-${i}`), clients, {
        throttle: i % 2 ? other : throttle,
      });
      if (!decision.allow) outcomes.push('401');
      else if ('throttled' in decision) {
        outcomes.push('429');
        retryAfters.push(decision.retryAfterSeconds);
      } else outcomes.push('200');
      clock.now += 10;
    }
    const lockedRight = await authorizeBasic(event('ops-secret'), clients, { throttle });

    // Assess: a few failures are free, the rest are throttled, never allowed
    expect(outcomes.slice(0, USER_POLICY.freeFailures)).toEqual(
      Array(USER_POLICY.freeFailures).fill('401'),
    );
    expect(outcomes.filter((o) => o === '429').length).toBeGreaterThan(150);
    expect(outcomes).not.toContain('200');
    // while locked even the right password is not checked: 429
    expect(lockedRight).toMatchObject({ allow: true, throttled: true });
    // the function behind the authorizer answers 429 with Retry-After
    if (!lockedRight.allow || !('throttled' in lockedRight)) throw new Error('not throttled');
    const answer = throttledAnswer({
      authorizer: lockedRight.result.context as Record<string, string>,
    });
    expect(answer?.statusCode).toBe(429);
    expect(answer?.headers?.['retry-after']).toBe(String(lockedRight.retryAfterSeconds));
    expect(JSON.parse(answer?.body ?? '{}')).toMatchObject({
      error: { code: 'too_many_failures' },
    });

    // Act: the window passes (the clock moves past Retry-After)
    clock.now += lockedRight.retryAfterSeconds * 1000 + 1;
    const after = await authorizeBasic(event('ops-secret'), clients, { throttle: other });

    // Assess
    expect(after).toMatchObject({ allow: true, username: 'ops' });
    expect(retryAfters.length).toBeGreaterThan(0);
  });

  it('grows the lock with each failure after it', async () => {
    // Prepare
    const { clock, throttle } = throttleAt(Date.UTC(2026, 1, 1));
    const who = { username: 'growing', sourceIp: '198.51.100.1' };
    const locks: number[] = [];

    // Act: fail, wait out the lock, fail again
    for (let i = 0; i < USER_POLICY.freeFailures + 4; i++) {
      const state = await throttle.check(who);
      if (state.locked) {
        locks.push(state.retryAfterSeconds);
        clock.now += state.retryAfterSeconds * 1000;
      }
      await throttle.failed(who);
    }

    // Assess: 1 s, 2 s, 4 s, 8 s
    expect(locks).toEqual([1, 2, 4, 8]);
  });

  it('locks an address (an IPv6 /64) trying many user names, not other addresses', async () => {
    // Prepare
    const { clock, throttle } = throttleAt(Date.UTC(2026, 2, 1));
    const ip = '2001:db8:1:2:3::4';

    // Act: one wrong password per name, from one /64
    for (let i = 0; i < 25; i++) {
      await throttle.failed({ username: `name-${i}`, sourceIp: `2001:db8:1:2::${i}` });
      clock.now += 5;
    }
    const fresh = await throttle.check({ username: 'never-tried', sourceIp: ip });
    const elsewhere = await throttle.check({ username: 'never-tried', sourceIp: '192.0.2.1' });

    // Assess
    expect(fresh).toMatchObject({ locked: true, lockedBy: 'address' });
    expect(elsewhere).toEqual({ locked: false, familiar: false, remember: true });
    expect(addressKeyOf(ip)).toBe('2001:db8:1:2::/64');
    expect(addressKeyOf('::ffff:192.0.2.9')).toBe('192.0.2.9');
  });

  it('forgets a user name once its last failure is old', async () => {
    // Prepare: one failure short of the lock
    const { clock, throttle } = throttleAt(Date.UTC(2026, 3, 1));
    const who = { username: 'forgetful' };
    for (let i = 0; i < USER_POLICY.freeFailures - 1; i++) await throttle.failed(who);

    // Act: the failure that would lock it comes after the counter is forgotten
    clock.now += USER_POLICY.forgetAfterMs + 1;
    await throttle.failed(who);
    const later = await throttle.check(who);
    // the same failure without the pause locks it (so the pause is what made the difference)
    await throttle.failed({ username: 'remembered' });
    for (let i = 0; i < USER_POLICY.freeFailures - 1; i++) {
      await throttle.failed({ username: 'remembered' });
    }

    // Assess
    expect(later).toEqual({ locked: false, familiar: false, remember: true });
    expect(await throttle.check({ username: 'remembered' })).toMatchObject({ locked: true });
  });

  it('signs in without the throttle when its store fails, and says so', async () => {
    // Prepare
    const errors: unknown[] = [];
    const broken = createAuthThrottle({
      read: () => Promise.reject(new Error('throttle table down')),
      recordFailure: () => Promise.reject(new Error('throttle table down')),
      readSeen: () => Promise.reject(new Error('throttle table down')),
      recordSeen: () => Promise.reject(new Error('throttle table down')),
    });

    // Act
    const decision = await authorizeBasic(
      { methodArn: METHOD_ARN, headers: { Authorization: basic('plain', 'plain-secret') } },
      clients,
      { throttle: broken, onThrottleError: (e) => errors.push(e) },
    );

    // Assess
    expect(decision).toMatchObject({ allow: true, username: 'plain' });
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('constant work whatever the user name', () => {
  it('runs one scrypt for a wrong password of a known, an unknown and a plain-password user alike', async () => {
    // Prepare
    const work = async (user: string) => {
      const before = scryptRuns();
      for (let i = 0; i < 10; i++) {
        await matchClient({ username: user, password: `wrong-${i}` }, clients);
      }
      return scryptRuns() - before;
    };

    // Act
    const known = await work('ops');
    const unknown = await work('eve');
    const plain = await work('plain');

    // Assess: the same scrypt work each time (timing follows it: bench/ measures the ratio)
    expect(known).toBe(10);
    expect(unknown).toBe(known);
    expect(plain).toBe(known);
  });

  it('still refuses an unknown user through the authorizer (a 401, not a lock) on first tries', async () => {
    const decision = await signIn('eve', 'whatever', '192.0.2.50');
    expect(decision).toEqual({ allow: false, reason: 'invalid' });
  });
});
