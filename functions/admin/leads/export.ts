/**
 * `GET /admin/leads.csv?status=parked`: the leads of a status (parked by default) as a CSV for a
 * sales team, newest first, with the console listing's filters (`profile`, `q`, `since`, `until`,
 * `order`: scan.ts); at most MAX_EXPORT leads. Personal data, for the `admin` role only.
 */

import { DEFAULT_TIME_ZONE, localDay } from '../../domain/local-time.ts';
import { STATUS_LABELS } from '../../domain/status-labels.ts';
import type { HttpResponse } from '../../kernel/http.ts';
import { NO_STORE } from '../../kernel/route-guard.ts';
import { type RouteContext, single } from '../route-context.ts';
import { ledgerStatuses, publicStatusOf } from './lead.ts';
import { type CsvLead, leadsCsv } from './lead-views.ts';
import { recentFilter, scanRecent } from './scan.ts';
import { zonesOf } from './zones.ts';

/** `Na fila` → `na-fila`: a word for a file name. */
function fileWord(label: string): string {
  return label
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
}

/** Leads one CSV holds at most. */
const MAX_EXPORT = 5000;

export async function exportLeads({ deps, request, now }: RouteContext): Promise<HttpResponse> {
  const status = single(request, 'status') || 'parked';
  const publicStatus = publicStatusOf(status);
  const filter = recentFilter(request, ledgerStatuses(publicStatus));
  const rows: CsvLead[] = [];
  const zoneOf = zonesOf(deps.config);
  let cursor: string | undefined;
  do {
    const page = await scanRecent(
      deps.ledger,
      filter,
      Math.min(500, MAX_EXPORT - rows.length),
      cursor,
    );
    for (const lead of page.leads) {
      rows.push({ lead, status: publicStatus, timeZone: await zoneOf(lead.profile) });
    }
    cursor = page.cursor;
  } while (cursor !== undefined && rows.length < MAX_EXPORT);
  // The file says what it holds in Portuguese, and the day where the operator is.
  const day = localDay(now(), rows[0]?.timeZone ?? DEFAULT_TIME_ZONE);
  const what = fileWord(STATUS_LABELS[publicStatus]);
  return {
    statusCode: 200,
    headers: {
      ...NO_STORE,
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="leads-${what}-${day}.csv"`,
    },
    body: leadsCsv(rows),
  };
}
