/**
 * What the debtors dashboard shows for one request, as data; dashboard.ts renders it. Pure.
 *
 * - `parseDashboardQuery`: the page's parameters (`branch`, `debtStatus`, `q`, `sort`), with
 *   problems worded in Portuguese for the page that explains them.
 * - `dashboardScope`: the snapshot narrowed to the chosen branches. `branch` narrows every
 *   figure of the page: the four summary figures, the ageing, the totals per status and per
 *   branch, the list.
 * - `scopeSnapshot`: the snapshot as a client scoped to some branches may see it.
 *
 * The list of debtors itself (one entry per member) is dashboard-members.ts.
 */
import {
  type AgeingBucket,
  ageingOf,
  type BranchTotals,
  type BucketTotal,
  combineSummary,
  type DebtorsSnapshot,
  type SummaryFigures,
  type SummarySource,
  statusTotals,
  summaryOf,
} from '../../domain/debtors-report.ts';
import type { IssueDetail } from '../../domain/json.ts';
import { ACCOUNT_NAME } from '../../kernel/accounts.ts';
import { lowerCaseQuery, type ReportRow, reportRows } from './report-json.ts';

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
      fail('branch', `deve ser o número da unidade (ex.: branch=2); recebido "${bad.join(', ')}"`);
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
  return {
    branchIds: [...wanted],
    branches,
    unknownBranches: [...wanted].filter((id) => !snapshot.branches.includes(id)),
    rows,
    summary,
    summarySource: source,
    ...statusTotals(rows),
    ...ageingOf(rows, (row) => row.ageingBucket),
  };
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
