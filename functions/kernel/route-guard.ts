/**
 * What every Basic-auth operator route checks before its own work, in this order: the route
 * exists (404), the method is the route's (405 with `Allow`), the caller's credentials are valid
 * (401 with the Basic challenge) and carry the route's role (403). Answers are never cached.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Client, Role } from '../config/config-schema.ts';
import { authenticateClient, BASIC_CHALLENGE } from './client-auth.ts';
import { type HttpRequest, problem } from './http.ts';

export const NO_STORE = { 'cache-control': 'no-store' };

export type Admission<R> =
  | { ok: true; route: R; client: Client }
  | { ok: false; result: APIGatewayProxyResult; code: string };

export async function admitCaller<R extends { method: string; role: Role }>(
  route: R | undefined,
  request: HttpRequest,
  clients: () => Promise<readonly Client[]>,
  notFoundMessage: string,
): Promise<Admission<R>> {
  if (!route) {
    return {
      ok: false,
      code: 'not_found',
      result: problem(404, 'not_found', notFoundMessage, [], NO_STORE),
    };
  }
  if (request.method !== route.method) {
    return {
      ok: false,
      code: 'method_not_allowed',
      result: problem(405, 'method_not_allowed', `${request.method} is not allowed here`, [], {
        ...NO_STORE,
        allow: route.method,
      }),
    };
  }
  const auth = await authenticateClient(request.headers.authorization, await clients(), route.role);
  if (auth.ok) return { ok: true, route, client: auth.client };
  const headers = { ...NO_STORE, ...(auth.status === 401 ? BASIC_CHALLENGE : {}) };
  return {
    ok: false,
    code: auth.code,
    result: problem(auth.status, auth.code, auth.message, [], headers),
  };
}
