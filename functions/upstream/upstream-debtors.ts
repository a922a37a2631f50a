/**
 * The debtors operations: `listDebtors` (`GET /api/v1/receivables/debtors`, one page, status
 * names sent as production's codes, the answer checked with the debtors schema) and
 * `pageDebtors`, which pages through them. Calls go over the client's transport
 * (upstream-transport.ts).
 */
import {
  DEBT_STATUS,
  type DebtorsList,
  type DebtorsQuery,
  debtorsListSchema,
  MAX_DEBTORS_PAGE,
  MEMBER_STATUS,
  statusName,
} from '../domain/debtors.ts';
import { describeIssues } from '../domain/json.ts';
import {
  type CallOptions,
  call,
  fail,
  parseBody,
  type UpstreamTransport,
} from './upstream-transport.ts';

export const DEBTORS_PATH = '/api/v1/receivables/debtors';

function statusCode(vocabulary: Record<string, number>, value: string | number): string | number {
  const name = statusName(vocabulary, value);
  return name === undefined ? value : (vocabulary[name] ?? value);
}

/** Debtors query string: take clamped to 1..50, status names mapped to production's codes. */
export function debtorsSearch(query: DebtorsQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.idBranch !== undefined) params.set('idBranch', String(query.idBranch));
  if (query.debtStatus !== undefined) {
    params.set('debtStatus', String(statusCode(DEBT_STATUS, query.debtStatus)));
  }
  if (query.memberStatus !== undefined) {
    params.set('memberStatus', String(statusCode(MEMBER_STATUS, query.memberStatus)));
  }
  if (query.take !== undefined) params.set('take', String(clampTake(query.take)));
  if (query.skip !== undefined) {
    params.set('skip', String(Math.max(0, Math.trunc(query.skip) || 0)));
  }
  return params;
}

function clampTake(take: number): number {
  const whole = Math.trunc(take);
  if (!Number.isFinite(whole) || whole < 1) return 1;
  return Math.min(MAX_DEBTORS_PAGE, whole);
}

/** `GET /api/v1/receivables/debtors`: one page of debtors, or an UpstreamError. */
export async function listDebtors(
  transport: UpstreamTransport,
  query: DebtorsQuery,
  options: CallOptions = {},
): Promise<DebtorsList> {
  const route = `GET ${DEBTORS_PATH}`;
  const answer = await call(transport, 'GET', DEBTORS_PATH, {
    search: debtorsSearch(query),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const parsed = parseBody(transport, route, answer, 'esperava-se uma lista de devedores');
  const result = debtorsListSchema.safeParse(parsed);
  if (result.success) return result.data;
  const issues = describeIssues(result.error.issues);
  const shown = issues
    .slice(0, 5)
    .map((issue) => `${issue.field || 'corpo'} ${issue.message}`)
    .join('; ');
  const more = issues.length > 5 ? ` (e mais ${issues.length - 5})` : '';
  throw fail(
    transport,
    'unavailable',
    `${route} respondeu ${answer.status} com uma lista de devedores inválida: ${shown}${more}`,
    { status: answer.status },
  );
}

/** Pages with take ≤ 50 until skip >= total or a short page; yields each page. */
export async function* pageDebtors(
  transport: UpstreamTransport,
  query: Omit<DebtorsQuery, 'take' | 'skip'>,
  options: { pageSize?: number; signal?: AbortSignal } = {},
): AsyncGenerator<DebtorsList> {
  const take = clampTake(options.pageSize ?? MAX_DEBTORS_PAGE);
  const callOptions = options.signal ? { signal: options.signal } : {};
  let skip = 0;
  for (;;) {
    const page = await listDebtors(transport, { ...query, take, skip }, callOptions);
    yield page;
    skip += page.results.length;
    if (page.results.length < take || skip >= page.total) return;
  }
}
