/**
 * `GET /admin` (and `/admin/`): the operator console page (console-page.ts), built for this
 * operator: its CSRF token, its name, the profiles it may see, the statuses it can list and the
 * account's time zone. A lead's branches (the menu of its correction) come with the lead, its own
 * account's only (leads/view.ts `branchChoices`).
 */
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import type { HttpResponse } from '../kernel/http.ts';
import { consoleScriptSrc } from './console-asset.ts';
import { consolePage } from './console-page.ts';
import { PUBLIC_STATUSES } from './leads/lead.ts';
import type { RouteContext } from './route-context.ts';

/** The console's clock when the account names no time zone (config-parts.ts's default). */
const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

export async function consoleRoute({
  deps,
  csrf,
  client,
  baseUrl,
}: RouteContext): Promise<HttpResponse> {
  const profiles = Object.keys(await deps.config.profileSettings());
  const accounts = (await deps.config.accounts?.()) ?? [DEFAULT_ACCOUNT];
  const report = await deps.config.report?.(accounts[0] ?? DEFAULT_ACCOUNT);
  return consolePage({
    csrf,
    operator: client,
    profiles,
    statuses: PUBLIC_STATUSES,
    timeZone: report?.timeZone ?? DEFAULT_TIME_ZONE,
    scriptSrc: consoleScriptSrc(baseUrl),
  });
}
