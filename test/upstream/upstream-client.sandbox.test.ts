/**
 * The upstream client against the sandbox upstream (real HTTP on loopback): pacing without a
 * single 429, 429 classification without a pacer, a real create, paging a branch, wrong
 * credentials and an outage. The minute-window proof has to wait out a real minute, so that
 * one test takes about 61 s; everything else takes a few seconds.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Prospect } from '../../functions/domain/prospect.ts';
import {
  createUpstreamClient,
  type UpstreamClientOptions,
} from '../../functions/upstream/upstream-client.ts';
import { UpstreamError } from '../../functions/upstream/upstream-errors.ts';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import type { SandboxStats } from '../../sandbox/stats.ts';
import { createPacer } from '../helpers/in-process-pacer.ts';
import { busiestWindows } from '../helpers/upstream-windows.ts';

const PROSPECTS_ROUTE = 'POST /api/v1/prospects';

/**
 * Pacers for the sandbox: the margin absorbs the jitter between the moment a request is granted
 * here and the moment the sandbox counts it. Requests of one burst reach the sandbox tens of ms
 * apart (new connections, a busy test machine), while the next burst arrives bunched up; with
 * only one request of headroom (4/s against 5/s) that jitter alone could draw a 429.
 */
const MARGIN_MS = 250;

function prospectNo(n: number): Prospect {
  return {
    name: 'Maria',
    lastName: `Silva ${n}`,
    email: `maria.${n}@example.com`,
    idBranch: 1,
    ddi: '55',
    cellphone: `119876${String(n).padStart(5, '0')}`,
    marketingType: 'Site',
    notes: undefined,
  };
}

async function control(sandbox: Sandbox, method: string, path: string, body?: unknown) {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  expect(response.ok, `${method} ${path} answered ${response.status}`).toBe(true);
  const text = await response.text();
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** Back to production-like behaviour with a clean slate. */
async function resetSandbox(sandbox: Sandbox, faults: Record<string, unknown> = {}) {
  await control(sandbox, 'POST', '/_sandbox/faults', faults);
  await control(sandbox, 'DELETE', '/_sandbox/rate-limit');
  await control(sandbox, 'DELETE', '/_sandbox/stats');
  await control(sandbox, 'DELETE', '/_sandbox/prospects');
}

async function prospectArrivals(sandbox: Sandbox) {
  const stats = (await control(sandbox, 'GET', '/_sandbox/stats')) as SandboxStats;
  const requests = stats.requests.filter((r) => r.route === PROSPECTS_ROUTE);
  return { byStatus: stats.byRoute[PROSPECTS_ROUTE] ?? {}, times: requests.map((r) => r.at) };
}

async function settleAll<T>(promises: Promise<T>[]) {
  const outcomes = await Promise.allSettled(promises);
  const values = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
  return { values, errors };
}

describe('upstream client against the sandbox', () => {
  let sandbox: Sandbox;

  function client(extra: Partial<UpstreamClientOptions> = {}) {
    return createUpstreamClient({
      baseUrl: sandbox.url,
      username: 'demo',
      password: 'demo',
      timeoutMs: 5_000,
      ...extra,
    });
  }

  beforeAll(async () => {
    sandbox = await createSandbox();
    // Warm both routes up (first-call compilation on either side skews the first burst).
    await resetSandbox(sandbox, { perSecond: 1_000, perMinute: 100_000 });
    const warm = client();
    await Promise.all([1, 2, 3, 4].map((n) => warm.createProspect(prospectNo(n))));
    await warm.listDebtors({ idBranch: 1, take: 50 });
  });

  afterAll(async () => {
    await sandbox.close();
  });

  beforeEach(async () => {
    await resetSandbox(sandbox);
  });

  it('keeps a burst within 4 per second without one 429 (sandbox: 5/s)', async () => {
    // Prepare
    await resetSandbox(sandbox, { perSecond: 5, perMinute: 1_000 });
    const pacer = createPacer({ maxPerSecond: 4, maxPerMinute: 1_000, marginMs: MARGIN_MS });
    const paced = client({ pacer });

    // Act
    const { values, errors } = await settleAll(
      Array.from({ length: 14 }, (_, n) => paced.createProspect(prospectNo(n))),
    );

    // Assess
    expect(errors).toEqual([]);
    expect(new Set(values.map((v) => v.idProspect)).size).toBe(14);
    const { byStatus, times } = await prospectArrivals(sandbox);
    expect(byStatus).toEqual({ '200': 14 });
    expect(busiestWindows(times).second).toBe(4);
  });

  it('answers a burst without a pacer with 429s classified rate-limited', async () => {
    // Prepare
    const unpaced = client();

    // Act
    const { values, errors } = await settleAll(
      Array.from({ length: 10 }, (_, n) => unpaced.createProspect(prospectNo(n))),
    );

    // Assess: the sandbox admits 5 per second, the rest are refused with Retry-After
    expect(values).toHaveLength(5);
    expect(errors).toHaveLength(5);
    for (const error of errors) {
      expect(error).toBeInstanceOf(UpstreamError);
      const upstream = error as UpstreamError;
      expect(upstream.kind).toBe('rate-limited');
      expect(upstream.status).toBe(429);
      expect(upstream.retryAfterMs).toBeGreaterThanOrEqual(1_000);
      expect(upstream.messages).toEqual(['API calls quota exceeded! maximum admitted 5 per 1s.']);
    }
  });

  it('creates a prospect whose id the sandbox has stored', async () => {
    // Prepare
    const plain = client({ partnerTokenField: 'tokenGympass' });

    // Act
    const created = await plain.createProspect({ ...prospectNo(1), tokenPartner: 'wellhub-1' });

    // Assess
    const stored = (await control(sandbox, 'GET', '/_sandbox/prospects')) as Array<{
      idProspect: number;
      body: Record<string, unknown>;
    }>;
    expect(stored.map((p) => p.idProspect)).toEqual([created.idProspect]);
    expect(stored[0]?.body).toMatchObject({
      email: 'maria.1@example.com',
      tokenGympass: 'wellhub-1',
    });
    expect(stored[0]?.body).not.toHaveProperty('notes');
  });

  it('reads the bare-integer id the sandbox can answer', async () => {
    // Prepare
    await resetSandbox(sandbox, { bareId: true });

    // Act
    const created = await client().createProspect(prospectNo(2));

    // Assess
    expect(typeof created.idProspect).toBe('number');
  });

  it('pages every debtor of a branch exactly once', async () => {
    // Prepare: limits out of the way; paging is what is tested here
    await resetSandbox(sandbox, { perSecond: 1_000, perMinute: 100_000 });
    await control(sandbox, 'POST', '/_sandbox/debtors', {
      count: 180,
      branches: [1, 2, 3],
      seed: 7,
    });
    const pages = [];

    // Act
    for await (const page of client().pageDebtors({ idBranch: 2 }, { pageSize: 9 })) {
      pages.push(page);
    }

    // Assess
    const rows = pages.flatMap((page) => page.results);
    const total = pages[0]?.total ?? -1;
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.every((page) => page.total === total)).toBe(true);
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((row) => row.receivableId)).size).toBe(total);
    expect(rows.every((row) => row.branchId === 2)).toBe(true);
  });

  it('classifies a wrong password as unauthorized', async () => {
    // Prepare
    const wrong = client({ password: 'not-the-password' });

    // Act
    const error = await wrong.listDebtors({ idBranch: 1 }).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'unauthorized', status: 401, messages: ['Unauthorized'] });
    expect((error as Error).message).not.toContain('not-the-password');
  });

  it.each([
    { faults: { outage: true }, status: undefined, says: 'falhou:' },
    { faults: { errorRate: 1, errorStatus: 503 }, status: 503, says: 'falhou (503)' },
    { faults: { latencyMs: 1_000 }, status: undefined, says: 'ficou sem resposta por 300 ms' },
  ])('classifies $faults as unavailable', async ({ faults, status, says }) => {
    // Prepare
    await resetSandbox(sandbox, faults);
    // Only the latency case times out: the others must fail for their own reason, however slow
    // the machine is (a 503 answered in 400 ms on a loaded machine is still a 503).
    const impatient = client({ timeoutMs: 'latencyMs' in faults ? 300 : 10_000 });

    // Act
    const created = await impatient.createProspect(prospectNo(3)).catch((e: unknown) => e);
    const listed = await impatient.listDebtors({ idBranch: 1 }).catch((e: unknown) => e);

    // Assess
    for (const error of [created, listed]) {
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ kind: 'unavailable', status });
      expect((error as Error).message).toContain(says);
    }
  });

  it('waits out the minute window instead of drawing a 429 (sandbox: 5/s, 12/min)', async () => {
    // Prepare: the client allows 4/s and 10/min, a little under the sandbox's limits
    await resetSandbox(sandbox, { perSecond: 5, perMinute: 12 });
    const pacer = createPacer({ maxPerSecond: 4, maxPerMinute: 10, marginMs: MARGIN_MS });
    const paced = client({ pacer });

    // Act: 14 at once; 10 fit in the first minute, 4 must wait for it to slide
    const { values, errors } = await settleAll(
      Array.from({ length: 14 }, (_, n) => paced.createProspect(prospectNo(n))),
    );

    // Assess
    expect(errors).toEqual([]);
    expect(values).toHaveLength(14);
    const { byStatus, times } = await prospectArrivals(sandbox);
    expect(byStatus).toEqual({ '200': 14 });
    expect(busiestWindows(times)).toEqual({ second: 4, minute: 10 });
    // The first 60 s window holds exactly the 10 the client allows (the sandbox would take 12).
    const first = Math.min(...times);
    expect(times.filter((at) => at < first + 60_000)).toHaveLength(10);
  }, 90_000);
});
