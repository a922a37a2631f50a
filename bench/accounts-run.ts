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
import { startLocalRuntime } from '../local/runtime.ts';
import { LOCAL_TABLES } from '../local/runtime-services.ts';
import { nextMessage, startTsWorker } from '../local/ts-worker.ts';
import type { RequestRecord } from '../sandbox/stats.ts';
import { installAwsMeter } from './accounts-meter.ts';
import type { OutsideData, OutsideRequest } from './accounts-outside.ts';
import {
  type PostedLead,
  type Scenario,
  type ScenarioResult,
  summarize,
} from './accounts-report.ts';
import type { LeadToPost } from './landing.ts';
import { progress } from './lib.ts';

const FORM_TOKEN = 'bench-accounts-form-token';
const ORIGIN = 'https://lp.example.com';
const DRAIN_TIMEOUT_MS = Number(process.env.BENCH_ACCOUNTS_TIMEOUT_MS ?? 180_000);

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

export function lead(
  account: number,
  trickle: boolean,
  n: number,
  run: string,
  gateway: string,
): LeadToPost {
  const email = `lead.${run}.a${account}.${trickle ? 't' : 'f'}${n}@exemplo.com.br`;
  const body = new URLSearchParams({
    nome: `Bench Lead${account}x${n}`,
    email,
    celular: `(11) 9${String(1000 + account).slice(-4)}-${String(1000 + n).slice(-4)}`,
    mensagem: 'Quero conhecer a unidade',
  }).toString();
  const url = `${gateway}/leads/${profileName(account)}?token=${FORM_TOKEN}`;
  return { account, trickle, email, url, origin: ORIGIN, body };
}

/** The outside world's thread (accounts-outside.ts): sandbox, landing pages, watch. */
async function startOutside(scenario: Scenario) {
  const users = Array.from({ length: scenario.accounts }, (_, i) => credentials(i));
  const data: OutsideData = {
    users,
    perSecond: scenario.perSecond,
    drainTimeoutMs: DRAIN_TIMEOUT_MS,
  };
  const worker = startTsWorker(new URL('./accounts-outside.ts', import.meta.url), data);
  const { sandboxUrl } = await nextMessage<{ sandboxUrl: string }>(worker);
  const ask = async <T>(request: OutsideRequest): Promise<T> => {
    const answer = nextMessage<T>(worker);
    worker.postMessage(request);
    return answer;
  };
  return {
    sandboxUrl,
    post: (first: LeadToPost[], then: LeadToPost[]) =>
      ask<{ posted: PostedLead[] }>({ post: { first, then } }),
    drain: (posted: PostedLead[]) => ask<{ requests: RequestRecord[] }>({ drain: posted }),
    close: async () => {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('close' satisfies OutsideRequest);
      await exited;
    },
  };
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
  const outside = await startOutside(scenario);
  const runtime = await startLocalRuntime(
    { port: 0, sandboxPort: undefined, upstreamUrl: outside.sandboxUrl, configPath, dataDir },
    { worker: true },
  ).catch(async (error: unknown) => {
    await outside.close();
    throw error;
  });
  try {
    await delay(1000); // the start-up's first reconciler run and lookup checks are done

    const run = Date.now().toString(36);
    const gateway = runtime.gatewayUrl;
    // Floods of several accounts arrive together: their leads interleaved, as visitors send them.
    const floods = Array.from({ length: scenario.floodLeads }, (_, n) =>
      Array.from({ length: scenario.floodAccounts }, (_, a) => lead(a, false, n, run, gateway)),
    ).flat();
    const trickles = Array.from({ length: scenario.accounts - scenario.floodAccounts }, (_, k) =>
      Array.from({ length: scenario.trickleLeads }, (_, n) =>
        lead(scenario.floodAccounts + k, true, n, run, gateway),
      ),
    ).flat();
    progress(
      `accounts ${scenario.label}: ${floods.length} flood + ${trickles.length} trickle leads`,
    );
    meter.start();
    const { posted } = await outside.post(floods, trickles);
    const seen = await outside.drain(posted);
    if (process.env.BENCH_ACCOUNTS_DUMP)
      writeFileSync(
        process.env.BENCH_ACCOUNTS_DUMP,
        JSON.stringify({ posted, requests: seen.requests }),
      );
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
    await outside.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
