/**
 * What every admin operation shares: the context the guard (admin.ts `handleAdmin`) hands it,
 * the refusal it raises for an answer of its own (400/404/409/502/503, turned into the answer by
 * the guard), and the reading of its request: a query parameter given once, a JSON body, the
 * `{profile}` the route names. No AWS imports; nothing here touches the ledger or the queue.
 */
import { parseJson } from '../domain/json.ts';
import {
  type HttpRequest,
  type HttpResponse,
  type ProblemDetail,
  problem,
} from '../kernel/http.ts';
import { type Text, t } from '../kernel/language.ts';
import { NO_STORE } from '../kernel/route-guard.ts';
import type { AdminDeps } from './admin.ts';

/** What one admitted request gives its operation: the caller's scoped dependencies and more. */
export interface RouteContext {
  deps: AdminDeps;
  request: HttpRequest;
  /** The `{leadId}` path parameter, `''` when the route has none. */
  leadId: string;
  /** The `{profile}` path parameter, `''` when the route has none. */
  profile: string;
  /** The `{file}` path parameter (a script's name), `''` when the route has none. */
  file: string;
  /** The API's base URL as the caller reached it. */
  /** The API's base URL as the caller reached it (where the test lead is sent). */
  baseUrl: string;
  /**
   * Where the set-up kit's URLs point: the custom domain's base URL when the stack has one,
   * else `baseUrl`.
   */
  kitUrl: string;
  /** The operator's console token (csrf.ts). */
  csrf: string;
  roles: readonly string[];
  authorization: string | undefined;
  /** The operator's username. */
  client: string;
  now(): Date;
  remainingMs(): number;
}

/** One operation: an admitted request in, its answer out (or an AdminRefusal thrown). */
export type RouteHandler = (context: RouteContext) => Promise<HttpResponse>;

/** A refusal worth an answer of its own (400/404/409/503), raised inside a route. */
export class AdminRefusal extends Error {
  override readonly name = 'AdminRefusal';
  constructor(
    readonly code: string,
    readonly result: HttpResponse,
  ) {
    super(code);
  }
}

export function refusal(
  status: number,
  code: string,
  message: string | Text,
  details: readonly ProblemDetail[] = [],
  headers: Record<string, string> = {},
): AdminRefusal {
  return new AdminRefusal(
    code,
    problem(status, code, message, details, { ...NO_STORE, ...headers }),
  );
}

/** The single value of a query parameter; a repeated one is refused. */
export function single(request: HttpRequest, name: string): string | undefined {
  const values = request.query[name] ?? [];
  if (values.length > 1) {
    throw refusal(400, 'invalid_query', t(`informe "${name}" uma só vez`, `give "${name}" once`));
  }
  return values[0];
}

export function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseJson(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The profile a route names, as this operator may see it (scoped-deps.ts). Otherwise 404 for an
 * unscoped operator; a scoped one gets the same 403 `outside_scope` whether the profile exists
 * elsewhere or not at all (no oracle of other tenants' profiles).
 */
export async function requireProfile(deps: AdminDeps, name: string) {
  const profile = name ? await deps.config.profile(name) : undefined;
  if (profile) return profile;
  if (deps.scoped) {
    throw refusal(
      403,
      'outside_scope',
      t(
        `não há perfil ${name} entre os que este usuário pode usar; nada foi feito`,
        `no profile ${name} among those this client may use; nothing was done`,
      ),
    );
  }
  throw refusal(404, 'unknown_profile', t(`não há perfil ${name}`, `no profile ${name}`));
}
