/**
 * The upstream (EVO) client: create a prospect, look prospects up, list debtors, page through
 * debtors.
 * Node's own fetch, no AWS imports, no HTTP library. Every body is parsed with `parseJson`
 * (ids above 2^53 stay strings) and checked with the model's schemas.
 *
 * The client never retries: a POST that failed in transit may still have created the
 * prospect, and retry policy (queue redrive, report refresh) belongs to the callers. Every
 * failure is an `UpstreamError` whose `kind` tells the caller what to do:
 *
 * | upstream answer                          | kind           | caller should                      |
 * |------------------------------------------|----------------|------------------------------------|
 * | 2xx with a usable body                   | (result)       |                                    |
 * | 2xx empty / unparseable / wrong shape    | unavailable    | retry later (POST: id unknown)     |
 * | 400, 409, 413, 415, 422, other 4xx       | rejected       | not retry; show `messages`         |
 * | 401, 403                                 | unauthorized   | fix key/permission, then retry     |
 * | 429                                      | rate-limited   | retry after `retryAfterMs`         |
 * | 404, 405, 410 (endpoint missing)         | unavailable    | retry after fixing the base URL    |
 * | 408, 425, 5xx, 1xx/3xx, network, timeout | unavailable    | retry with backoff                 |
 *
 * A 429 also pauses the pacer until Retry-After (1 s when the header is missing or invalid,
 * at most 1 h).
 * The caller's own abort is not an upstream failure: it rejects with the caller's reason.
 * Messages never carry the password or the Authorization header (they are redacted even
 * when the upstream echoes them back).
 */

import type { UpstreamConfig } from '../config/config-schema.ts';
import {
  DEBT_STATUS,
  type DebtorsList,
  type DebtorsQuery,
  debtorsListSchema,
  MAX_DEBTORS_PAGE,
  MEMBER_STATUS,
  statusName,
} from '../domain/debtors.ts';
import { describeIssues, type ExternalId, externalId, parseJson } from '../domain/json.ts';
import { type Prospect, type ProspectCreated, prospectCreatedSchema } from '../domain/prospect.ts';
import { parseRetryAfter } from '../kernel/http.ts';
import type { Pacer } from './pacer.ts';

export { parseRetryAfter };

export type UpstreamErrorKind = 'rejected' | 'unauthorized' | 'rate-limited' | 'unavailable';

export interface UpstreamErrorDetails {
  status?: number;
  messages?: string[];
  retryAfterMs?: number;
  cause?: unknown;
}

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly kind: UpstreamErrorKind;
  /** The HTTP status, when the upstream answered. */
  readonly status?: number;
  /** The upstream's own messages (`mensagens`, `message`, `errors`, or its text). */
  readonly messages: string[];
  /** From a 429's Retry-After, when present. */
  readonly retryAfterMs?: number;

  constructor(kind: UpstreamErrorKind, message: string, details: UpstreamErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    if (details.status !== undefined) this.status = details.status;
    this.messages = details.messages ?? [];
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** Filters of `findProspects`; the upstream returns prospects matching all of those given. */
export interface ProspectQuery {
  email?: string;
  /** Digits without the country code, as stored (`11987654321`). */
  cellphone?: string;
  /** The CPF, 11 digits (formatting is removed). */
  cpf?: string;
  /** Only prospects registered at or after this moment. */
  registeredSince?: Date;
}

/** A prospect found by `findProspects` (production's `ProspectsResumoApiViewModel`, narrowed). */
export interface ProspectMatch {
  idProspect: ExternalId;
  name?: string;
  lastName?: string;
  email?: string;
  cellphone?: string;
  cpf?: string;
  /** As sent by the upstream (production omits the zone). */
  registerDate?: string;
}

export interface UpstreamClient {
  createProspect(prospect: Prospect, options?: CallOptions): Promise<ProspectCreated>;
  /**
   * `GET /api/v1/prospects`: at most one page (50) of prospects matching every filter given.
   * Sent with production's parameter names (`email`, `phone`, `document`, `registerDateStart`;
   * the sandbox also takes `cellphone` and `cpf`). Needs the key's "Prospects - Consulta"
   * permission: without it the upstream answers 403 (`unauthorized`).
   */
  findProspects(query: ProspectQuery, options?: CallOptions): Promise<ProspectMatch[]>;
  listDebtors(query: DebtorsQuery, options?: CallOptions): Promise<DebtorsList>;
  /** Pages with take ≤ 50 until skip >= total or a short page; yields each page. */
  pageDebtors(
    query: Omit<DebtorsQuery, 'take' | 'skip'>,
    options?: { pageSize?: number; signal?: AbortSignal },
  ): AsyncGenerator<DebtorsList>;
}

export interface UpstreamClientOptions {
  baseUrl: string;
  username: string;
  password: string;
  /** Per call, from the moment the pacer lets it through. Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * Awaited before every call; paused after a 429. Its clock must be epoch ms (`Date.now`, the
   * pacer's default), since pauses are computed from Retry-After against `Date.now()`.
   */
  pacer?: Pacer;
  fetch?: typeof fetch;
  /** The wire name of the seed's `tokenPartner` (`tokenGympass` in production). */
  partnerTokenField?: 'tokenPartner' | 'tokenGympass';
}

export const PROSPECTS_PATH = '/api/v1/prospects';
export const DEBTORS_PATH = '/api/v1/receivables/debtors';
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Production documents 50 as the most any list endpoint returns. */
export const MAX_PROSPECTS_PAGE = 50;
/** Pacer pause after a 429 that carries no usable Retry-After (production's window is 1 s). */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 1_000;
/** Longest pacer pause a Retry-After can impose (production's widest quota is hourly). */
export const MAX_RATE_LIMIT_PAUSE_MS = 3_600_000;
/** Longest piece of an upstream body quoted in a message. */
const MAX_QUOTE = 300;

const REJECTED = new Set([400, 409, 413, 415, 422]);
const ENDPOINT_MISSING = new Set([404, 405, 410]);

/** Kind of a non-2xx status (429's details are added by the caller). */
export function classifyStatus(status: number): UpstreamErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429) return 'rate-limited';
  if (REJECTED.has(status)) return 'rejected';
  if (ENDPOINT_MISSING.has(status) || status === 408 || status === 425) return 'unavailable';
  if (status >= 400 && status < 500) return 'rejected';
  return 'unavailable';
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_QUOTE ? `${flat.slice(0, MAX_QUOTE)}…` : flat;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return value.trim() ? [value.trim()] : [];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if ('message' in record) return strings(record.message);
    // ASP.NET validation problem: {"errors": {"Email": ["..."]}}
    return Object.entries(record).flatMap(([field, inner]) =>
      strings(inner).map((text) => (/^\d+$/.test(field) ? text : `${field}: ${text}`)),
    );
  }
  return [];
}

/**
 * The upstream's messages from an error body: `{"mensagens": [...]}` (production's model),
 * `{"message"}`, `{"errors"}` (array or ASP.NET's per-field object), `{"error"}`, `{"title"}`,
 * a JSON string, or plain text.
 */
export function errorMessages(body: string): string[] {
  if (!body.trim()) return [];
  let parsed: unknown;
  try {
    parsed = parseJson(body);
  } catch {
    return [quote(body)];
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const record = parsed as Record<string, unknown>;
    for (const key of ['mensagens', 'messages', 'message', 'errors', 'error', 'title', 'detail']) {
      const found = strings(record[key]);
      if (found.length > 0) return found.map(quote);
    }
    return [quote(body)];
  }
  const found = strings(parsed);
  return (found.length > 0 ? found : [body]).map(quote);
}

function describeFailure(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code)
      ? `${code}: ${cause.message}`
      : cause.message;
  }
  return String(cause);
}

function isAbsent(value: unknown): boolean {
  return value === undefined;
}

/** The prospect as sent: undefined fields dropped, the partner token under its wire name. */
export function prospectBody(
  prospect: Prospect,
  partnerTokenField: 'tokenPartner' | 'tokenGympass' = 'tokenPartner',
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(prospect)) {
    if (isAbsent(value)) continue;
    if (key === 'tokenPartner' && partnerTokenField !== 'tokenPartner') {
      body[partnerTokenField] = value;
    } else if (key === 'financiallyResponsible' && value && typeof value === 'object') {
      body[key] = Object.fromEntries(Object.entries(value).filter(([, v]) => !isAbsent(v)));
    } else {
      body[key] = value;
    }
  }
  return body;
}

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

/** `findProspects`' query string, in production's parameter names (see UpstreamClient). */
export function prospectSearch(query: ProspectQuery): URLSearchParams {
  const params = new URLSearchParams();
  const email = query.email?.trim();
  if (email) params.set('email', email);
  const phone = query.cellphone?.replace(/\D/g, '');
  if (phone) params.set('phone', phone);
  const cpf = query.cpf?.replace(/\D/g, '');
  if (cpf) params.set('document', cpf);
  if (query.registeredSince !== undefined) {
    if (Number.isNaN(query.registeredSince.getTime())) {
      throw new RangeError('findProspects: registeredSince is not a valid date');
    }
    params.set('registerDateStart', query.registeredSince.toISOString());
  }
  params.set('take', String(MAX_PROSPECTS_PAGE));
  return params;
}

function optionalText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * One prospect of a lookup answer; undefined without a usable `idProspect`. Reads production's
 * names (`firstName`, `document`) as well as the seed's (`name`, `cpf`).
 */
export function readProspectMatch(item: unknown): ProspectMatch | undefined {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const record = item as Record<string, unknown>;
  const id = externalId.safeParse(record.idProspect);
  if (!id.success) return undefined;
  const match: ProspectMatch = { idProspect: id.data };
  const fields = {
    name: optionalText(record.name) ?? optionalText(record.firstName),
    lastName: optionalText(record.lastName),
    email: optionalText(record.email),
    cellphone: optionalText(record.cellphone) ?? optionalText(record.phone),
    cpf: optionalText(record.cpf) ?? optionalText(record.document),
    registerDate: optionalText(record.registerDate),
  };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (match as unknown as Record<string, string>)[key] = value;
  }
  return match;
}

function clampTake(take: number): number {
  const whole = Math.trunc(take);
  if (!Number.isFinite(whole) || whole < 1) return 1;
  return Math.min(MAX_DEBTORS_PAGE, whole);
}

/** The client for the configured upstream, calling through `pacer`. */
export function upstreamClientFor(
  upstream: UpstreamConfig,
  pacer: Pacer,
  fetchImpl?: typeof fetch,
): UpstreamClient {
  return createUpstreamClient({
    baseUrl: upstream.baseUrl,
    username: upstream.username,
    password: upstream.password,
    timeoutMs: upstream.timeoutMs,
    partnerTokenField: upstream.partnerTokenField,
    pacer,
    ...(fetchImpl && { fetch: fetchImpl }),
  });
}

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const base = new URL(opts.baseUrl);
  if (base.username || base.password) {
    throw new Error('baseUrl must not carry credentials; pass username and password instead');
  }
  const basePath = base.pathname.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const doFetch = opts.fetch ?? globalThis.fetch;
  const partnerTokenField = opts.partnerTokenField ?? 'tokenPartner';
  const credentials = Buffer.from(`${opts.username}:${opts.password}`, 'utf8').toString('base64');
  const authorization = `Basic ${credentials}`;
  const secrets = [authorization, credentials, opts.password].filter((s) => s.length > 0);

  /** Removes anything secret from text that reaches an error message. */
  function redact(text: string): string {
    let out = text;
    for (const secret of secrets) out = out.split(secret).join('[redacted]');
    return out;
  }

  function fail(kind: UpstreamErrorKind, message: string, details: UpstreamErrorDetails = {}) {
    return new UpstreamError(kind, redact(message), {
      ...details,
      messages: (details.messages ?? []).map(redact),
    });
  }

  interface Answer {
    status: number;
    headers: Headers;
    body: string;
  }

  /** One paced, timed call; resolves with any 2xx answer, throws UpstreamError otherwise. */
  async function call(
    method: 'GET' | 'POST',
    path: string,
    init: { search?: URLSearchParams; body?: string; signal?: AbortSignal },
  ): Promise<Answer> {
    const route = `${method} ${path}`;
    const url = new URL(base.toString());
    url.pathname = `${basePath}${path}`;
    url.search = init.search?.toString() ?? '';
    const headers: Record<string, string> = {
      Authorization: authorization,
      Accept: 'application/json',
    };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json-patch+json';

    init.signal?.throwIfAborted();
    await opts.pacer?.acquire(init.signal);

    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let status: number | undefined;
    try {
      const response = await doFetch(url, {
        method,
        headers,
        body: init.body,
        signal,
        redirect: 'manual',
      });
      status = response.status;
      const body = await response.text();
      if (status >= 200 && status < 300) return { status, headers: response.headers, body };
      throw answerError(route, status, response.headers, body);
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      if (init.signal?.aborted) throw init.signal.reason;
      const during = status === undefined ? '' : ` while reading its ${status} answer`;
      // A POST that reached the upstream may have taken effect even though we saw no answer.
      const effect = method === 'POST' ? '; it may still have taken effect' : '';
      const details = { ...(status === undefined ? {} : { status }), cause: error };
      if (timeout.aborted) {
        throw fail(
          'unavailable',
          `${route} timed out after ${timeoutMs} ms${during}${effect}`,
          details,
        );
      }
      throw fail(
        'unavailable',
        `${route} failed${during}: ${describeFailure(error)}${effect}`,
        details,
      );
    }
  }

  function answerError(route: string, status: number, headers: Headers, body: string) {
    const kind = classifyStatus(status);
    const messages = errorMessages(body);
    const said = messages.length > 0 ? `: ${messages.join('; ')}` : ' with an empty body';
    if (kind === 'rate-limited') {
      const now = Date.now();
      const retryAfter = parseRetryAfter(headers.get('retry-after'), now);
      opts.pacer?.pauseUntil(
        retryAfter === undefined
          ? now + DEFAULT_RATE_LIMIT_PAUSE_MS
          : Math.min(retryAfter.untilMs, now + MAX_RATE_LIMIT_PAUSE_MS),
      );
      const wait = retryAfter ? ` (retry after ${retryAfter.afterMs} ms)` : '';
      return fail(kind, `${route} was rate limited (${status})${wait}${said}`, {
        status,
        messages,
        ...(retryAfter ? { retryAfterMs: retryAfter.afterMs } : {}),
      });
    }
    if (status >= 300 && status < 400) {
      const location = headers.get('location');
      const to = location ? ` to ${quote(location)}` : '';
      return fail(kind, `${route} answered an unexpected redirect (${status})${to}`, {
        status,
        messages,
      });
    }
    const verb = {
      rejected: 'was rejected',
      unauthorized: 'was not authorized',
      unavailable: 'failed',
    }[kind];
    return fail(kind, `${route} ${verb} (${status})${said}`, { status, messages });
  }

  function parseBody(route: string, answer: Answer, what: string): unknown {
    if (!answer.body.trim()) {
      throw fail('unavailable', `${route} answered ${answer.status} with an empty body; ${what}`, {
        status: answer.status,
      });
    }
    try {
      return parseJson(answer.body);
    } catch {
      throw fail(
        'unavailable',
        `${route} answered ${answer.status} with a body that is not JSON ("${quote(answer.body)}"); ${what}`,
        { status: answer.status },
      );
    }
  }

  async function createProspect(
    prospect: Prospect,
    options: CallOptions = {},
  ): Promise<ProspectCreated> {
    const route = `POST ${PROSPECTS_PATH}`;
    const unknownId = 'the prospect may have been created, but its id is unknown';
    const answer = await call('POST', PROSPECTS_PATH, {
      body: JSON.stringify(prospectBody(prospect, partnerTokenField)),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const parsed = parseBody(route, answer, unknownId);
    // Some production versions answer the bare integer instead of {"idProspect": n}.
    const candidate =
      typeof parsed === 'number' || typeof parsed === 'string' ? { idProspect: parsed } : parsed;
    const result = prospectCreatedSchema.safeParse(candidate);
    if (result.success) return result.data;
    const problems = describeIssues(result.error.issues)
      .map((issue) => `${issue.field || 'body'} ${issue.message}`)
      .join('; ');
    throw fail(
      'unavailable',
      `${route} answered ${answer.status} without a prospect id (${problems}: "${quote(answer.body)}"); ${unknownId}`,
      { status: answer.status },
    );
  }

  async function findProspects(
    query: ProspectQuery,
    options: CallOptions = {},
  ): Promise<ProspectMatch[]> {
    const route = `GET ${PROSPECTS_PATH}`;
    const answer = await call('GET', PROSPECTS_PATH, {
      search: prospectSearch(query),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const parsed = parseBody(route, answer, 'expected a list of prospects');
    const list = Array.isArray(parsed)
      ? parsed
      : parsed &&
          typeof parsed === 'object' &&
          Array.isArray((parsed as { results?: unknown }).results)
        ? (parsed as { results: unknown[] }).results
        : undefined;
    if (!list) {
      throw fail(
        'unavailable',
        `${route} answered ${answer.status} with something other than a list ("${quote(answer.body)}")`,
        { status: answer.status },
      );
    }
    return list.flatMap((item) => {
      const match = readProspectMatch(item);
      return match ? [match] : [];
    });
  }

  async function listDebtors(query: DebtorsQuery, options: CallOptions = {}): Promise<DebtorsList> {
    const route = `GET ${DEBTORS_PATH}`;
    const answer = await call('GET', DEBTORS_PATH, {
      search: debtorsSearch(query),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const parsed = parseBody(route, answer, 'expected a debtors list');
    const result = debtorsListSchema.safeParse(parsed);
    if (result.success) return result.data;
    const issues = describeIssues(result.error.issues);
    const shown = issues
      .slice(0, 5)
      .map((issue) => `${issue.field || 'body'} ${issue.message}`)
      .join('; ');
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
    throw fail(
      'unavailable',
      `${route} answered ${answer.status} with an invalid debtors list: ${shown}${more}`,
      { status: answer.status },
    );
  }

  async function* pageDebtors(
    query: Omit<DebtorsQuery, 'take' | 'skip'>,
    options: { pageSize?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<DebtorsList> {
    const take = clampTake(options.pageSize ?? MAX_DEBTORS_PAGE);
    const callOptions = options.signal ? { signal: options.signal } : {};
    let skip = 0;
    for (;;) {
      const page = await listDebtors({ ...query, take, skip }, callOptions);
      yield page;
      skip += page.results.length;
      if (page.results.length < take || skip >= page.total) return;
    }
  }

  return { createProspect, findProspects, listDebtors, pageDebtors };
}
