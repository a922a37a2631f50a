/**
 * `GET /api/v1/receivables/debtors` over the demo rows: query parsing (with production-style
 * Portuguese messages) and the page + total + summary answer. Pure.
 */
import {
  computeSummary,
  DEBT_STATUS,
  type DebtStatusName,
  MAX_DEBTORS_PAGE,
  MEMBER_STATUS,
  type MemberStatusName,
  statusName,
} from '../functions/domain/debtors.ts';
import type { DemoDebtor } from './debtors-data.ts';

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
      // Production documents 50 as the maximum page size; the sandbox clamps a larger `take` to
      // 50 instead of refusing it, so a client that stops on a page shorter than what it asked
      // for (e.g. take=100) loses rows here exactly as it would in production.
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

export interface DebtorsPage {
  results: DemoDebtor[];
  total: number;
  summary: ReturnType<typeof computeSummary>;
}

/** Filters (rows are already in serving order), pages, and summarises the whole filtered set. */
export function selectDebtors(rows: readonly DemoDebtor[], query: ParsedDebtorsQuery): DebtorsPage {
  const matching = rows.filter(
    (row) =>
      (query.idBranch === undefined || row.branchId === query.idBranch) &&
      (query.debtStatus === undefined || row.debtStatus === query.debtStatus) &&
      (query.memberStatus === undefined || row.memberStatus === query.memberStatus),
  );
  return {
    results: matching.slice(query.skip, query.skip + query.take),
    total: matching.length,
    summary: computeSummary(matching),
  };
}
