/**
 * The token-guessing throttle (intake/token-guessing.ts) on the ledger table (dynalite), with a
 * clock the test moves: 20 wrong credentials per profile and address answered 403, then 429 with
 * Retry-After while the lock lasts (doubling), other addresses and profiles untouched, and a
 * throttle that fails leaves the 403 as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTokenGuessThrottle,
  throttledRefusal,
} from '../../functions/intake/token-guessing.ts';
import { createDynamoAuthThrottleStore } from '../../functions/kernel/auth-throttle-dynamodb.ts';
import { problem } from '../../functions/kernel/http.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';

let dynamo: TestDynamo;
let table: string;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  table = await dynamo.createLedgerTable();
});
afterAll(async () => {
  await dynamo?.close();
});

const wrong = problem(403, 'invalid_token', 'O token não vale para este perfil.');

function throttleAt(start: number) {
  const clock = { now: start };
  const throttle = createTokenGuessThrottle(
    createDynamoAuthThrottleStore({ client: dynamo.client, tableName: table }),
    { now: () => clock.now },
  );
  const guess = (profileName: string, sourceIp: string | undefined) =>
    throttledRefusal(throttle, { profileName, sourceIp }, wrong);
  return { clock, guess };
}

describe('token guessing', () => {
  it('answers 403 to 20 wrong tokens, then 429 with Retry-After, doubling after each lock', async () => {
    const { clock, guess } = throttleAt(1_000_000);
    const first = [];
    for (let i = 0; i < 20; i += 1) first.push((await guess('site', '203.0.113.7')).statusCode);
    expect(first).toEqual(Array(20).fill(403));

    const locked = await guess('site', '203.0.113.7');
    expect(locked.statusCode).toBe(429);
    expect(locked.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(locked.body).error.code).toBe('too_many_failures');
    expect(JSON.parse(locked.body).error.message).toContain('tente de novo em 1 s');

    // Another address, another profile: their own counters.
    expect((await guess('site', '203.0.113.8')).statusCode).toBe(403);
    expect((await guess('rd', '203.0.113.7')).statusCode).toBe(403);

    // After the lock one more wrong token is counted (403) and locks for twice as long.
    clock.now += 1_000;
    expect((await guess('site', '203.0.113.7')).statusCode).toBe(403);
    const longer = await guess('site', '203.0.113.7');
    expect(longer.statusCode).toBe(429);
    expect(longer.headers?.['retry-after']).toBe('2');

    // An hour without wrong tokens: forgotten.
    clock.now += 60 * 60_000;
    expect((await guess('site', '203.0.113.7')).statusCode).toBe(403);
  });

  it('counts an IPv6 address by its /64', async () => {
    const { guess } = throttleAt(5_000_000);
    for (let i = 0; i < 20; i += 1) await guess('site', `2001:db8:5:6::${i + 1}`);
    expect((await guess('site', '2001:db8:5:6:ffff::1')).statusCode).toBe(429);
    expect((await guess('site', '2001:db8:5:7::1')).statusCode).toBe(403);
  });

  it('leaves the refusal as it was without an address, for other statuses, or when the store fails', async () => {
    const { guess } = throttleAt(9_000_000);
    for (let i = 0; i < 30; i += 1) expect((await guess('site', undefined)).statusCode).toBe(403);
    const missing = problem(401, 'missing_token', 'falta o token');
    const failing = {
      refused: () => Promise.reject(new Error('store down')),
    };
    const heard: unknown[] = [];
    const kept = await throttledRefusal(
      failing,
      { profileName: 'site', sourceIp: '198.51.100.1' },
      wrong,
      (error) => heard.push(error),
    );
    expect(kept).toBe(wrong);
    expect(heard).toHaveLength(1);
    expect(
      await throttledRefusal(failing, { profileName: 'site', sourceIp: '198.51.100.1' }, missing),
    ).toBe(missing);
  });
});
