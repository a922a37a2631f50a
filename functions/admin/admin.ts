/**
 * The admin use case: the operator's routes over the lead ledger, all behind Basic auth with the
 * `admin` role (401 + challenge without valid credentials, 403 without the role). No AWS
 * imports: the ledger, the queue and the dead-letter redrive come in `deps`.
 *
 * This file is the guard and the dispatcher, in one place: `handleAdmin` admits the caller
 * (kernel/route-guard.ts: route, method, sign-in, role, and the CSRF guard for a browser's
 * changes, csrf.ts), hands every operation the caller's scoped dependencies (scoped-deps.ts),
 * then runs the operation its route names; a refusal an operation raises (route-context.ts) is
 * answered and counted here, anything else that fails is a 503. One file per operation, each
 * saying what its route takes and answers:
 *
 * - `GET /admin/leads/{leadId}`: leads/view.ts; `GET /admin/leads`: leads/list.ts (and the
 *   console's scan, leads/scan.ts); `PATCH /admin/leads/{leadId}`: leads/correct.ts;
 *   `POST /admin/leads/{leadId}/retry`: leads/retry.ts; `GET /admin/leads.csv`:
 *   leads/export.ts; what they share: leads/lead.ts.
 * - `POST /admin/replay`: replay.ts; `POST /admin/backfill/{profile}`: backfill.ts;
 *   `POST /admin/erasure`: erasure.ts; `GET /admin/upstream`: upstream-health.ts.
 * - `POST /admin/preview/{profile}`: preview.ts; `POST /admin/test-lead/{profile}`: test-lead.ts;
 *   `GET /admin/setup`: setup.ts; `POST /admin/setup/{profile}/reveal` and `.../rotate`:
 *   secret-routes.ts; `GET /admin` (and `/admin/`): console.ts, and its script
 *   `GET /admin/assets/{file}`: console-asset.ts.
 */
import type { ConfigSource } from '../config/config-source.ts';
import type { LeadStatus } from '../domain/lead-lifecycle.ts';
import { csrfToken } from '../kernel/csrf.ts';
import { type HttpRequest, type HttpResponse, problem } from '../kernel/http.ts';
import { t } from '../kernel/language.ts';
import { admitCaller, NO_STORE } from '../kernel/route-guard.ts';
import type { RouteName } from '../kernel/routes.ts';
import type { Place } from '../kernel/scope.ts';
import type { LeadLedger } from '../ledger/lead-ledger.ts';
import type { LeadQueue } from '../ledger/lead-queue.ts';
import type { CompletionContext } from '../sources/source.ts';
import type { BranchDirectory } from '../upstream/branch-directory.ts';
import { backfill } from './backfill.ts';
import { consoleRoute } from './console.ts';
import { consoleScript } from './console-asset.ts';
import type { DlqRedrive, RedriveResult } from './dlq-redrive.ts';
import { erasure } from './erasure.ts';
import { correctLead } from './leads/correct.ts';
import { exportLeads } from './leads/export.ts';
import { listLeads } from './leads/list.ts';
import { retryLead } from './leads/retry.ts';
import { getLead } from './leads/view.ts';
import { preview } from './preview.ts';
import type { ProfileSecrets } from './profile-secrets.ts';
import { replay } from './replay.ts';
import { AdminRefusal, type RouteContext, type RouteHandler } from './route-context.ts';
import { scopedAdminDeps } from './scoped-deps.ts';
import { revealSecrets, rotateSecret } from './secret-routes.ts';
import { type KitPlace, setup } from './setup.ts';
import { testLead } from './test-lead.ts';
import { type UpstreamHealthSource, upstreamHealth } from './upstream-health.ts';

/** The admin function's routes, by the names the route table gives them (kernel/routes.ts). */
export type AdminRoute = RouteName<'admin'>;

/** Log lines and metrics: routes, lead ids, statuses, counts and the operator's name only. */
export interface AdminEvents {
  refused(event: { route: AdminRoute | 'unknown'; status: number; code: string }): void;
  retried(event: { leadId: string; from: LeadStatus; client: string }): void;
  replayed(event: {
    requeued: number;
    skipped: number;
    more: boolean;
    redrive: RedriveResult['status'];
    client: string;
  }): void;
  /** A person's data was erased (counts only: never what was asked). */
  erased?(event: { found: number; upstream: number; client: string }): void;
  /** The ledger, the queue or the redrive failed (answered 503). */
  failed(event: { route: AdminRoute; error: unknown }): void;
  /** A backfill's counts (never a lead's content). */
  backfilled?(event: {
    profile: string;
    found: number;
    alreadyKnown: number;
    new: number;
    /** Leads erased at their person's request, listed again: dropped, not recorded. */
    erased: number;
    more: boolean;
    /** New leads whose wake-up message could not be sent: the reconciler wakes them. */
    wakeUpsDeferred: number;
    client: string;
  }): void;
  /** An operator corrected a lead: the names of the fields, never their values. */
  corrected?(event: { leadId: string; fields: string[]; client: string }): void;
  /** An operator sent a profile's test lead: the intake's HTTP status. */
  testLeadSent?(event: { profile: string; status: number; client: string }): void;
  /** An operator revealed a profile's secrets: which keys, never their values. */
  secretRevealed?(event: { profile: string; keys: string[]; client: string }): void;
  /**
   * An operator rotated a profile's key: the fingerprints of the old and new value
   * (secret-routes.ts `fingerprint`), never the values, and when the old one stops working.
   */
  secretRotated?(event: {
    profile: string;
    key: string;
    client: string;
    previous: string;
    current: string;
    previousUntil?: string;
  }): void;
}

export interface AdminDeps {
  config: Pick<ConfigSource, 'clients' | 'profile' | 'profileSettings'> &
    Partial<Pick<ConfigSource, 'accounts' | 'accountOf' | 'branches' | 'report' | 'currentName'>>;
  /** The set-up kit's view of the secrets: local files print them, deployed stacks never. */
  kit?: KitPlace;
  /** The profiles' secrets the kit reveals and rotates (profile-secrets.ts); absent: neither. */
  profileSecrets?: ProfileSecrets;
  /** How the test lead is sent to the intake (global fetch by default). */
  send?: typeof fetch;
  ledger: LeadLedger;
  queue: LeadQueue;
  redrive: DlqRedrive;
  upstream: UpstreamHealthSource;
  events?: AdminEvents;
  now?: () => Date;
  /** What a backfill's platform calls use (their HTTP client). */
  lookups?: CompletionContext;
  /** Each account's named branches (configured, then learned); absent: none. */
  branches?: BranchDirectory;
  /**
   * Set by the guard for a scoped operator (scoped-deps.ts): `check` throws the 403
   * `outside_scope` for a place the operator may not act on. Absent: unscoped.
   */
  scoped?: { check(place: Place): void };
}

/** What the use case knows about the invocation running it (Lambda's remaining time). */
export interface Invocation {
  remainingMs(): number;
}

export interface AdminRequest {
  /** The API Gateway resource path (`/admin/leads/{leadId}`). */
  resource: string;
  pathParameters: Readonly<Record<string, string | undefined>> | null;
  request: HttpRequest;
  /**
   * The API's base URL as this request reached it (`https://<api>/<stage>`, no trailing slash):
   * where the set-up kit's URLs point and the test lead is sent. Absent: `http://<host>`.
   */
  baseUrl?: string;
  /**
   * The API's public base URL under a custom domain (the stack's LEADS_PUBLIC_URL), when there
   * is one: where the set-up kit's URLs point whichever host this request came by.
   */
  publicUrl?: string;
}

const SILENT: AdminEvents = { refused() {}, retried() {}, replayed() {}, failed() {} };

/** Each route's operation, by the route table's name. */
const ROUTE_HANDLERS: Record<AdminRoute, RouteHandler> = {
  'get-lead': getLead,
  'list-leads': listLeads,
  'retry-lead': retryLead,
  replay,
  'upstream-health': upstreamHealth,
  backfill,
  erasure,
  console: consoleRoute,
  'console-script': consoleScript,
  'correct-lead': correctLead,
  'export-leads': exportLeads,
  preview,
  'test-lead': testLead,
  setup,
  'reveal-secret': revealSecrets,
  'rotate-secret': rotateSecret,
};

/** Answers one admin request. */
export async function handleAdmin(
  { resource, pathParameters, request, baseUrl, publicUrl }: AdminRequest,
  deps: AdminDeps,
  invocation?: Invocation,
): Promise<HttpResponse> {
  const events = deps.events ?? SILENT;
  let route: AdminRoute | 'unknown' = 'unknown';
  const refuse = (result: HttpResponse, code: string) => {
    events.refused({ route, status: result.statusCode, code });
    return result;
  };
  // The guard: route, method, sign-in, role and cross-site checks (kernel/route-guard.ts), then
  // the caller's scope: every route below sees only the leads and profiles it may (scoped-deps.ts).
  const admission = await admitCaller('admin', resource, request, () => deps.config.clients());
  if (!admission.ok) return refuse(admission.result, admission.code);
  const { client } = admission;
  const admitted = admission.route.name;
  route = admitted;
  const scoped = scopedAdminDeps(deps, admission.scope);
  const base = (baseUrl ?? `http://${request.headers.host ?? 'localhost'}`).replace(/\/+$/, '');

  const context: RouteContext = {
    deps: scoped,
    request,
    leadId: pathParameters?.leadId ?? '',
    profile: pathParameters?.profile ?? '',
    file: pathParameters?.file ?? '',
    baseUrl: base,
    kitUrl: publicUrl?.trim() ? publicUrl.trim().replace(/\/+$/, '') : base,
    csrf: csrfToken(client),
    roles: client.roles,
    authorization: request.headers.authorization,
    client: client.username,
    now: () => deps.now?.() ?? new Date(),
    remainingMs: () => invocation?.remainingMs() ?? Number.POSITIVE_INFINITY,
  };
  try {
    return await ROUTE_HANDLERS[admitted](context);
  } catch (error) {
    if (error instanceof AdminRefusal) return refuse(error.result, error.code);
    events.failed({ route: admitted, error });
    return refuse(
      problem(
        503,
        'unavailable',
        t(
          'o banco de leads ou a fila não respondeu; tente de novo',
          'the lead store or queue could not be reached; try again',
        ),
        [],
        {
          ...NO_STORE,
          'retry-after': '5',
        },
      ),
      'unavailable',
    );
  }
}
