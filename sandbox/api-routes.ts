/**
 * The sandbox's EVO API, `/api/*`: paths match case-insensitively and with a trailing slash, like
 * ASP.NET. Every request, in this order: the outage fault (the connection is dropped), the
 * latency fault (each answer waits), the body (413 and the connection closed past the drain
 * limit), 404 for an unknown path, 405 with `Allow` for a method the path lacks, admission
 * (admission.ts: auth, rate limit, errorRate), then the route: prospects (prospects-route.ts)
 * or debtors (debtors-route.ts). Known routes are counted in the stats as `METHOD /path`.
 */

import { admit } from './admission.ts';
import { listDebtors } from './debtors-route.ts';
import {
  destroy,
  type Exchange,
  json,
  methodNotAllowed,
  notFound,
  type RequestBody,
  readBody,
} from './exchange.ts';
import { createProspect, findProspects } from './prospects-route.ts';
import type { SandboxState } from './state.ts';

type ApiRun = (state: SandboxState, ex: Exchange, url: URL, body: RequestBody) => Promise<void>;

/** Path (lower case) → method → handler. */
const API_ROUTES = new Map<string, Record<string, ApiRun>>([
  [
    '/api/v1/prospects',
    {
      POST: (state, ex, _url, body) => createProspect(state, ex, body),
      GET: (state, ex, url) => findProspects(state, ex, url),
    },
  ],
  ['/api/v1/receivables/debtors', { GET: (state, ex, url) => listDebtors(state, ex, url) }],
]);

/** Answers a request under `/api/`; `lower` is its path in lower case, without trailing slash. */
export async function routeApi(
  state: SandboxState,
  ex: Exchange,
  url: URL,
  lower: string,
): Promise<void> {
  const { method } = ex;
  const known = API_ROUTES.get(lower);
  if (known) ex.route = `${method} ${lower}`;
  if (state.faults.outage) return destroy(ex);
  ex.latencyMs = state.faults.latencyMs;
  const body = await readBody(ex.req);
  if (body.aborted) return;
  if (body.overflow) {
    return json(
      ex,
      413,
      { mensagens: ['O corpo da requisição excede o limite de 1 MB.'] },
      { connection: 'close' },
    );
  }
  if (!known) return notFound(ex);
  const run = Object.hasOwn(known, method) ? known[method] : undefined;
  if (!run) return methodNotAllowed(ex, Object.keys(known).sort().join(', '));
  if (!(await admit(state, ex))) return;
  return run(state, ex, url, body);
}
