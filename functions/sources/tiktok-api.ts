/**
 * The TikTok API for Business lead download: TikTok has no call that returns one lead by id;
 * an instant form's leads come through a download task.
 *
 * 1. `POST {apiBaseUrl}/page/lead/task/` `{advertiser_id, page_id}` creates a task
 *    (`data.task_id`); the same call with `task_id` polls it until `status` is `SUCCEED`
 *    (`FAILED` is a failure);
 * 2. `GET {apiBaseUrl}/page/lead/task/download/?advertiser_id&task_id` returns the leads as CSV:
 *    one column per lead attribute (`lead_id`, `create_time`, `ad_id`, `campaign_name`...) and
 *    one per form question, headed by the question.
 *
 * Calls carry the `Access-Token` header. TikTok answers every JSON call with `{code, message,
 * data}`: `code` 0 is success. Failures are `TikTokApiError`s in the sources' lookup vocabulary
 * (source.ts):
 *
 * | TikTok answer                                       | kind          |
 * |-----------------------------------------------------|---------------|
 * | code 40100, 40133 (app / advertiser QPS); HTTP 429  | rate-limited  |
 * | code 40001, 40102, 40104, 40105; HTTP 401, 403      | unauthorized  |
 * | code 40002 and other 4xxxx; other HTTP 4xx          | rejected      |
 * | code 5xxxx; HTTP 5xx; a task FAILED; timeouts       | unavailable   |
 *
 * The access token never appears in a message. Node's fetch, no AWS; ids stay exact strings.
 */
import { parseJson } from '../domain/json.ts';
import type { LeadAnswer } from '../domain/lead.ts';
import { isPlainObject } from './form-fields.ts';
import { SourceLookupError, type SourceLookupErrorKind } from './source.ts';

/** The API's address when a profile names none. */
export const DEFAULT_TIKTOK_API_BASE_URL = 'https://business-api.tiktok.com/open_api/v1.3';
export const DEFAULT_TIKTOK_TIMEOUT_MS = 10_000;

export class TikTokApiError extends SourceLookupError {
  override readonly name = 'TikTokApiError';
  override readonly service = 'TikTok API for Business';
  /** TikTok's `code`, when the body had one. */
  readonly code?: number;

  constructor(
    kind: SourceLookupErrorKind,
    message: string,
    details: { status?: number; code?: number } = {},
  ) {
    super(kind, message, details);
    if (details.code !== undefined) this.code = details.code;
  }
}

/** A lead as TikTok's download gives it. */
export interface TikTokLead {
  id: string;
  /** ISO 8601. */
  createdTime?: string;
  pageId?: string;
  /** ad_id, adgroup_id, campaign_id, their names, advertiser_id, lead_source: the ones given. */
  attribution: Record<string, string>;
  /** The form's questions, headed by their text. */
  answers: LeadAnswer[];
  /** The download's `is_test` column says so. */
  isTest: boolean;
}

export interface TikTokCall {
  apiBaseUrl: string;
  accessToken: string;
  advertiserId: string;
  signal?: AbortSignal;
}

export interface TikTokApiOptions {
  fetch?: typeof fetch;
  /** Per call. Default 10 000 ms. */
  timeoutMs?: number;
  /** Between two polls of a download task. Default 1 000 ms. */
  pollMs?: number;
  /** Polls of one task at most. Default 10. */
  maxPolls?: number;
}

export interface TikTokApi {
  /** Every lead of an instant form (its `page_id`), through a download task. */
  downloadLeads(pageId: string, call: TikTokCall): Promise<TikTokLead[]>;
}

const ID = /^\d{1,30}$/;
const RATE_LIMIT_CODES = new Set([40100, 40133]);
const AUTH_CODES = new Set([40001, 40102, 40104, 40105]);
const MAX_QUOTE = 200;

/** Kind of a TikTok `code` (non-zero). */
export function classifyTikTokCode(code: number): SourceLookupErrorKind {
  if (RATE_LIMIT_CODES.has(code)) return 'rate-limited';
  if (AUTH_CODES.has(code)) return 'unauthorized';
  if (code >= 40_000 && code < 50_000) return 'rejected';
  return 'unavailable';
}

function classifyStatus(status: number): SourceLookupErrorKind {
  if (status === 429) return 'rate-limited';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 408 || status === 425 || status >= 500) return 'unavailable';
  return 'rejected';
}

/** An id as an exact decimal string; CSV's Excel guards (`'123`, `="123"`) removed. */
export function tiktokId(value: unknown): string | undefined {
  const raw = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw
    .trim()
    .replace(/^'/, '')
    .replace(/^="(.*)"$/, '$1')
    .trim();
  return ID.test(text) && !/^0+$/.test(text) ? text : undefined;
}

/**
 * TikTok's times: epoch seconds (number or digits), `2025-05-02 13:10:07` (UTC) or ISO 8601 →
 * ISO 8601; undefined when unreadable.
 */
export function tiktokTime(value: unknown): string | undefined {
  let date: Date | undefined;
  const text = typeof value === 'string' ? value.trim() : value;
  if (typeof text === 'number' || (typeof text === 'string' && /^\d{9,11}$/.test(text))) {
    const seconds = Number(text);
    if (Number.isSafeInteger(seconds) && seconds > 0) date = new Date(seconds * 1000);
  } else if (typeof text === 'string' && /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(text)) {
    const iso = text.replace(' ', 'T');
    date = new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(iso) ? iso : `${iso}Z`);
  }
  return date && Number.isFinite(date.getTime()) ? date.toISOString() : undefined;
}

/**
 * RFC 4180 CSV: quoted fields with `""` escapes, commas and line breaks inside quotes, CRLF or
 * LF rows, a leading BOM dropped. Twenty lines do not justify a dependency in every Lambda.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const input = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < input.length; i += 1) {
    const char = input[i];
    if (quoted) {
      if (char === '"' && input[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && input[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((cell) => cell.trim() !== ''));
}

/** A header folded for the structural columns: `Lead ID` → `lead_id`. */
function foldHeader(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** The download's own columns (folded), by what they are; every other column is a question. */
const COLUMNS: Readonly<Record<string, string>> = {
  lead_id: 'id',
  id: 'id',
  create_time: 'time',
  created_time: 'time',
  page_id: 'page_id',
  form_id: 'page_id',
  is_test: 'is_test',
  ad_id: 'ad_id',
  ad_name: 'ad_name',
  adgroup_id: 'adgroup_id',
  ad_group_id: 'adgroup_id',
  adgroup_name: 'adgroup_name',
  ad_group_name: 'adgroup_name',
  campaign_id: 'campaign_id',
  campaign_name: 'campaign_name',
  advertiser_id: 'advertiser_id',
  advertiser_name: 'advertiser_name',
  page_name: 'page_name',
  form_name: 'page_name',
  lead_source: 'lead_source',
};
const ID_ATTRIBUTES = new Set(['ad_id', 'adgroup_id', 'campaign_id', 'advertiser_id']);

/** The leads of a download's CSV; rows without a lead id are skipped (they cannot be deduped). */
export function readLeadCsv(text: string): TikTokLead[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  const roles = header.map((h) =>
    Object.hasOwn(COLUMNS, foldHeader(h)) ? COLUMNS[foldHeader(h)] : undefined,
  );
  const leads: TikTokLead[] = [];
  for (const row of rows) {
    const lead: TikTokLead = { id: '', attribution: {}, answers: [], isTest: false };
    for (const [index, cell] of row.entries()) {
      const role = roles[index];
      const value = cell.trim();
      if (!value) continue;
      if (role === 'id') lead.id = tiktokId(value) ?? '';
      else if (role === 'time') {
        const time = tiktokTime(value);
        if (time) lead.createdTime = time;
      } else if (role === 'page_id') {
        const id = tiktokId(value);
        if (id) lead.pageId = id;
      } else if (role === 'is_test') lead.isTest = /^(true|1|yes)$/i.test(value);
      else if (role) {
        const text = ID_ATTRIBUTES.has(role) ? tiktokId(value) : value;
        if (text) lead.attribution[role] = text;
      } else {
        lead.answers.push({ key: header[index]?.trim() || `column_${index + 1}`, value: cell });
      }
    }
    if (lead.id) leads.push(lead);
  }
  return leads;
}

function quote(value: string): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_QUOTE ? `${flat.slice(0, MAX_QUOTE)}…` : flat;
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createTikTokApi(options: TikTokApiOptions = {}): TikTokApi {
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIKTOK_TIMEOUT_MS;
  const pollMs = options.pollMs ?? 1000;
  const maxPolls = options.maxPolls ?? 10;

  async function call(
    route: string,
    url: URL,
    init: { method: 'GET' | 'POST'; body?: unknown },
    tiktok: TikTokCall,
  ): Promise<{ status: number; text: string; contentType: string }> {
    const redact = (value: string) =>
      tiktok.accessToken ? value.split(tiktok.accessToken).join('[redacted]') : value;
    tiktok.signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = tiktok.signal ? AbortSignal.any([tiktok.signal, timeout]) : timeout;
    try {
      const response = await doFetch(url, {
        method: init.method,
        headers: {
          'Access-Token': tiktok.accessToken,
          Accept: 'application/json, text/csv',
          ...(init.body !== undefined && { 'Content-Type': 'application/json' }),
        },
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
        signal,
        redirect: 'manual',
      });
      const text = await response.text();
      return {
        status: response.status,
        text,
        contentType: response.headers.get('content-type') ?? '',
      };
    } catch (error) {
      if (tiktok.signal?.aborted) throw tiktok.signal.reason;
      if (timeout.aborted) {
        throw new TikTokApiError('unavailable', `${route} timed out after ${timeoutMs} ms`);
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new TikTokApiError('unavailable', redact(`${route} failed: ${reason}`));
    }
  }

  /** A JSON answer's `data` when `code` is 0; a TikTokApiError otherwise. */
  function dataOf(route: string, status: number, text: string): Record<string, unknown> {
    let parsed: unknown;
    try {
      parsed = text.trim() ? parseJson(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const body = isPlainObject(parsed) ? parsed : undefined;
    const code = typeof body?.code === 'number' ? body.code : undefined;
    if (status >= 200 && status < 300 && code === 0) {
      return isPlainObject(body?.data) ? body.data : {};
    }
    const kind =
      code !== undefined && code !== 0 ? classifyTikTokCode(code) : classifyStatus(status);
    const said =
      typeof body?.message === 'string' ? `: ${quote(body.message)}` : ` "${quote(text)}"`;
    throw new TikTokApiError(
      status >= 200 && status < 300 && code === undefined ? 'unavailable' : kind,
      `${route} answered ${status}${code === undefined ? '' : ` code ${code}`}${said}`,
      { status, ...(code !== undefined && { code }) },
    );
  }

  async function downloadLeads(pageId: string, tiktok: TikTokCall): Promise<TikTokLead[]> {
    if (!ID.test(pageId) || !ID.test(tiktok.advertiserId)) {
      throw new TikTokApiError('rejected', 'a page id and an advertiser id are decimal numbers');
    }
    const base = tiktok.apiBaseUrl.replace(/\/+$/, '');
    const taskRoute = 'POST /page/lead/task/';
    const taskUrl = new URL(`${base}/page/lead/task/`);
    let taskId: string | undefined;
    for (let poll = 0; poll <= maxPolls; poll += 1) {
      if (poll > 0) await timer(pollMs);
      const body = {
        advertiser_id: tiktok.advertiserId,
        page_id: pageId,
        ...(taskId !== undefined && { task_id: taskId }),
      };
      const answer = await call(taskRoute, taskUrl, { method: 'POST', body }, tiktok);
      const data = dataOf(taskRoute, answer.status, answer.text);
      taskId = tiktokId(data.task_id) ?? (typeof data.task_id === 'string' ? data.task_id : taskId);
      const status = typeof data.status === 'string' ? data.status.toUpperCase() : '';
      if (!taskId) {
        throw new TikTokApiError('unavailable', `${taskRoute} answered without a task_id`);
      }
      if (status === 'FAILED') {
        throw new TikTokApiError('unavailable', `${taskRoute}: the lead download task failed`);
      }
      if (status === 'SUCCEED') return download(base, taskId, tiktok);
    }
    throw new TikTokApiError(
      'unavailable',
      `${taskRoute}: the lead download task did not finish after ${maxPolls} polls`,
    );
  }

  async function download(base: string, taskId: string, tiktok: TikTokCall) {
    const route = 'GET /page/lead/task/download/';
    const url = new URL(`${base}/page/lead/task/download/`);
    url.searchParams.set('advertiser_id', tiktok.advertiserId);
    url.searchParams.set('task_id', taskId);
    const answer = await call(route, url, { method: 'GET' }, tiktok);
    const type = answer.contentType.toLowerCase();
    if (answer.status >= 200 && answer.status < 300 && type.includes('zip')) {
      throw new TikTokApiError(
        'rejected',
        `${route} answered a zip archive: TikTok zips large downloads; backfill a shorter period`,
      );
    }
    if (answer.status >= 200 && answer.status < 300 && !type.includes('json')) {
      return readLeadCsv(answer.text);
    }
    dataOf(route, answer.status, answer.text);
    throw new TikTokApiError('unavailable', `${route} answered JSON instead of the leads' CSV`, {
      status: answer.status,
    });
  }

  return { downloadLeads };
}
