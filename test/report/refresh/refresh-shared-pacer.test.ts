/**
 * One pacing budget for the whole account: a debtors report refresh and a burst of deliveries at
 * the same time, each through its real local wiring (startLocalRefresher, localDeliveryDeps),
 * with their pacers on one dynalite ledger table, against a sandbox with production's limit and
 * the configured budget below it, as deployed (4 of the observed 5 per second). Together they
 * draw no 429. The control case gives the refresher a pacer of its own (what it had before): the
 * same traffic then goes over the limit.
 *
 * Not a race against the clock: the burst starts once the refresh's first page has reached the
 * sandbox (a state), so the two always overlap however slow the machine; and the budget's
 * headroom below the limit absorbs the delivery delays of a loaded machine (a request must be
 * held up some 375 ms more than the one five slots after it to put six arrivals in one second),
 * where a budget equal to the limit left only the pacer's 25 ms margin per slot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, setLocalConfig } from '../../../functions/config/config-local.ts';
import { localDeliveryDeps } from '../../../functions/delivery/forward/wiring-local.ts';
import type { Prospect } from '../../../functions/domain/prospect.ts';
import { setLocalServices } from '../../../functions/kernel/local-services.ts';
import type { LocalRefresher } from '../../../functions/report/refresh/wiring-local.ts';
import { localReportStore } from '../../../functions/report/store/report-store-file.ts';
import { createSandbox, type Sandbox } from '../../../sandbox/server.ts';
import type { SandboxStats } from '../../../sandbox/stats.ts';
import { waitFor } from '../../helpers/abuse-kit.ts';
import { startTestDynamo, type TestDynamo } from '../../helpers/dynalite.ts';
import { createPacer } from '../../helpers/in-process-pacer.ts';
import { maxInAnyWindow } from '../../helpers/upstream-windows.ts';

/** The upstream's limit (production's observed 5 per second)... */
const UPSTREAM_PER_SECOND = 5;
/** ...and the configured budget below it, as config/deploy.example.json sets it. */
const BUDGET_PER_SECOND = 4;
const PER_MINUTE = 100_000;
const DEBTORS = 'GET /api/v1/receivables/debtors';
const PROSPECTS = 'POST /api/v1/prospects';
/** Two forwarder instances, each posting this many leads back to back. */
const INSTANCES = 2;
const LEADS_EACH = 6;

let sandbox: Sandbox;
let dynamo: TestDynamo;
let dataDir: string | undefined;
let refresher: LocalRefresher | undefined;

beforeAll(async () => {
  process.env.LEADS_RUNTIME = 'local';
  sandbox = await createSandbox({ port: 0, debtors: { count: 400, branches: [1, 2, 3], seed: 7 } });
  await fetch(`${sandbox.url}/_sandbox/faults`, {
    method: 'POST',
    body: JSON.stringify({ perSecond: UPSTREAM_PER_SECOND, perMinute: PER_MINUTE }),
  });
  dynamo = await startTestDynamo();
  setLocalConfig(
    parseConfig({
      upstream: {
        baseUrl: sandbox.url,
        username: 'demo',
        password: 'demo',
        maxPerSecond: BUDGET_PER_SECOND,
        maxPerMinute: PER_MINUTE,
      },
      clients: [],
      profiles: {},
      report: { branches: [1, 2, 3], refreshSeconds: 900 },
    }),
  );
});

afterEach(async () => {
  await refresher?.stop();
  refresher = undefined;
  setLocalServices(undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

afterAll(async () => {
  setLocalConfig(undefined);
  await dynamo?.close();
  await sandbox?.close();
});

function prospectNo(n: number): Prospect {
  return {
    name: 'Maria',
    lastName: `Souza ${n}`,
    email: `maria.souza.${n}@example.com`,
    idBranch: 1,
    ddi: '55',
    cellphone: `119876${String(n).padStart(5, '0')}`,
    marketingType: 'Site',
    notes: undefined,
  };
}

/** A fresh ledger table (so a fresh pacer item) and clean sandbox counters. */
async function freshRun(): Promise<void> {
  setLocalServices({
    dynamo: dynamo.client,
    ledgerTable: await dynamo.createLedgerTable(),
    queueTable: 'unused',
    maxReceiveCount: 8,
  });
  dataDir = mkdtempSync(join(tmpdir(), 'leads-shared-pacer-'));
  await fetch(`${sandbox.url}/_sandbox/rate-limit`, { method: 'DELETE' });
  await fetch(`${sandbox.url}/_sandbox/stats`, { method: 'DELETE' });
}

/**
 * Starts the local refresher (it refreshes at start) and, once its first page has reached the
 * sandbox, INSTANCES delivery instances posting LEADS_EACH prospects each; resolves when both
 * are done.
 */
async function refreshDuringDeliveryBurst(
  refresherPacer?: ReturnType<typeof createPacer>,
): Promise<{ delivered: number; refused: number }> {
  const { startLocalRefresher } = await import('../../../functions/report/refresh/wiring-local.ts');
  let delivered = 0;
  let refused = 0;
  refresher = await startLocalRefresher({
    dataDir: dataDir as string,
    ...(refresherPacer && { pacer: refresherPacer }),
  });
  await waitFor(
    'the refresh to page the upstream',
    async () => ((await stats()).requests.some((r) => r.route === DEBTORS) ? true : undefined),
    20_000,
    10,
  );
  const burst = Promise.all(
    Array.from({ length: INSTANCES }, async (_, instance) => {
      // Each instance has its own wiring (its own pacer object), as each Lambda instance does.
      const access = await localDeliveryDeps().upstream('default');
      for (let i = 0; i < LEADS_EACH; i += 1) {
        try {
          await access.client.createProspect(prospectNo(instance * 100 + i));
          delivered += 1;
        } catch {
          refused += 1;
        }
      }
    }),
  );
  await Promise.all([burst, refresher.trigger.idle()]);
  return { delivered, refused };
}

async function stats(): Promise<SandboxStats> {
  return (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as SandboxStats;
}

describe('the refresher and delivery share one pacing budget', () => {
  it('a refresh during a delivery burst draws no 429 from an upstream at production limits', async () => {
    // Prepare
    await freshRun();

    // Act
    const { delivered, refused } = await refreshDuringDeliveryBurst();

    // Assess
    const { snapshot } = (await localReportStore().readSnapshot()) ?? {};
    const { byRoute, requests } = await stats();
    expect({ delivered, refused }).toEqual({ delivered: INSTANCES * LEADS_EACH, refused: 0 });
    expect(snapshot?.rows).toHaveLength(400);
    expect(byRoute[DEBTORS]).toEqual({ '200': snapshot?.pageCalls });
    expect(Object.keys(byRoute[PROSPECTS] ?? {})).not.toContain('429');
    expect(requests.filter((r) => r.status === 429)).toEqual([]);
    // They did run at the same time: the refresh's pages fell between the burst's posts.
    const gets = requests.filter((r) => r.route === DEBTORS).map((r) => r.at);
    const posts = requests.filter((r) => r.route === PROSPECTS).map((r) => r.at);
    expect(Math.min(...gets)).toBeLessThan(Math.max(...posts));
    expect(Math.min(...posts)).toBeLessThan(Math.max(...gets));
    expect(maxInAnyWindow([...gets, ...posts], 1_000)).toBeLessThanOrEqual(UPSTREAM_PER_SECOND);
  }, 60_000);

  it('control: with a pacer of its own, the same refresh pushes the account over the limit', async () => {
    // Prepare
    await freshRun();

    // Act: the refresher's former pacing, per process at the full budget.
    await refreshDuringDeliveryBurst(
      createPacer({ maxPerSecond: BUDGET_PER_SECOND, maxPerMinute: PER_MINUTE, marginMs: 50 }),
    );

    // Assess
    const { requests } = await stats();
    expect(requests.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  }, 60_000);
});
