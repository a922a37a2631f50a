/**
 * Shared helpers of `npm run bench`: figures, percentiles, progress lines, and how a phase (a
 * child process) hands its figures back to bench/run.ts.
 *
 * Every figure is compared with a baseline measured in the same run on the same machine, so
 * the ratio stays meaningful when the machine is busy with other work.
 */
import { spawn } from 'node:child_process';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  baseline: string;
  baselineValue: number;
  /** value / baselineValue. */
  ratio: number;
  /** What the numbers mean, or what was observed along the way. */
  note?: string;
}

/** Marks the line a phase prints on stdout with its figures (everything else is progress). */
export const FIGURES_MARK = '@@bench-figures ';

export function figure(
  name: string,
  value: number,
  unit: string,
  baseline: string,
  baselineValue: number,
  note?: string,
): Figure {
  const ratio = baselineValue === 0 ? Number.NaN : value / baselineValue;
  return {
    name,
    value: round(value),
    unit,
    baseline,
    baselineValue: round(baselineValue),
    ratio: round(ratio, 2),
    ...(note && { note }),
  };
}

export function round(value: number, digits = 1): number {
  if (!Number.isFinite(value)) return value;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** The p-th percentile (0..100), nearest rank, of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank - 1, 0), sorted.length - 1)] as number;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** A progress line on stderr (stdout carries the table). */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** A phase's last act: its figures on stdout, for the parent to collect. */
export function emitFigures(figures: readonly Figure[]): void {
  process.stdout.write(`${FIGURES_MARK}${JSON.stringify(figures)}\n`);
}

/** Marks the line a phase prints with a ready-to-paste markdown report (JSON-encoded). */
export const REPORT_MARK = '@@bench-report ';

/** A phase's markdown report, for the parent to print after the figures' table. */
export function emitReport(markdown: string): void {
  process.stdout.write(`${REPORT_MARK}${JSON.stringify(markdown)}\n`);
}

/** The reports a phase printed (see emitReport). */
export function parseReports(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith(REPORT_MARK))
    .map((l) => JSON.parse(l.slice(REPORT_MARK.length)) as string);
}

/** Runs `node --import tsx <script>`; resolves its stdout, rejects on a non-zero exit. */
export function runNode(
  args: readonly string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    timeoutMs?: number;
    inheritStderr?: boolean;
  } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', options.inheritStderr ? 'inherit' : 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (code === 0) resolve(out);
      else
        reject(new Error(`node ${args.join(' ')} exited ${code ?? signal}: ${err.slice(-2000)}`));
    });
  });
}

/** The figures a phase printed (see emitFigures). */
export function parseFigures(stdout: string): Figure[] {
  const line = stdout.split('\n').find((l) => l.startsWith(FIGURES_MARK));
  if (!line) throw new Error('the phase printed no figures');
  return JSON.parse(line.slice(FIGURES_MARK.length)) as Figure[];
}
