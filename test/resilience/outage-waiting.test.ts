/**
 * Waiting for an upstream costs nothing (issue 25), end to end: the local runtime (worker on)
 * and its sandbox, whose `outage` fault drops every API connection. 50 leads arrive during the
 * outage; the account's circuit opens, one lead carries the probe and the others wait in the
 * ledger with no message (functions/delivery/waiting.ts). What the sandbox receives is counted
 * window by window: the outage's last window sees no more requests than its first, and no more
 * than the leads waiting (before, every probe let the reconciler add a copy of every waiting
 * lead, and attempts per minute grew with the outage). After the upstream comes back every lead
 * is delivered, each exactly once.
 *
 * The 4-minute outage of the issue is shortened: probes every 0.5 s growing to 2 s (instead of
 * 1 s to 20 s), the reconciler every 0.5 s, and 12 s windows compared over a 36 s outage. The
 * windows are measured on the sandbox's own arrival times; nothing asserts a duration.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AcceptedLead,
  ALL_GOOD,
  checkExactlyOnce,
  deliveryConfig,
  FAST_DELIVERY_ENV,
  postLeads,
  readLedger,
  realisticLeads,
  type SandboxControl,
  sandboxControl,
  statusCounts,
  type TestLead,
  waitUntil,
  withEnv,
} from '../helpers/delivery-harness-e2e.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';
import { reportResult } from '../helpers/results.ts';

const LEADS = 50;
const WINDOW_MS = 12_000;
/** The outage lasts three windows (first, middle, last) once the leads are waiting. */
const OUTAGE_WINDOWS = 3;
const API_ROUTES = new Set(['POST /api/v1/prospects', 'GET /api/v1/prospects']);
const OUTAGE_ENV = {
  ...FAST_DELIVERY_ENV,
  LEADS_PROBE_BASE_MS: '500',
  LEADS_PROBE_CAP_MS: '2000',
};

let rt: TestRuntime;
let sandbox: SandboxControl;

beforeAll(async () => {
  rt = await withEnv(OUTAGE_ENV, () =>
    startTestRuntime(deliveryConfig({ timeoutMs: 1_000 }), { worker: true }),
  );
  sandbox = sandboxControl(rt.sandboxUrl);
}, 60_000);
afterAll(() => rt?.stop());

/** Posts `leads` a few at a time, as concurrent visitors would. */
async function postAtOnce(leads: readonly TestLead[]): Promise<AcceptedLead[]> {
  const lanes = Array.from({ length: 5 }, (_, lane) => leads.filter((_, i) => i % 5 === lane));
  return (await Promise.all(lanes.map((lane) => postLeads(rt.url, lane)))).flat();
}

async function waitingCount(): Promise<number> {
  return (await rt.ledger.listWaiting('default', { limit: 1000 })).leads.length;
}

describe('50 leads through an outage (connections dropped)', () => {
  it('attempts stay flat while the leads wait (last window ≤ first, ≤ the waiting leads); all delivered once after', {
    timeout: 180_000,
  }, async () => {
    // Prepare
    await sandbox.reset();
    await sandbox.setFaults({ outage: true });

    // Act: the leads arrive during the outage and come to wait for the account's circuit.
    const accepted = await postAtOnce(realisticLeads(LEADS, 'outage-wait'));
    await waitUntil('every lead but the carrier waiting', waitingCount, (n) => n >= LEADS - 1, {
      timeoutMs: 90_000,
    });
    const firstRequest = await waitUntil(
      'the outage seen by the sandbox',
      async () => (await sandbox.stats()).requests.find((request) => API_ROUTES.has(request.route)),
      (request) => request !== undefined,
      { timeoutMs: 10_000 },
    );
    const outageStart = firstRequest?.at ?? Date.now();
    const outageEnd = Math.max(outageStart + OUTAGE_WINDOWS * WINDOW_MS, Date.now() + WINDOW_MS);
    await delay(outageEnd - Date.now());
    const waitingAtEnd = await waitingCount();
    const stats = await sandbox.stats();
    await sandbox.setFaults({});
    await waitUntil(
      'every lead delivered after the outage',
      () => readLedger(rt.ledger, accepted),
      (ledger) => statusCounts(accepted, ledger).delivered === LEADS,
      { timeoutMs: 90_000, describe: (ledger) => JSON.stringify(statusCounts(accepted, ledger)) },
    );
    // Nothing more may arrive once every lead is delivered (a late copy would be a duplicate).
    await delay(1_000);

    // Assess
    const arrivals = stats.requests
      .filter((request) => API_ROUTES.has(request.route) && request.at < outageEnd)
      .map((request) => request.at);
    const inWindow = (from: number) => arrivals.filter((at) => at >= from && at < from + WINDOW_MS);
    const first = inWindow(outageStart).length;
    const last = inWindow(outageEnd - WINDOW_MS).length;
    reportResult(
      `[outage-waiting] ${LEADS} leads, outage of ${outageEnd - outageStart} ms: ` +
        `${first} requests in the first ${WINDOW_MS} ms, ${last} in the last; ` +
        `${waitingAtEnd} leads waiting; ${arrivals.length} requests in all`,
    );
    expect(stats.requests.filter((r) => API_ROUTES.has(r.route) && r.status !== 0)).toEqual([]);
    expect(last).toBeGreaterThan(0); // the probe kept going
    expect(last).toBeLessThanOrEqual(first);
    expect(last).toBeLessThanOrEqual(waitingAtEnd);
    const [ledger, prospects] = await Promise.all([
      readLedger(rt.ledger, accepted),
      sandbox.prospects(),
    ]);
    expect(checkExactlyOnce(accepted, ledger, prospects)).toEqual(ALL_GOOD);
    expect(prospects).toHaveLength(LEADS);
  });
});
