/**
 * Cross-site request forgery guard of every Basic-auth route that changes state, whichever
 * function serves it (the admin's, the report's refresh, the Prospect API): the route guard
 * (route-guard.ts) runs it for every method but GET and HEAD.
 *
 * Basic credentials are sent by a browser with every request to the API's origin, whoever's page
 * made it: a page elsewhere could post a form to `/admin/leads/{id}/retry` and the browser would
 * add the operator's credentials. Cookies' `SameSite` does not help (there is no cookie), so two
 * checks that need no server-side session:
 *
 * 1. Same origin: a request a browser marks as coming from elsewhere (`Sec-Fetch-Site:
 *    cross-site` or `same-site`, or an `Origin` that is not this API's) is refused.
 * 2. A token bound to the credentials: a request from a browser (it carries `Origin` or
 *    `Sec-Fetch-Site`) must carry `X-CSRF-Token`, which the console page is given inside its
 *    HTML. It is an HMAC of the operator's username keyed by their stored password (hash), so it
 *    changes with the password, needs no storage, and another site cannot read it (the page is
 *    same-origin, `no-store`, and may not be framed).
 *
 * Which requests are programs' (the operator CLI, curl, scripts/smoke.ts, an integrator's
 * server): a request with **none** of `Origin`, `Sec-Fetch-Site`, `Referer`, `Cookie` and
 * `X-CSRF-Token`. It passes without a token: it carries Basic credentials of its own (every
 * Basic route is authenticated before this check), and no other site's page can make such a
 * request, because a browser always sends `Origin` with a request that is not GET or HEAD
 * (the Fetch standard; forms included), and `Sec-Fetch-Site` on every request. A request with
 * any of `Referer`, `Cookie` or `X-CSRF-Token` but neither `Origin` nor `Sec-Fetch-Site` is
 * browser-like yet says nothing of where it came from (an old or tampered browser, a proxy that
 * stripped the headers): it is refused (403 `cross_site_refused`), whatever the Referer says.
 * So a foreign `Referer` alone never gets through, and neither does a same-origin one: the
 * console's fetches send `Origin` (and `Sec-Fetch-Site`) anyway.
 */

import { createHmac } from 'node:crypto';
import type { Client } from './client-schema.ts';
import { safeEqual } from './crypto.ts';
import type { HttpRequest } from './http.ts';
import { type Text, t } from './language.ts';

export const CSRF_HEADER = 'x-csrf-token';

/** The console's token for this client (see the module comment). */
export function csrfToken(client: Client): string {
  const key = client.passwordHash ?? client.password ?? '';
  return createHmac('sha256', key)
    .update(`leads-console-csrf:${client.username}`)
    .digest('base64url');
}

export type CsrfVerdict = { ok: true } | { ok: false; message: Text };

/**
 * The origin this request was sent to, `scheme://host`, when the request says its host. The
 * scheme is the one the gateway saw (`X-Forwarded-Proto`: API Gateway sets `https`, the local
 * gateway `http`).
 */
function ownOrigin(request: HttpRequest): string | undefined {
  const host = request.headers.host;
  const scheme = request.headers['x-forwarded-proto']?.split(',')[0]?.trim() || 'https';
  return host ? `${scheme}://${host}`.toLowerCase() : undefined;
}

/** Headers only a browser (or something pretending to be one) sends. */
const BROWSER_SIGNS = ['referer', 'cookie', CSRF_HEADER] as const;

/** Whether a state-changing request may go on (see the module comment). */
export function checkCsrf(request: HttpRequest, client: Client): CsrfVerdict {
  const site = request.headers['sec-fetch-site']?.toLowerCase();
  const origin = request.headers.origin?.toLowerCase();
  if (site === undefined && origin === undefined) {
    if (!BROWSER_SIGNS.some((name) => request.headers[name] !== undefined)) return { ok: true };
    return {
      ok: false,
      message: t(
        'um pedido de navegador que muda algo precisa dos cabeçalhos Origin ou Sec-Fetch-Site: use o console num navegador atual, ou envie o pedido sem Referer, Cookie nem X-CSRF-Token (como a linha de comando)',
        'a browser request that changes something needs the Origin or Sec-Fetch-Site header: use the console in a current browser, or send the request without Referer, Cookie or X-CSRF-Token (as the command line does)',
      ),
    };
  }
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return {
      ok: false,
      message: t(
        'um pedido vindo de outro site não pode mudar nada aqui',
        'a request from another site may not change anything here',
      ),
    };
  }
  if (origin !== undefined && origin !== ownOrigin(request)) {
    return {
      ok: false,
      message: t(
        'um pedido vindo de outra origem não pode mudar nada aqui',
        'a request from another origin may not change anything here',
      ),
    };
  }
  const token = request.headers[CSRF_HEADER] ?? '';
  if (!token || !safeEqual(token, csrfToken(client))) {
    return {
      ok: false,
      message: t(
        `o navegador precisa enviar o cabeçalho ${CSRF_HEADER} do console: recarregue o console`,
        `a browser must send the console's ${CSRF_HEADER} header; reload the console`,
      ),
    };
  }
  return { ok: true };
}
