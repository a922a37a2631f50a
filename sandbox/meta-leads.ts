/**
 * Meta lead-ads leads the sandbox's Graph stand-in serves: registration (normalising ids to
 * exact decimal strings and `created_time` to Meta's `2024-05-02T13:10:07+0000`) and the lookup
 * answer (`GET /graph/{leadgenId}`, with the optional `fields` selection).
 */
import * as z from 'zod/mini';
import { describeIssues, externalId, type IssueDetail } from '../functions/domain/json.ts';

export interface MetaLead {
  id: string;
  created_time: string;
  form_id: string;
  ad_id?: string;
  field_data: { name: string; values: string[] }[];
  /** Other LeadgenLead fields given at registration (campaign_id, platform, ...). */
  [field: string]: unknown;
}

/** Fields a Graph `LeadgenLead` node has; `fields=` may name only these. */
export const LEADGEN_FIELDS = [
  'id',
  'created_time',
  'ad_id',
  'ad_name',
  'adset_id',
  'adset_name',
  'campaign_id',
  'campaign_name',
  'form_id',
  'field_data',
  'is_organic',
  'platform',
  'partner_name',
  'custom_disclaimer_responses',
  'home_listing',
  'post',
  'retailer_item_id',
  'vehicle',
] as const;

const nonNegativeId = z
  .pipe(
    externalId,
    z.transform((value) => String(value)),
  )
  .check(z.refine((value) => /^\d+$/.test(value), 'must be a non-negative integer id'));
const optionalId = z.optional(z.nullable(nonNegativeId));
const optionalText = z.optional(z.nullable(z.string()));
const fieldValue = z.union([z.string(), z.number(), z.boolean()]);

const metaLeadInputSchema = z.strictObject({
  id: nonNegativeId,
  form_id: nonNegativeId,
  ad_id: optionalId,
  created_time: z.optional(z.nullable(z.union([z.string(), z.number()]))),
  field_data: z.array(
    z.strictObject({
      name: z.string().check(z.minLength(1)),
      values: z.array(fieldValue),
    }),
  ),
  ad_name: optionalText,
  adset_id: optionalId,
  adset_name: optionalText,
  campaign_id: optionalId,
  campaign_name: optionalText,
  is_organic: z.optional(z.nullable(z.boolean())),
  platform: optionalText,
  partner_name: optionalText,
});

const pad = (value: number) => String(value).padStart(2, '0');

/** Meta's timestamp format, always UTC: `2024-05-02T13:10:07+0000`. */
export function formatMetaTime(date: Date): string {
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}+0000`
  );
}

/** Accepts Meta's format, any ISO 8601 string Date can read, or epoch seconds (webhooks' form). */
function parseCreatedTime(value: string | number): Date | undefined {
  if (typeof value === 'number') {
    const date = new Date(value * 1000);
    return Number.isFinite(date.getTime()) ? date : undefined;
  }
  const iso = value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  if (!/^\d{4}-\d{2}-\d{2}/.test(iso)) return undefined;
  const date = new Date(iso);
  return Number.isFinite(date.getTime()) ? date : undefined;
}

export type MetaLeadRegistration =
  | { ok: true; lead: MetaLead }
  | { ok: false; details: IssueDetail[] };

/** Validates and normalises a lead to register; `now` fills a missing `created_time`. */
export function normaliseMetaLead(input: unknown, now: Date): MetaLeadRegistration {
  const parsed = metaLeadInputSchema.safeParse(input);
  if (!parsed.success) return { ok: false, details: describeIssues(parsed.error.issues, input) };
  const { id, form_id, ad_id, created_time, field_data, ...rest } = parsed.data;
  let created = now;
  if (created_time != null) {
    const date = parseCreatedTime(created_time);
    if (!date) {
      return {
        ok: false,
        details: [
          { field: 'created_time', message: 'must be a date-time (2024-05-02T13:10:07+0000)' },
        ],
      };
    }
    created = date;
  }
  const lead: MetaLead = {
    id,
    created_time: formatMetaTime(created),
    form_id,
    field_data: field_data.map((entry) => ({
      name: entry.name,
      values: entry.values.map((value) => String(value)),
    })),
  };
  if (ad_id != null) lead.ad_id = ad_id;
  for (const [key, value] of Object.entries(rest)) {
    if (value != null) lead[key] = value;
  }
  return { ok: true, lead };
}

/** Top-level names of a Graph `fields` list: `id,field_data{name,values}` → id, field_data. */
export function parseGraphFields(fields: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of `${fields},`) {
    if (char === '{') depth += 1;
    else if (char === '}') depth = Math.max(0, depth - 1);
    else if (char === ',' && depth === 0) {
      const name = current.trim().split('.')[0]?.trim() ?? '';
      if (name) names.push(name);
      current = '';
      continue;
    }
    if (depth === 0 && char !== '}') current += char;
  }
  return names;
}

export type GraphAnswer = { status: number; body: unknown };

export function graphError(message: string, type: string, code: number, subcode?: number) {
  const error: Record<string, unknown> = { message, type, code };
  if (subcode !== undefined) error.error_subcode = subcode;
  return { error };
}

/**
 * Answer of `GET /graph/{id}` for a known lead. Without `fields` the sandbox returns id,
 * created_time, form_id, ad_id (when the lead has one) and field_data; with `fields`, only the
 * named ones that the lead has, and always `id`.
 */
export function graphLeadAnswer(lead: MetaLead, fields: string | null): GraphAnswer {
  if (fields === null || fields.trim() === '') {
    const body: Record<string, unknown> = {
      id: lead.id,
      created_time: lead.created_time,
      form_id: lead.form_id,
    };
    if (lead.ad_id !== undefined) body.ad_id = lead.ad_id;
    body.field_data = lead.field_data;
    return { status: 200, body };
  }
  const wanted = parseGraphFields(fields);
  const known: readonly string[] = LEADGEN_FIELDS;
  const unknown = wanted.find((name) => !known.includes(name));
  if (unknown !== undefined) {
    return {
      status: 400,
      body: graphError(
        `(#100) Tried accessing nonexisting field (${unknown}) on node type (LeadgenLead)`,
        'OAuthException',
        100,
      ),
    };
  }
  const body: Record<string, unknown> = {};
  for (const name of wanted) {
    if (lead[name] !== undefined) body[name] = lead[name];
  }
  body.id = lead.id;
  return { status: 200, body };
}

/** A `filtering` condition of `GET /{form-id}/leads` (Graph's `time_created` filters). */
interface GraphFilter {
  field: string;
  operator: string;
  value: unknown;
}

/** Graph's `limit` when none is given, and the most one page holds. */
const DEFAULT_PAGE = 25;
const MAX_PAGE = 100;

function timeFilterMatches(filter: GraphFilter, createdSeconds: number): boolean | undefined {
  const value = Number(filter.value);
  if (filter.field !== 'time_created' || !Number.isFinite(value)) return undefined;
  switch (filter.operator) {
    case 'GREATER_THAN':
      return createdSeconds > value;
    case 'LESS_THAN':
      return createdSeconds < value;
    default:
      return undefined;
  }
}

/**
 * Answer of `GET /graph/{formId}/leads`: the form's leads, newest first, filtered by
 * `filtering` (`time_created` with `GREATER_THAN` / `LESS_THAN`, epoch seconds), `limit` a page
 * (default 25, at most 100), paged with the `after` cursor; `paging.next` only when more follow.
 * Each lead carries the `fields` asked (as `GET /graph/{id}` does).
 */
export function graphFormLeadsAnswer(
  leads: readonly MetaLead[],
  formId: string,
  url: URL,
): GraphAnswer {
  let filters: GraphFilter[] = [];
  const rawFiltering = url.searchParams.get('filtering');
  if (rawFiltering) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawFiltering);
    } catch {
      parsed = undefined;
    }
    const valid =
      Array.isArray(parsed) &&
      parsed.every((f) => typeof f === 'object' && f !== null && 'field' in f && 'operator' in f);
    if (!valid) {
      return {
        status: 400,
        body: graphError(
          '(#100) param filtering must be an array of filters',
          'OAuthException',
          100,
        ),
      };
    }
    filters = parsed as GraphFilter[];
  }
  for (const filter of filters) {
    if (timeFilterMatches(filter, 0) === undefined) {
      return {
        status: 400,
        body: graphError(
          `(#100) Filtering field ${String(filter.field)} with operation ${String(filter.operator)} is not supported`,
          'OAuthException',
          100,
        ),
      };
    }
  }
  const limitParam = Number(url.searchParams.get('limit') ?? DEFAULT_PAGE);
  const limit =
    Number.isInteger(limitParam) && limitParam > 0 ? Math.min(limitParam, MAX_PAGE) : DEFAULT_PAGE;
  const after = url.searchParams.get('after');
  const offset = after ? Number(Buffer.from(after, 'base64url').toString('utf8')) : 0;
  if (!Number.isInteger(offset) || offset < 0) {
    return { status: 400, body: graphError('(#100) Invalid cursor', 'OAuthException', 100) };
  }
  const matching = leads
    .filter((lead) => lead.form_id === formId)
    .filter((lead) => {
      const seconds = Math.floor((parseCreatedTime(lead.created_time)?.getTime() ?? 0) / 1000);
      return filters.every((filter) => timeFilterMatches(filter, seconds) === true);
    })
    .sort((a, b) => b.created_time.localeCompare(a.created_time) || b.id.localeCompare(a.id));
  const page = matching.slice(offset, offset + limit);
  const data: unknown[] = [];
  for (const lead of page) {
    const answer = graphLeadAnswer(lead, url.searchParams.get('fields'));
    if (answer.status !== 200) return answer;
    data.push(answer.body);
  }
  const cursor = (at: number) => Buffer.from(String(at), 'utf8').toString('base64url');
  const paging: Record<string, unknown> = {
    cursors: { before: cursor(offset), after: cursor(offset + page.length) },
  };
  if (offset + page.length < matching.length) {
    const next = new URL(url);
    next.searchParams.set('after', cursor(offset + page.length));
    paging.next = next.toString();
  }
  return { status: 200, body: { data, paging } };
}
