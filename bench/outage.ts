/**
 * `npm run bench -- outage` (about 5 minutes, only when named): issue 25's outage at its real
 * length and with the deployed intervals. The local runtime (worker on, the reconciler once a
 * minute as on AWS, the circuit's probes from 1 s growing to 30 s, the deployed defaults) and its
 * sandbox at 5 requests/s; the sandbox drops every API connection; 50 leads arrive. The outage
 * lasts BENCH_OUTAGE_MS (240 000) from the first request the sandbox saw; then the upstream
 * comes back. Prints, ready for docs/performance.md:
 * - the requests the sandbox saw in the outage's first and last minute, and the leads waiting at
 *   its end (the last minute must see no more than the first, nor than the leads waiting);
 * - the recovery: from the upstream's return to the last lead created, against the rate floor
 *   (50 / 5 = 10 s) plus 30 s (the issue's bound: the circuit's longest probe interval);
 * - duplicates (leads created more than once) and 429s.
 * test/resilience/outage-waiting.test.ts holds the same counts with shortened intervals.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { localLedger } from '../functions/ledger/ledger-local.ts';
import { startLocalRuntime } from '../local/runtime.ts';
import type { RequestRecord, SandboxStats } from '../sandbox/stats.ts';
import { accountsConfig, lead } from './accounts-run.ts';
import { created, drained, postAll, sandboxStats } from './landing.ts';
import { emitFigures, emitReport, figure, progress, round } from './lib.ts';

const LEADS = Number(process.env.BENCH_OUTAGE_LEADS ?? 50);
const OUTAGE_MS = Number(process.env.BENCH_OUTAGE_MS ?? 240_000);
const PER_SECOND = 5;
const MINUTE_MS = 60_000;
const API = new Set(['POST /api/v1/prospects', 'GET /api/v1/prospects']);
async function control(sandbox: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${sandbox}/_sandbox/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return response.json();
}

/** Polls `read` every 500 ms until `done` says so; the last value read. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await delay(500);
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leads-bench-outage-'));
  const configPath = join(dataDir, 'config.json');
  const scenario = {
    label: 'outage',
    accounts: 1,
    floodAccounts: 1,
    floodLeads: LEADS,
    trickleLeads: 0,
    perSecond: PER_SECOND,
  };
  writeFileSync(configPath, JSON.stringify(accountsConfig(scenario)));
  process.env.LEADS_RECONCILE_MS ??= String(MINUTE_MS);
  const runtime = await startLocalRuntime(
    { port: 0, sandboxPort: 0, upstreamUrl: undefined, configPath, dataDir },
    { worker: true },
  );
  const sandbox = runtime.sandboxUrl ?? '';
  const limits = { perSecond: PER_SECOND, perMinute: PER_SECOND * 60 };
  const stats = () => sandboxStats(sandbox);
  try {
    await delay(1000); // the start-up's lookup check and first reconciler run are done
    await fetch(`${sandbox}/_sandbox/stats`, { method: 'DELETE' });
    await control(sandbox, 'faults', { ...limits, outage: true });
    const run = Date.now().toString(36);
    const leads = Array.from({ length: LEADS }, (_, n) =>
      lead(0, false, n, run, runtime.gatewayUrl),
    );
    await postAll(leads, 1);
    progress(`outage: ${LEADS} leads accepted; the upstream is down for ${OUTAGE_MS / 1000} s`);
    const first = await until(stats, (s) => s.requests.some((r) => API.has(r.route)));
    const outageStart = first.requests.find((r) => API.has(r.route))?.at ?? Date.now();
    await delay(outageStart + OUTAGE_MS - Date.now());
    const ledger = localLedger();
    const waiting = (await ledger.listWaiting('default', { limit: 1000 })).leads.length;
    await control(sandbox, 'faults', limits);
    const outageEnd = Date.now();
    progress(`outage: the upstream is back; ${waiting} leads were waiting`);
    const emails = new Set(leads.map((l) => l.email.toLowerCase()));
    const seen = await drained(sandbox, emails, 300_000);
    await delay(2000); // a late copy would still arrive: counted as a duplicate
    const all = (await stats()).requests;
    report(all, { outageStart, outageEnd, waiting, emails, recoveredAt: lastCreated(seen) });
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const lastCreated = (s: SandboxStats) => Math.max(...s.requests.filter(created).map((r) => r.at));

export interface OutageMoments {
  outageStart: number;
  outageEnd: number;
  /** Leads waiting for the circuit when the upstream came back. */
  waiting: number;
  /** The posted leads' e-mails, lower case. */
  emails: ReadonlySet<string>;
  recoveredAt: number;
}

export interface OutageSummary {
  firstMinute: number;
  lastMinute: number;
  /** API requests the sandbox saw before the upstream came back. */
  during: number;
  delivered: number;
  duplicates: number;
  http429: number;
  recoveryS: number;
  outageS: number;
}

/** What the sandbox saw of the outage and the recovery (windows end with the outage). */
export function summarizeOutage(
  requests: readonly RequestRecord[],
  at: OutageMoments,
): OutageSummary {
  const api = requests.filter((r) => API.has(r.route));
  const inMinute = (from: number) =>
    api.filter((r) => r.at >= from && r.at < Math.min(from + MINUTE_MS, at.outageEnd));
  const counts = new Map<string, number>();
  for (const r of requests.filter(created)) {
    if (r.email && at.emails.has(r.email)) counts.set(r.email, (counts.get(r.email) ?? 0) + 1);
  }
  return {
    firstMinute: inMinute(at.outageStart).length,
    lastMinute: inMinute(Math.max(at.outageStart, at.outageEnd - MINUTE_MS)).length,
    during: api.filter((r) => r.at < at.outageEnd).length,
    delivered: counts.size,
    duplicates: [...counts.values()].filter((n) => n > 1).length,
    http429: requests.filter((r) => r.status === 429).length,
    recoveryS: round((at.recoveredAt - at.outageEnd) / 1000, 2),
    outageS: round((at.outageEnd - at.outageStart) / 1000),
  };
}

function report(requests: readonly RequestRecord[], at: OutageMoments): void {
  const o = summarizeOutage(requests, at);
  const floorS = LEADS / PER_SECOND;
  emitReport(
    [
      `Outage bench, ${new Date().toISOString().slice(0, 10)}: ${LEADS} leads, outage of ${o.outageS} s (connections dropped), ${PER_SECOND} requests/s:`,
      '',
      '| requests, first minute | requests, last minute | leads waiting at the end | requests in the outage | delivered | recovery | floor + 30 s | duplicates | 429s |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      `| ${o.firstMinute} | ${o.lastMinute} | ${at.waiting} | ${o.during} | ${o.delivered}/${LEADS} | ${o.recoveryS} s | ${floorS + 30} s | ${o.duplicates} | ${o.http429} |`,
    ].join('\n'),
  );
  emitFigures([
    figure(
      'outage: recovery (upstream back → last lead created)',
      o.recoveryS,
      's',
      'the rate floor + 30 s',
      floorS + 30,
      `${o.delivered}/${LEADS} delivered, ${o.duplicates} duplicates, ${o.http429} × 429`,
    ),
    figure(
      "outage: requests in the outage's last minute",
      o.lastMinute,
      'count',
      'in its first minute',
      o.firstMinute,
      `${at.waiting} leads waiting at the end, ${o.during} requests in the ${o.outageS} s outage`,
    ),
  ]);
}

if (import.meta.filename === process.argv[1]) await main();
