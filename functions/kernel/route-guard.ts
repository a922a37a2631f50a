/**
 * What every Basic-auth route checks before its use case's own work, in this order: the route
 * exists among the function's routes in the route table (404), the method is the route's (405
 * with `Allow`), the gateway's authorizer did not find the sign-in locked by earlier failures
 * (429 with Retry-After: the authorizer lets such a request through flagged `throttled`, since
 * it can only allow or deny; kernel/auth-throttle.ts), the caller's credentials are valid (401
 * with the Basic challenge) and carry the route's role (403), and a request that changes
 * something (any method but GET) is not forged by another site's page (403
 * `cross_site_refused`, csrf.ts), and a route that reads JSON (`body: 'json'` in the route
 * table) gets a JSON body (415 `unsupported_media_type`, `jsonBodyAnswer`). The admitted caller comes with its scope (scope.ts): what the
 * flow's guard then narrows its data to, so that no route checks scope itself. Answers are
 * never cached.
 */
import { throttledByAuthorizer, tooManyFailuresMessage } from './auth-throttle.ts';
import { authenticateClient, BASIC_CHALLENGE } from './client-auth.ts';
import type { Client } from './client-schema.ts';
import { checkCsrf } from './csrf.ts';
import { type HttpRequest, type HttpResponse, problem } from './http.ts';
import { t } from './language.ts';
import { type BasicRoute, basicRoutesOf, type FunctionName } from './routes.ts';
import { type Scope, scopeOf } from './scope.ts';

export const NO_STORE = { 'cache-control': 'no-store' };

/** The code of the 429 for a sign-in locked by earlier failures. */
export const TOO_MANY_FAILURES = 'too_many_failures';

/**
 * The 429 (with Retry-After) for a request the gateway's authorizer flagged as locked by failed
 * sign-ins; undefined for any other request.
 */
export function throttledAnswer(
  request: Pick<HttpRequest, 'authorizer'>,
): HttpResponse | undefined {
  const locked = throttledByAuthorizer(request.authorizer);
  if (!locked) return undefined;
  return problem(429, TOO_MANY_FAILURES, tooManyFailuresMessage(locked.retryAfterSeconds), [], {
    ...NO_STORE,
    'retry-after': String(locked.retryAfterSeconds),
  });
}

/** The code of the 403 for a state-changing request another site's page made (csrf.ts). */
export const CROSS_SITE_REFUSED = 'cross_site_refused';

export type Admission<R> =
  | { ok: true; route: R; client: Client; scope: Scope }
  | { ok: false; result: HttpResponse; code: string };

/** The function's route at `resource` for the request's method (the route table's entry). */
export async function admitCaller<F extends FunctionName>(
  fn: F,
  resource: string,
  request: HttpRequest,
  clients: () => Promise<readonly Client[]>,
): Promise<Admission<BasicRoute<F>>> {
  const atPath = basicRoutesOf(fn).filter((route) => route.path === resource);
  if (atPath.length === 0) {
    return {
      ok: false,
      code: 'not_found',
      result: problem(
        404,
        'not_found',
        t(`não há rota em ${resource}`, `no route at ${resource}`),
        [],
        NO_STORE,
      ),
    };
  }
  const route = atPath.find((candidate) => candidate.method === request.method);
  if (!route) {
    return {
      ok: false,
      code: 'method_not_allowed',
      result: problem(
        405,
        'method_not_allowed',
        t(`${request.method} não é aceito aqui`, `${request.method} is not allowed here`),
        [],
        {
          ...NO_STORE,
          allow: atPath.map((candidate) => candidate.method).join(', '),
        },
      ),
    };
  }
  const locked = throttledAnswer(request);
  if (locked) return { ok: false, code: TOO_MANY_FAILURES, result: locked };
  const auth = await authenticateClient(request.headers.authorization, await clients(), route.role);
  if (auth.ok) {
    const forged = crossSiteAnswer(request, auth.client);
    if (forged) return { ok: false, code: CROSS_SITE_REFUSED, result: forged };
    const unreadable = route.body === 'json' ? jsonBodyAnswer(request) : undefined;
    if (unreadable) return { ok: false, code: UNSUPPORTED_MEDIA_TYPE, result: unreadable };
    return { ok: true, route, client: auth.client, scope: scopeOf(auth.client) };
  }
  const headers = { ...NO_STORE, ...(auth.status === 401 ? BASIC_CHALLENGE : {}) };
  return {
    ok: false,
    code: auth.code,
    result: problem(auth.status, auth.code, auth.message, [], headers),
  };
}

/**
 * The 403 for a request that changes something (any method but GET) and that a browser says
 * another site's page made, or that lacks the console's token (csrf.ts); undefined otherwise.
 */
export function crossSiteAnswer(request: HttpRequest, client: Client): HttpResponse | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  const verdict = checkCsrf(request, client);
  return verdict.ok ? undefined : problem(403, CROSS_SITE_REFUSED, verdict.message, [], NO_STORE);
}

/** The code of the 415 for a body a JSON route cannot take (`jsonBodyAnswer`). */
export const UNSUPPORTED_MEDIA_TYPE = 'unsupported_media_type';

/** `application/json` and the structured `+json` types (`application/json-patch+json`...). */
export function isJsonMediaType(mediaType: string): boolean {
  return (
    mediaType === 'application/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(mediaType)
  );
}

/** The `charset` parameter of a Content-Type header, lower-cased and unquoted, if any. */
function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return match?.[2]?.toLowerCase();
}

/**
 * The 415 for a route that reads its body as JSON when the request's body is not labelled JSON
 * (`text/plain`, a form, no Content-Type with a body) or names a charset other than UTF-8;
 * undefined for a JSON body, or no body and no Content-Type at all (the route says what it
 * lacks). A text/plain body is what a page elsewhere can post without a CORS preflight.
 */
export function jsonBodyAnswer(request: HttpRequest): HttpResponse | undefined {
  const { contentType } = request;
  if (request.body.length === 0 && contentType === '') return undefined;
  const charset = charsetOf(request.headers['content-type']);
  if (isJsonMediaType(contentType) && (charset === undefined || charset === 'utf-8')) {
    return undefined;
  }
  const sent = contentType
    ? `${contentType.slice(0, 80)}${charset ? `; charset=${charset.slice(0, 20)}` : ''}`
    : '';
  const message = sent
    ? t(
        `esta rota recebe JSON: envie o corpo com Content-Type: application/json (veio ${sent})`,
        `this route takes JSON: send the body with Content-Type: application/json (got ${sent})`,
      )
    : t(
        'esta rota recebe JSON: envie o corpo com Content-Type: application/json (veio sem Content-Type)',
        'this route takes JSON: send the body with Content-Type: application/json (no Content-Type was sent)',
      );
  return problem(415, UNSUPPORTED_MEDIA_TYPE, message, [], NO_STORE);
}
