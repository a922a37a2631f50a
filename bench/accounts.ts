/**
 * `npm run bench -- accounts`: many upstream accounts on one sandbox, a flood on one account and
 * a trickle on every other one, at 1, 5, 20 and 50 accounts; then every account flooding at once
 * (6 × 30, the second measurement). Each scenario runs in its own node process on a
 * fresh local runtime (accounts-run.ts). Prints, ready to paste into docs/performance.md, the
 * table (trickling accounts' p50/p99 time to upstream, drain time against the accounts' floors,
 * 429s, duplicates) and the AWS cost per 10,000 leads counted over all the runs.
 *
 * Knobs (environment): BENCH_ACCOUNTS_SIZES (default `1,5,20,50`), BENCH_ACCOUNTS_FLOOD (leads
 * of the flooding account, 50), BENCH_ACCOUNTS_TRICKLE (leads of each other account, 3),
 * BENCH_ACCOUNTS_RATE (each account's requests per second, 5), BENCH_ACCOUNTS_EVEN (`6x30`:
 * accounts × leads all flooding at once; empty to skip), BENCH_ACCOUNTS_DUMP (a file: each run
 * writes there what was posted and every request the sandbox saw).
 */
import { join } from 'node:path';
import type { Scenario, ScenarioResult } from './accounts-report.ts';
import { costPer10k, costTable, markdownTable, PRICES } from './accounts-report.ts';
import { emitFigures, emitReport, type Figure, figure, runNode } from './lib.ts';

const RESULT_MARK = '@@accounts-result ';

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  const value = raw ? Number(raw) : fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
}

/** The scenarios of the environment's knobs, in order. */
export function scenarios(env: NodeJS.ProcessEnv = process.env): Scenario[] {
  const perSecond = whole(env, 'BENCH_ACCOUNTS_RATE', 5) || 5;
  const floodLeads = whole(env, 'BENCH_ACCOUNTS_FLOOD', 50);
  const trickleLeads = whole(env, 'BENCH_ACCOUNTS_TRICKLE', 3);
  const sizes = (env.BENCH_ACCOUNTS_SIZES ?? '1,5,20,50')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isSafeInteger(n) && n >= 1);
  const list: Scenario[] = sizes.map((accounts) => ({
    label: `1 flood + ${accounts - 1} trickle`,
    accounts,
    floodAccounts: 1,
    floodLeads,
    trickleLeads,
    perSecond,
  }));
  const even = /^(\d+)x(\d+)$/.exec((env.BENCH_ACCOUNTS_EVEN ?? '6x30').trim());
  if (even) {
    const accounts = Number(even[1]);
    list.push({
      label: `${accounts} × ${even[2]} at once`,
      accounts,
      floodAccounts: accounts,
      floodLeads: Number(even[2]),
      trickleLeads: 0,
      perSecond,
    });
  }
  return list;
}

/** One scenario in a child process (the runtime keeps process-wide state). */
async function runChild(scenario: Scenario): Promise<ScenarioResult> {
  const out = await runNode(['--import', 'tsx', join(import.meta.dirname, 'accounts.ts')], {
    env: { ...process.env, BENCH_ACCOUNTS_SCENARIO: JSON.stringify(scenario) },
    inheritStderr: true,
    timeoutMs: 300_000,
  });
  const line = out.split('\n').find((l) => l.startsWith(RESULT_MARK));
  if (!line) throw new Error(`accounts ${scenario.label}: no result`);
  return JSON.parse(line.slice(RESULT_MARK.length)) as ScenarioResult;
}

function figuresOf(results: readonly ScenarioResult[]): Figure[] {
  return results.flatMap((r) => [
    figure(
      `accounts ${r.scenario.label}: total drain`,
      r.drainS,
      's',
      'the largest account floor (leads / rate)',
      r.maxFloorS,
      `sum of floors ${r.sumFloorS} s; trickle p50 ${r.trickleP50S} s, p99 ${r.trickleP99S} s`,
    ),
    figure(
      `accounts ${r.scenario.label}: 429s + duplicates`,
      r.http429 + r.duplicates,
      'count',
      'expected',
      0,
      `${r.http429} × 429, ${r.duplicates} duplicates, ${r.delivered}/${r.posted} delivered`,
    ),
  ]);
}

/** The report: the table, then the cost per 10,000 leads, as docs/performance.md shows them. */
export function accountsReport(results: readonly ScenarioResult[], at: Date): string {
  const cost = costPer10k(results);
  return [
    `Accounts bench, ${at.toISOString().slice(0, 10)}, ${results[0]?.scenario.perSecond ?? '?'} requests/s per account:`,
    '',
    markdownTable(results),
    '',
    `AWS cost per 10,000 leads (${PRICES.region} list prices of ${PRICES.date}):`,
    '',
    costTable(cost),
  ].join('\n');
}

async function main(): Promise<void> {
  const single = process.env.BENCH_ACCOUNTS_SCENARIO;
  if (single) {
    const { runScenario } = await import('./accounts-run.ts');
    const result = await runScenario(JSON.parse(single) as Scenario);
    process.stdout.write(`${RESULT_MARK}${JSON.stringify(result)}\n`);
    return;
  }
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios()) results.push(await runChild(scenario));
  const report = accountsReport(results, new Date());
  emitReport(report);
  emitFigures(figuresOf(results));
}

if (import.meta.filename === process.argv[1]) await main();
