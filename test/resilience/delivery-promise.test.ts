/**
 * The delivery engine's promise, end to end (the local runtime in this process, worker and
 * reconciler on), against a sandbox behind a TCP proxy so that the upstream can really refuse
 * connections:
 * - an outage far longer than a retry budget (maxAttempts 2 here, a few seconds of backoff)
 *   kills no lead, opens the circuit (visible in GET /admin/upstream), and once the upstream is
 *   back every lead is delivered, once, within 45 s plus the rate floor;
 * - the same lead sent 10 times while POSTs fail is created once, is never dead, and costs no
 *   more POSTs than a lead sent once through the same blip.
 * The kill -9 cases are in intake-crash.test.ts and delivery-crash.test.ts.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import { basicHeader } from '../helpers/abuse-kit.ts';
import {
  type AcceptedLead,
  ALL_GOOD,
  allDelivered,
  CONFIGURED_LIMITS,
  checkExactlyOnce,
  deliveryConfig,
  FAST_DELIVERY_ENV,
  OPERATOR,
  postLeads,
  readLedger,
  realisticLeads,
  type SandboxControl,
  sandboxControl,
  statusCounts,
  waitUntil,
  withEnv,
} from '../helpers/delivery-harness-e2e.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';
import { reportResult } from '../helpers/results.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const POST_ROUTE = 'POST /api/v1/prospects';
/** A retry budget an outage of seconds would exhaust many times over. */
const MAX_ATTEMPTS = 2;

let sandbox: Sandbox;
let control: SandboxControl;
let proxy: TcpProxy;
let rt: TestRuntime;

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0 });
  control = sandboxControl(sandbox.url);
  await control.reset();
  proxy = await startTcpProxy(sandbox.url);
  const config = {
    ...deliveryConfig({ timeoutMs: 2_000 }),
    delivery: { maxAttempts: MAX_ATTEMPTS, horizonHours: 1 },
  };
  rt = await withEnv(FAST_DELIVERY_ENV, () =>
    startTestRuntime(config, { worker: true, upstreamUrl: proxy.url }),
  );
}, 60_000);
afterAll(async () => {
  await rt?.stop();
  await proxy?.close();
  await sandbox?.close();
});

async function upstreamHealth(): Promise<{ circuit: { state: string }; backlog: number }> {
  const response = await fetch(new URL('/admin/upstream', rt.url), {
    headers: { authorization: basicHeader(OPERATOR.username, OPERATOR.password) },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { circuit: { state: string }; backlog: number };
}

/** Watches the ledger until stopped; remembers every status any of `accepted` was seen in. */
function watchStatuses(accepted: readonly AcceptedLead[]) {
  const seen = new Set<string>();
  let running = true;
  const done = (async () => {
    while (running) {
      for (const lead of await readLedger(rt.ledger, accepted)) seen.add(lead.status);
      await delay(100);
    }
  })();
  return {
    async stop(): Promise<Set<string>> {
      running = false;
      await done;
      return seen;
    },
  };
}

async function deliveredWithin(accepted: readonly AcceptedLead[], timeoutMs: number) {
  return waitUntil(
    'every accepted lead delivered',
    () => readLedger(rt.ledger, accepted),
    (ledger) => allDelivered(accepted, ledger),
    { timeoutMs, describe: (ledger) => JSON.stringify(statusCounts(accepted, ledger)) },
  );
}

describe('the delivery promise', () => {
  it('an upstream refusing connections far longer than any retry budget kills no lead', {
    timeout: 120_000,
  }, async () => {
    // Prepare
    await control.reset();
    const count = 20;
    await proxy.refuse();

    // Act: leads arrive while the upstream's host refuses every connection, for 10 s.
    const accepted = await postLeads(rt.url, realisticLeads(count, 'refused'));
    const watching = watchStatuses(accepted);
    await waitUntil('the circuit open', upstreamHealth, (h) => h.circuit.state === 'open', {
      timeoutMs: 20_000,
    });
    const during = await upstreamHealth();
    await delay(10_000);
    await proxy.accept();
    const back = Date.now();
    // 45 s plus the rate floor (N at the configured per-second limit).
    const floorMs = (count / CONFIGURED_LIMITS.maxPerSecond) * 1_000;
    await deliveredWithin(accepted, 45_000 + floorMs);
    const recoveredMs = Date.now() - back;
    await delay(750);
    const seen = await watching.stop();
    const [ledger, prospects, after] = await Promise.all([
      readLedger(rt.ledger, accepted),
      control.prospects(),
      upstreamHealth(),
    ]);
    reportResult(
      `[delivery-promise] refused 10 s: ${count} leads delivered ${recoveredMs} ms after the upstream came back`,
    );

    // Assess
    expect(during.backlog).toBeGreaterThanOrEqual(count);
    expect([...seen].sort()).not.toContain('dead');
    expect(checkExactlyOnce(accepted, ledger, prospects)).toEqual(ALL_GOOD);
    expect(ledger.map((lead) => lead.attempts)).toEqual(ledger.map(() => 0));
    expect(after).toMatchObject({ circuit: { state: 'closed' }, backlog: 0 });
  });

  it('the same lead sent 10 times while POSTs fail: created once, never dead, no extra POSTs', {
    timeout: 120_000,
  }, async () => {
    // A blip of 4 failing POSTs (500: the upstream may have created it, so each retry looks
    // the prospect up first). Run once for a lead sent once, once for a lead sent 10 times.
    const blip = async (copies: number, tag: string) => {
      await control.reset();
      await control.setFaults({ postStatus: 500, postCount: 4 });
      const [lead] = realisticLeads(1, tag);
      if (!lead) throw new Error('no lead');
      const sent = await postLeads(
        rt.url,
        Array.from({ length: copies }, () => lead),
      );
      const [first] = sent;
      if (!first) throw new Error('not accepted');
      const watching = watchStatuses([first]);
      await deliveredWithin([first], 60_000);
      await delay(750);
      const seen = await watching.stop();
      const [ledger, prospects, stats] = await Promise.all([
        readLedger(rt.ledger, [first]),
        control.prospects(),
        control.stats(),
      ]);
      const posts = stats.requests.filter((r) => r.route === POST_ROUTE && r.email === lead.email);
      return { sent, first, seen, ledger, prospects, posts: posts.length };
    };

    // Act
    const once = await blip(1, 'sent-once');
    const tenTimes = await blip(10, 'sent-ten');
    reportResult(
      `[delivery-promise] failing-POST blip: ${once.posts} POSTs for a lead sent once, ${tenTimes.posts} for one sent 10 times`,
    );

    // Assess: one lead (every copy answered with its id), one prospect, never dead.
    expect(new Set(tenTimes.sent.map((s) => s.leadId))).toEqual(new Set([tenTimes.first.leadId]));
    for (const run of [once, tenTimes]) {
      expect(checkExactlyOnce([run.first], run.ledger, run.prospects)).toEqual(ALL_GOOD);
      expect([...run.seen]).not.toContain('dead');
      expect(run.ledger[0]?.attempts).toBe(0);
    }
    expect(once.posts).toBe(5);
    expect(tenTimes.posts).toBeLessThanOrEqual(once.posts);
  });
});
