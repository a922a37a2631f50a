/**
 * What every Basic-auth route checks before its use case's own work, in this order: the route
 * exists among the function's routes in the route table (404), the method is the route's (405
 * with `Allow`), the gateway's authorizer did not find the sign-in locked by earlier failures
 * (429 with Retry-After: the authorizer lets such a request through flagged `throttled`, since
 * it can only allow or deny; kernel/auth-throttle.ts), the caller's credentials are valid (401
 * with the Basic challenge) and carry the route's role (403). Answers are never cached.
 */
import { throttledByAuthorizer, tooManyFailuresMessage } from './auth-throttle.ts';
import { authenticateClient, BASIC_CHALLENGE } from './client-auth.ts';
import type { Client } from './client-schema.ts';
import { type HttpRequest, type HttpResponse, problem } from './http.ts';
import { type BasicRoute, basicRoutesOf, type FunctionName } from './routes.ts';

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

export type Admission<R> =
  | { ok: true; route: R; client: Client }
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
      result: problem(404, 'not_found', `no route at ${resource}`, [], NO_STORE),
    };
  }
  const route = atPath.find((candidate) => candidate.method === request.method);
  if (!route) {
    return {
      ok: false,
      code: 'method_not_allowed',
      result: problem(405, 'method_not_allowed', `${request.method} is not allowed here`, [], {
        ...NO_STORE,
        allow: atPath.map((candidate) => candidate.method).join(', '),
      }),
    };
  }
  const locked = throttledAnswer(request);
  if (locked) return { ok: false, code: TOO_MANY_FAILURES, result: locked };
  const auth = await authenticateClient(request.headers.authorization, await clients(), route.role);
  if (auth.ok) return { ok: true, route, client: auth.client };
  const headers = { ...NO_STORE, ...(auth.status === 401 ? BASIC_CHALLENGE : {}) };
  return {
    ok: false,
    code: auth.code,
    result: problem(auth.status, auth.code, auth.message, [], headers),
  };
}
