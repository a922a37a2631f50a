/**
 * `GET /admin/leads.csv?status=parked`: the leads of a status (parked by default) as a CSV for a
 * sales team, newest first, with the console listing's filters (`profile`, `q`, `since`, `until`,
 * `order`: scan.ts); at most MAX_EXPORT leads. Personal data, for the `admin` role only.
 */
import type { HttpResponse } from '../../kernel/http.ts';
import { NO_STORE } from '../../kernel/route-guard.ts';
import type { LeadRecord } from '../../ledger/lead-ledger.ts';
import { type RouteContext, refusal, single } from '../operation.ts';
import { ledgerStatuses, PUBLIC_STATUSES } from './lead.ts';
import { leadsCsv } from './lead-views.ts';
import { recentFilter, scanRecent } from './scan.ts';

/** Leads one CSV holds at most. */
const MAX_EXPORT = 5000;

export async function exportLeads({ deps, request, now }: RouteContext): Promise<HttpResponse> {
  const status = single(request, 'status') || 'parked';
  const publicStatus = PUBLIC_STATUSES.find((candidate) => candidate === status);
  if (!publicStatus) {
    throw refusal(400, 'invalid_status', `status must be one of: ${PUBLIC_STATUSES.join(', ')}`);
  }
  const filter = recentFilter(request, ledgerStatuses(publicStatus));
  const rows: { lead: LeadRecord; status: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await scanRecent(
      deps.ledger,
      filter,
      Math.min(500, MAX_EXPORT - rows.length),
      cursor,
    );
    rows.push(...page.leads.map((lead) => ({ lead, status: publicStatus })));
    cursor = page.cursor;
  } while (cursor !== undefined && rows.length < MAX_EXPORT);
  const day = now().toISOString().slice(0, 10);
  return {
    statusCode: 200,
    headers: {
      ...NO_STORE,
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="leads-${publicStatus}-${day}.csv"`,
    },
    body: leadsCsv(rows),
  };
}
