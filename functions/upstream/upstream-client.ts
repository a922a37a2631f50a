/**
 * The upstream (EVO) client: create a prospect, look prospects up, list debtors, page through
 * debtors. Node's own fetch, no AWS imports, no HTTP library. Every body is parsed with
 * `parseJson` (ids above 2^53 stay strings) and checked with the model's schemas.
 *
 * `createUpstreamClient` only assembles: the transport (upstream-transport.ts: auth, pacing,
 * timeouts, the answer's error) is made once, and each operation is a function over it
 * (upstream-prospects.ts, upstream-debtors.ts); what a failure is lives in upstream-errors.ts.
 *
 * The client never retries: a POST that failed in transit may still have created the
 * prospect, and retry policy (queue redrive, report refresh) belongs to the callers. Every
 * failure is an `UpstreamError` whose `kind` tells the caller what to do:
 *
 * | upstream answer                          | kind           | caller should                      |
 * |------------------------------------------|----------------|------------------------------------|
 * | 2xx with a usable body                   | (result)       |                                    |
 * | 2xx empty / unparseable / wrong shape    | unavailable    | retry later (POST: id unknown)     |
 * | 400, 409, 413, 415, 422, other 4xx       | rejected       | not retry; show `messages`         |
 * | 401, 403                                 | unauthorized   | fix key/permission, then retry     |
 * | 429                                      | rate-limited   | retry after `retryAfterMs`         |
 * | 404, 405, 410 (endpoint missing)         | unavailable    | retry after fixing the base URL    |
 * | 408, 425, 5xx, 1xx/3xx, network, timeout | unavailable    | retry with backoff                 |
 *
 * A 429 also pauses the pacer until Retry-After (1 s when the header is missing or invalid,
 * at most 1 h).
 * The caller's own abort is not an upstream failure: it rejects with the caller's reason.
 * Messages never carry the password or the Authorization header (they are redacted even
 * when the upstream echoes them back).
 */

import type { UpstreamConfig } from '../config/config-parts.ts';
import type { DebtorsList, DebtorsQuery } from '../domain/debtors.ts';
import type { Prospect, ProspectCreated } from '../domain/prospect.ts';
import type { Pacer } from './pacer.ts';
import { listDebtors, pageDebtors } from './upstream-debtors.ts';
import {
  createProspect,
  findProspects,
  type PartnerTokenField,
  type ProspectMatch,
  type ProspectQuery,
} from './upstream-prospects.ts';
import {
  type CallOptions,
  createTransport,
  type UpstreamTransportOptions,
} from './upstream-transport.ts';

export interface UpstreamClient {
  createProspect(prospect: Prospect, options?: CallOptions): Promise<ProspectCreated>;
  /**
   * `GET /api/v1/prospects`: at most one page (50) of prospects matching every filter given.
   * Sent with production's parameter names (`email`, `phone`, `document`, `registerDateStart`;
   * the sandbox also takes `cellphone` and `cpf`). Needs the key's "Prospects - Consulta"
   * permission: without it the upstream answers 403 (`unauthorized`).
   */
  findProspects(query: ProspectQuery, options?: CallOptions): Promise<ProspectMatch[]>;
  listDebtors(query: DebtorsQuery, options?: CallOptions): Promise<DebtorsList>;
  /** Pages with take ≤ 50 until skip >= total or a short page; yields each page. */
  pageDebtors(
    query: Omit<DebtorsQuery, 'take' | 'skip'>,
    options?: { pageSize?: number; signal?: AbortSignal },
  ): AsyncGenerator<DebtorsList>;
}

export interface UpstreamClientOptions extends UpstreamTransportOptions {
  /** The wire name of the seed's `tokenPartner` (`tokenGympass` in production). */
  partnerTokenField?: PartnerTokenField;
}

/** The client for the configured upstream, calling through `pacer`. */
export function upstreamClientFor(
  upstream: UpstreamConfig,
  pacer: Pacer,
  fetchImpl?: typeof fetch,
): UpstreamClient {
  return createUpstreamClient({
    baseUrl: upstream.baseUrl,
    username: upstream.username,
    password: upstream.password,
    timeoutMs: upstream.timeoutMs,
    partnerTokenField: upstream.partnerTokenField,
    pacer,
    ...(fetchImpl && { fetch: fetchImpl }),
  });
}

/** The client: one transport (it checks `baseUrl`), the operations over it. */
export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const transport = createTransport(opts);
  const partnerTokenField = opts.partnerTokenField ?? 'tokenPartner';
  // Bound, not wrapped: a call goes straight to the operation's own file.
  return {
    createProspect: createProspect.bind(undefined, transport, partnerTokenField),
    findProspects: findProspects.bind(undefined, transport),
    listDebtors: listDebtors.bind(undefined, transport),
    pageDebtors: pageDebtors.bind(undefined, transport),
  };
}
