/**
 * `GET /admin` (and `/admin/`): the operator console page (console-page.ts), built for this
 * operator: its CSRF token, its name, the profiles it may see and the statuses it can list.
 */
import type { HttpResponse } from '../kernel/http.ts';
import { consolePage } from './console-page.ts';
import { PUBLIC_STATUSES } from './leads/lead.ts';
import type { RouteContext } from './operation.ts';

export async function consoleRoute({ deps, csrf, client }: RouteContext): Promise<HttpResponse> {
  const profiles = Object.keys(await deps.config.profileSettings());
  return consolePage({ csrf, operator: client, profiles, statuses: PUBLIC_STATUSES });
}
