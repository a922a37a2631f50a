/**
 * The console's listing scan, shared by the newest-first listing (`GET /admin/leads` with its
 * filters, list.ts) and the CSV (export.ts): the filters read from the query (`order`, `since`,
 * `until`, `profile`, `q`) and the scan of the ledger's status index (every status's partition
 * merged by receivedAt, no third index), narrowed by profile and a search over name, e-mail and
 * phone (lead-views.ts). A scan reads at most MAX_SCANNED leads per call and says where to go on.
 */
import type { LeadStatus } from '../../domain/lead-lifecycle.ts';
import type { HttpRequest } from '../../kernel/http.ts';
import { t } from '../../kernel/language.ts';
import type { LeadLedger, LeadRecord } from '../../ledger/lead-ledger.ts';
import { refusal, single } from '../route-context.ts';
import { matchesSearch } from './lead-views.ts';

/** Query parameters that make `GET /admin/leads` the newest-first listing with filters. */
export const RECENT_PARAMS = ['profile', 'q', 'since', 'until', 'order'] as const;
/** Leads read at most per listing request when filters drop most of them. */
const MAX_SCANNED = 2000;
const SCAN_PAGE = 200;

/** `2026-11-23` (the start of that day, UTC) or a full ISO 8601 instant. */
function parseInstant(name: string, raw: string | undefined): Date | undefined {
  if (raw === undefined || raw === '') return undefined;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00.000Z` : raw;
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(date.getTime())) {
    throw refusal(
      400,
      'invalid_query',
      t(
        `${name} deve ser uma data (2026-11-23) ou um instante ISO 8601`,
        `${name} must be a date (2026-11-23) or an ISO 8601 instant`,
      ),
    );
  }
  return date;
}

export interface RecentFilter {
  statuses: readonly LeadStatus[];
  order: 'newest' | 'oldest';
  profile?: string;
  q?: string;
  since?: Date;
  until?: Date;
}

export function recentFilter(request: HttpRequest, statuses: readonly LeadStatus[]): RecentFilter {
  const order = single(request, 'order') ?? 'newest';
  if (order !== 'newest' && order !== 'oldest') {
    throw refusal(
      400,
      'invalid_query',
      t('order deve ser newest ou oldest', 'order must be newest or oldest'),
      ['newest', 'oldest'],
    );
  }
  const since = parseInstant('since', single(request, 'since'));
  // A bare date as `until` includes that day.
  const untilRaw = single(request, 'until');
  let until = parseInstant('until', untilRaw);
  if (until && untilRaw && /^\d{4}-\d{2}-\d{2}$/.test(untilRaw)) {
    until = new Date(until.getTime() + 86_400_000);
  }
  const profile = single(request, 'profile')?.trim() || undefined;
  const q = single(request, 'q')?.trim() || undefined;
  if (q !== undefined && q.length > 200) {
    throw refusal(
      400,
      'invalid_query',
      t('q deve ter no máximo 200 caracteres', 'q must be at most 200 characters'),
    );
  }
  return {
    statuses,
    order,
    ...(profile && { profile }),
    ...(q && { q }),
    ...(since && { since }),
    ...(until && { until }),
  };
}

/**
 * The leads matching `filter`, in its order, from position `after`: reads the status index
 * (every status's partition merged by receivedAt), then filters by profile and search. Stops at
 * `limit` matches or MAX_SCANNED leads read; `cursor` goes on from there.
 */
export async function scanRecent(
  ledger: LeadLedger,
  filter: RecentFilter,
  limit: number,
  after: string | undefined,
): Promise<{ leads: LeadRecord[]; cursor?: string }> {
  const filtering = filter.profile !== undefined || filter.q !== undefined;
  const leads: LeadRecord[] = [];
  let position = after;
  let scanned = 0;
  for (;;) {
    const page = await ledger.listRecent({
      statuses: filter.statuses,
      order: filter.order,
      ...(filter.since && { since: filter.since }),
      ...(filter.until && { until: filter.until }),
      ...(position !== undefined && { after: position }),
      limit: filtering ? SCAN_PAGE : limit - leads.length,
    });
    for (const entry of page.entries) {
      scanned += 1;
      position = entry.position;
      const lead = entry.lead;
      if (filter.profile !== undefined && lead.profile !== filter.profile) continue;
      if (filter.q !== undefined && !matchesSearch(lead, filter.q)) continue;
      leads.push(lead);
      if (leads.length >= limit) {
        const more = page.more || entry !== page.entries.at(-1);
        return more ? { leads, cursor: entry.position } : { leads };
      }
    }
    // A scoped view may leave a page's leads out: it says where reading stopped.
    if (page.last !== undefined) {
      position = page.last;
      if (page.entries.length === 0) scanned += SCAN_PAGE;
    }
    if (!page.more || (page.entries.length === 0 && page.last === undefined)) return { leads };
    if (scanned >= MAX_SCANNED)
      return position === undefined ? { leads } : { leads, cursor: position };
  }
}
