/**
 * Familiar addresses (kernel/auth-throttle.ts): a name's failed-sign-in lock never keeps out an
 * address that signed in as that name before, stays short for every other address, and the
 * address's own counter still slows whoever guesses from it. On dynalite (the same DynamoDB code
 * as on AWS), through the authorizer's decision, with an injected clock (nothing is slept).
 *
 * client-auth.ts remembers a right password for a few minutes in this process and then skips the
 * throttle, so each test signs in with its own client, and an earlier instance's sign-in is
 * written with `throttle.succeeded` where the point is what a new instance sees.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBasic } from '../../functions/authorizer/authorizer-event.ts';
import {
  ADDRESS_POLICY,
  type AuthThrottleStore,
  createAuthThrottle,
  FAMILIAR_POLICY,
  type SignIn,
  USER_POLICY,
} from '../../functions/kernel/auth-throttle.ts';
import { createDynamoAuthThrottleStore } from '../../functions/kernel/auth-throttle-dynamodb.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';

const METHOD_ARN = 'arn:aws:execute-api:sa-east-1:123456789012:abc123defg/prod/GET/admin/leads';
const HOME = '198.51.100.10';
const DAY = 24 * 60 * 60_000;

let dynamo: TestDynamo;
let table: string;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  table = await dynamo.createLedgerTable();
});
afterAll(async () => {
  await dynamo?.close();
});

/** A client of its own for one test (see the module comment). */
const clientNamed = (username: string): Client => ({
  username,
  password: `${username}-secret`,
  roles: ['admin'],
});

/** The store on the shared table, counting the items each call reads. */
function countingStore() {
  const store = createDynamoAuthThrottleStore({ client: dynamo.client, tableName: table });
  const reads: string[] = [];
  const counted: AuthThrottleStore = {
    ...store,
    read: (key) => {
      reads.push(key);
      return store.read(key);
    },
    readSeen: (key) => {
      reads.push(key);
      return store.readSeen(key);
    },
  };
  return { store: counted, reads };
}

/** A throttle on the shared table whose clock the test moves. */
function throttleAt(start: number) {
  const clock = { now: start };
  const throttle = createAuthThrottle(countingStore().store, { now: () => clock.now });
  return { clock, throttle };
}

/** What the caller would get: 200, 401 or 429 (with its Retry-After and which lock). */
async function signIn(
  client: Client,
  password: string,
  sourceIp: string,
  throttle: ReturnType<typeof createAuthThrottle>,
  username = client.username,
) {
  const decision = await authorizeBasic(
    {
      methodArn: METHOD_ARN,
      headers: {
        Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
      },
      requestContext: { identity: { sourceIp } },
    },
    [client],
    { throttle },
  );
  if (!decision.allow) return { status: 401 } as const;
  if ('throttled' in decision) {
    return { status: 429, retryAfter: decision.retryAfterSeconds, by: decision.lockedBy } as const;
  }
  return { status: 200 } as const;
}

/** `count` wrong guesses for the client from fresh addresses (none of them locks itself). */
async function guessFromEverywhere(
  client: Client,
  count: number,
  clock: { now: number },
  throttle: ReturnType<typeof createAuthThrottle>,
  net = '203.0.113',
) {
  const answers: Awaited<ReturnType<typeof signIn>>[] = [];
  for (let i = 0; i < count; i++) {
    answers.push(await signIn(client, `guess-${i}`, `${net}.${i % 250}`, throttle));
    clock.now += 100;
  }
  return answers;
}

describe('a familiar address', () => {
  it('is remembered in the table when the right password arrives, for that name only', async () => {
    // Prepare
    const { throttle } = throttleAt(Date.UTC(2026, 4, 1));
    const ana = clientNamed('ana');

    // Act
    const first = await signIn(ana, 'ana-secret', HOME, throttle);

    // Assess: a new instance (a fresh throttle) sees the address as familiar for ana only
    const fresh = throttleAt(Date.UTC(2026, 4, 1) + 60_000).throttle;
    expect(first).toEqual({ status: 200 });
    expect(await fresh.check({ username: 'ana', sourceIp: HOME })).toEqual({
      locked: false,
      familiar: true,
      remember: false,
    });
    expect(await fresh.check({ username: 'bia', sourceIp: HOME })).toMatchObject({
      familiar: false,
    });
    expect(await fresh.check({ username: 'ana', sourceIp: '192.0.2.77' })).toMatchObject({
      familiar: false,
    });
  });

  it('signs in at once while the name is locked for every other address, and the lock stays', async () => {
    // Prepare: ops signed in from home yesterday (another instance), guessers everywhere today
    const start = Date.UTC(2026, 4, 2);
    const { clock, throttle } = throttleAt(start);
    const ops = clientNamed('ops-locked');
    await throttle.succeeded({ username: ops.username, sourceIp: HOME });
    clock.now += DAY;
    const guesses = await guessFromEverywhere(ops, 40, clock, throttle);

    // Act: the right password from a new address, then from home, then another guess
    const newPlace = await signIn(ops, 'ops-locked-secret', '192.0.2.200', throttle);
    const home = await signIn(ops, 'ops-locked-secret', HOME, throttle);
    const guessAfter = await signIn(ops, 'one-more', '203.0.113.251', throttle);

    // Assess
    expect(guesses.slice(0, USER_POLICY.freeFailures).map((a) => a.status)).toEqual(
      Array(USER_POLICY.freeFailures).fill(401),
    );
    expect(guesses.filter((a) => a.status === 429).length).toBeGreaterThan(20);
    expect(newPlace).toMatchObject({ status: 429, by: 'name' });
    expect(home).toEqual({ status: 200 });
    // the operator's sign-in cleared nothing: the guessers are still locked
    expect(guessAfter).toMatchObject({ status: 429, by: 'name' });
  });

  it("does not feed the name's counter with its own typos", async () => {
    // Prepare
    const { clock, throttle } = throttleAt(Date.UTC(2026, 4, 3));
    const rui = clientNamed('rui');
    await throttle.succeeded({ username: rui.username, sourceIp: HOME });

    // Act: ten typos at home (more than the name allows, fewer than the address does)
    const typos: number[] = [];
    for (let i = 0; i < 10; i++) {
      typos.push((await signIn(rui, `typo-${i}`, HOME, throttle)).status);
      clock.now += 1_000;
    }
    const away = await throttle.check({ username: rui.username, sourceIp: '192.0.2.9' });

    // Assess: every typo was checked (401), and the name is not locked elsewhere
    expect(typos).toEqual(Array(10).fill(401));
    expect(away).toMatchObject({ locked: false });
  });
});

describe('an unfamiliar address', () => {
  it('never waits more than the short cap for the name, however long the guessing goes on', async () => {
    // Prepare
    const { clock, throttle } = throttleAt(Date.UTC(2026, 4, 4));
    const who = clientNamed('capped');
    const locks: number[] = [];

    // Act: a guess from a new address each time the lock ends, 14 times past the free ones
    for (let i = 0; locks.length < 14; i++) {
      const answer = await signIn(who, `guess-${i}`, `198.18.${i >> 8}.${i & 255}`, throttle);
      if (answer.status === 429) {
        locks.push(answer.retryAfter);
        clock.now += answer.retryAfter * 1000;
      }
    }

    // Assess: 1 s doubling to 60 s, then 60 s for good
    expect(USER_POLICY.capMs).toBe(60_000);
    expect(locks).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60, 60, 60, 60, 60, 60]);
  });
});

describe("a guessing address's own counter", () => {
  it('still locks it, familiar names included, up to its longer cap, and no other address', async () => {
    // Prepare: the address is familiar for its own operator
    const { clock, throttle } = throttleAt(Date.UTC(2026, 4, 5));
    const ops = clientNamed('ops-shared');
    const office = '100.64.7.7';
    await throttle.succeeded({ username: ops.username, sourceIp: office });
    const locks: number[] = [];

    // Act: one name after another from the office, each time its lock ends (the last lock stays)
    for (let i = 0; locks.length < 12; i++) {
      const answer = await signIn(clientNamed(`name-${i}`), 'wrong', office, throttle);
      if (answer.status !== 429) continue;
      locks.push(answer.retryAfter);
      if (locks.length < 12) clock.now += answer.retryAfter * 1000;
    }
    const opsThere = await signIn(ops, 'ops-shared-secret', office, throttle);
    const opsElsewhere = await signIn(ops, 'ops-shared-secret', '192.0.2.31', throttle);

    // Assess: 20 free failures, then doubling up to 15 minutes
    expect(ADDRESS_POLICY.freeFailures).toBe(20);
    expect(locks.slice(0, 3)).toEqual([1, 2, 4]);
    expect(locks.at(-1)).toBe(15 * 60);
    expect(opsThere).toMatchObject({ status: 429, by: 'address' });
    expect(opsElsewhere).toEqual({ status: 200 });
  });
});

describe('forgetting', () => {
  it('forgets an address 90 days after its last right password; a sign-in rewrites it at most daily', async () => {
    // Prepare
    const start = Date.UTC(2026, 5, 1);
    const { clock, throttle } = throttleAt(start);
    const who: SignIn = { username: 'seasonal', sourceIp: HOME };
    await throttle.succeeded(who);

    // Act
    clock.now = start + 2 * 60 * 60_000;
    const hoursLater = await throttle.check(who);
    clock.now = start + DAY + 1;
    const dayLater = await throttle.check(who);
    clock.now = start + FAMILIAR_POLICY.rememberMs + 1;
    const forgotten = await throttle.check(who);
    // Signed in again on day 60: familiar until day 150
    clock.now = start + 60 * DAY;
    await throttle.succeeded(who);
    clock.now = start + FAMILIAR_POLICY.rememberMs + 1;
    const renewed = await throttle.check(who);

    // Assess
    expect(FAMILIAR_POLICY.rememberMs).toBe(90 * DAY);
    expect(hoursLater).toEqual({ locked: false, familiar: true, remember: false });
    expect(dayLater).toEqual({ locked: false, familiar: true, remember: true });
    expect(forgotten).toEqual({ locked: false, familiar: false, remember: true });
    expect(renewed).toMatchObject({ familiar: true });
  });

  it('writes nothing on a right password from an address remembered less than a day ago', async () => {
    // Prepare
    const { clock, throttle } = throttleAt(Date.UTC(2026, 5, 2));
    const lia = clientNamed('lia');
    await throttle.succeeded({ username: lia.username, sourceIp: HOME });
    const before = await readSeenAt(lia.username, HOME);

    // Act
    clock.now += 60 * 60_000;
    const answer = await signIn(lia, 'lia-secret', HOME, throttle);

    // Assess: signed in, the item untouched (its time is the first sign-in's)
    expect(answer).toEqual({ status: 200 });
    expect(await readSeenAt(lia.username, HOME)).toBe(before);
    expect(before).toBe(Date.UTC(2026, 5, 2));
  });
});

describe('the items', () => {
  it('hold hashed keys under authfail#, with no name or address in clear', async () => {
    // Prepare: a failure and a success with distinctive values
    const { throttle } = throttleAt(Date.UTC(2026, 6, 1));
    const name = 'Distinctive.Name';
    const address = '2001:db8:abcd:12::99';
    await throttle.failed({ username: name, sourceIp: address });
    await throttle.succeeded({ username: name, sourceIp: address });

    // Act
    const items = await allItems();

    // Assess
    const text = JSON.stringify(items).toLowerCase();
    expect(text).not.toContain('distinctive');
    expect(text).not.toContain('2001:db8');
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(String(item.pk)).toMatch(/^authfail#(user|addr|seen)#[0-9a-f]{64}$/);
      expect(Number.isInteger(item.expiresAt)).toBe(true);
    }
    // the familiar address of this sign-in, by its /64, kept 90 days
    const seen = items.find((item) => item.pk === seenKey(name, '2001:db8:abcd:12::/64'));
    expect(seen).toMatchObject({
      kind: 'authseen',
      seenAt: Date.UTC(2026, 6, 1),
      expiresAt: (Date.UTC(2026, 6, 1) + FAMILIAR_POLICY.rememberMs) / 1000,
    });
  });
});

describe('equal work', () => {
  it('reads the same three items for a known, an unknown, a familiar and an unfamiliar sign-in', async () => {
    // Prepare
    const { store, reads } = countingStore();
    const throttle = createAuthThrottle(store);
    const vic = clientNamed('vic');
    await throttle.succeeded({ username: vic.username, sourceIp: HOME });
    const readsOf = async (username: string, password: string, sourceIp: string) => {
      reads.length = 0;
      const answer = await signIn(vic, password, sourceIp, throttle, username);
      expect(answer).toEqual({ status: 401 });
      return reads.map((key) => key.split('#')[1]);
    };

    // Act
    const known = await readsOf('vic', 'wrong', '192.0.2.60');
    const unknown = await readsOf('nobody-at-all', 'wrong', '192.0.2.61');
    const familiar = await readsOf('vic', 'wrong-again', HOME);

    // Assess
    expect(known).toEqual(['user', 'addr', 'seen']);
    expect(unknown).toEqual(known);
    expect(familiar).toEqual(known);
  });
});

function seenKey(username: string, addressKey: string): string {
  const hash = createHash('sha256').update(`${username}\0${addressKey}`, 'utf8').digest('hex');
  return `authfail#seen#${hash}`;
}

async function readSeenAt(username: string, sourceIp: string) {
  const store = createDynamoAuthThrottleStore({ client: dynamo.client, tableName: table });
  return store.readSeen(seenKey(username, sourceIp));
}

async function allItems() {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.client.scan({
      TableName: table,
      ConsistentRead: true,
      ...(start && { ExclusiveStartKey: start }),
    });
    items.push(...page.Items);
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
