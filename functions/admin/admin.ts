/**
 * The admin use case: the operator's routes over the lead ledger, all behind Basic auth with the
 * `admin` role (401 + challenge without valid credentials, 403 without the role). No AWS
 * imports: the ledger, the queue and the dead-letter redrive come in `deps`.
 *
 * - `GET /admin/leads/{leadId}`: the contract's body (`leadId, profile, status, idProspect?,
 *   attempts, lastError?, receivedAt, deliveredAt?`) plus `reason` (parked: what is missing;
 *   rejected: the upstream's messages joined) and `messages` (rejected: the upstream's own list).
 *   `status` is the public one: a lead being sent shows as `queued`; `parked` (waiting for an
 *   operator, e.g. required fields missing) is shown as itself, an extension of the contract's
 *   list. For the console it adds what the person sent (`submitted`), the Prospect as mapped
 *   (`prospect`), the person (`contact`) and an operator's `correction`: personal data, answered
 *   to the `admin` role only and never logged. 400 for a malformed id, 404 for an unknown one.
 * - `GET /admin/leads?status=&limit=&cursor=`: `{leads: [summaries], cursor?}`, oldest first
 *   within a status. `queued` lists `queued` leads, then `sending` ones. `limit` 1..500 (default
 *   50). `cursor` is the previous page's; a lead changing status between pages may be missed or
 *   listed twice (no snapshot). Without `status`, or with any of `profile`, `q`, `since`,
 *   `until`, `order`: the console's listing, every status (or the one given) merged newest first
 *   from the status index (no third index), narrowed by profile, period and a search over name,
 *   e-mail and phone, each lead with its `contact`.
 * - `PATCH /admin/leads/{leadId}` `{"prospect": {...}}`: an operator's correction of a parked,
 *   rejected, dead or test lead (domain/lead-correction.ts: kept apart and laid over every
 *   mapping, so delivery never maps it away), at the version read; then a retry sends it.
 * - `GET /admin/leads.csv?status=parked`: the leads of a status as a CSV for a sales team.
 * - `POST /admin/preview/{profile}`: a body mapped as the platform's would be; nothing stored.
 * - `POST /admin/test-lead/{profile}`: the profile's sample (sources/setup.ts), signed with its
 *   secrets, sent to the intake over HTTP at the URL this request reached (the real path).
 * - `GET /admin/setup`: every profile's set-up kit; `GET /admin` (and `/admin/`): the console.
 * - Requests that change something from a browser pass the CSRF guard (csrf.ts).
 * - `POST /admin/leads/{leadId}/retry`: parked, dead, rejected or test → queued, a new delivery
 *   chain (attempts reset); a queued or sending lead is woken (its next attempt due now); then a
 *   wake-up message: 202 `{leadId, status: "queued"}`. 409 `already_delivered` for a delivered
 *   lead. A message the queue refuses is not lost: the ledger says the lead is due, and the
 *   reconciler sends it (the answer says so in `note`).
 * - `GET /admin/upstream`: the upstream's health as delivery sees it: the circuit (closed or
 *   open, since when, why, the next probe), the shared pacer (its next free slot, a pause) and
 *   the backlog (leads on their way).
 * - `POST /admin/replay`: requeues and sends every dead lead (paging through the `dead` listing),
 *   then redrives the dead-letter queue: 202 `{requeued, skipped, more, redrive}`. `skipped`
 *   counts leads that were no longer dead when their turn came (requeue refuses them), so running
 *   it twice, or twice at once, sends nothing twice. `more: true` when it stopped early (time or
 *   MAX_REPLAY_LEADS) with dead leads left: run it again.
 * - `POST /admin/backfill/{profile}` `{"since", "until"}` (ISO 8601 instants, at most the
 *   platform's `maxDays` apart, `until` not in the future): lists the leads the profile's
 *   platform kept for that period on the profile's forms (the `forms` keys: Meta form ids,
 *   TikTok instant form page ids) and runs each through the intake's own step (record under the
 *   platform's lead id, then wake), so a lead that did arrive is recognised, not posted twice:
 *   200 `{profile, since, until, forms, found, alreadyKnown, new, erased, statuses, more}` (`erased`:
 *   leads erased at their person's request, dropped by the record step). `more: true`
 *   when the request's time ran out before every lead was recorded: run it again (it is safe to).
 *   400 for a bad period, 404 for an unknown profile, 409 when the profile's source keeps no
 *   leads to list or names no forms, 502/503 when the platform fails (nothing is recorded).
 * - `POST /admin/erasure` `{email?, phone?, cpf?}` (JSON, at least one): a person's request to
 *   erase their data (LGPD art. 18). Finds their leads through the ledger's hashed subject items
 *   (no scan), removes the personal data of each (ledger `redact`: an anonymous record that the
 *   lead existed and was erased stays), leaves its salted tombstones so that a redelivery or a
 *   backfill is dropped, and answers 200 `{erased: [...], found, upstream}`: which leads (also
 *   one erased earlier and found again), in which status, and which of them the upstream holds
 *   (`idProspect`): the upstream has no delete operation, so the answer says plainly that its
 *   copy must be erased there. An erased lead can be neither retried nor corrected (409
 *   `personal_data_removed`). 400 for a body that names nobody. Never logs what was asked.
 *   docs/privacy.md.
 */
import * as z from 'zod/mini';
import type { ConfigSource } from '../config/config-source.ts';
import { type ExternalId, type IssueDetail, parseJson } from '../domain/json.ts';
import { applyCorrection, mergeCorrections, readCorrection } from '../domain/lead-correction.ts';
import {
  CORRECTABLE,
  IN_FLIGHT,
  isLeadId,
  LEAD_STATUSES,
  type LeadStatus,
  type PublicLeadStatus,
  publicStatus,
} from '../domain/lead-lifecycle.ts';
import { mapCapture } from '../domain/map-capture.ts';
import { type SubjectQuery, subjectsOfQuery } from '../domain/personal-data.ts';
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import { csrfToken } from '../kernel/csrf.ts';
import { type HttpRequest, type HttpResponse, json, problem } from '../kernel/http.ts';
import { admitCaller, NO_STORE } from '../kernel/route-guard.ts';
import type { RouteName } from '../kernel/routes.ts';
import {
  DEFAULT_WAKE_GRACE_MS,
  InvalidCursorError,
  type LeadLedger,
  type LeadRecord,
  type LeadSummary,
  toLeadSummary,
} from '../ledger/lead-ledger.ts';
import type { LeadQueue } from '../ledger/lead-queue.ts';
import { isDropped, recordCapture } from '../ledger/record-capture.ts';
import { adapterFor, SOURCES, sourceLabel, sourceNamed } from '../sources/registry.ts';
import { type KitContext, type ProfileKit, profileKit, signedSample } from '../sources/setup.ts';
import { type CompletionContext, SourceLookupError } from '../sources/source.ts';
import type { CircuitState } from '../upstream/circuit.ts';
import { consolePage } from './console-page.ts';
import type { DlqRedrive, RedriveResult } from './dlq-redrive.ts';
import { contactOf, leadsCsv, matchesSearch } from './lead-views.ts';
import { scopedAdminDeps } from './scoped-deps.ts';

/** The admin function's routes, by the names the route table gives them (kernel/routes.ts). */
export type AdminRoute = RouteName<'admin'>;

/** The statuses `GET /admin/leads?status=` accepts (`queued` includes `sending`). */
export const PUBLIC_STATUSES: readonly PublicLeadStatus[] = [
  'queued',
  'delivered',
  'rejected',
  'dead',
  'test',
  'parked',
];

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;
/** Leads one replay requeues at most; the answer says `more: true` when some are left. */
export const MAX_REPLAY_LEADS = 2000;
/** A replay stops requeueing when less than this is left of the invocation (for the redrive). */
export const REPLAY_RESERVE_MS = 5000;
const REPLAY_PAGE = 100;
/** Requeue + send of this many leads at once. */
const REPLAY_CONCURRENCY = 10;

/** The admin body of one lead: the contract's fields, `reason`, and `messages` when rejected. */
export interface AdminLeadView extends LeadSummary {
  messages?: string[];
}

/** The upstream's health as delivery sees it (`GET /admin/upstream`, and on each lead). */
export interface UpstreamHealth {
  /** The account shown (`?upstream=`), and every account, when there are several. */
  upstream?: string;
  accounts?: string[];
  circuit: {
    state: 'closed' | 'open';
    /** Consecutive failures that said nothing about a lead. */
    failures: number;
    openedAt?: string;
    reason?: string;
    nextProbeAt?: string;
    lastSuccessAt?: string;
    lastFailureAt?: string;
  };
  pacer?: {
    /** The next free slot (a paused pacer: the end of its pause); absent when idle. */
    nextSlotAt?: string;
  };
  /** Leads on their way (queued or being sent). */
  backlog?: number;
}

/** Where the admin routes read the upstream's health. */
export interface UpstreamHealthSource {
  /** An upstream account's circuit (`default` when none is named). */
  circuit(account?: string): Promise<CircuitState>;
  /** The account's shared pacer's next free slot, epoch ms; undefined when none is booked. */
  pacerNextSlot?(account?: string): Promise<number | undefined>;
}

export interface ReplayResult {
  requeued: number;
  skipped: number;
  more: boolean;
  redrive: RedriveResult;
  /** Requeued leads whose wake-up message failed (the reconciler sends them). */
  unsent?: number;
  note?: string;
}

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
}

/** Where the set-up kit says secrets live and whether it prints them (the wiring's). */
export type KitPlace = Omit<KitContext, 'baseUrl'>;

export interface AdminDeps {
  config: Pick<ConfigSource, 'clients' | 'profile' | 'profileSettings'> &
    Partial<Pick<ConfigSource, 'accounts' | 'accountOf'>>;
  /** The set-up kit's view of the secrets: local files print them, deployed stacks never. */
  kit?: KitPlace;
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
}

const SILENT: AdminEvents = { refused() {}, retried() {}, replayed() {}, failed() {} };

/** A refusal worth an answer of its own (400/404/409/503), raised inside a route. */
class AdminRefusal extends Error {
  override readonly name = 'AdminRefusal';
  constructor(
    readonly code: string,
    readonly result: HttpResponse,
  ) {
    super(code);
  }
}

function refusal(
  status: number,
  code: string,
  message: string,
  details: readonly (IssueDetail | string)[] = [],
  headers: Record<string, string> = {},
): AdminRefusal {
  return new AdminRefusal(
    code,
    problem(status, code, message, details, { ...NO_STORE, ...headers }),
  );
}

export function toAdminLeadView(lead: LeadRecord): AdminLeadView {
  return {
    ...toLeadSummary(lead),
    ...(lead.messages !== undefined && { messages: lead.messages }),
  };
}

/** Answers one admin request. */
export async function handleAdmin(
  { resource, pathParameters, request, baseUrl }: AdminRequest,
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
    baseUrl: base,
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
      problem(503, 'unavailable', 'the lead store or queue could not be reached; try again', [], {
        ...NO_STORE,
        'retry-after': '5',
      }),
      'unavailable',
    );
  }
}

interface RouteContext {
  deps: AdminDeps;
  request: HttpRequest;
  /** The `{leadId}` path parameter, `''` when the route has none. */
  leadId: string;
  /** The `{profile}` path parameter, `''` when the route has none. */
  profile: string;
  /** The API's base URL as the caller reached it. */
  baseUrl: string;
  /** The operator's console token (csrf.ts). */
  csrf: string;
  roles: readonly string[];
  authorization: string | undefined;
  /** The operator's username. */
  client: string;
  now(): Date;
  remainingMs(): number;
}

type RouteHandler = (context: RouteContext) => Promise<HttpResponse>;

const ROUTE_HANDLERS: Record<AdminRoute, RouteHandler> = {
  'get-lead': getLead,
  'list-leads': listLeads,
  'retry-lead': retryLead,
  replay,
  'upstream-health': upstreamHealth,
  backfill,
  erasure,
  console: consoleRoute,
  'correct-lead': correctLead,
  'export-leads': exportLeads,
  preview,
  'test-lead': testLead,
  setup,
};

function requireLeadId(leadId: string): string {
  if (!isLeadId(leadId)) {
    throw refusal(400, 'invalid_lead_id', 'not a lead id (ld_ followed by 22 characters)');
  }
  return leadId;
}

async function findLead(ledger: LeadLedger, leadId: string): Promise<LeadRecord> {
  const lead = await ledger.get(leadId);
  if (!lead) throw refusal(404, 'lead_not_found', `no lead ${leadId}`);
  return lead;
}

async function getLead({ deps, leadId }: RouteContext): Promise<HttpResponse> {
  const lead = await findLead(deps.ledger, requireLeadId(leadId));
  const view = toDetailedView(lead);
  // A lead on its way waits for the upstream too: say how the upstream is doing.
  if (!IN_FLIGHT.has(lead.status)) return json(200, view, NO_STORE);
  const account = (await deps.config.accountOf?.(lead.profile)) ?? DEFAULT_ACCOUNT;
  const circuit = circuitView(await deps.upstream.circuit(account));
  return json(
    200,
    { ...view, upstream: { ...(account !== DEFAULT_ACCOUNT && { account }), circuit } },
    NO_STORE,
  );
}

function iso(epochMs: number | undefined): string | undefined {
  return epochMs === undefined ? undefined : new Date(epochMs).toISOString();
}

function circuitView(state: CircuitState): UpstreamHealth['circuit'] {
  const view: UpstreamHealth['circuit'] = { state: state.state, failures: state.failures };
  const times = {
    openedAt: state.state === 'open' ? state.openedAt : undefined,
    nextProbeAt: state.state === 'open' ? state.probeAt : undefined,
    lastSuccessAt: state.lastSuccessAt,
    lastFailureAt: state.lastFailureAt,
  };
  for (const [key, value] of Object.entries(times)) {
    const text = iso(value);
    if (text) view[key as 'openedAt'] = text;
  }
  if (state.state === 'open' && state.reason) view.reason = state.reason;
  return view;
}

async function upstreamHealth({ deps, now, request }: RouteContext): Promise<HttpResponse> {
  const accounts = (await deps.config.accounts?.()) ?? [DEFAULT_ACCOUNT];
  const asked = single(request, 'upstream');
  if (asked !== undefined && !accounts.includes(asked)) {
    const message = `no upstream account "${asked}"; accounts: ${accounts.join(', ')}`;
    throw refusal(400, 'unknown_upstream', message, [message]);
  }
  // The default account, or the first one this operator may see.
  const account = asked ?? (accounts.includes(DEFAULT_ACCOUNT) ? DEFAULT_ACCOUNT : accounts[0]);
  if (account === undefined) throw refusal(404, 'unknown_upstream', 'no upstream account to show');
  const [circuit, nextSlot, backlog] = await Promise.all([
    deps.upstream.circuit(account),
    deps.upstream.pacerNextSlot?.(account),
    deps.ledger.countInFlight(),
  ]);
  const slot = nextSlot !== undefined && nextSlot > now().getTime() ? iso(nextSlot) : undefined;
  const body: UpstreamHealth = {
    ...(accounts.length > 1 && { upstream: account, accounts }),
    circuit: circuitView(circuit),
    pacer: slot ? { nextSlotAt: slot } : {},
    backlog,
  };
  return json(200, body, NO_STORE);
}

// ---------------------------------------------------------------------------------------------
// Listing

/** Which ledger statuses one public status lists, in order. */
function ledgerStatuses(status: PublicLeadStatus): readonly LeadStatus[] {
  return status === 'queued' ? ['queued', 'sending'] : [status];
}

/** Where a listing goes on: a ledger status and, within it, the ledger's own cursor. */
interface ListPosition {
  status: LeadStatus;
  cursor?: string;
}

function encodeListCursor(position: ListPosition): string {
  const value = {
    s: position.status,
    ...(position.cursor !== undefined && { c: position.cursor }),
  };
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function decodeListCursor(cursor: string, statuses: readonly LeadStatus[]): ListPosition {
  const invalid = () =>
    refusal(400, 'invalid_cursor', 'the cursor does not belong to this listing');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof value !== 'object' || value === null) throw invalid();
  const { s, c } = value as { s?: unknown; c?: unknown };
  const status = statuses.find((candidate) => candidate === s);
  if (!status || (c !== undefined && (typeof c !== 'string' || c === ''))) throw invalid();
  return c === undefined ? { status } : { status, cursor: c };
}

/** The single value of a query parameter; a repeated one is refused. */
function single(request: HttpRequest, name: string): string | undefined {
  const values = request.query[name] ?? [];
  if (values.length > 1) {
    throw refusal(400, 'invalid_query', `give "${name}" once`);
  }
  return values[0];
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIST_LIMIT;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw refusal(400, 'invalid_limit', `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  return limit;
}

async function listLeads(context: RouteContext): Promise<HttpResponse> {
  const { deps, request } = context;
  const status = single(request, 'status');
  if (status === undefined || status === '') {
    const limit = parseLimit(single(request, 'limit'));
    return json(200, await recentLeads(context, LEAD_STATUSES, limit), NO_STORE);
  }
  const publicStatus = PUBLIC_STATUSES.find((candidate) => candidate === status);
  if (!publicStatus) {
    throw refusal(
      400,
      'invalid_status',
      `status must be one of: ${PUBLIC_STATUSES.join(', ')}`,
      PUBLIC_STATUSES,
    );
  }
  const limit = parseLimit(single(request, 'limit'));
  const statuses = ledgerStatuses(publicStatus);
  if (RECENT_PARAMS.some((name) => request.query[name] !== undefined)) {
    return json(200, await recentLeads(context, statuses, limit), NO_STORE);
  }
  const rawCursor = single(request, 'cursor');
  let position: ListPosition | undefined =
    rawCursor === undefined || rawCursor === ''
      ? { status: statuses[0] as LeadStatus }
      : decodeListCursor(rawCursor, statuses);

  const leads: AdminLeadView[] = [];
  while (position && leads.length < limit) {
    let page: Awaited<ReturnType<LeadLedger['listByStatus']>>;
    try {
      page = await deps.ledger.listByStatus(position.status, {
        limit: limit - leads.length,
        ...(position.cursor !== undefined && { cursor: position.cursor }),
      });
    } catch (error) {
      if (error instanceof InvalidCursorError) {
        throw refusal(400, 'invalid_cursor', 'the cursor does not belong to this listing');
      }
      throw error;
    }
    leads.push(...page.leads.map(toAdminLeadView));
    if (page.cursor !== undefined) {
      position = { status: position.status, cursor: page.cursor };
    } else {
      const next: LeadStatus | undefined = statuses[statuses.indexOf(position.status) + 1];
      position = next === undefined ? undefined : { status: next };
    }
  }
  return json(200, { leads, ...(position && { cursor: encodeListCursor(position) }) }, NO_STORE);
}

// ---------------------------------------------------------------------------------------------
// Retry and replay

/**
 * Sends the wake-up message of a lead an operator requeued or woke. The ledger already says the
 * lead is due, so a message the queue refuses is not lost: the reconciler wakes the lead within
 * its grace period. Answers whether the message went out.
 */
async function sendWakeUp(deps: AdminDeps, lead: LeadRecord, route: AdminRoute): Promise<boolean> {
  try {
    await deps.queue.send(lead.leadId, { version: lead.version });
    return true;
  } catch (error) {
    deps.events?.failed({ route, error });
    return false;
  }
}

/**
 * 409 `personal_data_removed`: the lead's personal data was erased on request or removed after
 * the retention, so it can be neither sent nor corrected (an erased person stays erased).
 */
function personalDataRemoved(lead: LeadRecord, consequence: string): AdminRefusal {
  const why =
    lead.redaction === 'erasure'
      ? "erased at the person's request"
      : lead.redaction === 'retention'
        ? 'removed after the retention period'
        : 'removed';
  return refusal(
    409,
    'personal_data_removed',
    `lead ${lead.leadId} no longer holds personal data (${why} on ${lead.redactedAt}): ${consequence}`,
  );
}

async function retryLead(context: RouteContext): Promise<HttpResponse> {
  const { deps, now } = context;
  const leadId = requireLeadId(context.leadId);
  const before = await findLead(deps.ledger, leadId);
  if (before.redactedAt !== undefined) {
    throw personalDataRemoved(before, 'there is nothing left to deliver');
  }
  if (before.status === 'delivered') {
    throw refusal(
      409,
      'already_delivered',
      `lead ${leadId} was already delivered${before.idProspect === undefined ? '' : ` as prospect ${before.idProspect}`}`,
    );
  }
  // A lead on its way is woken: its next attempt becomes due now (a stranded lead, a long
  // backoff an operator wants to cut short). A final one starts a new delivery chain.
  const moved = IN_FLIGHT.has(before.status)
    ? await deps.ledger.wake(leadId, before.version, {
        dueAt: new Date(now().getTime() + DEFAULT_WAKE_GRACE_MS),
        now: now(),
        attemptNow: true,
      })
    : await deps.ledger.requeue(leadId, now());
  if (!moved) {
    throw refusal(409, 'conflict', `lead ${leadId} changed while being retried; try again`);
  }
  const sent = await sendWakeUp(deps, moved, 'retry-lead');
  deps.events?.retried({ leadId, from: before.status, client: context.client });
  return json(
    202,
    { leadId, status: 'queued', ...(!sent && { note: 'queued; the reconciler sends it shortly' }) },
    NO_STORE,
  );
}

async function replay(context: RouteContext): Promise<HttpResponse> {
  const { deps, now } = context;
  let requeued = 0;
  let skipped = 0;
  let unsent = 0;
  let cursor: string | undefined;
  let more = false;

  const requeueOne = async (lead: LeadRecord) => {
    const requeuedLead = await deps.ledger.requeue(lead.leadId, now());
    if (!requeuedLead) {
      skipped += 1;
      return;
    }
    if (!(await sendWakeUp(deps, requeuedLead, 'replay'))) unsent += 1;
    requeued += 1;
  };

  try {
    do {
      if (requeued + skipped >= MAX_REPLAY_LEADS || context.remainingMs() < REPLAY_RESERVE_MS) {
        more = true;
        break;
      }
      const page = await deps.ledger.listByStatus('dead', {
        limit: Math.min(REPLAY_PAGE, MAX_REPLAY_LEADS - requeued - skipped),
        ...(cursor !== undefined && { cursor }),
      });
      for (let i = 0; i < page.leads.length; i += REPLAY_CONCURRENCY) {
        // Settled, not all: every started send finishes (or is put back) before we answer.
        const batch = page.leads.slice(i, i + REPLAY_CONCURRENCY);
        const failure = (await Promise.allSettled(batch.map(requeueOne))).find(
          (outcome) => outcome.status === 'rejected',
        );
        if (failure) throw failure.reason;
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  } catch (error) {
    deps.events?.failed({ route: 'replay', error });
    throw refusal(
      503,
      'replay_interrupted',
      `requeued ${requeued} dead leads, then the lead store or queue failed; run the replay again (it is safe to)`,
      [],
      { 'retry-after': '5' },
    );
  }

  let redrive: RedriveResult;
  try {
    redrive = await deps.redrive.redrive();
  } catch (error) {
    deps.events?.failed({ route: 'replay', error });
    throw refusal(
      503,
      'redrive_failed',
      `requeued ${requeued} dead leads, but the dead-letter queue could not be redriven; run the replay again (it is safe to)`,
      [],
      { 'retry-after': '5' },
    );
  }
  deps.events?.replayed({
    requeued,
    skipped,
    more,
    redrive: redrive.status,
    client: context.client,
  });
  const body: ReplayResult = {
    requeued,
    skipped,
    more,
    redrive,
    ...(unsent > 0 && {
      unsent,
      note: `${unsent} requeued leads could not be sent now; the reconciler sends them shortly`,
    }),
  };
  return json(202, body, NO_STORE);
}

// ---------------------------------------------------------------------------------------------
// Backfill

/** The body of `POST /admin/backfill/{profile}`. */
export const backfillRequestSchema = z.strictObject({
  /** The first creation time to list, ISO 8601 with its offset (inclusive). */
  since: z.iso.datetime({ offset: true }),
  /** The end of the period, ISO 8601 with its offset (exclusive); not in the future. */
  until: z.iso.datetime({ offset: true }),
});

/** What a backfill answers. */
export interface BackfillResult {
  profile: string;
  since: string;
  until: string;
  /** The forms listed (the profile's `forms` keys). */
  forms: string[];
  /** Leads the platform listed for the period. */
  found: number;
  /** Of those, the ones the ledger already had (they did arrive): nothing done. */
  alreadyKnown: number;
  /** Of those, the ones recorded now (they had never arrived). */
  new: number;
  /** Of those, leads erased at their person's request: not recorded again (docs/privacy.md). */
  erased: number;
  /** The new leads by their first status: queued for delivery, parked, kept as test leads. */
  statuses: Record<string, number>;
  /** The request's time ran out before every lead was looked at: run it again. */
  more: boolean;
}

/** A backfill stops recording when less than this is left of the invocation. */
export const BACKFILL_RESERVE_MS = 3000;
/** How far `until` may be ahead of our clock (clock skew). */
const FUTURE_SLACK_MS = 60_000;
/** Leads recorded at once. */
const BACKFILL_CONCURRENCY = 5;
const DAY_MS = 24 * 60 * 60 * 1000;

function backfillPeriod(request: HttpRequest, now: Date, maxDays: number) {
  let input: unknown;
  try {
    input = JSON.parse(request.body.toString('utf8'));
  } catch {
    throw refusal(
      400,
      'invalid_body',
      'the body must be JSON: {"since": "<ISO 8601>", "until": "<ISO 8601>"}',
    );
  }
  const parsed = backfillRequestSchema.safeParse(input);
  if (!parsed.success) {
    const details = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`,
    );
    throw refusal(
      400,
      'invalid_body',
      'the body must be {"since", "until"}, ISO 8601 instants with their offset',
      details,
    );
  }
  const since = new Date(parsed.data.since);
  const until = new Date(parsed.data.until);
  if (since.getTime() >= until.getTime()) {
    throw refusal(400, 'invalid_period', '"since" must be before "until"');
  }
  if (until.getTime() > now.getTime() + FUTURE_SLACK_MS) {
    throw refusal(400, 'invalid_period', '"until" must not be in the future');
  }
  if (until.getTime() - since.getTime() > maxDays * DAY_MS) {
    throw refusal(
      400,
      'period_too_long',
      `a backfill covers at most ${maxDays} days (what the platform keeps); split the period`,
    );
  }
  return { since, until };
}

/** A platform failure, as the operator's answer: the platform's own words, redacted. */
function platformRefusal(error: SourceLookupError): AdminRefusal {
  const message = `${error.service}: ${error.message}`;
  if (error.kind === 'rate-limited' || error.kind === 'unavailable') {
    const seconds = Math.max(1, Math.ceil((error.retryAfterMs ?? 5000) / 1000));
    return refusal(503, 'platform_unavailable', message, [error.kind], {
      'retry-after': String(seconds),
    });
  }
  return refusal(502, 'platform_refused', message, [error.kind]);
}

async function backfill(context: RouteContext): Promise<HttpResponse> {
  const { deps, now } = context;
  const profileName = context.profile;
  const profile = await deps.config.profile(profileName);
  if (!profile) throw refusal(404, 'unknown_profile', `no profile '${profileName}'`);
  const plan = adapterFor(profile).backfill;
  if (!plan) {
    const able = SOURCES.filter((source) => 'backfill' in source && source.backfill).map(
      (source) => source.name,
    );
    throw refusal(
      409,
      'backfill_unsupported',
      `profile '${profileName}' is a ${profile.source} profile; only ${able.join(', ')} profiles keep leads to list`,
    );
  }
  const period = backfillPeriod(context.request, now(), plan.maxDays);
  const forms = Object.keys(profile.forms ?? {});
  if (forms.length === 0) {
    throw refusal(
      409,
      'no_forms',
      `profile '${profileName}' names no forms: add each form's id to its "forms" (an empty {} is enough)`,
    );
  }

  // The listing may not outlive the request: it is cut short with the time left.
  const budget = Math.max(0, context.remainingMs() - BACKFILL_RESERVE_MS);
  const cut = Number.isFinite(budget) ? AbortSignal.timeout(budget) : undefined;
  let captures: Awaited<ReturnType<typeof plan.list>>;
  try {
    captures = await plan.list(profile, forms, period, {
      ...deps.lookups,
      ...(cut && { signal: cut }),
    });
  } catch (error) {
    if (error instanceof SourceLookupError) throw platformRefusal(error);
    if (cut?.aborted) {
      throw refusal(
        503,
        'platform_too_slow',
        'the platform did not list the leads in time; backfill a shorter period',
        [],
        { 'retry-after': '5' },
      );
    }
    throw error;
  }

  let alreadyKnown = 0;
  let recorded = 0;
  let erased = 0;
  let more = false;
  let wakeUpsDeferred = 0;
  const statuses: Record<string, number> = {};
  const receivedAt = now();
  for (let i = 0; i < captures.length; i += BACKFILL_CONCURRENCY) {
    if (context.remainingMs() < BACKFILL_RESERVE_MS) {
      more = true;
      break;
    }
    const batch = captures.slice(i, i + BACKFILL_CONCURRENCY);
    const outcomes = await Promise.all(
      batch.map((capture) =>
        recordCapture(
          {
            ledger: deps.ledger,
            queue: deps.queue,
            // Not a failure: the lead is recorded and the reconciler wakes it within minutes.
            wakeUpDeferred: () => {
              wakeUpsDeferred += 1;
            },
          },
          profileName,
          profile,
          capture,
          receivedAt,
        ),
      ),
    );
    for (const outcome of outcomes) {
      if (isDropped(outcome)) {
        erased += 1;
      } else if (outcome.duplicate) {
        alreadyKnown += 1;
      } else {
        recorded += 1;
        const status = publicStatus(outcome.record.status);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }
  }
  deps.events?.backfilled?.({
    profile: profileName,
    found: captures.length,
    alreadyKnown,
    new: recorded,
    erased,
    more,
    wakeUpsDeferred,
    client: context.client,
  });
  const body: BackfillResult = {
    profile: profileName,
    since: period.since.toISOString(),
    until: period.until.toISOString(),
    forms,
    found: captures.length,
    alreadyKnown,
    new: recorded,
    erased,
    statuses,
    more,
  };
  return json(200, body, NO_STORE);
}

// ---------------------------------------------------------------------------------------------
// Erasure (LGPD)

/** What `POST /admin/erasure` says about one lead it erased. */
export interface ErasedLead {
  leadId: string;
  profile: string;
  status: PublicLeadStatus;
  receivedAt: string;
  erasedAt: string;
  /** The upstream's prospect made from this lead: its copy must be erased there. */
  idProspect?: ExternalId;
}

export interface ErasureResult {
  /** How many leads named this person. */
  found: number;
  erased: ErasedLead[];
  /** What remains to do at the upstream, in plain words. */
  upstream: {
    /** The upstream's prospects that hold this person's data. */
    idProspects: ExternalId[];
    action: string;
  };
}

const ERASURE_FIELDS = ['email', 'phone', 'cpf'] as const;
/** Leads one erasure request redacts at once. */
const ERASURE_CONCURRENCY = 10;

function erasureQuery(request: HttpRequest): SubjectQuery {
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString('utf8'));
  } catch {
    throw refusal(400, 'invalid_body', 'the body must be JSON: {"email"?, "phone"?, "cpf"?}');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw refusal(
      400,
      'invalid_body',
      'the body must be a JSON object: {"email"?, "phone"?, "cpf"?}',
    );
  }
  const record = body as Record<string, unknown>;
  const details: IssueDetail[] = [];
  for (const key of Object.keys(record)) {
    if (!(ERASURE_FIELDS as readonly string[]).includes(key)) {
      details.push({ field: key, message: 'unknown field: only email, phone and cpf' });
    } else if (typeof record[key] !== 'string') {
      details.push({ field: key, message: 'must be a string' });
    }
  }
  if (details.length > 0) {
    throw refusal(400, 'invalid_body', 'the body names nobody we can look up', details);
  }
  return record as SubjectQuery;
}

async function erasure(context: RouteContext): Promise<HttpResponse> {
  const { deps, now } = context;
  const query = subjectsOfQuery(erasureQuery(context.request));
  if ('problems' in query) {
    throw refusal(
      400,
      'invalid_subject',
      'give the e-mail, phone or CPF of the person whose data is to be erased',
      query.problems.map((p) => ({ field: p.field, message: p.message })),
    );
  }
  const leadIds = await deps.ledger.findBySubjects(query.subjects);
  const erased: ErasedLead[] = [];
  for (let i = 0; i < leadIds.length; i += ERASURE_CONCURRENCY) {
    const batch = leadIds.slice(i, i + ERASURE_CONCURRENCY);
    // A lead erased earlier and found again (a pointer left behind) is listed too, with the
    // prospect it became: the upstream still holds that copy.
    const leads = await Promise.all(
      batch.map((leadId) =>
        deps.ledger.redact(leadId, { reason: 'erasure', now: now(), subjects: query.subjects }),
      ),
    );
    for (const lead of leads) {
      if (!lead) continue;
      erased.push({
        leadId: lead.leadId,
        profile: lead.profile,
        status: publicStatus(lead.status),
        receivedAt: lead.receivedAt,
        erasedAt: lead.redactedAt ?? now().toISOString(),
        ...(lead.idProspect !== undefined && { idProspect: lead.idProspect }),
      });
    }
  }
  const idProspects = [
    ...new Map(
      erased.flatMap((lead) =>
        lead.idProspect === undefined ? [] : [[String(lead.idProspect), lead.idProspect]],
      ),
    ).values(),
  ];
  const body: ErasureResult = {
    found: erased.length,
    erased,
    upstream: {
      idProspects,
      action:
        idProspects.length > 0
          ? `The upstream (EVO) still holds this person's data in prospects ${idProspects.join(', ')}: it has no delete operation, so erase them there (EVO's own screens or its support). This gateway has erased its copy.`
          : erased.length > 0
            ? 'No lead of this person reached the upstream, so the upstream holds nothing from us. A lead that was being sent at this very moment may still arrive there: check again in a few minutes.'
            : 'This gateway holds no lead of this person under these values: none was recorded with them, or they were erased by an earlier request (whose answer listed the prospects to erase at the upstream). Give every e-mail, phone and CPF the person used.',
    },
  };
  deps.events?.erased?.({
    found: erased.length,
    upstream: idProspects.length,
    client: context.client,
  });
  return json(200, body, NO_STORE);
}

// ---------------------------------------------------------------------------------------------
// The console's routes: recent leads, a lead in full, corrections, the CSV, previews, test
// leads and the set-up kit. Personal data (what the person typed) is answered here, to the
// `admin` role, and never logged.

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseJson(text) };
  } catch {
    return { ok: false };
  }
}

/** Query parameters that make `GET /admin/leads` the newest-first listing with filters. */
const RECENT_PARAMS = ['profile', 'q', 'since', 'until', 'order'] as const;
/** Leads read at most per listing request when filters drop most of them. */
const MAX_SCANNED = 2000;
const SCAN_PAGE = 200;
/** Parked leads one CSV holds at most. */
const MAX_EXPORT = 5000;

/** A lead in full: the admin view plus what the person sent, the Prospect and the correction. */
function toDetailedView(lead: LeadRecord) {
  return {
    ...toAdminLeadView(lead),
    contact: contactOf(lead),
    submitted: {
      answers: lead.capture.answers,
      attribution: lead.capture.attribution,
      ...(lead.capture.submittedAt !== undefined && { submittedAt: lead.capture.submittedAt }),
      ...(lead.capture.externalId !== undefined && { externalId: lead.capture.externalId }),
      ...(lead.capture.formId !== undefined && { formId: lead.capture.formId }),
      ...(lead.capture.prospect !== undefined && { prospect: lead.capture.prospect }),
      ...(lead.capture.pending !== undefined && { pending: true }),
      test: lead.capture.isTest,
    },
    ...(lead.prospect !== undefined && { prospect: lead.prospect }),
    ...(lead.correction !== undefined && { correction: lead.correction }),
    ...(lead.correctedAt !== undefined && { correctedAt: lead.correctedAt }),
    ...(lead.correctedBy !== undefined && { correctedBy: lead.correctedBy }),
    // A lead whose personal data was removed is never filled in again (and never sent).
    correctable: CORRECTABLE.has(lead.status) && lead.redactedAt === undefined,
  };
}

/** `2026-11-23` (the start of that day, UTC) or a full ISO 8601 instant. */
function parseInstant(name: string, raw: string | undefined): Date | undefined {
  if (raw === undefined || raw === '') return undefined;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00.000Z` : raw;
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(date.getTime())) {
    throw refusal(
      400,
      'invalid_query',
      `${name} must be a date (2026-11-23) or an ISO 8601 instant`,
    );
  }
  return date;
}

interface RecentFilter {
  statuses: readonly LeadStatus[];
  order: 'newest' | 'oldest';
  profile?: string;
  q?: string;
  since?: Date;
  until?: Date;
}

function recentFilter(request: HttpRequest, statuses: readonly LeadStatus[]): RecentFilter {
  const order = single(request, 'order') ?? 'newest';
  if (order !== 'newest' && order !== 'oldest') {
    throw refusal(400, 'invalid_query', 'order must be newest or oldest', ['newest', 'oldest']);
  }
  const since = parseInstant('since', single(request, 'since'));
  // A bare date as `until` includes that day.
  const untilRaw = single(request, 'until');
  let until = parseInstant('until', untilRaw);
  if (until && untilRaw && /^\d{4}-\d{2}-\d{2}$/.test(untilRaw)) {
    until = new Date(until.getTime() + 86_400_000);
  }
  const profile = single(request, 'profile')?.trim() || undefined;
  const q = single(request, 'q')?.trim() || undefined;
  if (q !== undefined && q.length > 200) {
    throw refusal(400, 'invalid_query', 'q must be at most 200 characters');
  }
  return {
    statuses,
    order,
    ...(profile && { profile }),
    ...(q && { q }),
    ...(since && { since }),
    ...(until && { until }),
  };
}

/**
 * The leads matching `filter`, in its order, from position `after`: reads the status index
 * (every status's partition merged by receivedAt), then filters by profile and search. Stops at
 * `limit` matches or MAX_SCANNED leads read; `cursor` goes on from there.
 */
async function scanRecent(
  ledger: LeadLedger,
  filter: RecentFilter,
  limit: number,
  after: string | undefined,
): Promise<{ leads: LeadRecord[]; cursor?: string }> {
  const filtering = filter.profile !== undefined || filter.q !== undefined;
  const leads: LeadRecord[] = [];
  let position = after;
  let scanned = 0;
  for (;;) {
    const page = await ledger.listRecent({
      statuses: filter.statuses,
      order: filter.order,
      ...(filter.since && { since: filter.since }),
      ...(filter.until && { until: filter.until }),
      ...(position !== undefined && { after: position }),
      limit: filtering ? SCAN_PAGE : limit - leads.length,
    });
    for (const entry of page.entries) {
      scanned += 1;
      position = entry.position;
      const lead = entry.lead;
      if (filter.profile !== undefined && lead.profile !== filter.profile) continue;
      if (filter.q !== undefined && !matchesSearch(lead, filter.q)) continue;
      leads.push(lead);
      if (leads.length >= limit) {
        const more = page.more || entry !== page.entries.at(-1);
        return more ? { leads, cursor: entry.position } : { leads };
      }
    }
    // A scoped view may leave a page's leads out: it says where reading stopped.
    if (page.last !== undefined) {
      position = page.last;
      if (page.entries.length === 0) scanned += SCAN_PAGE;
    }
    if (!page.more || (page.entries.length === 0 && page.last === undefined)) return { leads };
    if (scanned >= MAX_SCANNED)
      return position === undefined ? { leads } : { leads, cursor: position };
  }
}

async function recentLeads(
  { deps, request }: RouteContext,
  statuses: readonly LeadStatus[],
  limit: number,
) {
  const filter = recentFilter(request, statuses);
  const cursor = single(request, 'cursor') || undefined;
  if (cursor !== undefined && !deps.ledger.isPosition(cursor)) {
    throw refusal(400, 'invalid_cursor', 'the cursor does not belong to this listing');
  }
  const page = await scanRecent(deps.ledger, filter, limit, cursor);
  return {
    leads: page.leads.map((lead) => ({ ...toAdminLeadView(lead), contact: contactOf(lead) })),
    ...(page.cursor !== undefined && { cursor: page.cursor }),
  };
}

/** `GET /admin/leads.csv?status=parked`: the leads of a status (parked by default) as a CSV. */
async function exportLeads({ deps, request, now }: RouteContext): Promise<HttpResponse> {
  const status = single(request, 'status') || 'parked';
  const publicStatus = PUBLIC_STATUSES.find((candidate) => candidate === status);
  if (!publicStatus) {
    throw refusal(400, 'invalid_status', `status must be one of: ${PUBLIC_STATUSES.join(', ')}`);
  }
  const filter = recentFilter(request, ledgerStatuses(publicStatus));
  const rows: { lead: LeadRecord; status: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await scanRecent(
      deps.ledger,
      filter,
      Math.min(500, MAX_EXPORT - rows.length),
      cursor,
    );
    rows.push(...page.leads.map((lead) => ({ lead, status: publicStatus })));
    cursor = page.cursor;
  } while (cursor !== undefined && rows.length < MAX_EXPORT);
  const day = now().toISOString().slice(0, 10);
  return {
    statusCode: 200,
    headers: {
      ...NO_STORE,
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="leads-${publicStatus}-${day}.csv"`,
    },
    body: leadsCsv(rows),
  };
}

/** `PATCH /admin/leads/{leadId}` `{"prospect": {...}}`: an operator's correction (lead-correction.ts). */
async function correctLead(context: RouteContext): Promise<HttpResponse> {
  const { deps, request, now } = context;
  const leadId = requireLeadId(context.leadId);
  const parsed = tryJson(request.body.toString('utf8'));
  const body = parsed.ok ? parsed.value : undefined;
  if (!parsed.ok || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw refusal(400, 'invalid_body', 'send a JSON object: {"prospect": {"cellphone": "..."}}');
  }
  const extra = Object.keys(body).filter((key) => key !== 'prospect');
  if (extra.length > 0 || !('prospect' in body)) {
    throw refusal(400, 'invalid_body', 'send a JSON object with one key, "prospect"', extra);
  }
  const read = readCorrection((body as { prospect: unknown }).prospect);
  if (!read.ok) {
    throw refusal(400, 'invalid_prospect', 'some fields cannot be used', read.details);
  }
  const lead = await findLead(deps.ledger, leadId);
  if (lead.redactedAt !== undefined) {
    throw personalDataRemoved(lead, 'it cannot be corrected');
  }
  if (!CORRECTABLE.has(lead.status)) {
    throw refusal(
      409,
      'not_correctable',
      `lead ${leadId} is ${toAdminLeadView(lead).status}; only parked, rejected, dead or test leads can be corrected`,
    );
  }
  const profile = await deps.config.profile(lead.profile);
  if (!profile) {
    throw refusal(409, 'unknown_profile', `profile ${lead.profile} is no longer configured`);
  }
  const correction = mergeCorrections(lead.correction, read.correction);
  const mapped = applyCorrection(
    mapCapture(lead.capture, profile, sourceLabel(lead.capture.source)),
    correction,
  );
  const saved = await deps.ledger.correct(
    leadId,
    lead.version,
    { correction, prospect: mapped.prospect, by: context.client },
    now(),
  );
  if (!saved)
    throw refusal(409, 'conflict', `lead ${leadId} changed meanwhile; reload and try again`);
  deps.events?.corrected?.({
    leadId,
    fields: Object.keys(read.correction),
    client: context.client,
  });
  return json(200, { ...toDetailedView(saved), missing: mapped.missing }, NO_STORE);
}

async function requireProfile(deps: AdminDeps, name: string) {
  const profile = name ? await deps.config.profile(name) : undefined;
  if (!profile) throw refusal(404, 'unknown_profile', `no profile ${name}`);
  return profile;
}

/** `POST /admin/preview/{profile}`: the body mapped as the platform's would be; nothing stored. */
async function preview({ deps, request, profile: name }: RouteContext): Promise<HttpResponse> {
  const profile = await requireProfile(deps, name);
  const adapter = adapterFor(profile);
  const captured = await adapter.capture(request, profile);
  if ('problem' in captured) {
    throw refusal(400, 'unreadable_body', captured.problem, captured.details ?? []);
  }
  const leads = captured.leads.map((capture) => {
    if (capture.pending) {
      return {
        pending: true,
        note: 'the platform sent ids only: the answers are fetched from it at delivery',
        submitted: { answers: capture.answers, attribution: capture.attribution },
      };
    }
    const mapped = mapCapture(capture, profile, sourceLabel(capture.source));
    return {
      prospect: mapped.prospect,
      missing: mapped.missing,
      warnings: mapped.warnings,
      notices: mapped.notices,
      test: capture.isTest,
      ...(mapped.missing.length > 0 && {
        reason: `required fields missing: ${mapped.missing.join(', ')}`,
      }),
    };
  });
  return json(
    200,
    { profile: name, source: profile.source, leads, ...(captured.spam && { spam: true }) },
    NO_STORE,
  );
}

function kitContext(deps: AdminDeps, baseUrl: string): KitContext {
  return {
    baseUrl,
    ...(deps.kit ?? {
      secretsWhere: (profile: string) => `the secrets of profile ${profile}`,
      secretValues: { secretId: (profile: string) => `<secret of profile ${profile}>` },
    }),
  };
}

/** Every profile's kit: profiles read with their secrets only where the kit may print them. */
async function kits(deps: AdminDeps, baseUrl: string): Promise<ProfileKit[]> {
  const context = kitContext(deps, baseUrl);
  const settings = await deps.config.profileSettings();
  const result: ProfileKit[] = [];
  for (const [name, base] of Object.entries(settings)) {
    const source = sourceNamed(base.source);
    if (!source) continue;
    const profile = context.secretValues === 'inline' ? await deps.config.profile(name) : base;
    result.push(
      profileKit(name, profile ?? base, source as Parameters<typeof profileKit>[2], context),
    );
  }
  return result;
}

/** `GET /admin/setup`: how to connect each profile's platform (sources/setup.ts). */
async function setup({ deps, baseUrl }: RouteContext): Promise<HttpResponse> {
  return json(
    200,
    { urlPattern: `${baseUrl}/leads/{profile}`, profiles: await kits(deps, baseUrl) },
    NO_STORE,
  );
}

/** `POST /admin/test-lead/{profile}`: the profile's sample, signed, sent to the intake over HTTP. */
async function testLead(context: RouteContext): Promise<HttpResponse> {
  const { deps, now } = context;
  const profile = await requireProfile(deps, context.profile);
  const source = sourceNamed(profile.source);
  const stamp = `t${now().getTime().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const signed =
    source &&
    signedSample(context.profile, profile, source as Parameters<typeof signedSample>[2], {
      baseUrl: context.baseUrl,
      stamp,
      now: now(),
      ...(context.roles.includes('prospects:write') &&
        context.authorization !== undefined && { basicAuthorization: context.authorization }),
    });
  if (!signed) {
    throw refusal(
      409,
      'no_sample',
      `profile ${context.profile} has no sample lead to send (its source has no set-up recipe, or it needs the prospects:write role)`,
    );
  }
  let status: number;
  let text: string;
  try {
    const response = await (deps.send ?? fetch)(signed.url, {
      method: 'POST',
      headers: signed.headers,
      body: signed.body,
      // The Prospect API waits up to 8 s for its delivery; the function has 15 s.
      signal: AbortSignal.timeout(12_000),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    deps.events?.failed({ route: 'test-lead', error });
    throw refusal(502, 'test_lead_failed', `the intake at ${signed.shownUrl} could not be reached`);
  }
  deps.events?.testLeadSent?.({ profile: context.profile, status, client: context.client });
  const answer = tryJson(text);
  const answered = answer.ok ? answer.value : text.slice(0, 2000);
  const ids =
    answer.ok && answer.value !== null && typeof answer.value === 'object'
      ? (answer.value as { leadId?: unknown; leadIds?: unknown })
      : {};
  const leadIds = [
    ...(typeof ids.leadId === 'string' ? [ids.leadId] : []),
    ...(Array.isArray(ids.leadIds) ? ids.leadIds.filter((id) => typeof id === 'string') : []),
  ];
  return json(
    200,
    { profile: context.profile, url: signed.shownUrl, status, answer: answered, leadIds },
    NO_STORE,
  );
}

/** `GET /admin` (and `/admin/`): the operator console page. */
async function consoleRoute({ deps, csrf, client }: RouteContext): Promise<HttpResponse> {
  const profiles = Object.keys(await deps.config.profileSettings());
  return consolePage({ csrf, operator: client, profiles, statuses: PUBLIC_STATUSES });
}
