import type { ConfigSource } from '../../config/config-source.ts';
import { parseDebtorsQuery, queryDebtors } from '../../domain/debtors-query.ts';
import { isStale } from '../../domain/debtors-report.ts';
import type { IssueDetail } from '../../domain/json.ts';
import { type HttpRequest, type HttpResponse, json, problem } from '../../kernel/http.ts';
import { type Text, t } from '../../kernel/language.ts';
import { admitCaller, NO_STORE } from '../../kernel/route-guard.ts';
import type { RouteName } from '../../kernel/routes.ts';
import { coversAccount } from '../../kernel/scope.ts';
import type { RefreshStatus, ReportStore, StoredSnapshot } from '../store/report-store.ts';
import type { ReportTrigger } from '../trigger/report-trigger.ts';
import { CSV_CONTENT_TYPE, CSV_DIALECTS, csvFileName, localDate, toCsv } from './csv.ts';
import { type DashboardView, MAX_DASHBOARD_MEMBERS, renderDashboard } from './dashboard.ts';
import { dashboardScript } from './dashboard-asset.ts';
import { renderQueryProblems } from './dashboard-fallback.ts';
import { memberList } from './dashboard-members.ts';
import { DASHBOARD_HEADERS } from './dashboard-page.ts';
import {
  dashboardScope,
  dashboardSearch,
  parseDashboardQuery,
  scopeSnapshot,
} from './dashboard-scope.ts';
import {
  type CachePolicy,
  encodeResponse,
  entityTag,
  fitsResponseLimit,
  MAX_RESPONSE_BYTES,
  notModified,
  serialisedSize,
} from './http-cache.ts';
import {
  branchRefusal,
  chooseAccount,
  forbiddenBranches,
  forPerson,
  type Refusal,
  refreshUnavailable,
  tryAgain,
} from './refusals.ts';
import {
  describeFilters,
  filteredSummary,
  parseReportQuery,
  reportRows,
  selectReportRows,
} from './report-json.ts';
import { withoutTracking } from './tracking-params.ts';

/** The report function's routes, by the names the route table gives them (kernel/routes.ts). */
export type ReportRoute = RouteName<'report'>;

/** Cache-Control of every 200/304 GET: private (per credentials), reused for a minute. */
export const REPORT_CACHE_CONTROL = 'private, max-age=60';

/** Log lines and metrics: routes, statuses and codes only. */
export interface ReportEvents {
  served(event: { route: ReportRoute; status: number }): void;
  refused(event: { route: ReportRoute | 'unknown'; status: number; code: string }): void;
  refreshRequested(event: { client: string }): void;
  /** The store or the trigger failed (answered 503). */
  failed(event: { route: ReportRoute; error: unknown }): void;
}

export interface ReportDeps {
  config: Pick<ConfigSource, 'clients' | 'report' | 'accounts'>;
  /** Each upstream account's report store. */
  stores: (account: string) => Pick<ReportStore, 'readSnapshot' | 'readStatus'>;
  trigger: Pick<ReportTrigger, 'requestRefresh'>;
  events?: ReportEvents;
  now?: () => Date;
}

const SILENT: ReportEvents = { served() {}, refused() {}, refreshRequested() {}, failed() {} };

/** Answers one request to `resource` (the API Gateway resource path). */
export async function serveReport(
  resource: string,
  received: HttpRequest,
  deps: ReportDeps,
  pathParameters: Readonly<Record<string, string | undefined>> | null = null,
): Promise<HttpResponse> {
  // A link shared through WhatsApp, Instagram or a campaign carries tracking parameters
  // (`fbclid`, `utm_source`...): no route reads them, none refuses them (tracking-params.ts).
  const request: HttpRequest = { ...received, query: withoutTracking(received.query) };
  const events = deps.events ?? SILENT;
  let route: ReportRoute | 'unknown' = 'unknown';
  // Programs get the JSON error; a person (the dashboard, a browser opening a page) a page.
  const refuse = (refusal: Refusal) => {
    events.refused({ route, status: refusal.result.statusCode, code: refusal.code });
    return forPerson(resource, request, refusal);
  };
  const admission = await admitCaller('report', resource, request, () => deps.config.clients());
  if (!admission.ok) return refuse(admission);
  const { client } = admission;
  const admitted = admission.route.name;
  route = admitted;
  const page = admitted === 'report-html';
  // The dashboard's script: code, no data; the same for every account (dashboard-asset.ts).
  if (admitted === 'report-script') return dashboardScript(pathParameters?.file ?? '');

  // Which account's report, and which of its branches, this client may see.
  const chosen = chooseAccount(request, client, await deps.config.accounts());
  if (!chosen.ok) return refuse(chosen);
  const { account } = chosen;
  if (admission.route.scope === 'account' && !coversAccount(admission.scope, account)) {
    return refuse(branchRefusal(client, account, []));
  }
  const parameter = admitted === 'debtors-list' ? 'idbranch' : 'branch';
  const forbidden = forbiddenBranches(parameter, request, client.branches);
  if (forbidden.length > 0) return refuse(branchRefusal(client, account, forbidden));

  if (admitted === 'refresh') {
    try {
      await deps.trigger.requestRefresh({ reason: 'admin', upstream: account });
    } catch (error) {
      events.failed({ route: admitted, error });
      return refuse(refreshUnavailable());
    }
    events.refreshRequested({ client: client.username });
    return json(202, { status: 'refresh_requested' }, NO_STORE);
  }

  // The dashboard is read by people: it answers these in Portuguese HTML, other routes in JSON.
  let stored: StoredSnapshot | undefined;
  let status: RefreshStatus;
  try {
    const store = deps.stores(account);
    [stored, status] = await Promise.all([store.readSnapshot(), store.readStatus()]);
  } catch (error) {
    events.failed({ route: admitted, error });
    return refuse(
      tryAgain(
        'report_unavailable',
        t(
          'o relatório não pode ser lido agora; tente de novo',
          'the report cannot be read right now; try again',
        ),
        page ? undefined : false,
      ),
    );
  }
  if (!stored) {
    return refuse(
      tryAgain(
        'report_not_ready',
        t(
          'o relatório de devedores ainda não foi montado; tente de novo em instantes',
          'the debtors report has not been built yet; try again shortly',
        ),
        page ? status : false,
      ),
    );
  }

  const now = deps.now?.() ?? new Date();
  const { refreshSeconds } = await deps.config.report(account);
  if (client.branches) {
    // A client scoped to branches sees a report of those branches alone (its own ETag too).
    stored = {
      snapshot: scopeSnapshot(stored.snapshot, client.branches),
      etag: `${stored.etag}.b${client.branches.join('-')}`,
    };
  }
  const context: ServeContext = {
    request,
    clientBranches: client.branches,
    stored,
    status,
    now,
    stale: isStale(stored.snapshot, status, now, refreshSeconds),
  };
  const result = await ROUTE_HANDLERS[admitted](context);
  events.served({ route: admitted, status: result.statusCode });
  return result;
}

interface ServeContext {
  request: HttpRequest;
  /** The branches a scoped client sees (the stored snapshot holds only them); else undefined. */
  clientBranches: readonly number[] | undefined;
  stored: StoredSnapshot;
  status: RefreshStatus;
  now: Date;
  stale: boolean;
}

type RouteHandler = (context: ServeContext) => HttpResponse | Promise<HttpResponse>;

const ROUTE_HANDLERS: Record<Exclude<ReportRoute, 'refresh' | 'report-script'>, RouteHandler> = {
  'debtors-list': serveDebtorsList,
  'report-json': serveReportJson,
  'report-csv': serveCsv,
  'report-html': serveDashboard,
};

function invalidQuery(details: readonly IssueDetail[]): HttpResponse {
  const fields = [...new Set(details.map((d) => d.field))].join(', ');
  const message = t(
    `parâmetros de consulta inválidos: ${fields}`,
    `invalid query parameters: ${fields}`,
  );
  return problem(400, 'invalid_query', message, details, NO_STORE);
}

function policyFor(stored: StoredSnapshot, ...parts: string[]): CachePolicy {
  return { etag: entityTag(stored.etag, ...parts), cacheControl: REPORT_CACHE_CONTROL };
}

/** What the refresh status shows (`undefined` fields as `null`), also part of the ETag. */
function refreshStatusOf(status: RefreshStatus) {
  return {
    lastSucceededAt: status.lastSucceededAt ?? null,
    lastFailedAt: status.lastFailedAt ?? null,
    lastError: status.lastError ?? null,
    failures: status.failures,
  };
}

function ageSecondsOf(generatedAt: string, now: Date): number {
  const generated = Date.parse(generatedAt);
  return Number.isNaN(generated) ? 0 : Math.max(0, Math.floor((now.getTime() - generated) / 1000));
}

/** 400 when an answer would not fit in a Lambda response: says how to ask for less. */
function tooLarge(result: HttpResponse, advice: Text): HttpResponse {
  const megabytes = (serialisedSize(result) / 1024 / 1024).toFixed(1);
  return problem(
    400,
    'response_too_large',
    t(
      `a resposta teria ${megabytes} MB, acima dos ${MAX_RESPONSE_BYTES / 1024 / 1024} MB que uma resposta comporta; ${advice.pt}`,
      `the answer would be ${megabytes} MB, over the ${MAX_RESPONSE_BYTES / 1024 / 1024} MB one response can carry; ${advice.en}`,
    ),
    [],
    NO_STORE,
  );
}

/** A page of JSON, encoded as the request accepts; 400 asking for less when it would not fit. */
function jsonPage(request: HttpRequest, body: string, policy: CachePolicy): HttpResponse {
  const result = encodeResponse(
    request,
    { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body },
    policy,
  );
  return fitsResponseLimit(result)
    ? result
    : tooLarge(result, t('peça um take menor', 'ask for a smaller take'));
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/receivables/debtors

/** The request's query as the upstream's parser reads it (every value of a repeated key). */
function searchParams(query: Readonly<Record<string, readonly string[]>>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, values] of Object.entries(query)) {
    for (const value of values) params.append(key, value);
  }
  return params;
}

/**
 * The upstream's parameters with the upstream's meaning, through the upstream's own parser
 * (docs/upstream.md): names match case-insensitively, an empty value is absent, unknown
 * parameters are ignored, `take` above 50 is clamped to 50, statuses by code or name.
 */
function serveDebtorsList({ request, stored }: ServeContext): HttpResponse {
  const parsed = parseDebtorsQuery(searchParams(request.query));
  if (!parsed.ok) {
    const message = t('parâmetros de consulta inválidos', 'invalid query parameters');
    return problem(400, 'invalid_query', message, parsed.messages, NO_STORE);
  }
  const policy = policyFor(stored, 'debtors-list', JSON.stringify(parsed.query));
  const cached = notModified(request, policy);
  if (cached) return cached;
  const page = queryDebtors(stored.snapshot.rows, parsed.query);
  const body = JSON.stringify({ results: page.results, total: page.total, summary: page.summary });
  return jsonPage(request, body, policy);
}

// ---------------------------------------------------------------------------------------------
// GET /reports/debtors

function serveReportJson({ request, stored, status, now, stale }: ServeContext): HttpResponse {
  const { snapshot } = stored;
  const parsed = parseReportQuery(request.query, 'json', snapshot.rows);
  if (!parsed.ok) return invalidQuery(parsed.details);
  const paging = parsed.paging ?? { take: 0, skip: 0 };
  const refreshStatus = refreshStatusOf(status);
  const filters = describeFilters(parsed.filters);
  const policy = policyFor(
    stored,
    'report-json',
    JSON.stringify({ filters, paging }),
    stale ? 'stale' : 'fresh',
    JSON.stringify(refreshStatus),
  );
  const cached = notModified(request, policy);
  if (cached) return cached;

  const selected = selectReportRows(reportRows(snapshot), parsed.filters);
  const body = JSON.stringify({
    generatedAt: snapshot.generatedAt,
    ageSeconds: ageSecondsOf(snapshot.generatedAt, now),
    stale,
    refreshStatus,
    timeZone: snapshot.timeZone,
    branches: snapshot.branches,
    summary: snapshot.summary,
    summarySource: snapshot.summarySource,
    byBranch: snapshot.byBranch,
    byDebtStatus: snapshot.byDebtStatus,
    byMemberStatus: snapshot.byMemberStatus,
    ageing: snapshot.ageing,
    ageingUndated: snapshot.ageingUndated,
    warnings: snapshot.warnings,
    filters,
    total: selected.length,
    filteredSummary: filteredSummary(selected),
    take: paging.take,
    skip: paging.skip,
    results: selected.slice(paging.skip, paging.skip + paging.take),
  });
  return jsonPage(request, body, policy);
}

// ---------------------------------------------------------------------------------------------
// GET /reports/debtors.csv

/** A page size (a round number) whose CSV fits comfortably, from the size of all `rows`. */
function suggestedTake(rows: number, bytes: number): number {
  const perRow = bytes / Math.max(1, rows);
  const fits = Math.floor((MAX_RESPONSE_BYTES * 0.8) / Math.max(1, perRow));
  const unit = fits >= 10_000 ? 5000 : fits >= 1000 ? 1000 : fits >= 100 ? 100 : 1;
  return Math.max(1, Math.floor(fits / unit) * unit);
}

function serveCsv({ request, stored, clientBranches }: ServeContext): HttpResponse {
  const { snapshot } = stored;
  const parsed = parseReportQuery(request.query, 'csv', snapshot.rows);
  if (!parsed.ok) return invalidQuery(parsed.details);
  const policy = policyFor(
    stored,
    'report-csv',
    JSON.stringify({ filters: describeFilters(parsed.filters), paging: parsed.paging ?? null }),
    parsed.dialect,
  );
  const cached = notModified(request, policy);
  if (cached) return cached;

  const selected = selectReportRows(reportRows(snapshot), parsed.filters);
  const paging = parsed.paging;
  const rows = paging ? selected.slice(paging.skip, paging.skip + paging.take) : selected;
  const date = localDate(snapshot.generatedAt, snapshot.timeZone);
  // The file says which branches it holds: the ones asked for, else a scoped client's, else all.
  const branchIds = parsed.filters.branch ?? clientBranches;
  const branches = branchIds?.map((branchId) => ({
    branchId,
    branchName: snapshot.byBranch.find((b) => b.branchId === branchId)?.branchName,
  }));
  const range =
    paging && rows.length > 0
      ? { first: paging.skip + 1, last: paging.skip + rows.length }
      : undefined;
  const result = encodeResponse(
    request,
    {
      statusCode: 200,
      headers: {
        'content-type': CSV_CONTENT_TYPE,
        'content-disposition': `attachment; filename="${csvFileName(date, branches, range)}"`,
        'x-total-count': String(selected.length),
      },
      body: toCsv(rows, CSV_DIALECTS[parsed.dialect]),
    },
    policy,
  );
  if (fitsResponseLimit(result)) return result;

  const take = suggestedTake(rows.length, serialisedSize(result));
  const skip = paging?.skip ?? 0;
  const pages: string[] = [];
  for (let s = skip; s < Math.min(skip + rows.length, skip + take * 4); s += take)
    pages.push(String(s));
  const megabytes = (serialisedSize(result) / 1024 / 1024).toFixed(1);
  const encoding = result.isBase64Encoded ? ' gzip-compressed' : '';
  return problem(
    400,
    'csv_too_large',
    t(
      `a planilha CSV de ${rows.length} linhas teria ${megabytes} MB${encoding ? ' com gzip' : ''}, acima dos ` +
        `${MAX_RESPONSE_BYTES / 1024 / 1024} MB que uma resposta comporta. Baixe em partes: ` +
        `acrescente take=${take} e skip=${pages.join(', depois skip=')}${rows.length > take * 4 ? '...' : ''} ` +
        `(mesmos filtros) até uma parte vir com menos de ${take} linhas; X-Total-Count dá o total. ` +
        'Enviar Accept-Encoding: gzip deixa cada parte menor.',
      `the CSV of ${rows.length} rows would be ${megabytes} MB${encoding}, over the ` +
        `${MAX_RESPONSE_BYTES / 1024 / 1024} MB one response can carry. Download it in pages: ` +
        `add take=${take} and skip=${pages.join(', then skip=')}${rows.length > take * 4 ? '...' : ''} ` +
        `(same filters) until a page has fewer than ${take} rows; X-Total-Count gives the total. ` +
        'Sending Accept-Encoding: gzip makes each page smaller.',
    ),
    [
      {
        field: 'take',
        message: t(
          `use no máximo ${take} linhas por pedido`,
          `use at most ${take} rows per request`,
        ),
      },
      {
        field: 'skip',
        message: t(
          `0, ${take}, ${2 * take}... (as linhas já baixadas)`,
          `0, ${take}, ${2 * take}... (the rows already downloaded)`,
        ),
      },
    ],
    { ...NO_STORE, 'x-total-count': String(selected.length) },
  );
}

// ---------------------------------------------------------------------------------------------
// GET /reports/debtors.html

function serveDashboard({ request, stored, status, now, stale }: ServeContext): HttpResponse {
  const { snapshot } = stored;
  const parsed = parseDashboardQuery(request.query);
  if (!parsed.ok) {
    return {
      statusCode: 400,
      headers: { ...DASHBOARD_HEADERS, ...NO_STORE },
      body: renderQueryProblems(parsed.problems),
    };
  }
  const { query } = parsed;
  const refreshStatus = refreshStatusOf(status);
  const policy = policyFor(
    stored,
    'report-html',
    dashboardSearch(query),
    stale ? 'stale' : 'fresh',
    JSON.stringify(refreshStatus),
  );
  const cached = notModified(request, policy);
  if (cached) return cached;

  const scope = dashboardScope(snapshot, query.branch);
  const links = dashboardSearch({
    ...(query.upstream !== undefined && { upstream: query.upstream }),
    ...(query.branch !== undefined && { branch: query.branch }),
  });
  const branch = links ? `?${links}` : '';
  const view: DashboardView = {
    generatedAt: snapshot.generatedAt,
    ageSeconds: ageSecondsOf(snapshot.generatedAt, now),
    stale,
    status,
    timeZone: snapshot.timeZone,
    allBranches: snapshot.byBranch,
    scope,
    query,
    list: memberList(scope.rows, query, MAX_DASHBOARD_MEMBERS),
    csvHref: `debtors.csv${branch}`,
    jsonHref: `debtors${branch}`,
  };
  // Members with many debts or very long fields could make even MAX_DASHBOARD_MEMBERS too big: halve
  // until the page fits.
  let result: HttpResponse | undefined;
  for (let limit = MAX_DASHBOARD_MEMBERS; limit >= 1; limit = Math.floor(limit / 2)) {
    if (limit < MAX_DASHBOARD_MEMBERS) view.list = memberList(scope.rows, query, limit);
    result = encodeResponse(
      request,
      { statusCode: 200, headers: { ...DASHBOARD_HEADERS }, body: renderDashboard(view) },
      policy,
    );
    if (fitsResponseLimit(result)) return result;
  }
  return tooLarge(result as HttpResponse, t('baixe a planilha CSV', 'download the CSV instead'));
}
