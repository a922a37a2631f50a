/**
 * `GET /admin/leads?status=&limit=&cursor=`: `{leads: [summaries], cursor?}`, oldest first within
 * a status. `queued` lists `queued` leads, then `sending` ones. `limit` 1..500 (default 50).
 * `cursor` is the previous page's (this listing's own: a ledger status and the ledger's cursor
 * within it); a lead changing status between pages may be missed or listed twice (no snapshot).
 * Without `status`, or with any of `profile`, `q`, `since`, `until`, `order`: the console's
 * listing, every status (or the one given) merged newest first from the status index
 * (scan.ts), narrowed by profile, period and a search over name, e-mail and phone, each lead
 * with its `contact`.
 */
import { LEAD_STATUSES, type LeadStatus } from '../../domain/lead-lifecycle.ts';
import { type HttpResponse, json } from '../../kernel/http.ts';
import { t } from '../../kernel/language.ts';
import { NO_STORE } from '../../kernel/route-guard.ts';
import { InvalidCursorError, type LeadLedger } from '../../ledger/lead-ledger.ts';
import { type RouteContext, refusal, single } from '../route-context.ts';
import { type AdminLeadView, ledgerStatuses, publicStatusOf, toAdminLeadView } from './lead.ts';
import { type Contact, contactOf } from './lead-views.ts';
import { RECENT_PARAMS, recentFilter, scanRecent } from './scan.ts';
import { zonesOf } from './zones.ts';

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;

/** What `GET /admin/leads` answers: a page of leads, and where the next one starts. */
export interface LeadListing {
  /** The console's listing gives each lead's `contact` too. */
  leads: (AdminLeadView & { contact?: Contact })[];
  cursor?: string;
}

/** Where a listing goes on: a ledger status and, within it, the ledger's own cursor. */
interface ListPosition {
  status: LeadStatus;
  cursor?: string;
}

function encodeListCursor(position: ListPosition): string {
  const value = {
    s: position.status,
    ...(position.cursor !== undefined && { c: position.cursor }),
  };
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function decodeListCursor(cursor: string, statuses: readonly LeadStatus[]): ListPosition {
  const invalid = () =>
    refusal(
      400,
      'invalid_cursor',
      t('o cursor não é desta listagem', 'the cursor does not belong to this listing'),
    );
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof value !== 'object' || value === null) throw invalid();
  const { s, c } = value as { s?: unknown; c?: unknown };
  const status = statuses.find((candidate) => candidate === s);
  if (!status || (c !== undefined && (typeof c !== 'string' || c === ''))) throw invalid();
  return c === undefined ? { status } : { status, cursor: c };
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIST_LIMIT;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw refusal(
      400,
      'invalid_limit',
      t(
        `limit deve ser um número inteiro de 1 a ${MAX_LIST_LIMIT}`,
        `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`,
      ),
    );
  }
  return limit;
}

export async function listLeads(context: RouteContext): Promise<HttpResponse> {
  const { deps, request } = context;
  const status = single(request, 'status');
  if (status === undefined || status === '') {
    const limit = parseLimit(single(request, 'limit'));
    return json(200, await recentLeads(context, LEAD_STATUSES, limit), NO_STORE);
  }
  const publicStatus = publicStatusOf(status);
  const limit = parseLimit(single(request, 'limit'));
  const statuses = ledgerStatuses(publicStatus);
  if (RECENT_PARAMS.some((name) => request.query[name] !== undefined)) {
    return json(200, await recentLeads(context, statuses, limit), NO_STORE);
  }
  const rawCursor = single(request, 'cursor');
  let position: ListPosition | undefined =
    rawCursor === undefined || rawCursor === ''
      ? { status: statuses[0] as LeadStatus }
      : decodeListCursor(rawCursor, statuses);

  const leads: AdminLeadView[] = [];
  const zoneOf = zonesOf(deps.config);
  while (position && leads.length < limit) {
    let page: Awaited<ReturnType<LeadLedger['listByStatus']>>;
    try {
      page = await deps.ledger.listByStatus(position.status, {
        limit: limit - leads.length,
        ...(position.cursor !== undefined && { cursor: position.cursor }),
      });
    } catch (error) {
      if (error instanceof InvalidCursorError) {
        throw refusal(
          400,
          'invalid_cursor',
          t('o cursor não é desta listagem', 'the cursor does not belong to this listing'),
        );
      }
      throw error;
    }
    for (const lead of page.leads) leads.push(toAdminLeadView(lead, await zoneOf(lead.profile)));
    if (page.cursor !== undefined) {
      position = { status: position.status, cursor: page.cursor };
    } else {
      const next: LeadStatus | undefined = statuses[statuses.indexOf(position.status) + 1];
      position = next === undefined ? undefined : { status: next };
    }
  }
  const body: LeadListing = { leads, ...(position && { cursor: encodeListCursor(position) }) };
  return json(200, body, NO_STORE);
}

/** The console's listing: the leads matching the query's filters (scan.ts), with contacts. */
async function recentLeads(
  { deps, request }: RouteContext,
  statuses: readonly LeadStatus[],
  limit: number,
): Promise<LeadListing> {
  const filter = recentFilter(request, statuses);
  const cursor = single(request, 'cursor') || undefined;
  if (cursor !== undefined && !deps.ledger.isPosition(cursor)) {
    throw refusal(
      400,
      'invalid_cursor',
      t('o cursor não é desta listagem', 'the cursor does not belong to this listing'),
    );
  }
  const page = await scanRecent(deps.ledger, filter, limit, cursor);
  const zoneOf = zonesOf(deps.config);
  const leads: LeadListing['leads'] = [];
  for (const lead of page.leads) {
    leads.push({ ...toAdminLeadView(lead, await zoneOf(lead.profile)), contact: contactOf(lead) });
  }
  return {
    leads,
    ...(page.cursor !== undefined && { cursor: page.cursor }),
  };
}
