/**
 * What the debtors dashboard shows for one request, as data; dashboard.ts renders it. Pure.
 *
 * - `parseDashboardQuery`: the page's parameters (`branch`, `debtStatus`, `q`, `sort`), with
 *   problems worded in Portuguese for the page that explains them.
 * - `dashboardScope`: the snapshot narrowed to the chosen branches. `branch` narrows every
 *   figure of the page: the four summary figures, the ageing, the totals per status and per
 *   branch, the list.
 * - `dashboardList`: the rows the list holds, at most `limit`: the ones matching the list's
 *   filters (`debtStatus`, `q`) first, then, while there is room, the others (hidden, so that
 *   clearing the search in the browser shows them), in the chosen order.
 *
 * The list's own order: open debts first, the most overdue first, then the others, the latest
 * due date first. Sorting by days overdue counts only debts still open: a Recovered debt is no
 * longer overdue, so it sorts with the rows that have no value (last, in either direction).
 */
import { type Debtor, isStatus } from '../../domain/debtors.ts';
import {
  AGEING_BUCKETS,
  type AgeingBucket,
  type BranchTotals,
  type BucketTotal,
  combineSummary,
  type DebtorsSnapshot,
  type SummaryFigures,
  type SummarySource,
  summaryOf,
} from '../../domain/debtors-report.ts';
import type { IssueDetail } from '../../domain/json.ts';
import { ACCOUNT_NAME } from '../../kernel/accounts.ts';
import { datePart, foldText, lowerCaseQuery, type ReportRow, reportRows } from './report-json.ts';

export const DASHBOARD_SORT_FIELDS = [
  'name',
  'branch',
  'dueDate',
  'daysOverdue',
  'debtAmount',
] as const;
export type DashboardSortField = (typeof DASHBOARD_SORT_FIELDS)[number];

export interface DashboardQuery {
  /** The upstream account whose report this is, when the client sees several. */
  upstream?: string;
  /** Branch ids: the page's scope (every figure). */
  branch?: number[];
  /** The list's filters. */
  debtStatus?: 'open' | 'recovered';
  q?: string;
  sort?: { field: DashboardSortField; descending: boolean };
}

export type DashboardQueryParse =
  | { ok: true; query: DashboardQuery }
  | { ok: false; problems: IssueDetail[] };

const PARAMS = ['upstream', 'branch', 'debtstatus', 'q', 'sort'] as const;
const SPELLING: Record<string, string> = { debtstatus: 'debtStatus' };
const spell = (name: string) =>
  (Object.hasOwn(SPELLING, name) ? SPELLING[name] : undefined) ?? name;
const BRANCH_ID = /^\+?\d{1,9}$/;
const DEBT_STATUSES: Record<string, 'open' | 'recovered'> = {
  open: 'open',
  '1': 'open',
  recovered: 'recovered',
  '2': 'recovered',
};

/** Reads the page's parameters; a problem says in Portuguese what was wrong and what works. */
export function parseDashboardQuery(
  query: Readonly<Record<string, readonly string[]>>,
): DashboardQueryParse {
  const values = lowerCaseQuery(query);
  const problems: IssueDetail[] = [];
  const fail = (name: string, message: string) => problems.push({ field: spell(name), message });
  const single = (name: string): string | undefined => {
    const list = values.get(name);
    if (list && list.length > 1) fail(name, 'deve aparecer uma vez só no endereço');
    return list?.[0];
  };
  const result: DashboardQuery = {};

  for (const name of values.keys()) {
    if (!(PARAMS as readonly string[]).includes(name)) {
      fail(name, 'não é um filtro desta página; os filtros são branch, debtStatus, q e sort');
    }
  }

  const upstream = single('upstream');
  if (upstream !== undefined) {
    if (ACCOUNT_NAME.test(upstream)) result.upstream = upstream;
    else
      fail(
        'upstream',
        `deve ser o nome de uma conta (ex.: upstream=norte); recebido "${upstream}"`,
      );
  }

  const branches = (values.get('branch') ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (branches.length > 0) {
    const bad = branches.filter((b) => !BRANCH_ID.test(b));
    if (bad.length > 0) {
      fail('branch', `deve ser o número da filial (ex.: branch=2); recebido "${bad.join(', ')}"`);
    } else result.branch = [...new Set(branches.map(Number))].sort((a, b) => a - b);
  }

  const status = single('debtstatus');
  if (status !== undefined) {
    const known = Object.hasOwn(DEBT_STATUSES, status.toLowerCase())
      ? DEBT_STATUSES[status.toLowerCase()]
      : undefined;
    if (known) result.debtStatus = known;
    else
      fail('debtstatus', `use open (em aberto) ou recovered (recuperados); recebido "${status}"`);
  }

  const q = single('q');
  if (q !== undefined) {
    if (q.length > 200) fail('q', 'a busca pode ter no máximo 200 caracteres');
    else result.q = q;
  }

  const sort = single('sort');
  if (sort !== undefined) {
    const descending = sort.startsWith('-');
    const name = sort.replace(/^[-+]/, '').toLowerCase();
    const field = DASHBOARD_SORT_FIELDS.find((f) => f.toLowerCase() === name);
    if (field) result.sort = { field, descending };
    else {
      fail(
        'sort',
        `ordene por ${DASHBOARD_SORT_FIELDS.join(', ')} (com "-" na frente para a ordem decrescente); recebido "${sort}"`,
      );
    }
  }

  return problems.length > 0 ? { ok: false, problems } : { ok: true, query: result };
}

/** The query as the page's links carry it (`?branch=2&sort=-debtAmount`), without `?`. */
export function dashboardSearch(query: DashboardQuery): string {
  const params = new URLSearchParams();
  if (query.upstream) params.set('upstream', query.upstream);
  if (query.branch?.length) params.set('branch', query.branch.join(','));
  if (query.debtStatus) params.set('debtStatus', query.debtStatus);
  if (query.q) params.set('q', query.q);
  if (query.sort) params.set('sort', sortText(query.sort));
  return params.toString();
}

export function sortText(sort: NonNullable<DashboardQuery['sort']>): string {
  return `${sort.descending ? '-' : ''}${sort.field}`;
}

// ---------------------------------------------------------------------------------------------
// Scope: every figure of the page for the chosen branches

export interface DashboardScope {
  /** The branches asked for, or undefined for the whole report. */
  branchIds: readonly number[] | undefined;
  /** The report's branches in scope (all of them without a filter). */
  branches: readonly BranchTotals[];
  /** Asked-for branch ids the report does not hold. */
  unknownBranches: readonly number[];
  rows: readonly ReportRow[];
  summary: SummaryFigures;
  summarySource: SummarySource;
  byDebtStatus: Record<string, BucketTotal>;
  byMemberStatus: Record<string, BucketTotal>;
  ageing: Record<AgeingBucket, BucketTotal>;
  ageingUndated: BucketTotal;
}

const NO_STATUS = '(none)';

interface Tally {
  count: number;
  cents: number;
}

function add(to: Tally, row: Debtor): void {
  to.count += 1;
  to.cents += Math.round((row.debtAmount ?? 0) * 100);
}

const total = (t: Tally): BucketTotal => ({ count: t.count, amount: t.cents / 100 });

function totalsBy(rows: readonly Debtor[], key: (row: Debtor) => string) {
  const tallies = new Map<string, Tally>();
  for (const row of rows) {
    const name = key(row);
    const entry = tallies.get(name) ?? { count: 0, cents: 0 };
    add(entry, row);
    tallies.set(name, entry);
  }
  return Object.fromEntries([...tallies].map(([name, t]) => [name, total(t)]));
}

/**
 * The snapshot's figures for `branchIds` (the whole snapshot's, as stored, without them). With
 * branches: the summary is the upstream's when every chosen branch carried one (several are
 * combined as the snapshot combines them: values summed, averages over the rows), else
 * computed over the chosen rows; ageing and totals are counted over the chosen rows, with the
 * snapshot's rules (Open debts by bucket of days overdue, amounts in cents).
 */
export function dashboardScope(
  snapshot: DebtorsSnapshot,
  branchIds?: readonly number[],
): DashboardScope {
  const all = reportRows(snapshot);
  if (!branchIds) {
    return {
      branchIds: undefined,
      branches: snapshot.byBranch,
      unknownBranches: [],
      rows: all,
      summary: snapshot.summary,
      summarySource: snapshot.summarySource,
      byDebtStatus: snapshot.byDebtStatus,
      byMemberStatus: snapshot.byMemberStatus,
      ageing: snapshot.ageing,
      ageingUndated: snapshot.ageingUndated,
    };
  }
  const wanted = new Set(branchIds);
  const branches = snapshot.byBranch.filter((b) => wanted.has(b.branchId));
  const rows = all.filter((row) => row.branchId != null && wanted.has(Number(row.branchId)));
  const fromUpstream =
    branches.length > 0 && branches.every((branch) => branch.summarySource === 'upstream');
  const { summary, source } = fromUpstream
    ? combineSummary(branches, rows)
    : { summary: summaryOf(rows), source: 'computed' as const };

  const ageing = Object.fromEntries(
    AGEING_BUCKETS.map((b) => [b, { count: 0, cents: 0 }]),
  ) as Record<AgeingBucket, Tally>;
  const undated: Tally = { count: 0, cents: 0 };
  for (const row of rows) {
    if (!isStatus(row.debtStatus, 'Open')) continue;
    add(row.ageingBucket ? ageing[row.ageingBucket] : undated, row);
  }
  const statusKey = (value: string | null | undefined) => value?.trim() || NO_STATUS;
  return {
    branchIds: [...wanted],
    branches,
    unknownBranches: [...wanted].filter((id) => !snapshot.branches.includes(id)),
    rows,
    summary,
    summarySource: source,
    byDebtStatus: totalsBy(rows, (row) => statusKey(row.debtStatus)),
    byMemberStatus: totalsBy(rows, (row) => statusKey(row.memberStatus)),
    ageing: Object.fromEntries(AGEING_BUCKETS.map((b) => [b, total(ageing[b])])) as Record<
      AgeingBucket,
      BucketTotal
    >,
    ageingUndated: total(undated),
  };
}

// ---------------------------------------------------------------------------------------------
// The list

/** The branch as the page names it: its name, else `Filial <id>`. */
export function branchLabel(row: Pick<Debtor, 'branchName' | 'branchId'>): string {
  return row.branchName ?? (row.branchId == null ? '' : `Filial ${row.branchId}`);
}

/** `open`, `recovered`, or the status as sent, folded: the list's status filter compares this. */
export function statusKeyOf(row: Pick<Debtor, 'debtStatus'>): string {
  return foldText((row.debtStatus ?? '').trim());
}

/** Days still overdue: a Recovered debt has none (it was paid), whatever its days at payment. */
export function openDaysOverdue(row: ReportRow): number | null {
  return isStatus(row.debtStatus, 'Recovered') ? null : row.daysOverdue;
}

const isOpen = (row: ReportRow) => isStatus(row.debtStatus, 'Open');

/** The list's own order: open debts first, the most overdue first; then the latest due first. */
export function rankDashboardRows(rows: readonly ReportRow[]): ReportRow[] {
  const rank = (row: ReportRow) => (isOpen(row) ? 0 : 1);
  const days = (row: ReportRow) => row.daysOverdue ?? Number.NEGATIVE_INFINITY;
  return [...rows].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (rank(a) === 0 ? days(b) - days(a) : (b.dueDate ?? '').localeCompare(a.dueDate ?? '')),
  );
}

/** The first `limit` rows of the list's own order. */
export function pickDashboardRows(rows: readonly ReportRow[], limit: number): ReportRow[] {
  return rankDashboardRows(rows).slice(0, limit);
}

export interface ListedRow {
  row: ReportRow;
  /** Position in the list's own order (the page restores it when the sort is cleared). */
  rank: number;
  /** Does not match the list's filters: sent hidden. */
  hidden: boolean;
}

export interface DashboardList {
  rows: ListedRow[];
  /** Rows in scope matching the list's filters (may exceed the listed ones). */
  matching: number;
  /** Rows in scope. */
  total: number;
}

// Built on first use (~10 ms for ICU's first pt-BR collator, kept out of the cold start).
let collator: Intl.Collator | undefined;
function textCollator(): Intl.Collator {
  collator ??= new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });
  return collator;
}

function sortValue(row: ReportRow, field: DashboardSortField): string | number | undefined {
  switch (field) {
    case 'name':
      return row.name || undefined;
    case 'branch':
      return branchLabel(row) || undefined;
    case 'dueDate':
      return datePart(row.dueDate);
    case 'daysOverdue':
      return openDaysOverdue(row) ?? undefined;
    case 'debtAmount':
      return row.debtAmount ?? undefined;
  }
}

/** The page's script sorts the same way (dashboard.ts): missing values last, ties by rank. */
function compareListed(sort: NonNullable<DashboardQuery['sort']>) {
  return (a: ListedRow, b: ListedRow): number => {
    const left = sortValue(a.row, sort.field);
    const right = sortValue(b.row, sort.field);
    if (left !== undefined || right !== undefined) {
      if (left === undefined) return 1;
      if (right === undefined) return -1;
      const order =
        typeof left === 'number' && typeof right === 'number'
          ? left - right
          : sort.field === 'dueDate'
            ? String(left) < String(right)
              ? -1
              : String(left) > String(right)
                ? 1
                : 0
            : textCollator().compare(String(left), String(right));
      if (order !== 0) return sort.descending ? -order : order;
    }
    return a.rank - b.rank;
  };
}

/** The rows the list holds, at most `limit` (see the module comment), in the chosen order. */
export function dashboardList(
  rows: readonly ReportRow[],
  query: DashboardQuery,
  limit: number,
): DashboardList {
  const words = foldText(query.q ?? '')
    .split(/\s+/)
    .filter(Boolean);
  const matches = (row: ReportRow) =>
    (!query.debtStatus || statusKeyOf(row) === query.debtStatus) &&
    words.every((word) => foldText(row.name ?? '').includes(word));
  const ranked = rankDashboardRows(rows).map((row, rank) => ({
    row,
    rank,
    hidden: !matches(row),
  }));
  const shown = ranked.filter((item) => !item.hidden);
  const listed = shown.slice(0, limit);
  if (listed.length < limit) {
    listed.push(...ranked.filter((item) => item.hidden).slice(0, limit - listed.length));
  }
  listed.sort(query.sort ? compareListed(query.sort) : (a, b) => a.rank - b.rank);
  return { rows: listed, matching: shown.length, total: rows.length };
}

/**
 * The snapshot as a client scoped to `branchIds` may see it: only their rows, and every figure
 * (summary, ageing, totals per status and branch) for them alone, as dashboardScope counts them.
 */
export function scopeSnapshot(
  snapshot: DebtorsSnapshot,
  branchIds: readonly number[],
): DebtorsSnapshot {
  const scope = dashboardScope(snapshot, branchIds);
  const wanted = new Set(branchIds);
  const keep = snapshot.rows.map((row) => row.branchId != null && wanted.has(Number(row.branchId)));
  return {
    ...snapshot,
    branches: snapshot.branches.filter((id) => wanted.has(id)),
    rows: snapshot.rows.filter((_, index) => keep[index]),
    daysOverdue: snapshot.daysOverdue.filter((_, index) => keep[index]),
    summary: scope.summary,
    summarySource: scope.summarySource,
    byBranch: [...scope.branches],
    byDebtStatus: scope.byDebtStatus,
    byMemberStatus: scope.byMemberStatus,
    ageing: scope.ageing,
    ageingUndated: scope.ageingUndated,
    warnings: snapshot.warnings.filter((w) =>
      branchIds.some((id) => w.startsWith(`branch ${id}:`)),
    ),
  };
}
