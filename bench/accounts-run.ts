/**
 * One scenario of the accounts bench (bench/accounts.ts), in this process: the local runtime
 * (gateway, worker, local DynamoDB and queue) on one sandbox, with `accounts` upstream accounts,
 * each its own Basic credentials (so the sandbox limits each one separately, at the same rate
 * as the configuration paces it) and its own form profile `site00`, `site01`, .... The first
 * `floodAccounts` accounts get `floodLeads` leads at once; right after they are accepted, every
 * other account gets `trickleLeads`. It waits until the sandbox has created every lead (or a
 * timeout), and summarizes what the sandbox saw and what was asked of AWS (accounts-meter.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { LOCAL_TABLES, startLocalRuntime } from '../local/runtime.ts';
import type { SandboxStats } from '../sandbox/server.ts';
import { installAwsMeter } from './accounts-meter.ts';
import {
  type PostedLead,
  type Scenario,
  type ScenarioResult,
  summarize,
} from './accounts-report.ts';
import { progress } from './lib.ts';

const FORM_TOKEN = 'bench-accounts-form-token';
const ORIGIN = 'https://lp.example.com';
const DRAIN_TIMEOUT_MS = Number(process.env.BENCH_ACCOUNTS_TIMEOUT_MS ?? 180_000);
/** POSTs in flight at once: a busy landing page, not a load test of the gateway. */
const POST_CONCURRENCY = 8;

const accountName = (i: number) => (i === 0 ? 'default' : `a${String(i).padStart(2, '0')}`);
const profileName = (i: number) => `site${String(i).padStart(2, '0')}`;
const credentials = (i: number) => ({
  username: `bench-account-${String(i).padStart(2, '0')}`,
  password: `bench-key-${String(i).padStart(2, '0')}`,
});

/** The configuration: one account and one form profile per account, no report refreshes. */
export function accountsConfig(scenario: Scenario): unknown {
  const account = (i: number) => ({
    baseUrl: 'http://127.0.0.1:4010',
    ...credentials(i),
    maxPerSecond: scenario.perSecond,
    maxPerMinute: scenario.perSecond * 60,
    timeoutMs: 5000,
  });
  const noReport = { branches: [], refreshSeconds: 3600 };
  const others = Array.from({ length: scenario.accounts - 1 }, (_, k) => k + 1);
  return {
    upstream: account(0),
    ...(others.length > 0 && {
      upstreams: Object.fromEntries(
        others.map((i) => [accountName(i), { ...account(i), report: noReport }]),
      ),
    }),
    clients: [{ username: 'ops', password: 'bench-ops-password', roles: ['admin'] }],
    profiles: Object.fromEntries(
      Array.from({ length: scenario.accounts }, (_, i) => [
        profileName(i),
        {
          source: 'form',
          token: FORM_TOKEN,
          allowedOrigins: [ORIGIN],
          defaults: { idBranch: 1, marketingType: 'Site' },
          ...(i > 0 && { upstream: accountName(i) }),
        },
      ]),
    ),
    report: noReport,
  };
}

interface LeadToPost {
  account: number;
  trickle: boolean;
  email: string;
  body: string;
}

function lead(account: number, trickle: boolean, n: number, run: string): LeadToPost {
  const email = `lead.${run}.a${account}.${trickle ? 't' : 'f'}${n}@exemplo.com.br`;
  const body = new URLSearchParams({
    nome: `Bench Lead${account}x${n}`,
    email,
    celular: `(11) 9${String(1000 + account).slice(-4)}-${String(1000 + n).slice(-4)}`,
    mensagem: 'Quero conhecer a unidade',
  }).toString();
  return { account, trickle, email, body };
}

/** Posts every lead, POST_CONCURRENCY at a time; throws on any refusal. */
async function postAll(gatewayUrl: string, leads: readonly LeadToPost[]): Promise<PostedLead[]> {
  const posted: PostedLead[] = [];
  let next = 0;
  const worker = async () => {
    while (next < leads.length) {
      const item = leads[next++] as LeadToPost;
      const sentAt = Date.now();
      const started = performance.now();
      const response = await fetch(
        `${gatewayUrl}/leads/${profileName(item.account)}?token=${FORM_TOKEN}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
          body: item.body,
        },
      );
      await response.arrayBuffer();
      if (response.status >= 300) throw new Error(`intake answered ${response.status}`);
      const roundTripMs = performance.now() - started;
      posted.push({
        email: item.email,
        account: item.account,
        trickle: item.trickle,
        sentAt,
        roundTripMs,
      });
    }
  };
  await Promise.all(Array.from({ length: POST_CONCURRENCY }, worker));
  return posted;
}

async function stats(sandboxUrl: string): Promise<SandboxStats> {
  return (await (await fetch(`${sandboxUrl}/_sandbox/stats`)).json()) as SandboxStats;
}

/** Waits until the sandbox created every posted lead; the last stats read. */
async function drained(sandboxUrl: string, posted: readonly PostedLead[]): Promise<SandboxStats> {
  const emails = new Set(posted.map((p) => p.email.toLowerCase()));
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const seen = await stats(sandboxUrl);
    const created = new Set(
      seen.requests
        .filter((r) => r.route === 'POST /api/v1/prospects' && r.status >= 200 && r.status < 300)
        .flatMap((r) => (r.email && emails.has(r.email) ? [r.email] : [])),
    );
    if (created.size >= emails.size || Date.now() > deadline) {
      if (created.size < emails.size) {
        progress(`accounts: ${created.size}/${emails.size} delivered before the timeout`);
      }
      return seen;
    }
    await delay(250);
  }
}

/** Runs `scenario` on a fresh local runtime and data folder. */
export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leads-bench-accounts-'));
  const configPath = join(dataDir, 'config.json');
  writeFileSync(configPath, JSON.stringify(accountsConfig(scenario)));
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  // The reconciler at AWS's cadence (every minute), so its requests count as they would there.
  process.env.LEADS_RECONCILE_MS ??= '60000';
  const meter = installAwsMeter(LOCAL_TABLES.queue);
  const runtime = await startLocalRuntime(
    { port: 0, sandboxPort: 0, upstreamUrl: undefined, configPath, dataDir },
    { worker: true },
  );
  const sandbox = runtime.sandboxUrl ?? '';
  try {
    await fetch(`${sandbox}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ perSecond: scenario.perSecond, perMinute: scenario.perSecond * 60 }),
    });
    await delay(1000); // the start-up's first reconciler run and lookup checks are done
    await fetch(`${sandbox}/_sandbox/stats`, { method: 'DELETE' });
    await fetch(`${sandbox}/_sandbox/rate-limit`, { method: 'DELETE' });

    const run = Date.now().toString(36);
    // Floods of several accounts arrive together: their leads interleaved, as visitors send them.
    const floods = Array.from({ length: scenario.floodLeads }, (_, n) =>
      Array.from({ length: scenario.floodAccounts }, (_, a) => lead(a, false, n, run)),
    ).flat();
    const trickles = Array.from({ length: scenario.accounts - scenario.floodAccounts }, (_, k) =>
      Array.from({ length: scenario.trickleLeads }, (_, n) =>
        lead(scenario.floodAccounts + k, true, n, run),
      ),
    ).flat();
    progress(
      `accounts ${scenario.label}: ${floods.length} flood + ${trickles.length} trickle leads`,
    );
    meter.start();
    const posted = [
      ...(await postAll(runtime.gatewayUrl, floods)),
      ...(await postAll(runtime.gatewayUrl, trickles)),
    ];
    const seen = await drained(sandbox, posted);
    // The upstream has every lead: let the worker settle (delete) the messages it holds.
    for (let waited = 0; meter.inFlight() > 0 && waited < 10_000; waited += 50) await delay(50);
    const counts = meter.stop();
    const result = summarize(scenario, posted, seen.requests, counts);
    progress(
      `accounts ${scenario.label}: ${result.delivered}/${result.posted} in ${result.drainS} s (max floor ${result.maxFloorS} s), trickle p50 ${result.trickleP50S} s p99 ${result.trickleP99S} s, 429s ${result.http429}, duplicates ${result.duplicates}`,
    );
    return result;
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
