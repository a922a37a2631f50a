/**
 * The debtors report: a snapshot of every row the upstream listed for the configured branches,
 * with the seed's summary and what a manager reads at a glance (totals per branch and status,
 * ageing buckets). Pure: no AWS, no process.env.
 *
 * This file holds the types the refresher and the report function share, and the functions that
 * build a snapshot from the upstream's pages (`buildSnapshot`) and judge its age (`isStale`).
 * The seed-shaped list over a snapshot's rows is `queryDebtors` (debtors-query.ts).
 *
 * Rules (docs/report.md):
 * - Rows: every row the upstream sent, as sent; a row listed twice (same branch and
 *   receivableId, because the upstream's data moved between two pages) is kept once, the first
 *   time it was seen. Rows are ordered by branch (ascending), then in the upstream's own order.
 * - Ageing: whole calendar days from `dueDate` to "today" in the report's time zone, never
 *   production's `daysLate` (counted from `originalDueDate`, wrong after a rescheduled charge).
 *   A Recovered debt stopped being late when it was paid: its days stop at `paymentDate`.
 * - Summary: see `combineSummary`.
 */
import {
  computeSummary,
  type Debtor,
  type DebtorsSummary,
  isStatus,
  roundMoney,
} from './debtors.ts';
import { localDay } from './local-time.ts';

/** The gym's time zone unless the configuration names another (`report.timeZone`). */
export const DEFAULT_REPORT_TIME_ZONE = 'America/Sao_Paulo';

/** Ageing by calendar days past `dueDate` (not production's `daysLate`, wrong after a reschedule). */
export const AGEING_BUCKETS = ['current', '1-30', '31-60', '61-90', '91+'] as const;
export type AgeingBucket = (typeof AGEING_BUCKETS)[number];

export interface BucketTotal {
  count: number;
  amount: number;
}

export interface DebtorsSnapshot {
  version: 1;
  /** ISO 8601: when the refresh that built it started and finished. */
  startedAt: string;
  generatedAt: string;
  /** The IANA time zone "today" is taken in for ageing (the gym's). */
  timeZone: string;
  branches: number[];
  /** Every row exactly as the upstream sent it (nulls and extra fields kept). */
  rows: Debtor[];
  /**
   * Days past dueDate per row (same order as rows), to today, or for a Recovered row to the day
   * it was paid; null when dueDate (or a Recovered row's paymentDate) is missing or unreadable.
   */
  daysOverdue: (number | null)[];
  /** The seed's four figures over all rows: the upstream's when it sent them, else computed. */
  summary: SummaryFigures;
  /**
   * - `upstream`: one branch, its summary exactly as the upstream sent it;
   * - `upstream-combined`: several branches, each with the upstream's summary: values summed,
   *   averages recomputed as value / rows of that status;
   * - `computed`: some branch came without a (complete) summary, or no branch is configured:
   *   computeSummary over every row.
   */
  summarySource: SummarySource;
  /** Per branch queried: the upstream's total and summary for that query, and our totals. */
  byBranch: BranchTotals[];
  /** Totals per debtStatus and per memberStatus (names as sent; `(none)` when missing). */
  byDebtStatus: Record<string, BucketTotal>;
  byMemberStatus: Record<string, BucketTotal>;
  /** Open debts by ageing bucket. */
  ageing: Record<AgeingBucket, BucketTotal>;
  /** Open debts whose dueDate is missing or unreadable (not in any ageing bucket). */
  ageingUndated: BucketTotal;
  /** Upstream page calls the refresh made (rate-limited calls included). */
  pageCalls: number;
  /** Rows dropped because the upstream listed them twice (its data moved between pages). */
  duplicatesDropped: number;
  /**
   * What may make the snapshot differ from the upstream's data at one instant: rows listed
   * twice, a branch whose row count differs from its `total`. Ids and counts only.
   */
  warnings: string[];
}

export type SummarySource = 'upstream' | 'upstream-combined' | 'computed';

/**
 * The seed's four summary figures, each a number (money rounded to cents): a DebtorsSummary
 * whose figures are never null or missing.
 */
export type SummaryFigures = Required<DebtorsSummary> & {
  recoveredValue: number;
  recoveryAverage: number;
  pendingValue: number;
  pendingAverage: number;
};

export interface BranchTotals {
  branchId: number;
  branchName?: string;
  /** The upstream's `total` for this branch's query (its last page). */
  total: number;
  /** Rows of this branch's query the snapshot holds. */
  rows: number;
  summary: SummaryFigures;
  summarySource: 'upstream' | 'computed';
  open: BucketTotal;
  recovered: BucketTotal;
}

/** What paging one branch gave: its rows in the upstream's order, its last page's total and summary. */
export interface BranchPages {
  branchId: number;
  rows: readonly Debtor[];
  total: number;
  summary?: DebtorsSummary | null | undefined;
}

export interface BuildSnapshotInput {
  /** One entry per branch queried (the refresh queries each configured branch once). */
  branches: readonly BranchPages[];
  startedAt: string;
  /** Also "now" for ageing: today is its calendar day in `timeZone`. */
  generatedAt: string;
  timeZone: string;
  pageCalls: number;
}

const DAY_MS = 86_400_000;
const NO_STATUS = '(none)';

interface Tally {
  count: number;
  cents: number;
}

function tally(): Tally {
  return { count: 0, cents: 0 };
}

/** Money is summed in whole cents so that 5,000 rows add up without float residue. */
function add(to: Tally, row: Debtor): void {
  to.count += 1;
  to.cents += Math.round((row.debtAmount ?? 0) * 100);
}

function bucketTotal(from: Tally): BucketTotal {
  return { count: from.count, amount: from.cents / 100 };
}

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/;
const ZONED_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Days since 1970-01-01 of a `YYYY-MM-DD` day, or undefined if it is no real date. */
function dayNumber(year: number, month: number, day: number): number | undefined {
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1) return undefined;
  if (check.getUTCDate() !== day) return undefined;
  return ms / DAY_MS;
}

function dayOf(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  return dayNumber(Number(match[1]), Number(match[2]), Number(match[3]));
}

/**
 * The calendar day a dueDate falls on, as a day number. Production sends zone-less local
 * date-times (`2026-07-10T00:00:00`, the gym's time): their date part is the day. A date-time
 * with a zone is converted to the report's time zone first. Undefined when missing or unreadable.
 */
export function dueDay(dueDate: string | null | undefined, timeZone: string): number | undefined {
  const text = dueDate?.trim();
  if (!text) return undefined;
  const local = LOCAL_DATE_TIME.exec(text);
  if (local) return dayNumber(Number(local[1]), Number(local[2]), Number(local[3]));
  if (!ZONED_DATE_TIME.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : dayOf(localDay(new Date(ms), timeZone));
}

/**
 * Whole days a row is past its dueDate on `today` (`YYYY-MM-DD`): 0 on or before the due day,
 * null when dueDate is missing or unreadable.
 */
export function daysOverdue(
  dueDate: string | null | undefined,
  today: string,
  timeZone: string,
): number | null {
  const due = dueDay(dueDate, timeZone);
  const now = dayOf(today);
  if (due === undefined || now === undefined) return null;
  return Math.max(0, now - due);
}

/**
 * Days a row is, or was, past its dueDate (`rowDaysOverdue` of every snapshot row):
 * - a Recovered debt stopped being late on the day it was paid: days from `dueDate` to the day
 *   of `paymentDate` (never past `today`), null when it carries no readable `paymentDate` (paid,
 *   but we cannot say how late);
 * - any other debt (Open, or a status we do not know) is counted to `today`, as `daysOverdue`.
 */
export function rowDaysOverdue(
  row: Pick<Debtor, 'dueDate' | 'paymentDate' | 'debtStatus'>,
  today: string,
  timeZone: string,
): number | null {
  if (!isStatus(row.debtStatus, 'Recovered')) return daysOverdue(row.dueDate, today, timeZone);
  const paid = dueDay(row.paymentDate, timeZone);
  const now = dayOf(today);
  if (paid === undefined || now === undefined) return null;
  const stop = Math.min(paid, now);
  return daysOverdue(row.dueDate, calendarDay(stop), timeZone);
}

/** `YYYY-MM-DD` of a day number (days since 1970-01-01). */
function calendarDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** `current` = not past due; then 1-30, 31-60, 61-90 and 91+ days past due. */
export function ageingBucket(days: number): AgeingBucket {
  if (days <= 0) return 'current';
  if (days <= 30) return '1-30';
  if (days <= 60) return '31-60';
  if (days <= 90) return '61-90';
  return '91+';
}

const finite = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/**
 * The four figures of a summary the upstream sent in full (four finite numbers, other fields
 * left out), or undefined when it sent none or only part of one.
 */
export function completeSummary(
  summary: DebtorsSummary | null | undefined,
): SummaryFigures | undefined {
  if (!summary) return undefined;
  const { recoveredValue, recoveryAverage, pendingValue, pendingAverage } = summary;
  if (![recoveredValue, recoveryAverage, pendingValue, pendingAverage].every(finite)) {
    return undefined;
  }
  return {
    recoveredValue: recoveredValue as number,
    recoveryAverage: recoveryAverage as number,
    pendingValue: pendingValue as number,
    pendingAverage: pendingAverage as number,
  };
}

/** computeSummary with the figures typed as numbers (it never yields null). */
export function summaryOf(rows: readonly Debtor[]): SummaryFigures {
  const computed = computeSummary(rows);
  return {
    recoveredValue: computed.recoveredValue ?? 0,
    recoveryAverage: computed.recoveryAverage ?? 0,
    pendingValue: computed.pendingValue ?? 0,
    pendingAverage: computed.pendingAverage ?? 0,
  };
}

/**
 * The summary of the whole snapshot:
 * - one branch whose page carried a complete summary: that summary, as sent (`upstream`);
 * - several branches, each with a complete summary: recoveredValue and pendingValue are the sums
 *   of the branches' figures; recoveryAverage and pendingAverage are recomputed as that value /
 *   the number of Recovered (Open) rows in the snapshot, 0 when none (`upstream-combined`).
 *   Averages cannot be summed, and the seed defines them as value / count;
 * - otherwise (a branch without a complete summary, or no branch): computeSummary over every
 *   row, the documented formulas (`computed`).
 */
export function combineSummary(
  branches: readonly Pick<BranchPages, 'summary'>[],
  rows: readonly Debtor[],
): { summary: SummaryFigures; source: SummarySource } {
  const sent = branches.map((b) => completeSummary(b.summary));
  const complete = sent.filter((s): s is SummaryFigures => s !== undefined);
  if (complete.length === 0 || complete.length !== sent.length) {
    return { summary: summaryOf(rows), source: 'computed' };
  }
  const [only] = complete;
  if (complete.length === 1 && only) return { summary: only, source: 'upstream' };
  let recoveredValue = 0;
  let pendingValue = 0;
  for (const summary of complete) {
    recoveredValue += summary.recoveredValue;
    pendingValue += summary.pendingValue;
  }
  recoveredValue = roundMoney(recoveredValue);
  pendingValue = roundMoney(pendingValue);
  const recovered = rows.filter((row) => isStatus(row.debtStatus, 'Recovered')).length;
  const open = rows.filter((row) => isStatus(row.debtStatus, 'Open')).length;
  return {
    summary: {
      recoveredValue,
      recoveryAverage: recovered ? roundMoney(recoveredValue / recovered) : 0,
      pendingValue,
      pendingAverage: open ? roundMoney(pendingValue / open) : 0,
    },
    source: 'upstream-combined',
  };
}

/**
 * Identity of a row for de-duplication: branch and receivableId. A row without a receivableId
 * cannot be told apart from another one and is never dropped.
 */
export function debtorKey(row: Debtor, queriedBranch: number): string | undefined {
  if (row.receivableId === null || row.receivableId === undefined) return undefined;
  return `${String(row.branchId ?? queriedBranch)}|${String(row.receivableId)}`;
}

function statusKey(value: string | null | undefined): string {
  return value?.trim() || NO_STATUS;
}

/** Count and amount of `rows` by their debt status and by their member status (`(none)` for none). */
export function statusTotals(
  rows: readonly Debtor[],
): Pick<DebtorsSnapshot, 'byDebtStatus' | 'byMemberStatus'> {
  return {
    byDebtStatus: totalsBy(rows, (row) => statusKey(row.debtStatus)),
    byMemberStatus: totalsBy(rows, (row) => statusKey(row.memberStatus)),
  };
}

/**
 * The ageing of `rows`: their Open debts by bucket of days overdue (`bucketOf`; undefined or
 * null for a debt without a readable due date, counted in `ageingUndated`).
 */
export function ageingOf<Row extends Debtor>(
  rows: readonly Row[],
  bucketOf: (row: Row, index: number) => AgeingBucket | null | undefined,
): Pick<DebtorsSnapshot, 'ageing' | 'ageingUndated'> {
  const ageing = Object.fromEntries(AGEING_BUCKETS.map((b) => [b, tally()])) as Record<
    AgeingBucket,
    Tally
  >;
  const undated = tally();
  rows.forEach((row, index) => {
    if (!isStatus(row.debtStatus, 'Open')) return;
    const bucket = bucketOf(row, index);
    add(bucket ? ageing[bucket] : undated, row);
  });
  return {
    ageing: Object.fromEntries(AGEING_BUCKETS.map((b) => [b, bucketTotal(ageing[b])])) as Record<
      AgeingBucket,
      BucketTotal
    >,
    ageingUndated: bucketTotal(undated),
  };
}

function totalsBy(rows: readonly Debtor[], key: (row: Debtor) => string) {
  const tallies = new Map<string, Tally>();
  for (const row of rows) {
    const name = key(row);
    let entry = tallies.get(name);
    if (!entry) {
      entry = tally();
      tallies.set(name, entry);
    }
    add(entry, row);
  }
  return Object.fromEntries([...tallies].map(([name, t]) => [name, bucketTotal(t)]));
}

/**
 * Builds the snapshot from what paging each branch gave (see the module comment for the rules).
 * Throws RangeError for an unknown time zone or an unreadable generatedAt.
 */
export function buildSnapshot(input: BuildSnapshotInput): DebtorsSnapshot {
  const generatedMs = Date.parse(input.generatedAt);
  if (Number.isNaN(generatedMs)) {
    throw new RangeError(`generatedAt is not a date-time: ${input.generatedAt}`);
  }
  const today = localDay(new Date(generatedMs), input.timeZone);
  const ordered = [...input.branches].sort((a, b) => a.branchId - b.branchId);

  const seen = new Set<string>();
  const rows: Debtor[] = [];
  const warnings: string[] = [];
  let duplicatesDropped = 0;
  const byBranch: BranchTotals[] = [];

  for (const branch of ordered) {
    const kept: Debtor[] = [];
    let dropped = 0;
    for (const row of branch.rows) {
      const key = debtorKey(row, branch.branchId);
      if (key !== undefined) {
        if (seen.has(key)) {
          dropped += 1;
          continue;
        }
        seen.add(key);
      }
      kept.push(row);
    }
    duplicatesDropped += dropped;
    if (dropped > 0) {
      warnings.push(
        `branch ${branch.branchId}: ${dropped} row(s) listed twice by the upstream were kept once`,
      );
    }
    if (kept.length !== branch.total) {
      warnings.push(
        `branch ${branch.branchId}: the upstream's total is ${branch.total}, the report holds ${kept.length} row(s)`,
      );
    }
    const open = tally();
    const recovered = tally();
    for (const row of kept) {
      if (isStatus(row.debtStatus, 'Open')) add(open, row);
      else if (isStatus(row.debtStatus, 'Recovered')) add(recovered, row);
    }
    const upstreamSummary = completeSummary(branch.summary);
    const branchName = kept.find((row) => row.branchName)?.branchName;
    byBranch.push({
      branchId: branch.branchId,
      ...(branchName ? { branchName } : {}),
      total: branch.total,
      rows: kept.length,
      summary: upstreamSummary ?? summaryOf(kept),
      summarySource: upstreamSummary ? 'upstream' : 'computed',
      open: bucketTotal(open),
      recovered: bucketTotal(recovered),
    });
    rows.push(...kept);
  }

  const days = rows.map((row) => rowDaysOverdue(row, today, input.timeZone));

  const { summary, source } = combineSummary(ordered, rows);
  return {
    version: 1,
    startedAt: input.startedAt,
    generatedAt: input.generatedAt,
    timeZone: input.timeZone,
    branches: ordered.map((b) => b.branchId),
    rows,
    daysOverdue: days,
    summary,
    summarySource: source,
    byBranch,
    ...statusTotals(rows),
    ...ageingOf(rows, (_, index) => {
      const d = days[index];
      return d === null || d === undefined ? undefined : ageingBucket(d);
    }),
    pageCalls: input.pageCalls,
    duplicatesDropped,
    warnings,
  };
}

/** Seconds since the snapshot was generated (never negative). */
export function snapshotAgeSeconds(
  snapshot: Pick<DebtorsSnapshot, 'generatedAt'>,
  now: Date | number,
): number {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const generated = Date.parse(snapshot.generatedAt);
  if (Number.isNaN(generated)) return Number.POSITIVE_INFINITY;
  return Math.max(0, (nowMs - generated) / 1000);
}

/**
 * Whether the snapshot must be served marked stale: there is none, it is older than twice the
 * refresh interval, or the last refresh failed (`failures` counts failures since the last
 * success; the refresh status of functions/report/store/report-store.ts).
 */
export function isStale(
  snapshot: Pick<DebtorsSnapshot, 'generatedAt'> | undefined,
  status: { failures: number } | undefined,
  now: Date | number,
  refreshSeconds: number,
): boolean {
  if (!snapshot) return true;
  if ((status?.failures ?? 0) > 0) return true;
  return !(snapshotAgeSeconds(snapshot, now) <= 2 * refreshSeconds);
}
