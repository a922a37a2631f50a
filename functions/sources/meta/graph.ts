/**
 * The Meta Graph lead lookup: a leadgen webhook carries only ids, and the answers are fetched
 * with `GET {graphBaseUrl}/{leadgenId}?access_token=...&fields=...` (the sandbox serves the same
 * route). Node's own fetch, no AWS imports; bodies are parsed with `parseJson` so that ids above
 * 2^53 stay exact strings.
 *
 * The client never retries; every failure is a `MetaGraphError` whose `kind` tells the caller
 * what to do, in the same vocabulary as the upstream client:
 *
 * | Graph answer                                          | kind          | caller should              |
 * |-------------------------------------------------------|---------------|----------------------------|
 * | 200 with a lead                                       | (result)      |                            |
 * | error code 4, 17, 32, 613, 80000-80099; HTTP 429      | rate-limited  | retry after a pause        |
 * | error code 102, 104, 190, 10, 200-299; HTTP 401, 403  | unauthorized  | fix token/permission, retry|
 * | error code 100 (unknown object or field); other 4xx   | rejected      | not retry: lead unfetchable|
 * | error code 1, 2; 5xx; network; timeout; 2xx not a lead| unavailable   | retry with backoff         |
 *
 * The page access token travels in the query string, so it (and the appsecret_proof) is
 * scrubbed from every message; errors carry no `cause`, which could hold the request URL.
 */
import { parseJson } from '../../domain/json.ts';
import type { AnswerType, LeadAnswer } from '../../domain/lead.ts';
import { hmacSha256 } from '../../kernel/crypto.ts';
import { parseRetryAfter } from '../../kernel/http.ts';
import { isPlainObject } from '../form-fields.ts';
import { SourceLookupError, type SourceLookupErrorKind } from '../source.ts';

export type MetaGraphErrorKind = SourceLookupErrorKind;

/** A failed Graph call; its `kind` is the sources' lookup vocabulary (source.ts). */
export class MetaGraphError extends SourceLookupError {
  override readonly name = 'MetaGraphError';
  override readonly service = 'Meta Graph';
  /** Graph's `error.code` (and `error_subcode`), when the body had one. */
  readonly code?: number;
  readonly subcode?: number;

  constructor(
    kind: MetaGraphErrorKind,
    message: string,
    details: { status?: number; code?: number; subcode?: number; retryAfterMs?: number } = {},
  ) {
    super(kind, message, details);
    if (details.code !== undefined) this.code = details.code;
    if (details.subcode !== undefined) this.subcode = details.subcode;
  }
}

/** A lead as Graph returns it, in the capture's vocabulary. */
export interface MetaGraphLead {
  /** `field_data[].name` → key, `values` → value (a string when there is one value). */
  answers: LeadAnswer[];
  formId?: string;
  adId?: string;
  /** ISO 8601 (`2024-05-02T13:10:07.000Z`), from Graph's `2024-05-02T13:10:07+0000`. */
  createdTime?: string;
  /** ad_id, adset_id, campaign_id, platform, is_organic: the ones Graph returned. */
  attribution: Record<string, string>;
  /**
   * True when the answers are the Lead Ads Testing Tool's placeholders
   * (`<test lead: dummy data for email>`); absent when Graph gives no way to tell.
   */
  isTest?: boolean;
}

export interface FetchLeadOptions {
  /** e.g. `https://graph.facebook.com/v21.0` or the sandbox's `http://127.0.0.1:4010/graph`. */
  graphBaseUrl: string;
  /** The page access token. */
  accessToken: string;
  /** When given, `appsecret_proof` is sent (needed when the app requires it). */
  appSecret?: string;
  signal?: AbortSignal;
}

/** A page of a form's leads (`GET /{form-id}/leads`), each with its Graph id. */
export interface MetaGraphLeadPage {
  leads: Array<MetaGraphLead & { id: string }>;
  /** Graph's `paging.cursors.after` when `paging.next` says there is a next page. */
  after?: string;
}

export interface ListFormLeadsOptions extends FetchLeadOptions {
  /** Leads created at or after this instant (Graph's `time_created` filter, epoch seconds). */
  since: Date;
  /** Leads created before this instant. */
  until: Date;
  /** The previous page's `after` cursor. */
  after?: string;
  /** Leads per page (Graph's `limit`); default 100. */
  limit?: number;
}

export interface MetaGraph {
  fetchLead(leadgenId: string, options: FetchLeadOptions): Promise<MetaGraphLead>;
  /**
   * One page of a lead form's leads created in a period, oldest cursor first, with the same
   * fields as `fetchLead` (Graph keeps a form's leads 90 days).
   */
  listFormLeads(formId: string, options: ListFormLeadsOptions): Promise<MetaGraphLeadPage>;
}

export interface MetaGraphOptions {
  fetch?: typeof fetch;
  /** Per call. Default 10 000 ms. */
  timeoutMs?: number;
}

export const DEFAULT_GRAPH_TIMEOUT_MS = 10_000;
/** Graph's address when a profile names none. */
export const DEFAULT_GRAPH_BASE_URL = 'https://graph.facebook.com/v21.0';

/**
 * Fields asked of a LeadgenLead. Names (ad_name, campaign_name...) are left out on purpose: reading
 * them needs advertiser access to the ad account, and a page token without it fails the whole call.
 */
export const GRAPH_LEAD_FIELDS = [
  'id',
  'created_time',
  'ad_id',
  'adset_id',
  'campaign_id',
  'form_id',
  'field_data',
  'is_organic',
  'platform',
] as const;

const LEADGEN_ID = /^\d{1,30}$/;
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);
const AUTH_CODES = new Set([10, 102, 104, 190]);
const TRANSIENT_CODES = new Set([1, 2]);
const TEST_PLACEHOLDER = /^<test lead: dummy data for [^>]*>$/i;
const MAX_QUOTE = 200;

/** Kind of a Graph error `code`; undefined when the code says nothing decisive. */
export function classifyGraphCode(code: number): MetaGraphErrorKind | undefined {
  if (RATE_LIMIT_CODES.has(code) || (code >= 80_000 && code < 80_100)) return 'rate-limited';
  if (AUTH_CODES.has(code) || (code >= 200 && code < 300)) return 'unauthorized';
  if (code === 100) return 'rejected';
  if (TRANSIENT_CODES.has(code)) return 'unavailable';
  return undefined;
}

/** Kind of an HTTP status when the body has no usable Graph error code. */
function classifyGraphStatus(status: number): MetaGraphErrorKind {
  if (status === 429) return 'rate-limited';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 408 || status === 425) return 'unavailable';
  if (status >= 400 && status < 500) return 'rejected';
  return 'unavailable';
}

/** An id as an exact decimal string; undefined for 0, negative, fractional or non-numeric. */
function idString(value: unknown): string | undefined {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,30}$/.test(text.trim())) return undefined;
  return /^0+$/.test(text.trim()) ? undefined : text.trim();
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Graph's `2024-05-02T13:10:07+0000` (or any ISO 8601) → `2024-05-02T13:10:07.000Z`. */
export function graphTimeToIso(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const iso = value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  if (!/^\d{4}-\d{2}-\d{2}T/.test(iso)) return undefined;
  const date = new Date(iso);
  return Number.isFinite(date.getTime()) ? date.toISOString() : undefined;
}

/**
 * Meta's standard questions and the input they are: `date_of_birth` is Meta's own date picker
 * (MM/DD/YYYY, the capture's `dateOrder`); a custom question, whatever its key, is free text.
 */
const STANDARD_TYPES: Readonly<Record<string, AnswerType>> = {
  email: 'email',
  work_email: 'email',
  phone_number: 'phone',
  work_phone_number: 'phone',
  date_of_birth: 'date',
};

/** Reads a Graph LeadgenLead body; undefined when it is not one. */
export function readGraphLead(body: unknown): MetaGraphLead | undefined {
  if (!isPlainObject(body) || idString(body.id) === undefined) return undefined;
  const answers: LeadAnswer[] = [];
  const fieldData = Array.isArray(body.field_data) ? body.field_data : [];
  for (const entry of fieldData) {
    if (!isPlainObject(entry) || typeof entry.name !== 'string' || !entry.name.trim()) continue;
    const values = (Array.isArray(entry.values) ? entry.values : [entry.values])
      .map(text)
      .filter((v): v is string => v !== undefined);
    const type = Object.hasOwn(STANDARD_TYPES, entry.name) ? STANDARD_TYPES[entry.name] : undefined;
    const value = values.length === 1 ? (values[0] ?? '') : values;
    answers.push({ key: entry.name, ...(type && { type }), value });
  }
  const attribution: Record<string, string> = {};
  for (const key of ['ad_id', 'adset_id', 'campaign_id'] as const) {
    const id = idString(body[key]);
    if (id) attribution[key] = id;
  }
  if (typeof body.platform === 'string' && body.platform.trim()) {
    attribution.platform = body.platform.trim();
  }
  if (typeof body.is_organic === 'boolean') attribution.is_organic = String(body.is_organic);

  const lead: MetaGraphLead = { answers, attribution };
  const formId = idString(body.form_id);
  if (formId) lead.formId = formId;
  const adId = idString(body.ad_id);
  if (adId) lead.adId = adId;
  const createdTime = graphTimeToIso(body.created_time);
  if (createdTime) lead.createdTime = createdTime;
  const values = answers.flatMap((a) => (typeof a.value === 'string' ? [a.value] : a.value));
  if (values.some((v) => TEST_PLACEHOLDER.test(v.trim()))) lead.isTest = true;
  return lead;
}

function quote(value: string): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_QUOTE ? `${flat.slice(0, MAX_QUOTE)}…` : flat;
}

function describeFailure(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as Error & { code?: unknown }).code;
  return typeof code === 'string' && !cause.message.includes(code)
    ? `${code}: ${cause.message}`
    : cause.message;
}

export function createMetaGraph(options: MetaGraphOptions = {}): MetaGraph {
  const graph: GraphContext = {
    fetch: options.fetch ?? globalThis.fetch,
    timeoutMs: options.timeoutMs ?? DEFAULT_GRAPH_TIMEOUT_MS,
  };
  return {
    fetchLead: (leadgenId, call) => fetchLead(graph, leadgenId, call),
    listFormLeads: (formId, call) => listFormLeads(graph, formId, call),
  };
}

/** What every Graph call of one `createMetaGraph` shares. */
interface GraphContext {
  fetch: typeof fetch;
  /** Per call. */
  timeoutMs: number;
}

/** A 2xx Graph answer, and the `fail` that redacts this call's secrets. */
interface GraphAnswer {
  status: number;
  parsed: unknown;
  body: string;
  fail: Fail;
}

async function fetchLead(
  graph: GraphContext,
  leadgenId: string,
  call: FetchLeadOptions,
): Promise<MetaGraphLead> {
  const route = `GET /${shortId(leadgenId)}`;
  if (!LEADGEN_ID.test(leadgenId)) {
    throw new MetaGraphError('rejected', `${route}: a leadgen id is a decimal number`);
  }
  const fields = GRAPH_LEAD_FIELDS.join(',');
  const { status, parsed, body, fail } = await graphGet(graph, route, leadgenId, { fields }, call);
  const lead = readGraphLead(parsed);
  if (lead) return lead;
  throw fail('unavailable', `${route} answered ${status} without a lead ("${quote(body)}")`, {
    status,
  });
}

async function listFormLeads(
  graph: GraphContext,
  formId: string,
  call: ListFormLeadsOptions,
): Promise<MetaGraphLeadPage> {
  const route = `GET /${shortId(formId)}/leads`;
  if (!LEADGEN_ID.test(formId)) {
    throw new MetaGraphError('rejected', `${route}: a form id is a decimal number`);
  }
  const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
  const filtering = [
    { field: 'time_created', operator: 'GREATER_THAN', value: seconds(call.since) - 1 },
    { field: 'time_created', operator: 'LESS_THAN', value: seconds(call.until) },
  ];
  const params: Record<string, string> = {
    fields: GRAPH_LEAD_FIELDS.join(','),
    filtering: JSON.stringify(filtering),
    limit: String(call.limit ?? 100),
    ...(call.after !== undefined && { after: call.after }),
  };
  const { status, parsed, body, fail } = await graphGet(
    graph,
    route,
    `${formId}/leads`,
    params,
    call,
  );
  if (!isPlainObject(parsed) || !Array.isArray(parsed.data)) {
    throw fail('unavailable', `${route} answered ${status} without a list ("${quote(body)}")`, {
      status,
    });
  }
  const leads: MetaGraphLeadPage['leads'] = [];
  for (const entry of parsed.data) {
    const lead = readGraphLead(entry);
    const id = isPlainObject(entry) ? idString(entry.id) : undefined;
    if (lead && id) leads.push({ ...lead, id });
  }
  const paging = isPlainObject(parsed.paging) ? parsed.paging : {};
  const cursors = isPlainObject(paging.cursors) ? paging.cursors : {};
  const after =
    typeof paging.next === 'string' && typeof cursors.after === 'string' && cursors.after
      ? cursors.after
      : undefined;
  return after === undefined ? { leads } : { leads, after };
}

/**
 * `GET {graphBaseUrl}/{path}` with the token (and its appsecret_proof) and `params`: the parsed
 * 2xx body, or a MetaGraphError by kind. `route` names the call in messages.
 */
async function graphGet(
  graph: GraphContext,
  route: string,
  path: string,
  params: Record<string, string>,
  call: FetchLeadOptions,
): Promise<GraphAnswer> {
  const secrets = [call.accessToken, call.appSecret ?? ''].filter((s) => s.length > 0);
  const url = new URL(`${call.graphBaseUrl.replace(/\/+$/, '')}/${path}`);
  url.searchParams.set('access_token', call.accessToken);
  if (call.appSecret && call.accessToken) {
    const proof = hmacSha256(call.appSecret, call.accessToken).toString('hex');
    url.searchParams.set('appsecret_proof', proof);
    secrets.push(proof);
  }
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const redact = (value: string): string => {
    let out = value;
    for (const secret of secrets) out = out.split(secret).join('[redacted]');
    // Tokens can also come back URL-encoded (an echoed request URL).
    for (const secret of secrets) out = out.split(encodeURIComponent(secret)).join('[redacted]');
    return out;
  };
  const fail: Fail = (kind, message, details = {}) =>
    new MetaGraphError(kind, redact(message), details);

  call.signal?.throwIfAborted();
  const timeout = AbortSignal.timeout(graph.timeoutMs);
  const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
  let status: number | undefined;
  let body: string;
  let headers: Headers;
  try {
    const response = await graph.fetch(url, {
      method: 'GET',
      headers: { Accept: 'application/json' },
      signal,
      redirect: 'manual',
    });
    status = response.status;
    headers = response.headers;
    body = await response.text();
  } catch (error) {
    if (call.signal?.aborted) throw call.signal.reason;
    const during = status === undefined ? '' : ` while reading its ${status} answer`;
    const details = status === undefined ? {} : { status };
    if (timeout.aborted) {
      throw fail('unavailable', `${route} timed out after ${graph.timeoutMs} ms${during}`, details);
    }
    throw fail('unavailable', `${route} failed${during}: ${describeFailure(error)}`, details);
  }

  let parsed: unknown;
  try {
    parsed = body.trim() ? parseJson(body) : undefined;
  } catch {
    parsed = undefined;
  }
  if (status >= 200 && status < 300) return { status, parsed, body, fail };
  throw graphError(route, { status, parsed, body, fail }, headers);
}

/** The MetaGraphError of an answer that is not a 2xx: by Graph's error code, else its status. */
function graphError(
  route: string,
  { status, parsed, body, fail }: GraphAnswer,
  headers: Headers,
): MetaGraphError {
  const error = isPlainObject(parsed) && isPlainObject(parsed.error) ? parsed.error : undefined;
  const code = typeof error?.code === 'number' ? error.code : undefined;
  const subcode = typeof error?.error_subcode === 'number' ? error.error_subcode : undefined;
  const kind =
    (code !== undefined ? classifyGraphCode(code) : undefined) ?? classifyGraphStatus(status);
  const said =
    typeof error?.message === 'string'
      ? `: ${quote(error.message)}`
      : body.trim()
        ? `: ${quote(body)}`
        : ' with an empty body';
  const retryAfter =
    kind === 'rate-limited' ? parseRetryAfter(headers.get('retry-after'), Date.now()) : undefined;
  const codeText =
    code === undefined ? '' : ` code ${code}${subcode === undefined ? '' : `/${subcode}`}`;
  const verb = {
    rejected: 'was rejected',
    unauthorized: 'was not authorized',
    'rate-limited': 'was rate limited',
    unavailable: 'failed',
  }[kind];
  return fail(kind, `${route} ${verb} (${status}${codeText})${said}`, {
    status,
    ...(code === undefined ? {} : { code }),
    ...(subcode === undefined ? {} : { subcode }),
    ...(retryAfter ? { retryAfterMs: retryAfter.afterMs } : {}),
  });
}

type Fail = (
  kind: MetaGraphErrorKind,
  message: string,
  details?: { status?: number; code?: number; subcode?: number; retryAfterMs?: number },
) => MetaGraphError;

function shortId(id: string): string {
  return id.length > 40 ? `${id.slice(0, 40)}…` : id;
}
