/**
 * The debtors list as the upstream answers `GET /api/v1/receivables/debtors`: query parsing
 * (with production-style Portuguese messages), filtering, paging and the summary over the whole
 * filtered set. Pure.
 *
 * One implementation for two callers: the sandbox answers the upstream's route with it, and the
 * report answers the same query from its snapshot with it, so that the report's seed-shaped list
 * agrees with the upstream's own filters and paging by construction.
 */
import {
  computeSummary,
  DEBT_STATUS,
  type Debtor,
  type DebtorsSummary,
  type DebtStatusName,
  isStatus,
  MAX_DEBTORS_PAGE,
  MEMBER_STATUS,
  type MemberStatusName,
  statusName,
} from './debtors.ts';

export interface ParsedDebtorsQuery {
  take: number;
  skip: number;
  idBranch?: number;
  debtStatus?: DebtStatusName;
  memberStatus?: MemberStatusName;
}

export type DebtorsQueryParse =
  | { ok: true; query: ParsedDebtorsQuery }
  | { ok: false; messages: string[] };

const NON_NEGATIVE = /^\+?\d+$/;
const INTEGER = /^[+-]?\d+$/;

function describeVocabulary(vocabulary: Record<string, number>): string {
  const entries = Object.entries(vocabulary).map(([name, code]) => `${code} (${name})`);
  return `${entries.slice(0, -1).join(', ')} ou ${entries.at(-1) ?? ''}`;
}

/**
 * Reads the query. Parameter names are matched case-insensitively (as production's binder does)
 * and an empty value counts as absent; unknown parameters are ignored.
 */
export function parseDebtorsQuery(params: URLSearchParams): DebtorsQueryParse {
  const values = new Map<string, string>();
  for (const [key, value] of params) {
    const name = key.toLowerCase();
    if (!values.has(name) && value.trim() !== '') values.set(name, value.trim());
  }
  const messages: string[] = [];
  const query: ParsedDebtorsQuery = { take: MAX_DEBTORS_PAGE, skip: 0 };

  const take = values.get('take');
  if (take !== undefined) {
    if (NON_NEGATIVE.test(take)) {
      // Production documents 50 as the maximum page size; a larger `take` is clamped to 50
      // instead of refused, so a client that stops on a page shorter than what it asked for
      // (e.g. take=100) loses rows here exactly as it would in production.
      query.take = Math.min(Number(take), MAX_DEBTORS_PAGE);
    } else {
      messages.push("O parâmetro 'take' deve ser um número inteiro maior ou igual a 0.");
    }
  }
  const skip = values.get('skip');
  if (skip !== undefined) {
    if (NON_NEGATIVE.test(skip)) query.skip = Number(skip);
    else messages.push("O parâmetro 'skip' deve ser um número inteiro maior ou igual a 0.");
  }
  const idBranch = values.get('idbranch');
  if (idBranch !== undefined) {
    if (INTEGER.test(idBranch)) query.idBranch = Number(idBranch);
    else messages.push("O parâmetro 'idBranch' deve ser um número inteiro.");
  }
  const debtStatus = values.get('debtstatus');
  if (debtStatus !== undefined) {
    const name = statusName(DEBT_STATUS, debtStatus);
    if (name) query.debtStatus = name;
    else {
      messages.push(`O parâmetro 'debtStatus' deve ser ${describeVocabulary(DEBT_STATUS)}.`);
    }
  }
  const memberStatus = values.get('memberstatus');
  if (memberStatus !== undefined) {
    const name = statusName(MEMBER_STATUS, memberStatus);
    if (name) query.memberStatus = name;
    else {
      messages.push(`O parâmetro 'memberStatus' deve ser ${describeVocabulary(MEMBER_STATUS)}.`);
    }
  }
  return messages.length ? { ok: false, messages } : { ok: true, query };
}

/** The upstream's answer: one page, the size of the filtered set, its summary. */
export interface DebtorsQueryResult<T extends Debtor = Debtor> {
  results: T[];
  total: number;
  summary: Required<DebtorsSummary>;
}

/**
 * A query as queryDebtors takes it: ParsedDebtorsQuery, or the client's DebtorsQuery with take
 * and skip set. Statuses are names or numeric codes (case-insensitive names).
 */
export interface DebtorsListQuery {
  take: number;
  skip: number;
  idBranch?: number | undefined;
  debtStatus?: number | string | undefined;
  memberStatus?: number | string | undefined;
}

/** A status filter as the name it stands for; a value outside the vocabulary matches nothing. */
function statusFilter(
  vocabulary: Record<string, number>,
  value: number | string | undefined,
): string | null | undefined {
  if (value === undefined) return undefined;
  return (statusName(vocabulary, value) as string | undefined) ?? null;
}

function matchesStatus(actual: string | null | undefined, wanted: string | null | undefined) {
  if (wanted === undefined) return true;
  return wanted !== null && isStatus(actual, wanted);
}

/** Whether a row passes the query's filters. */
export function matchesDebtorsQuery(
  row: Debtor,
  query: Pick<DebtorsListQuery, 'idBranch' | 'debtStatus' | 'memberStatus'>,
): boolean {
  return (
    (query.idBranch === undefined || String(row.branchId) === String(query.idBranch)) &&
    matchesStatus(row.debtStatus, statusFilter(DEBT_STATUS, query.debtStatus)) &&
    matchesStatus(row.memberStatus, statusFilter(MEMBER_STATUS, query.memberStatus))
  );
}

/**
 * Filters (rows are already in serving order), pages, and summarises the whole filtered set
 * with the documented formulas (computeSummary). `take` is clamped to 0..50 and `skip` to ≥ 0
 * as the upstream does.
 */
export function queryDebtors<T extends Debtor>(
  rows: readonly T[],
  query: DebtorsListQuery,
): DebtorsQueryResult<T> {
  const take = Math.min(Math.max(0, Math.trunc(query.take) || 0), MAX_DEBTORS_PAGE);
  const skip = Math.max(0, Math.trunc(query.skip) || 0);
  const matching = rows.filter((row) => matchesDebtorsQuery(row, query));
  return {
    results: matching.slice(skip, skip + take),
    total: matching.length,
    summary: computeSummary(matching),
  };
}
