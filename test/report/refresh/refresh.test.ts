/**
 * The refresh against a real sandbox upstream: exact rows, summary and page calls for data sets
 * of 0, 1, 50, 51 and 5,000 debtors; pacing within production's limits; 429s honoured; a failed
 * refresh keeps the previous snapshot served as stale; a refresh cut short resumes from its
 * checkpoint without fetching a page twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalConfigSource, parseConfig } from '../../../functions/config/config-local.ts';
import { AwsConfigError } from '../../../functions/config/secrets-aws.ts';
import type { Debtor, DebtorsList } from '../../../functions/domain/debtors.ts';
import { queryDebtors } from '../../../functions/domain/debtors-query.ts';
import { type DebtorsSnapshot, isStale } from '../../../functions/domain/debtors-report.ts';
import type { RefreshDeps, RefreshOutcome } from '../../../functions/report/refresh/context.ts';
import { PAGE_SIZE } from '../../../functions/report/refresh/progress.ts';
import { refreshDebtors, refreshSource } from '../../../functions/report/refresh/refresh.ts';
import type { ReportStore } from '../../../functions/report/store/report-store.ts';
import { createFileReportStore } from '../../../functions/report/store/report-store-file.ts';
import {
  type RefreshMessage,
  type RefreshRequest,
  refreshMessage,
} from '../../../functions/report/trigger/report-trigger.ts';
import { type PacerLimits, pacedUpstream } from '../../../functions/upstream/paced-client.ts';
import { type Pacer, PacerWaitError } from '../../../functions/upstream/pacer.ts';
import {
  createUpstreamClient,
  type UpstreamClient,
} from '../../../functions/upstream/upstream-client.ts';
import { createSandbox, type Sandbox } from '../../../sandbox/server.ts';
import type { SandboxStats } from '../../../sandbox/stats.ts';
import { createPacer } from '../../helpers/in-process-pacer.ts';
import { reportResult } from '../../helpers/results.ts';

const DEBTORS_ROUTE = 'GET /api/v1/receivables/debtors';
const BRANCHES = [1, 2, 3];
const FIXED_NOW = new Date('2026-08-01T12:00:00.000Z');
const RAISED_LIMITS = { perSecond: 1000, perMinute: 100_000 };
const fastPacer = () => createPacer({ maxPerSecond: 1000, maxPerMinute: 100_000 });

let sandbox: Sandbox;
const dirs: string[] = [];

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, now: () => FIXED_NOW });
});

afterAll(async () => {
  await sandbox.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await control('/_sandbox/faults', 'POST', RAISED_LIMITS);
});

async function control(path: string, method: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  expect(response.ok, `${method} ${path}`).toBe(true);
  return response;
}

/** Sets the sandbox's debtors and limits and forgets its stats and rate-limit logs. */
async function prepare(
  count: number,
  branches: number[],
  limits: Record<string, unknown> = RAISED_LIMITS,
) {
  await control('/_sandbox/debtors', 'POST', { count, branches, seed: 7 });
  await control('/_sandbox/faults', 'POST', limits);
  await control('/_sandbox/rate-limit', 'DELETE');
  await control('/_sandbox/stats', 'DELETE');
}

async function stats(): Promise<SandboxStats> {
  return (await (await control('/_sandbox/stats', 'GET')).json()) as SandboxStats;
}

async function debtorCalls(status = '200'): Promise<number> {
  return (await stats()).byRoute[DEBTORS_ROUTE]?.[status] ?? 0;
}

function client(pacer: Pacer | null = fastPacer()): UpstreamClient {
  return createUpstreamClient({
    baseUrl: sandbox.url,
    username: 'demo',
    password: 'demo',
    ...(pacer && { pacer }),
  });
}

/** A client that counts the pages it got (to cut a refresh short after N of them). */
function countingClient(): { client: UpstreamClient; pages(): number } {
  const upstream = client();
  let pages = 0;
  const counting = {
    ...upstream,
    listDebtors: async (...args: Parameters<UpstreamClient['listDebtors']>) => {
      const page = await upstream.listDebtors(...args);
      pages += 1;
      return page;
    },
  };
  return { client: counting, pages: () => pages };
}

/** Every row and the summary the sandbox lists without a branch filter (paged with take 50). */
async function sandboxListing(query = ''): Promise<DebtorsList> {
  const rows: Debtor[] = [];
  let last: DebtorsList | undefined;
  for (let skip = 0; ; skip += 50) {
    const response = await fetch(
      `${sandbox.url}/api/v1/receivables/debtors?take=50&skip=${skip}${query}`,
      { headers: { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` } },
    );
    last = (await response.json()) as DebtorsList;
    rows.push(...last.results);
    if (skip + 50 >= last.total) break;
  }
  return { results: rows, total: last.total, summary: last.summary };
}

interface Harness {
  store: ReportStore;
  requests: RefreshRequest[];
  deps(overrides?: Partial<RefreshDeps>): RefreshDeps;
  run(message?: RefreshMessage, overrides?: Partial<RefreshDeps>): Promise<RefreshOutcome>;
}

function harness(options: { branches?: number[]; upstream?: UpstreamClient } = {}): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'leads-refresh-'));
  dirs.push(dir);
  const store = createFileReportStore({ dir });
  const requests: RefreshRequest[] = [];
  const upstream = options.upstream ?? client();
  const deps = (overrides: Partial<RefreshDeps> = {}): RefreshDeps => ({
    store,
    trigger: {
      async requestRefresh(request = {}) {
        requests.push(request);
      },
    },
    source: async () => ({
      client: upstream,
      report: { branches: options.branches ?? BRANCHES, refreshSeconds: 900 },
    }),
    ...overrides,
  });
  return {
    store,
    requests,
    deps,
    run: (message = refreshMessage({ reason: 'admin' }), overrides = {}) =>
      refreshDebtors(deps(overrides), message),
  };
}

function expectedPageCalls(rows: readonly Debtor[], branches: readonly number[]): number {
  return branches.reduce((sum, branch) => {
    const own = rows.filter((row) => row.branchId === branch).length;
    return sum + Math.max(1, Math.ceil(own / PAGE_SIZE));
  }, 0);
}

/** A snapshot without its timestamps, to compare two refreshes of the same data. */
function content(snapshot: DebtorsSnapshot) {
  const { startedAt: _s, generatedAt: _g, ...rest } = snapshot;
  return rest;
}

async function current(store: ReportStore): Promise<DebtorsSnapshot> {
  const stored = await store.readSnapshot();
  if (!stored) throw new Error('no snapshot');
  return stored.snapshot;
}

describe('refreshDebtors against the sandbox', () => {
  it.each([
    [0, BRANCHES],
    [1, BRANCHES],
    [50, BRANCHES],
    [51, BRANCHES],
    [50, [1]],
    [51, [1]],
    [5_000, BRANCHES],
  ])(
    '%i debtors over branches %j: exactly the upstream rows, summary and page calls',
    async (count, branches) => {
      // Prepare
      await prepare(count, branches);
      const h = harness({ branches });

      // Act
      const startedAt = performance.now();
      const outcome = await h.run();
      const elapsedMs = performance.now() - startedAt;
      const calls = await debtorCalls();

      // Assess
      const listing = await sandboxListing();
      const snapshot = await current(h.store);
      expect(outcome).toMatchObject({ status: 'succeeded', rows: count, resumed: false });
      expect(listing.results).toHaveLength(count);
      expect(snapshot.rows.map((r) => r.receivableId)).toEqual(
        listing.results.map((r) => r.receivableId),
      );
      expect(snapshot.rows).toEqual(listing.results);
      expect(snapshot.summary).toEqual(listing.summary);
      expect(snapshot.summarySource).toBe(branches.length === 1 ? 'upstream' : 'upstream-combined');
      const pages = expectedPageCalls(listing.results, branches);
      expect(snapshot.pageCalls).toBe(pages);
      expect(calls).toBe(pages);
      expect(await debtorCalls('429')).toBe(0);
      expect(snapshot.warnings).toEqual([]);
      expect(snapshot.byBranch.map((b) => b.total)).toEqual(
        branches.map((b) => listing.results.filter((r) => r.branchId === b).length),
      );
      if (count === 5_000) {
        reportResult(`refresh of 5,000 rows: ${pages} pages in ${Math.round(elapsedMs)} ms`);
      }
    },
  );

  it("answers the seed's list from the snapshot exactly as the upstream does, query by query", async () => {
    // Prepare
    await prepare(700, BRANCHES);
    const h = harness();
    await h.run();
    const snapshot = await current(h.store);
    const queries = [
      '',
      '&idBranch=2',
      '&debtStatus=1',
      '&debtStatus=Recovered',
      '&memberStatus=3',
      '&idBranch=1&debtStatus=open&memberStatus=Active',
      '&idBranch=9',
    ];

    for (const filter of queries) {
      for (const [take, skip] of [
        [50, 0],
        [17, 33],
        [50, 650],
        [3, 10_000],
      ] as const) {
        // Act
        const upstream = (await (
          await fetch(
            `${sandbox.url}/api/v1/receivables/debtors?take=${take}&skip=${skip}${filter}`,
            { headers: { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` } },
          )
        ).json()) as DebtorsList;
        const params = new URLSearchParams(filter.slice(1));
        const report = queryDebtors(snapshot.rows, {
          take,
          skip,
          ...(params.has('idBranch') && { idBranch: Number(params.get('idBranch')) }),
          ...(params.has('debtStatus') && { debtStatus: params.get('debtStatus') ?? '' }),
          ...(params.has('memberStatus') && { memberStatus: params.get('memberStatus') ?? '' }),
        });

        // Assess
        expect(report, `${filter} take=${take} skip=${skip}`).toEqual(upstream);
      }
    }
  });

  it("keeps within production's limits: a paced refresh draws no 429", async () => {
    // Prepare: the sandbox's real limits (5/s, 40/min); the demo config's pacing (4/s, 36/min)
    await prepare(400, BRANCHES, {});
    const pacer = createPacer({ maxPerSecond: 4, maxPerMinute: 36, marginMs: 50 });
    const h = harness({ upstream: client(pacer) });

    // Act
    const outcome = await h.run();

    // Assess
    const all = await stats();
    await control('/_sandbox/faults', 'POST', RAISED_LIMITS);
    const listing = await sandboxListing();
    const pages = expectedPageCalls(listing.results, BRANCHES);
    expect(pages).toBeGreaterThan(5);
    expect(outcome).toMatchObject({ status: 'succeeded', rows: 400, pageCalls: pages });
    expect(all.byRoute[DEBTORS_ROUTE]).toEqual({ '200': pages });
    const times = all.requests.filter((r) => r.route === DEBTORS_ROUTE).map((r) => r.at);
    for (let i = 4; i < times.length; i += 1) {
      expect((times[i] ?? 0) - (times[i - 4] ?? 0)).toBeGreaterThanOrEqual(1000);
    }
  });

  it("honours 429 Retry-After: the page is asked again once the pacer's pause ends", async () => {
    // Prepare: a pacer far above the sandbox's real limits, so the sandbox refuses some calls
    await prepare(400, BRANCHES, {});
    const h = harness({ upstream: client(fastPacer()) });

    // Act
    const outcome = await h.run();

    // Assess
    const rateLimited = await debtorCalls('429');
    await control('/_sandbox/faults', 'POST', RAISED_LIMITS);
    const listing = await sandboxListing();
    const pages = expectedPageCalls(listing.results, BRANCHES);
    expect(rateLimited).toBeGreaterThan(0);
    expect(outcome).toMatchObject({ status: 'succeeded', pageCalls: pages + rateLimited });
    expect((await current(h.store)).rows).toEqual(listing.results);
  });

  it('fails after the bounded number of 429 retries, keeping no half-built snapshot', async () => {
    // Prepare: no pacer at all, so nothing waits out Retry-After
    await prepare(400, BRANCHES, { perSecond: 1, perMinute: 1 });
    const h = harness({ upstream: client(null) });

    // Act
    const outcome = await h.run(undefined, { rateLimitRetries: 2 });

    // Assess
    expect(outcome).toMatchObject({
      status: 'failed',
      error: 'upstream rate-limited (HTTP 429) listing branch 1 at skip 50 after 3 attempts',
    });
    expect(await h.store.readSnapshot()).toBeUndefined();
  });
});

describe('a failed refresh', () => {
  it('leaves the last snapshot served, marked stale, and counts the failure', async () => {
    // Prepare
    await prepare(120, BRANCHES);
    const h = harness();
    await h.run();
    const before = await h.store.readSnapshot();
    await control('/_sandbox/faults', 'POST', { ...RAISED_LIMITS, outage: true });

    // Act
    const outcome = await h.run();

    // Assess
    const after = await h.store.readSnapshot();
    const status = await h.store.readStatus();
    expect(outcome).toMatchObject({
      status: 'failed',
      error: 'upstream unavailable listing branch 1 at skip 0',
    });
    expect(after).toEqual(before);
    expect(status).toMatchObject({
      failures: 1,
      lastError: outcome.status === 'failed' && outcome.error,
    });
    expect(status.lastFailedAt).toBeDefined();
    expect(isStale(after?.snapshot, status, new Date(), 900)).toBe(true);
    expect(JSON.stringify(status)).not.toMatch(/demo|ZGVtbzpkZW1v/);
  });

  it('counts consecutive failures, and a later success clears them', async () => {
    // Prepare
    await prepare(60, BRANCHES);
    const h = harness();
    await h.run();
    await control('/_sandbox/faults', 'POST', { ...RAISED_LIMITS, errorRate: 1 });
    await h.run();
    await h.run();
    expect((await h.store.readStatus()).failures).toBe(2);
    await control('/_sandbox/faults', 'POST', RAISED_LIMITS);

    // Act
    const outcome = await h.run();

    // Assess
    const status = await h.store.readStatus();
    expect(outcome.status).toBe('succeeded');
    expect(status.failures).toBe(0);
    expect(isStale((await h.store.readSnapshot())?.snapshot, status, new Date(), 900)).toBe(false);
  });

  it('records a configuration failure (credentials missing) like any other', async () => {
    // Prepare
    const h = harness();

    // Act
    const outcome = await h.run(undefined, {
      source: async () => {
        throw new AwsConfigError('secret leads/prod/upstream: key "password" is missing');
      },
    });

    // Assess
    expect(outcome).toMatchObject({
      status: 'failed',
      error: 'AwsConfigError: secret leads/prod/upstream: key "password" is missing',
    });
    expect(await h.store.readStatus()).toMatchObject({ failures: 1 });
  });

  it('keeps the pages read before the failure: the next refresh continues from them', async () => {
    // Prepare: the upstream fails on the fourth page
    await prepare(400, BRANCHES);
    const upstream = client();
    let calls = 0;
    const flaky = {
      ...upstream,
      listDebtors: (...args: Parameters<UpstreamClient['listDebtors']>) => {
        calls += 1;
        if (calls === 4) return Promise.reject(new TypeError('socket hang up'));
        return upstream.listDebtors(...args);
      },
    };
    const h = harness({ upstream: flaky });
    const failed = await h.run();
    expect(failed.status).toBe('failed');

    // Act
    const outcome = await h.run();

    // Assess
    const listing = await sandboxListing();
    const pages = expectedPageCalls(listing.results, BRANCHES);
    expect(outcome).toMatchObject({ status: 'succeeded', resumed: true, pageCalls: pages + 1 });
    expect(await debtorCalls()).toBe(pages + Math.ceil(400 / 50));
    expect((await current(h.store)).rows).toEqual(listing.results);
  });
});

describe('a refresh cut short', () => {
  it.each([1, 3, 4, 8])(
    'after %i page(s): checkpoints, continues, and ends identical to an uncut refresh',
    async (cutAfter) => {
      // Prepare
      await prepare(420, BRANCHES);
      const uncut = harness();
      await uncut.run();
      const reference = await current(uncut.store);
      await control('/_sandbox/stats', 'DELETE');
      const counted = countingClient();
      const h = harness({ upstream: counted.client });

      // Act
      const first = await h.run(undefined, {
        remainingMs: () => (counted.pages() < cutAfter ? 900_000 : 10_000),
      });
      const saved = await h.store.readCheckpoint();
      const [continuation] = h.requests;
      const second = await h.run(refreshMessage(continuation), {
        remainingMs: () => 900_000,
      });

      // Assess
      expect(first).toMatchObject({ status: 'continued', pageCalls: cutAfter });
      expect(saved?.checkpoint).toMatchObject({ pageCalls: cutAfter });
      expect(h.requests).toEqual([
        {
          kind: 'continue',
          reason: 'continuation',
          refreshId: first.status === 'continued' && first.refreshId,
        },
      ]);
      expect(second).toMatchObject({
        status: 'succeeded',
        resumed: true,
        pageCalls: reference.pageCalls,
      });
      expect(await debtorCalls()).toBe(reference.pageCalls);
      expect(content(await current(h.store))).toEqual(content(reference));
      expect(await h.store.readCheckpoint()).toBeUndefined();
    },
  );

  it('continues over as many invocations as it takes, two pages each', async () => {
    // Prepare
    await prepare(420, BRANCHES);
    const counted = countingClient();
    const h = harness({ upstream: counted.client });

    // Act
    const outcomes: RefreshOutcome[] = [];
    let message = refreshMessage({ reason: 'schedule' });
    for (let invocation = 0; invocation < 20; invocation += 1) {
      const limit = counted.pages() + 2;
      const outcome = await h.run(message, {
        remainingMs: () => (counted.pages() < limit ? 60_000 : 0),
      });
      outcomes.push(outcome);
      if (outcome.status !== 'continued') break;
      message = refreshMessage(h.requests.at(-1));
    }

    // Assess
    const calls = await debtorCalls();
    const listing = await sandboxListing();
    const total = expectedPageCalls(listing.results, BRANCHES);
    expect(outcomes.at(-1)).toMatchObject({ status: 'succeeded', pageCalls: total });
    expect(outcomes).toHaveLength(Math.ceil(total / 2));
    expect(calls).toBe(total);
    expect((await current(h.store)).rows).toEqual(listing.results);
  });

  it('stops waiting on the pacer when the invocation runs out, and fetches that page later', async () => {
    // Prepare: a pacer that lets one call through a minute
    await prepare(120, BRANCHES);
    const slow = createPacer({ maxPerSecond: 1, maxPerMinute: 1 });
    const h = harness({ upstream: client(slow) });
    // Time for the first page however slow the machine; then the invocation is about to end
    // (asked once per page), while the next slot is a minute away.
    let pagesAsked = 0;

    // Act
    const first = await h.run(undefined, {
      remainingMs: () => (pagesAsked++ === 0 ? 60_000 : 300),
      reserveMs: 0,
    });

    // Assess
    expect(first).toMatchObject({ status: 'continued', pageCalls: 1 });
    expect(await debtorCalls()).toBe(1);
    const resumed = await h.run(refreshMessage(h.requests[0]), {
      source: async () => ({
        client: client(),
        report: { branches: BRANCHES, refreshSeconds: 900 },
      }),
    });
    expect(resumed).toMatchObject({ status: 'succeeded', resumed: true });
    expect(await debtorCalls()).toBe(expectedPageCalls((await sandboxListing()).results, BRANCHES));
  });

  it('hands the page to a continuation when a shared pacer has no slot in time', async () => {
    // Prepare: a pacer that grants one call, then refuses (as createDynamoPacer's maxWaitMs does)
    await prepare(120, BRANCHES);
    let granted = 0;
    const refusing: Pacer = {
      async acquire() {
        granted += 1;
        if (granted > 1) throw new PacerWaitError(40_000, 5_000);
      },
      pauseUntil() {},
    };
    const h = harness({ upstream: client(refusing) });

    // Act
    const outcome = await h.run();

    // Assess
    expect(outcome).toMatchObject({ status: 'continued', pageCalls: 1 });
    expect(h.requests).toEqual([expect.objectContaining({ kind: 'continue' })]);
    expect(await debtorCalls()).toBe(1);
  });

  it('is continued, not restarted, by a new refresh request within the hour', async () => {
    // Prepare
    await prepare(300, BRANCHES);
    const counted = countingClient();
    const h = harness({ upstream: counted.client });
    const cut = await h.run(undefined, { remainingMs: () => (counted.pages() < 2 ? 60_000 : 0) });
    expect(cut).toMatchObject({ status: 'continued', pageCalls: 2 });

    // Act
    const outcome = await h.run(refreshMessage({ reason: 'admin' }), {
      now: () => new Date(Date.now() + 59 * 60_000),
    });

    // Assess
    const total = expectedPageCalls((await sandboxListing()).results, BRANCHES);
    expect(outcome).toMatchObject({ status: 'succeeded', resumed: true, pageCalls: total });
    expect(counted.pages()).toBe(total);
  });

  it('starts over when the checkpoint is older than an hour', async () => {
    // Prepare
    await prepare(300, BRANCHES);
    const counted = countingClient();
    const h = harness({ upstream: counted.client });
    await h.run(undefined, { remainingMs: () => (counted.pages() < 2 ? 60_000 : 0) });

    // Act
    const outcome = await h.run(refreshMessage({ reason: 'schedule' }), {
      now: () => new Date(Date.now() + 61 * 60_000),
    });

    // Assess
    const total = expectedPageCalls((await sandboxListing()).results, BRANCHES);
    expect(outcome).toMatchObject({ status: 'succeeded', resumed: false, pageCalls: total });
    expect(counted.pages()).toBe(total + 2);
  });
});

describe('requests already answered', () => {
  it('skips a continuation when no refresh is in progress (a duplicate message)', async () => {
    // Prepare
    await prepare(10, BRANCHES);
    const h = harness();

    // Act
    const outcome = await h.run(refreshMessage({ kind: 'continue', refreshId: 'gone' }));

    // Assess
    expect(outcome).toEqual({ status: 'skipped', why: 'no refresh in progress to continue' });
    expect(await debtorCalls()).toBe(0);
  });

  it('skips a request made before a refresh that has since succeeded started', async () => {
    // Prepare: a schedule tick and an admin click queued while nothing ran
    await prepare(10, BRANCHES);
    const h = harness();
    const tick = refreshMessage({ reason: 'schedule' }, new Date(Date.now() - 1000));
    const click = refreshMessage({ reason: 'admin' }, new Date(Date.now() - 500));
    await h.run(tick);
    const calls = await debtorCalls();

    // Act
    const outcome = await h.run(click);
    const later = await h.run(refreshMessage({ reason: 'admin' }, new Date(Date.now() + 1000)));

    // Assess
    expect(outcome.status).toBe('skipped');
    expect(await debtorCalls()).toBe(calls * 2);
    expect(later.status).toBe('succeeded');
  });
});

describe('the upstream source and its pacer', () => {
  const config = (maxPerSecond: number) =>
    createLocalConfigSource(
      parseConfig({
        upstream: {
          baseUrl: sandbox.url,
          username: 'demo',
          password: 'demo',
          maxPerSecond,
          maxPerMinute: 100_000,
        },
        clients: [],
        profiles: {},
        report: { branches: BRANCHES, refreshSeconds: 900 },
      }),
    );

  it('asks for a pacer once per set of limits', async () => {
    // Prepare
    let limits = config(1000);
    const pacerFor = vi.fn((_limits: PacerLimits) => fastPacer());
    const source = refreshSource(
      { report: (account) => limits.report(account) },
      pacedUpstream({ upstream: (account) => limits.upstream(account) }, pacerFor),
    );

    // Act
    await source('default');
    await source('default');
    limits = config(500);
    await source('default');

    // Assess
    expect(pacerFor.mock.calls.map(([l]) => l.maxPerSecond)).toEqual([1000, 500]);
  });

  it("awaits the shared pacer's pause writes (flush) before a run returns, whatever its outcome", async () => {
    // Prepare: the sandbox's real limits against a fast pacer, so pages draw 429s and pauses.
    await prepare(400, BRANCHES, {});
    const base = fastPacer();
    const writes: string[] = [];
    const pacer = {
      acquire: (signal?: AbortSignal) => base.acquire(signal),
      pauseUntil: (epochMs: number) => {
        base.pauseUntil(epochMs);
        writes.push('pending');
      },
      flush: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        writes.splice(0, writes.length, ...writes.map(() => 'written'));
      },
    };
    const h = harness();
    const settings = config(1000);
    const perAccount = refreshSource(
      settings,
      pacedUpstream(settings, () => pacer),
    );
    const source = () => perAccount('default');

    // Act
    const succeeded = await h.run(undefined, { source });
    await prepare(400, BRANCHES, { perSecond: 1, perMinute: 1 });
    const failed = await h.run(refreshMessage({ reason: 'admin' }), {
      source,
      rateLimitRetries: 0,
    });

    // Assess
    expect(succeeded.status).toBe('succeeded');
    expect(failed.status).toBe('failed');
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.every((w) => w === 'written')).toBe(true);
  });
});
