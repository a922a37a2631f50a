/**
 * Our own views of the debtors snapshot (`/reports/debtors`, `.csv`, `.html`): the query
 * parameters (filters, sort, paging), their validation with messages that name the parameter,
 * and the filtered, sorted rows, each the upstream row plus `daysOverdue` and `ageingBucket`.
 * Pure: no AWS, no process.env.
 *
 * `daysOverdue` is the snapshot's (calendar days past `dueDate` in the gym's time zone on the
 * day the snapshot was built), so every figure of one answer is "as of generatedAt".
 */

import {
  computeSummary,
  DEBT_STATUS,
  type Debtor,
  MEMBER_STATUS,
  statusName,
} from '../../domain/debtors.ts';
import {
  type AgeingBucket,
  ageingBucket,
  type DebtorsSnapshot,
} from '../../domain/debtors-report.ts';
import type { IssueDetail } from '../../domain/json.ts';

/** Page size of `/reports/debtors` when `take` is absent, and the most it accepts. */
export const DEFAULT_REPORT_TAKE = 100;
export const MAX_REPORT_TAKE = 1000;

export const SORT_FIELDS = ['name', 'dueDate', 'debtAmount', 'daysOverdue', 'branchId'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export interface SortKey {
  field: SortField;
  descending: boolean;
}

export interface ReportFilters {
  branch?: number[];
  debtStatus?: string[];
  memberStatus?: string[];
  daysOverdueMin?: number;
  daysOverdueMax?: number;
  /** `YYYY-MM-DD`, inclusive, compared with the date part of `dueDate`. */
  dueFrom?: string;
  dueTo?: string;
  /** Name search: every word must appear, ignoring case and accents. */
  q?: string;
  sort?: SortKey[];
}

export interface Paging {
  take: number;
  skip: number;
}

/** One result row: the upstream row as stored, plus our two fields. */
export type ReportRow = Debtor & {
  daysOverdue: number | null;
  ageingBucket: AgeingBucket | null;
};

/** Which route the parameters are for: each accepts a different set. */
export type ReportVariant = 'json' | 'csv';

const FILTER_PARAMS = [
  'branch',
  'debtstatus',
  'memberstatus',
  'daysoverduemin',
  'daysoverduemax',
  'duefrom',
  'dueto',
  'q',
  'sort',
] as const;
/** `upstream` picks the account's report (serve.ts reads it); it filters nothing here. */
const PARAMS: Record<ReportVariant, readonly string[]> = {
  json: ['upstream', ...FILTER_PARAMS, 'take', 'skip'],
  csv: ['upstream', ...FILTER_PARAMS, 'take', 'skip', 'dialect'],
};
/** The documented spelling of each parameter, for messages (names match case-insensitively). */
const SPELLING: Record<string, string> = {
  debtstatus: 'debtStatus',
  memberstatus: 'memberStatus',
  daysoverduemin: 'daysOverdueMin',
  daysoverduemax: 'daysOverdueMax',
  duefrom: 'dueFrom',
  dueto: 'dueTo',
};
const spell = (name: string) =>
  (Object.hasOwn(SPELLING, name) ? SPELLING[name] : undefined) ?? name;

/**
 * Query parameters by lower-cased name, every value in order, empty values dropped (an empty
 * `?q=` means no search, as upstream treats an empty value as absent).
 */
export function lowerCaseQuery(
  query: Readonly<Record<string, readonly string[]>>,
): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const [key, list] of Object.entries(query)) {
    const name = key.toLowerCase();
    const kept = list.map((v) => v.trim()).filter((v) => v !== '');
    if (kept.length > 0) values.set(name, [...(values.get(name) ?? []), ...kept]);
  }
  return values;
}

/** Accent- and case-insensitive form of a text: `João` and `JOAO` both give `joao`. */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const INTEGER = /^[+-]?\d{1,9}$/;
const NON_NEGATIVE = /^\+?\d{1,9}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Comma lists and repeated parameters, flattened. */
function listOf(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

/** Status names present in the snapshot, so that names the vocabulary lacks still filter. */
function statusesIn(rows: readonly Debtor[], field: 'debtStatus' | 'memberStatus'): string[] {
  const seen = new Map<string, string>();
  for (const row of rows) {
    const value = row[field];
    if (value) seen.set(value.trim().toLowerCase(), value.trim());
  }
  return [...seen.values()];
}

export type ReportQueryParse =
  | { ok: true; filters: ReportFilters; paging: Paging | undefined; dialect: CsvDialectName }
  | { ok: false; details: IssueDetail[] };

export type CsvDialectName = 'br' | 'intl';

/**
 * Reads and checks the parameters of `/reports/debtors` (`variant` json) or its CSV. Unknown
 * parameters are refused (a misspelt filter would otherwise silently show every row).
 * JSON always pages (default 100, at most 1000); the CSV pages only when `take` or `skip` is given.
 */
export function parseReportQuery(
  query: Readonly<Record<string, readonly string[]>>,
  variant: ReportVariant,
  rows: readonly Debtor[] = [],
): ReportQueryParse {
  const values = lowerCaseQuery(query);
  const details: IssueDetail[] = [];
  const fail = (name: string, message: string) => details.push({ field: spell(name), message });
  const single = (name: string): string | undefined => {
    const list = values.get(name);
    if (list && list.length > 1) fail(name, 'must be given once');
    return list?.[0];
  };
  const filters: ReportFilters = {};

  for (const name of values.keys()) {
    if (!PARAMS[variant].includes(name)) {
      fail(
        name,
        `is not a parameter of this report; known: ${PARAMS[variant].map(spell).join(', ')}`,
      );
    }
  }

  const branches = listOf(values.get('branch'));
  if (branches.length > 0) {
    const bad = branches.filter((b) => !NON_NEGATIVE.test(b));
    if (bad.length > 0) fail('branch', `must be branch ids (integers), got ${bad.join(', ')}`);
    else filters.branch = [...new Set(branches.map(Number))];
  }

  for (const [name, field, vocabulary] of [
    ['debtstatus', 'debtStatus', DEBT_STATUS],
    ['memberstatus', 'memberStatus', MEMBER_STATUS],
  ] as const) {
    const wanted = listOf(values.get(name));
    if (wanted.length === 0) continue;
    const present = statusesIn(rows, field);
    const names: string[] = [];
    for (const value of wanted) {
      const known =
        (statusName(vocabulary, value) as string | undefined) ??
        present.find((p) => p.toLowerCase() === value.toLowerCase());
      if (known) names.push(known);
      else {
        const codes = Object.entries(vocabulary).map(([n, c]) => `${c} (${n})`);
        fail(name, `"${value}" is not a status; use ${codes.join(', ')}`);
      }
    }
    filters[field] = [...new Set(names)];
  }

  for (const [name, key] of [
    ['daysoverduemin', 'daysOverdueMin'],
    ['daysoverduemax', 'daysOverdueMax'],
  ] as const) {
    const value = single(name);
    if (value === undefined) continue;
    if (INTEGER.test(value)) filters[key] = Number(value);
    else fail(name, `must be an integer number of days, got "${value}"`);
  }
  if (
    filters.daysOverdueMin !== undefined &&
    filters.daysOverdueMax !== undefined &&
    filters.daysOverdueMin > filters.daysOverdueMax
  ) {
    fail('daysoverduemin', 'must not be greater than daysOverdueMax');
  }

  for (const [name, key] of [
    ['duefrom', 'dueFrom'],
    ['dueto', 'dueTo'],
  ] as const) {
    const value = single(name);
    if (value === undefined) continue;
    if (isCalendarDate(value)) filters[key] = value;
    else fail(name, `must be a date as YYYY-MM-DD, got "${value}"`);
  }
  if (filters.dueFrom && filters.dueTo && filters.dueFrom > filters.dueTo) {
    fail('duefrom', 'must not be after dueTo');
  }

  const q = single('q');
  if (q !== undefined) {
    if (q.length > 200) fail('q', 'must be at most 200 characters');
    else filters.q = q;
  }

  const sort = listOf(values.get('sort'));
  if (sort.length > 0) {
    const keys: SortKey[] = [];
    for (const item of sort) {
      const descending = item.startsWith('-');
      const name = item.replace(/^[-+]/, '');
      const field = SORT_FIELDS.find((f) => f.toLowerCase() === name.toLowerCase());
      if (field) keys.push({ field, descending });
      else {
        fail(
          'sort',
          `"${item}" is not a sort key; use ${SORT_FIELDS.join(', ')}, "-" for descending`,
        );
      }
    }
    filters.sort = keys;
  }

  let paging: Paging | undefined;
  const take = single('take');
  const skip = single('skip');
  const maxTake = variant === 'json' ? MAX_REPORT_TAKE : Number.POSITIVE_INFINITY;
  if (variant === 'json' || take !== undefined || skip !== undefined) {
    paging = { take: variant === 'json' ? DEFAULT_REPORT_TAKE : Number.MAX_SAFE_INTEGER, skip: 0 };
    if (take !== undefined) {
      if (NON_NEGATIVE.test(take) && Number(take) <= maxTake) paging.take = Number(take);
      else {
        fail(
          'take',
          variant === 'json'
            ? `must be an integer from 0 to ${MAX_REPORT_TAKE}, got "${take}"`
            : `must be a non-negative integer, got "${take}"`,
        );
      }
    }
    if (skip !== undefined) {
      if (NON_NEGATIVE.test(skip)) paging.skip = Number(skip);
      else fail('skip', `must be a non-negative integer, got "${skip}"`);
    }
  }

  let dialect: CsvDialectName = 'br';
  const dialectValue = variant === 'csv' ? single('dialect') : undefined;
  if (dialectValue !== undefined) {
    if (dialectValue === 'br' || dialectValue === 'intl') dialect = dialectValue;
    else fail('dialect', `must be "br" (";" and decimal comma) or "intl" ("," and decimal point)`);
  }

  return details.length > 0 ? { ok: false, details } : { ok: true, filters, paging, dialect };
}

/** The filters as the answer echoes them: what was applied, in the documented spelling. */
export function describeFilters(filters: ReportFilters): Record<string, unknown> {
  const { sort, ...rest } = filters;
  return {
    ...rest,
    ...(sort && { sort: sort.map((k) => `${k.descending ? '-' : ''}${k.field}`).join(',') }),
  };
}

const rowsOf = new WeakMap<DebtorsSnapshot, readonly ReportRow[]>();

/**
 * Every row of the snapshot with its two computed fields, in the snapshot's order. Built once
 * per snapshot object (the stores keep the parsed snapshot between requests): copying 10,000
 * rows cost tens of milliseconds per request. Callers filter and sort copies, never the rows.
 */
export function reportRows(snapshot: DebtorsSnapshot): readonly ReportRow[] {
  let rows = rowsOf.get(snapshot);
  if (!rows) {
    rows = snapshot.rows.map((row, index) => {
      const days = snapshot.daysOverdue[index] ?? null;
      return { ...row, daysOverdue: days, ageingBucket: days === null ? null : ageingBucket(days) };
    });
    rowsOf.set(snapshot, rows);
  }
  return rows;
}

/** The date part (`YYYY-MM-DD`) of an ISO date-time, or undefined. */
export function datePart(value: string | null | undefined): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})/.exec(value ?? '');
  return match?.[1];
}

function matches(row: ReportRow, filters: ReportFilters, words: readonly string[]): boolean {
  if (filters.branch && !filters.branch.includes(Number(row.branchId))) return false;
  const statusIn = (value: string | null | undefined, names: readonly string[]) =>
    names.some((n) => (value ?? '').trim().toLowerCase() === n.toLowerCase());
  if (filters.debtStatus && !statusIn(row.debtStatus, filters.debtStatus)) return false;
  if (filters.memberStatus && !statusIn(row.memberStatus, filters.memberStatus)) return false;
  if (filters.daysOverdueMin !== undefined || filters.daysOverdueMax !== undefined) {
    if (row.daysOverdue === null) return false;
    if (filters.daysOverdueMin !== undefined && row.daysOverdue < filters.daysOverdueMin) {
      return false;
    }
    if (filters.daysOverdueMax !== undefined && row.daysOverdue > filters.daysOverdueMax) {
      return false;
    }
  }
  if (filters.dueFrom || filters.dueTo) {
    const due = datePart(row.dueDate);
    if (!due) return false;
    if (filters.dueFrom && due < filters.dueFrom) return false;
    if (filters.dueTo && due > filters.dueTo) return false;
  }
  if (words.length > 0) {
    const name = foldText(row.name ?? '');
    if (!words.every((word) => name.includes(word))) return false;
  }
  return true;
}

// Built on first sort (~10 ms for ICU's first pt-BR collator, kept out of the cold start).
let collator: Intl.Collator | undefined;
function nameCollator(): Intl.Collator {
  collator ??= new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });
  return collator;
}

function sortValue(row: ReportRow, field: SortField): string | number | undefined {
  switch (field) {
    case 'name':
      return row.name ?? undefined;
    case 'dueDate':
      return row.dueDate ?? undefined;
    case 'debtAmount':
      return row.debtAmount ?? undefined;
    case 'daysOverdue':
      return row.daysOverdue ?? undefined;
    case 'branchId':
      return row.branchId == null ? undefined : Number(row.branchId);
  }
}

/** Orders rows by the keys; missing values last whatever the direction; ties keep snapshot order. */
function compareRows(keys: readonly SortKey[]) {
  return (a: ReportRow, b: ReportRow): number => {
    for (const { field, descending } of keys) {
      const left = sortValue(a, field);
      const right = sortValue(b, field);
      if (left === undefined || right === undefined) {
        if (left === right) continue;
        return left === undefined ? 1 : -1;
      }
      const order =
        typeof left === 'string' && typeof right === 'string'
          ? field === 'name'
            ? nameCollator().compare(left, right)
            : left < right
              ? -1
              : left > right
                ? 1
                : 0
          : Number(left) - Number(right);
      if (order !== 0) return descending ? -order : order;
    }
    return 0;
  };
}

/** The rows matching the filters, sorted (snapshot order when no sort is given). */
export function selectReportRows(rows: readonly ReportRow[], filters: ReportFilters): ReportRow[] {
  const words = foldText(filters.q ?? '')
    .split(/\s+/)
    .filter(Boolean);
  const selected = rows.filter((row) => matches(row, filters, words));
  return filters.sort?.length ? selected.sort(compareRows(filters.sort)) : selected;
}

/** The seed's four figures over the filtered rows (not only the page). */
export function filteredSummary(rows: readonly Debtor[]) {
  return computeSummary(rows);
}
