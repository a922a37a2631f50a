/**
 * The gateway's route table: one source of truth for the deployed REST API (infra/) and the
 * local gateway (local/gateway.ts). Pure data: no CDK imports, so the local runtime can load it.
 *
 * `fn` names an entry of FUNCTIONS; a route without `fn` is answered by the gateway itself
 * (a mock integration on AWS, the gateway's own code locally).
 */
import type { Role } from './client-schema.ts';

export interface FunctionSpec {
  /** Entry file, relative to the repository root; it exports `handler`. */
  entry: string;
  timeoutSeconds: number;
  memoryMb: number;
  description: string;
  /**
   * The Secrets Manager secrets it reads (least privilege): `upstream` credentials, the API
   * `clients` list, every profile's keys, or the `erasure-salt` of the ledger's erasure
   * tombstones (the functions that record leads or erase people). The non-secret settings come
   * from the configuration store (the `config:read` need).
   */
  secrets?: readonly ConfigSecret[];
  /**
   * The stateful resources it uses, each a least-privilege grant that also sets the variable
   * naming the resource (the stack maps them to LeadStore / LeadQueue grants).
   */
  needs?: readonly FunctionNeed[];
  /**
   * Reserved concurrency: the most instances that may run at once, also the least kept free
   * for it (a queue consumer's cap; see infra/constructs/lead-forwarder.ts). Unset: unreserved.
   */
  reservedConcurrency?: number;
}

/** The secrets a deployed stack keeps (docs/deploy.md, docs/privacy.md). */
export type ConfigSecret = 'upstream' | 'clients' | 'profiles' | 'erasure-salt';

/**
 * - `ledger:intake`: record and read leads (LEDGER_TABLE_NAME);
 * - `ledger:forwarder`: read leads and move them through delivery (LEDGER_TABLE_NAME);
 * - `ledger:admin`: read, list, requeue and wake leads; read the upstream's circuit and pacer
 *   (LEDGER_TABLE_NAME);
 * - `ledger:reconciler`: list the due leads, wake them, read the circuit (LEDGER_TABLE_NAME);
 * - `queue:send`: send to the lead queue, nothing else (LEAD_QUEUE_URL);
 * - `queue:visibility`: postpone a received lead message (LEAD_QUEUE_URL); the forwarder's SQS
 *   event source grants receive and delete itself;
 * - `queue:redrive`: move the dead-letter queue's messages back to the lead queue
 *   (LEAD_QUEUE_ARN, LEAD_DLQ_ARN);
 * - `ledger:watch`: list leads on the status index, nothing else (LEDGER_TABLE_NAME);
 * - `alerts:publish`: publish to the alarm topic (ALERT_TOPIC_ARN; its KMS key);
 * - `report:read`: read the debtors snapshot and refresh status (REPORT_BUCKET_NAME);
 * - `report:trigger`: ask for a debtors report refresh (REPORT_REFRESH_QUEUE_URL);
 * - `config:read`: read the settings from the configuration store (LEADS_APPCONFIG_*).
 * - `ledger:auth-throttle`: read and count the failed-sign-in counters and familiar addresses,
 *   the ledger table's `authfail#*` items and nothing else (LEDGER_TABLE_NAME;
 *   kernel/auth-throttle.ts).
 * - `profiles:rotate`: write a new version of the profiles' secrets (`<prefix>/profiles/*`),
 *   the set-up kit's rotation (admin/profile-secrets-aws.ts).
 */
export type FunctionNeed =
  | 'ledger:intake'
  | 'ledger:forwarder'
  | 'ledger:admin'
  | 'ledger:reconciler'
  | 'ledger:watch'
  | 'alerts:publish'
  | 'queue:send'
  | 'queue:visibility'
  | 'queue:redrive'
  | 'report:read'
  | 'report:trigger'
  | 'config:read'
  | 'ledger:auth-throttle'
  | 'profiles:rotate';

export const FUNCTIONS = {
  intake: {
    entry: 'functions/intake/handler.ts',
    timeoutSeconds: 10,
    memoryMb: 512,
    description: 'Lead intake: verifies, records and enqueues leads from forms and ad platforms',
    // erasure-salt: a lead erased on request and sent again is recognised and dropped.
    secrets: ['clients', 'profiles', 'erasure-salt'],
    // ledger:auth-throttle: wrong tokens counted per profile and address (intake/token-guessing.ts).
    needs: ['config:read', 'ledger:intake', 'queue:send', 'ledger:auth-throttle'],
  },
  report: {
    entry: 'functions/report/serve/handler.ts',
    timeoutSeconds: 15,
    memoryMb: 1024,
    description:
      'Debtors report: the seed list, JSON/CSV/HTML reports and the admin refresh, from the stored snapshot',
    secrets: ['clients'],
    needs: ['config:read', 'report:read', 'report:trigger'],
  },
  // No route: the lead queue invokes it (infra/constructs/lead-forwarder.ts). Its timeout sizes
  // the queue's visibility timeout (6 ×) and its reserved concurrency caps the delivery.
  forwarder: {
    entry: 'functions/delivery/forward/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 512,
    description:
      'Lead delivery: sends due leads upstream through the shared pacer and circuit (Meta leads looked up in Graph first)',
    // Upstream credentials; the profiles' keys for the Meta page tokens of the Graph lookup.
    secrets: ['upstream', 'profiles'],
    // queue:send: a lead held back by a 401, 429 or the pacer is re-sent as a fresh message.
    needs: ['config:read', 'ledger:forwarder', 'queue:visibility', 'queue:send'],
    reservedConcurrency: 2,
  },
  // No route: EventBridge Scheduler invokes it every minute (infra/constructs/lead-forwarder.ts).
  reconciler: {
    entry: 'functions/delivery/reconcile/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 256,
    description:
      'Delivery reconciler: wakes the leads nothing is working on (lost messages, dead workers)',
    needs: ['config:read', 'ledger:reconciler', 'queue:send'],
  },
  // No route: EventBridge Scheduler invokes it every hour (infra/constructs/delivery-observability.ts).
  watch: {
    entry: 'functions/watch/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 256,
    description:
      'Quiet-profile watch: alerts when a profile has received no lead for its quietHours (a dropped webhook subscription)',
    needs: ['config:read', 'ledger:watch', 'alerts:publish'],
  },
  // No route: API Gateway calls it before every `auth: 'basic'` route (BASIC_AUTH below).
  authorizer: {
    entry: 'functions/authorizer/handler.ts',
    timeoutSeconds: 10,
    // scrypt (the clients' password hashes) is CPU-bound: more memory is more CPU.
    memoryMb: 512,
    description:
      'Basic-auth authorizer: lets a request carrying any API client credentials reach its route',
    secrets: ['clients'],
    // The failed-sign-in counters and familiar addresses shared by every instance (429 after a
    // few failures, never for an address that signed in as the name before).
    needs: ['ledger:auth-throttle'],
  },
  // GET /openapi.json: the API's description (docs/openapi.json), no data, no secret.
  openapi: {
    entry: 'functions/openapi/handler.ts',
    timeoutSeconds: 3,
    memoryMb: 128,
    description: 'API description: serves the OpenAPI document of this gateway',
  },
  admin: {
    entry: 'functions/admin/handler.ts',
    // A backfill lists a platform's leads page by page: up to API Gateway's 29 s.
    timeoutSeconds: 28,
    memoryMb: 256,
    description:
      'Lead admin: the operator console, look up, list, correct and retry leads, replay the dead ones (DLQ redrive), previews, test leads, set-up kits, backfill, upstream health',
    // profiles: a correction is mapped with the profile, a test lead is signed with its keys,
    // and a backfill lists the platform's leads with the profile's API token. erasure-salt: an
    // erasure leaves salted tombstones, and a backfill checks them.
    secrets: ['clients', 'profiles', 'erasure-salt'],
    // ledger:intake: a backfill records the leads it recovers, as the intake does.
    needs: [
      'config:read',
      'ledger:admin',
      'ledger:intake',
      'queue:send',
      'queue:redrive',
      'profiles:rotate',
    ],
  },
  // No route: AppConfig invokes it before it deploys a new version of the settings
  // (infra/constructs/config-store.ts); a version it refuses is never seen by a function.
  'config-validator': {
    entry: 'functions/config/validator/handler.ts',
    timeoutSeconds: 15,
    memoryMb: 512,
    description:
      'Configuration validator: checks a new version of the settings with the functions’ own rules before it is deployed',
  },
} as const satisfies Record<string, FunctionSpec>;
export type FunctionName = keyof typeof FUNCTIONS;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

interface RouteBase {
  method: HttpMethod;
  /** API Gateway resource path, `{name}` for a path parameter. */
  path: string;
  fn?: FunctionName;
  /** Per-method throttling on AWS (below the stage's); local ignores it. */
  throttle?: { rateLimit: number; burstLimit: number };
}

/**
 * A route of the gateway. `auth: 'basic'`: the gateway itself asks for Basic credentials of a
 * configured client before the function runs (BASIC_AUTH); the function then checks that the
 * client has the route's `role` (kernel/route-guard.ts) and runs its use case's route `name`.
 * No `auth`: the function authenticates the caller alone (webhooks: signatures, keys, tokens).
 */
export type RouteSpec =
  | (RouteBase & { auth?: undefined; role?: undefined; name?: undefined })
  | (RouteBase & {
      auth: 'basic';
      role: Role;
      name: string;
      /**
       * `account`: the route acts on a whole upstream account (a report refresh pages every
       * branch): only a client that may see every branch of it is let through (kernel/scope.ts).
       */
      scope?: 'account';
      /**
       * `json`: the route reads its body as JSON, so a body must come as `application/json` or
       * another `application/*+json` type (with `charset=utf-8` or no charset); anything else,
       * or a body without a Content-Type, is answered 415 `unsupported_media_type` by the guard
       * (kernel/route-guard.ts), before the route runs.
       */
      body?: 'json';
    });

/**
 * Basic authentication at the gateway, for the routes marked `auth: 'basic'`.
 *
 * API Gateway (REST, Lambda proxy) hands a function's `WWW-Authenticate` header to the client
 * as `x-amzn-Remapped-WWW-Authenticate`, so a browser never shows its login prompt for a 401
 * the function wrote. So the gateway answers that 401 itself: a REQUEST Lambda authorizer
 * (functions/authorizer/handler.ts) on the `Authorization` header lets a request with the
 * credentials of any configured client through, and API Gateway's UNAUTHORIZED gateway response
 * (no header, or the authorizer refused it) carries the challenge below. The functions keep
 * checking roles (403), and answer 429 with Retry-After when the authorizer let a request through
 * flagged `throttled` (its user name or address locked by failed sign-ins:
 * kernel/auth-throttle.ts). The authorizer's decisions are not cached
 * (`resultsCacheTtlSeconds` 0): a cached "throttled" would outlive the lock and a cached "allow"
 * a changed password, and every failure must reach the shared counters.
 * The CDK stack (infra/constructs/leads-api.ts) and the local gateway (local/gateway.ts) both
 * read this object.
 */
export const BASIC_AUTH = {
  /** The authorizer function (an entry of FUNCTIONS). */
  authorizer: 'authorizer' satisfies FunctionName,
  /** The identity source: without it API Gateway answers 401 without calling the authorizer. */
  identityHeader: 'Authorization',
  /**
   * How long API Gateway reuses the authorizer's decision for the same header value: never
   * (see above). A verified password costs no scrypt on the next request anyway: the authorizer
   * remembers it for a few minutes (kernel/client-auth.ts).
   */
  resultsCacheTtlSeconds: 0,
  /**
   * The UNAUTHORIZED gateway response: a Basic challenge, and a body by the request's first
   * Accept media type (refusal-page.ts, UNAUTHORIZED_TEMPLATES): `body`, the contract's error
   * shape, for programs; a Portuguese page for a browser opening a page (`text/html`). No
   * Content-Type is set here: the chosen template's media type labels the body, so programs
   * keep `application/json` (the contract's errors are JSON); docs/report.md#wrong-password-pages
   * says how to check both bodies after a deploy.
   */
  unauthorized: {
    statusCode: 401,
    headers: {
      'WWW-Authenticate': 'Basic realm="leads", charset="UTF-8"',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
    },
    body: {
      error: {
        code: 'unauthorized',
        message: 'são necessários usuário e senha válidos (autenticação Basic)',
        details: [] as string[],
      },
    },
  },
} as const;

/**
 * What the gateway answers for a path, or a method of a path, that no route has. API Gateway's
 * own answer is its MISSING_AUTHENTICATION_TOKEN gateway response (403 `{"message": "Missing
 * Authentication Token"}`, header `x-amzn-ErrorType: MissingAuthenticationTokenException`); the
 * stack replaces it with this 404 in the contract's error shape (infra/constructs/leads-api.ts)
 * and the local gateway answers the same (local/runtime.ts).
 */
export const UNKNOWN_ROUTE = {
  statusCode: 404,
  body: { error: { code: 'NOT_FOUND', message: 'rota inexistente', details: [] as string[] } },
} as const;

/** Webhook bursts (a campaign, a platform's retry storm) are absorbed here, not upstream. */
const INTAKE_THROTTLE = { rateLimit: 50, burstLimit: 100 };
/** Reports are read by people and dashboards; each answer may be megabytes. */
const REPORT_THROTTLE = { rateLimit: 10, burstLimit: 20 };
/** Admin reads: an operator (or a script) looking at leads, not a traffic source. */
const ADMIN_READ_THROTTLE = { rateLimit: 5, burstLimit: 10 };
/** Admin writes queue leads for delivery again: one at a time is plenty. */
const ADMIN_WRITE_THROTTLE = { rateLimit: 1, burstLimit: 2 };

const ROUTE_TABLE = [
  { method: 'GET', path: '/health' },
  // The API's own description, public like any published OpenAPI document (npm run openapi).
  {
    method: 'GET',
    path: '/openapi.json',
    fn: 'openapi',
    throttle: { rateLimit: 5, burstLimit: 10 },
  },
  { method: 'POST', path: '/leads/{profile}', fn: 'intake', throttle: INTAKE_THROTTLE },
  {
    method: 'GET',
    path: '/leads/{profile}',
    fn: 'intake',
    throttle: { rateLimit: 5, burstLimit: 10 },
  },
  { method: 'OPTIONS', path: '/leads/{profile}', fn: 'intake', throttle: INTAKE_THROTTLE },
  // From here on, API clients with Basic credentials: the gateway checks them (BASIC_AUTH).
  {
    method: 'POST',
    path: '/api/v1/prospects',
    fn: 'intake',
    throttle: INTAKE_THROTTLE,
    auth: 'basic',
    role: 'prospects:write',
    name: 'create-prospect',
    body: 'json',
  },
  // Debtors report: served from the stored snapshot, never from the upstream.
  {
    method: 'GET',
    path: '/api/v1/receivables/debtors',
    fn: 'report',
    throttle: REPORT_THROTTLE,
    auth: 'basic',
    role: 'report:read',
    name: 'debtors-list',
  },
  {
    method: 'GET',
    path: '/reports/debtors',
    fn: 'report',
    throttle: REPORT_THROTTLE,
    auth: 'basic',
    role: 'report:read',
    name: 'report-json',
  },
  {
    method: 'GET',
    path: '/reports/debtors.csv',
    fn: 'report',
    throttle: REPORT_THROTTLE,
    auth: 'basic',
    role: 'report:read',
    name: 'report-csv',
  },
  {
    method: 'GET',
    path: '/reports/debtors.html',
    fn: 'report',
    throttle: REPORT_THROTTLE,
    auth: 'basic',
    role: 'report:read',
    name: 'report-html',
  },
  // The dashboard's script (kernel/script-asset.ts): a hashed name, cached for a year.
  {
    method: 'GET',
    path: '/reports/assets/{file}',
    fn: 'report',
    throttle: REPORT_THROTTLE,
    auth: 'basic',
    role: 'report:read',
    name: 'report-script',
  },
  // A refresh pages the upstream: an admin asks for one now and then, not in a loop.
  {
    method: 'POST',
    path: '/admin/reports/debtors/refresh',
    fn: 'report',
    throttle: { rateLimit: 1, burstLimit: 2 },
    auth: 'basic',
    role: 'admin',
    name: 'refresh',
    scope: 'account',
  },
  // Lead admin: Basic auth at the gateway, the `admin` role checked by the function.
  {
    method: 'GET',
    path: '/admin/leads/{leadId}',
    fn: 'admin',
    throttle: ADMIN_READ_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'get-lead',
  },
  {
    method: 'GET',
    path: '/admin/leads',
    fn: 'admin',
    throttle: ADMIN_READ_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'list-leads',
  },
  {
    method: 'POST',
    path: '/admin/leads/{leadId}/retry',
    fn: 'admin',
    throttle: ADMIN_WRITE_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'retry-lead',
  },
  {
    method: 'GET',
    path: '/admin/upstream',
    fn: 'admin',
    throttle: ADMIN_READ_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'upstream-health',
  },
  // The operator console (an HTML page over the routes below; `/admin/` reaches it too).
  {
    method: 'GET',
    path: '/admin',
    fn: 'admin',
    throttle: ADMIN_READ_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'console',
  },
  // The console's script (kernel/script-asset.ts): a hashed name, cached for a year.
  {
    method: 'GET',
    path: '/admin/assets/{file}',
    fn: 'admin',
    throttle: ADMIN_READ_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'console-script',
  },
  {
    method: 'PATCH',
    path: '/admin/leads/{leadId}',
    fn: 'admin',
    throttle: ADMIN_WRITE_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'correct-lead',
    body: 'json',
  },
  {
    method: 'GET',
    path: '/admin/leads.csv',
    fn: 'admin',
    throttle: ADMIN_READ_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'export-leads',
  },
  {
    method: 'POST',
    path: '/admin/preview/{profile}',
    fn: 'admin',
    throttle: ADMIN_READ_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'preview',
  },
  {
    method: 'POST',
    path: '/admin/test-lead/{profile}',
    fn: 'admin',
    throttle: ADMIN_WRITE_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'test-lead',
  },
  {
    method: 'GET',
    path: '/admin/setup',
    fn: 'admin',
    throttle: ADMIN_READ_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'setup',
  },
  // The kit's secrets: shown on request, rotated with a grace (admin/secret-routes.ts).
  {
    method: 'POST',
    path: '/admin/setup/{profile}/reveal',
    fn: 'admin',
    throttle: ADMIN_WRITE_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'reveal-secret',
  },
  {
    method: 'POST',
    path: '/admin/setup/{profile}/rotate',
    fn: 'admin',
    throttle: ADMIN_WRITE_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'rotate-secret',
    body: 'json',
  },
  {
    method: 'POST',
    path: '/admin/replay',
    fn: 'admin',
    throttle: ADMIN_WRITE_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'replay',
  },
  // Pulls a platform's leads of a period (Meta, TikTok) and records the ones that never came.
  {
    method: 'POST',
    path: '/admin/backfill/{profile}',
    fn: 'admin',
    throttle: ADMIN_WRITE_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'backfill',
    body: 'json',
  },
  // A person's request to erase their data (LGPD): rare, deliberate, one person at a time.
  {
    method: 'POST',
    path: '/admin/erasure',
    fn: 'admin',
    throttle: ADMIN_WRITE_THROTTLE,
    auth: 'basic',
    role: 'admin',
    name: 'erasure',
    body: 'json',
  },
] as const satisfies readonly RouteSpec[];

export const ROUTES: readonly RouteSpec[] = ROUTE_TABLE;

/**
 * Request bodies API Gateway hands to Lambda base64-encoded. `*\/*` makes every body arrive as
 * its exact bytes, which signature checks over the raw body need.
 */
export const BINARY_MEDIA_TYPES = ['*/*'] as const;

/** The names of the Basic-auth routes function `F` answers (a use case's route handlers). */
export type RouteName<F extends FunctionName> = Extract<
  (typeof ROUTE_TABLE)[number],
  { fn: F; auth: 'basic' }
>['name'];

/** A Basic-auth route of function `F`. */
export type BasicRoute<F extends FunctionName> = Extract<RouteSpec, { auth: 'basic' }> & {
  fn: F;
  name: RouteName<F>;
};

/** The Basic-auth routes function `fn` answers. */
export function basicRoutesOf<F extends FunctionName>(fn: F): readonly BasicRoute<F>[] {
  return ROUTES.filter(
    (route): route is BasicRoute<F> => route.fn === fn && route.auth === 'basic',
  );
}
