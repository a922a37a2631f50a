/**
 * `npm run bench`: every phase in its own node process (the local runtime keeps process-wide
 * state), each figure next to a baseline measured in the same run. Progress on stderr, the
 * table on stdout, all figures in bench/results.json (gitignored). docs/performance.md says
 * what each figure means and how to read it. A phase may also hand back a ready-to-paste
 * markdown report (emitReport), printed after the table. The accounts and outage phases take
 * minutes and run only when named: `npm run bench -- accounts`, `npm run bench -- outage`.
 */
import { writeFileSync } from 'node:fs';
import { cpus, freemem, totalmem } from 'node:os';
import { join } from 'node:path';
import { type Figure, parseFigures, parseReports, progress, runNode } from './lib.ts';

const PHASES = [
  'cold-init',
  'intake',
  'delivery',
  'report',
  'mapping',
  'auth',
  'accounts',
  'outage',
] as const;
/** Phases that run only when named (`npm run bench -- accounts`): they take minutes. */
const ON_REQUEST: readonly string[] = ['accounts', 'outage'];
/** How long a phase may run; the accounts phase runs five local runtimes one after another. */
const PHASE_TIMEOUT_MS: Readonly<Record<string, number>> = {
  accounts: 1_200_000,
  outage: 900_000,
};
const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));

function cell(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '–' : String(value);
}

function table(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [
    f.name,
    `${cell(f.value)} ${f.unit}`,
    f.baseline,
    `${cell(f.baselineValue)} ${f.unit}`,
    cell(f.ratio),
  ]);
  const head = ['figure', 'value', 'baseline', 'baseline value', 'ratio'];
  const lines = [head, head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`);
  return lines.join('\n');
}

const started = Date.now();
const figures: Figure[] = [];
const reports: string[] = [];
for (const phase of PHASES) {
  if (only.length > 0 ? !only.includes(phase) : ON_REQUEST.includes(phase)) continue;
  progress(`phase ${phase}`);
  const out = await runNode(['--import', 'tsx', join(import.meta.dirname, `${phase}.ts`)], {
    env: {
      ...process.env,
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    inheritStderr: true,
    timeoutMs: PHASE_TIMEOUT_MS[phase] ?? 240_000,
  });
  figures.push(...parseFigures(out));
  reports.push(...parseReports(out));
}

const results = {
  at: new Date().toISOString(),
  durationSeconds: Math.round((Date.now() - started) / 1000),
  machine: {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    totalMemGiB: Math.round(totalmem() / 2 ** 30),
    freeMemGiB: Math.round(freemem() / 2 ** 30),
  },
  figures,
  reports,
};
writeFileSync(join(import.meta.dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${table(figures)}\n`);
for (const report of reports) process.stdout.write(`\n${report}\n`);
progress(`done in ${results.durationSeconds} s; figures in bench/results.json`);
