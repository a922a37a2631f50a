/**
 * Nobody can lock an operator out (issue 23), end to end against what `npm start` runs, in child
 * processes on free ports and loopback addresses (the local gateway takes `sourceIp` from the
 * socket, so node:http's `localAddress` picks the address a request comes from):
 *
 * 1. yesterday: `ops` signs in once from its usual address, 127.0.0.1; the runtime stops, so no
 *    process remembers that sign-in (what a new Lambda instance, the CLI or the next morning
 *    see): only the ledger table, on disk under the same DATA_DIR, does;
 * 2. today: guessers at 127.0.0.2 and 127.0.0.3 send 32 wrong passwords for `ops` as fast as
 *    they can, then one more each time the name's lock ends (polling until the 429 turns into a
 *    401), so the lock grows;
 * 3. the right password from an address ops never used is still locked out (429: the lock is
 *    real), but ops from 127.0.0.1 signs in at once, and the guessers still get 429.
 *
 * Every 429 carries a Retry-After of at most 60 s: no address unfamiliar to a name waits longer
 * for that name. Nothing here sleeps a fixed time beyond short polling.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicHeader, waitFor } from '../helpers/abuse-kit.ts';
import { freePort, type LocalProcess, startLocal } from '../helpers/gateway-process.ts';
import { DEMO_CLIENTS } from '../helpers/lead-fixtures.ts';
import { testConfig } from '../helpers/local-runtime.ts';

const OPS = DEMO_CLIENTS[0];
const USUAL = '127.0.0.1';
const GUESSERS = ['127.0.0.2', '127.0.0.3'];
const NEW_PLACE = '127.0.0.4';

interface Answer {
  status: number;
  retryAfter?: number;
  code?: string;
}

let dataDir: string;
let local: LocalProcess | undefined;

/** Starts `npm start`'s runtime on free ports over the test's DATA_DIR. */
async function startRuntime(): Promise<LocalProcess> {
  return startLocal(
    {
      PORT: String(await freePort()),
      SANDBOX_PORT: String(await freePort()),
      LEADS_CONFIG: join(dataDir, 'config.json'),
      DATA_DIR: join(dataDir, 'data'),
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    { timeoutMs: 40_000 },
  );
}

/** GET /admin/leads as `username` from the loopback address `from`. */
function signIn(from: string, username: string, password: string): Promise<Answer> {
  const url = new URL('/admin/leads', local?.gatewayUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        localAddress: from,
        agent: false,
        headers: { authorization: basicHeader(username, password) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status !== 429) return resolve({ status });
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          resolve({
            status,
            retryAfter: Number(res.headers['retry-after']),
            code: body.error?.code,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let guesses = 0;
/** One wrong password for ops from the next guessing address. */
function guess(): Promise<Answer> {
  guesses += 1;
  return signIn(GUESSERS[guesses % GUESSERS.length] ?? '', OPS.username, `guess-${guesses}`);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'leads-lockout-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify(testConfig({}, DEMO_CLIENTS)));
  // Yesterday: ops signs in from its usual address, then the runtime stops.
  local = await startRuntime();
  const yesterday = await signIn(USUAL, OPS.username, OPS.password);
  expect(yesterday.status).toBe(200);
  expect(await local.stop()).toBe(0);
  // Today: a new process over the same ledger table.
  local = await startRuntime();
}, 120_000);

afterAll(async () => {
  if (local && local.child.exitCode === null && local.child.signalCode === null) {
    await local.stop('SIGKILL');
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('guessing an operator\u2019s password from elsewhere', () => {
  it('locks the guessers (never more than 60 s a lock) and never the operator at its usual address', async () => {
    // Act: 32 rapid wrong guesses from two addresses
    const rapid: Answer[] = [];
    for (let i = 0; i < 32; i++) rapid.push(await guess());
    // then one each time the lock ends, four times: each such guess counts and the lock doubles
    const locked: Answer[] = [];
    for (let round = 0; round < 4; round++) {
      await waitFor(
        'the name lock to end (a wrong guess answered 401)',
        async () => {
          const answer = await guess();
          if (answer.status === 429) {
            locked.push(answer);
            return undefined;
          }
          return answer;
        },
        150_000,
        200,
      );
    }
    // The name is locked now for at least 2^4 s: the right password from a new place...
    const newPlace = await signIn(NEW_PLACE, OPS.username, OPS.password);
    // ...the operator at its usual address...
    const operator = await signIn(USUAL, OPS.username, OPS.password);
    // ...and the guessers again
    const guessersAfter = [await guess(), await guess()];

    // Assess: the first five guesses were checked (401), the rest of the burst mostly locked
    expect(rapid.slice(0, 5).map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    expect(rapid.map((a) => a.status)).not.toContain(200);
    expect(rapid.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(newPlace).toMatchObject({ status: 429, code: 'too_many_failures' });
    expect(operator).toEqual({ status: 200 });
    for (const answer of guessersAfter) {
      expect(answer).toMatchObject({ status: 429, code: 'too_many_failures' });
    }
    // Every lock an unfamiliar address saw was short, and the waits grew
    const all = [...rapid, ...locked, newPlace, ...guessersAfter].filter((a) => a.status === 429);
    for (const answer of all) {
      expect(answer.retryAfter).toBeGreaterThanOrEqual(1);
      expect(answer.retryAfter).toBeLessThanOrEqual(60);
    }
    expect(newPlace.retryAfter).toBeGreaterThan(Math.max(...rapid.map((a) => a.retryAfter ?? 0)));
  }, 240_000);
});
