/**
 * The intake use case: `POST /leads/{profile}` (and its GET handshake and CORS preflight) and
 * the seed's `POST /api/v1/prospects`. Authenticates the request with the profile's source,
 * captures its leads, records each durably in the ledger before answering, enqueues what can be
 * delivered, and answers the way the platform expects. No AWS imports: ports come in `deps`.
 *
 * Rules (docs/sources.md): unauthentic → 401/403, nothing stored. Authentic but unreadable →
 * parked with the reason for ad platforms and form builders (they drop leads we answer with 4xx),
 * 400 for plain forms and the Prospect API. Test leads → kept as `test` with the Prospect they
 * would have become, not delivered unless the profile says so, their dedup key remembered for
 * TEST_LEAD_DEDUP_WINDOW_SECONDS only. A lead the mapping cannot complete → parked with the
 * fields it lacks. Recording a capture and waking it is shared with the admin backfill
 * (ledger/record-capture.ts). Each source's answer is told
 * what became of the leads (`outcome`): sources a person or a program reads (forms through
 * Zapier or Make) say `"status": "parked"` with the reason, as the Prospect API does; ad
 * platforms keep their fixed answers.
 *
 * The Prospect API (`prospect` source) waits a bounded time for the delivery, as the contract
 * asks (`200 {"idProspect"}` when delivered in time); every other source answers at once, as its
 * platform expects. After recording a queued Prospect it polls the ledger (200 ms, backing off
 * to 1 s) until the lead reaches an outcome or the wait ends (PROSPECT_WAIT.budgetMs = 8 s,
 * never closer than WAIT_RESERVE_MS to the function's timeout; API Gateway's 29 s bound is
 * further still). The answer by the lead's state then:
 * - `delivered` → 200 `{"idProspect": n}` (a duplicate of a delivered lead answers so at once);
 * - `rejected` → 400 `{"error": {"code": "rejected_upstream", "message", "details": [the
 *   upstream's mensagens]}, "leadId"}`: the caller of the seed API expects the upstream's 400;
 *   it gets the same status and messages in the contract's error shape;
 * - `queued`/`sending` when the wait ends → 202 `{"leadId", "status": "queued"}`; the lead is
 *   still delivered later;
 * - `parked` (required fields missing) → 202 `{"leadId", "status": "parked", "reason"}` at once:
 *   it is kept, but nothing is delivered until an operator retries it, so `queued` would mislead;
 * - `dead` or `test` → 202 with that status. A failure to read the ledger while waiting ends the
 *   wait with the 202 queued answer: the lead is recorded and queued either way.
 * Its dedup key (Idempotency-Key or content hash) is scoped to the authenticated client and bound
 * to the body's fingerprint (sources/prospect.ts `scopeToClient`): the same client and key with
 * another body → 422 `idempotency_key_reused`, nothing stored.
 *
 * A lead erased at its person's request and sent again (platforms redeliver for hours to days,
 * and the signatures of Typeform, Meta and Tally carry no timestamp, so the same signed body is
 * authentic again) is recognised by the ledger's tombstones before anything is written
 * (ledger/record-capture.ts) and dropped: acknowledged with the platform's usual success answer
 * (ad platforms drop leads answered with 4xx and retry on 5xx), its `outcome` saying `erased`
 * (`status: "erased"` when every lead of the request was; `erased: n` beside the others'
 * status), one `erasedDropped` event per request (a log line and the ErasedLeadDropped metric).
 * The Prospect API answers 200 `{"status": "erased", "code": "personal_data_erased", "message"}`.
 */

import { accountOfProfile, type Client, type Profile } from '../config/config-schema.ts';
import type { ConfigSource } from '../config/config-source.ts';
import type { LeadCapture } from '../domain/lead.ts';
import type { LeadStatus } from '../domain/lead-lifecycle.ts';
import { newLeadId, publicStatus } from '../domain/lead-lifecycle.ts';
import { withConsent } from '../domain/personal-data.ts';
import { throttledByAuthorizer, tooManyFailuresMessage } from '../kernel/auth-throttle.ts';
import { authenticateClient, BASIC_CHALLENGE } from '../kernel/client-auth.ts';
import { checkCsrf } from '../kernel/csrf.ts';
import { problem as errorBody, type ProblemDetail } from '../kernel/http.ts';
import { say, type Text, t } from '../kernel/language.ts';
import { CROSS_SITE_REFUSED, TOO_MANY_FAILURES } from '../kernel/route-guard.ts';
import { basicRoutesOf } from '../kernel/routes.ts';
import { DedupConflictError, type LeadLedger, type LeadRecord } from '../ledger/lead-ledger.ts';
import type { LeadQueue } from '../ledger/lead-queue.ts';
import {
  type Dropped,
  initialState,
  isDropped,
  type LeadState,
  recordLead,
} from '../ledger/record-capture.ts';
import { scopeToClient } from '../sources/prospect.ts';
import { adapterFor, secretKeysOf } from '../sources/registry.ts';
import type {
  AcceptedOutcome,
  IntakeRequest,
  PlatformResponse,
  SourceAdapter,
} from '../sources/source.ts';

/** The role the Prospect API's route asks of its client (the route table's). */
const PROSPECT_API_ROLE =
  basicRoutesOf('intake').find((route) => route.name === 'create-prospect')?.role ?? 'admin';

/** Request bodies above this are refused with 413 (a lead is a few KB; DynamoDB items ≤ 400 KB). */
export const MAX_INTAKE_BODY_BYTES = 256 * 1024;

/**
 * How long a test lead's dedup key is remembered (the shared record step's rule, with the other
 * dedup windows: ledger/record-capture.ts).
 */
export { TEST_LEAD_DEDUP_WINDOW_SECONDS } from '../ledger/record-capture.ts';

const CORS_ALLOW_HEADERS = 'content-type, x-lead-token, idempotency-key';

export interface IntakeEvents {
  /** One structured event per accepted lead; never personal data. */
  accepted(event: {
    leadId: string;
    profile: string;
    source: string;
    status: string;
    duplicate: boolean;
  }): void;
  refused(event: { profile: string; status: number; code: string }): void;
  /** The lead's first message could not be sent; the reconciler wakes it within minutes. */
  wakeUpDeferred(event: { leadId: string; error: unknown }): void;
  /**
   * Leads of one request dropped because their person's data was erased on request (sent again
   * by their platform): how many, never what they carried.
   */
  erasedDropped?(event: { profile: string; source: string; leads: number }): void;
}

/** How the Prospect API waits for its lead's delivery (see the module comment). */
export interface ProspectWait {
  /** The longest wait after recording the lead; 0 answers 202 at once. */
  budgetMs: number;
  /** The first poll of the ledger comes after this long... */
  firstPollMs: number;
  /** ...each next one 1.5 times later, up to this. */
  maxPollMs: number;
}

export const PROSPECT_WAIT: ProspectWait = { budgetMs: 8000, firstPollMs: 200, maxPollMs: 1000 };

/** The wait ends at least this long before the function's own timeout. */
export const WAIT_RESERVE_MS = 1500;

export interface IntakeDeps {
  config: ConfigSource;
  ledger: LeadLedger;
  queue: LeadQueue;
  events?: IntakeEvents;
  now?: () => Date;
  /** Overrides of PROSPECT_WAIT. */
  prospectWait?: Partial<ProspectWait>;
  /** Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** What the use case knows about the invocation running it. */
export interface IntakeInvocation {
  /** Lambda's context.getRemainingTimeInMillis. */
  remainingMs(): number;
}

interface Accepted {
  record: LeadRecord;
  duplicate: boolean;
}

function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}) {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  } satisfies PlatformResponse;
}

/** The contract's error body, its message in the request's language (kernel/language.ts). */
function problem(
  statusCode: number,
  code: string,
  message: string | Text,
  details: readonly ProblemDetail[] = [],
  headers: Record<string, string> = {},
): PlatformResponse {
  return errorBody(statusCode, code, message, details, headers) as PlatformResponse;
}

function corsHeaders(request: IntakeRequest, profile: Profile): Record<string, string> {
  const origin = request.headers.origin;
  if (!origin || !profile.allowedOrigins?.includes(origin)) return {};
  return { 'access-control-allow-origin': origin, vary: 'Origin' };
}

function preflight(request: IntakeRequest, profile: Profile): PlatformResponse {
  const cors = corsHeaders(request, profile);
  if (!cors['access-control-allow-origin']) {
    return problem(
      403,
      'origin_not_allowed',
      t('esta origem não pode enviar a este perfil', 'this origin may not post to this profile'),
    );
  }
  return {
    statusCode: 204,
    headers: {
      ...cors,
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': CORS_ALLOW_HEADERS,
      'access-control-max-age': '600',
    },
    body: '',
  };
}

async function accept(
  deps: IntakeDeps,
  profileName: string,
  lead: LeadState,
  receivedAt: Date,
): Promise<Accepted | Dropped> {
  // The ledger is the truth: once the lead is recorded it is accepted. Its first message starts
  // its delivery chain; a redelivery sends nothing (one chain per lead), and a lead whose
  // message could not be sent is woken by the reconciler, so neither case fails the request.
  const outcome = await recordLead(
    {
      ledger: deps.ledger,
      queue: deps.queue,
      wakeUpDeferred: (event) => deps.events?.wakeUpDeferred(event),
    },
    profileName,
    lead,
    receivedAt,
  );
  // An erased lead sent again: nothing was stored; the caller counts it.
  if (isDropped(outcome)) return outcome;
  const { record, duplicate } = outcome;
  deps.events?.accepted({
    leadId: record.leadId,
    profile: profileName,
    source: record.source,
    status: record.status,
    duplicate,
  });
  return { record, duplicate };
}

/**
 * The profile's own secrets taken out of a body we keep (Google puts its key in the body; a form
 * may post its token as a field): a parked body is shown to operators and may reach the CRM.
 */
function redactSecrets(text: string, profile: Profile): string {
  let redacted = text;
  for (const key of secretKeysOf(profile.source)) {
    const secret = (profile as Record<string, unknown>)[key];
    if (typeof secret === 'string' && secret.length >= 4) {
      redacted = redacted.replaceAll(secret, '[redacted]');
    }
  }
  return redacted;
}

function isPlainHtmlForm(request: IntakeRequest): boolean {
  return (
    request.contentType === 'application/x-www-form-urlencoded' ||
    request.contentType === 'multipart/form-data'
  );
}

/**
 * What became of the leads of one request, for the answer: the status they share, else `parked`
 * when any is (with every reason), else `queued`.
 */
export function outcomeOf(records: readonly LeadRecord[]): AcceptedOutcome | undefined {
  if (records.length === 0) return undefined;
  const statuses = new Set(records.map((record) => publicStatus(record.status)));
  const reasons = [
    ...new Set(records.map((record) => record.reason).filter((r): r is string => r !== undefined)),
  ];
  const reason = reasons.length > 0 ? { reason: reasons.join('; ') } : {};
  if (statuses.has('parked')) return { status: 'parked', ...reason };
  if (statuses.size === 1) {
    const [status] = [...statuses] as [AcceptedOutcome['status']];
    return status === 'rejected' || status === 'dead' ? { status, ...reason } : { status };
  }
  return { status: 'queued' };
}

/**
 * What became of a request's leads when `erased` of them were dropped as erased: the recorded
 * ones' outcome with the count beside it, or `erased` when none was recorded.
 */
export function outcomeWithDrops(
  records: readonly LeadRecord[],
  erased: number,
): AcceptedOutcome | undefined {
  const outcome = outcomeOf(records);
  if (erased === 0) return outcome;
  return outcome ? { ...outcome, erased } : { status: 'erased', erased };
}

/** The Prospect API's answer to a Prospect whose person's data was erased: done, nothing made. */
const ERASED_PROSPECT = jsonResponse(200, {
  status: 'erased',
  code: 'personal_data_erased',
  message:
    'os dados desta pessoa foram apagados a pedido dela (LGPD): o Prospect não foi guardado e não será criado; não o envie de novo',
});

function answer(
  adapter: SourceAdapter<Profile>,
  profile: Profile,
  request: IntakeRequest,
  leadIds: readonly string[],
  outcome?: AcceptedOutcome,
): PlatformResponse {
  if (profile.redirectUrl && profile.source === 'form' && isPlainHtmlForm(request)) {
    return { statusCode: 303, headers: { location: profile.redirectUrl }, body: '' };
  }
  const response = adapter.accepted(leadIds, outcome);
  return { ...response, headers: { ...response.headers, ...corsHeaders(request, profile) } };
}

/**
 * Handles one request to `/leads/{profile}`; for the Prospect API pass the name of the profile
 * whose source is `prospect`.
 */
export async function handleIntake(
  profileName: string,
  request: IntakeRequest,
  deps: IntakeDeps,
  invocation?: IntakeInvocation,
): Promise<PlatformResponse> {
  const profile = await deps.config.profile(profileName);
  // Refusals carry the CORS headers too, so an allowed page can read why it was refused.
  const refuse = (response: PlatformResponse, code: string) => {
    deps.events?.refused({ profile: profileName, status: response.statusCode, code });
    const cors = profile ? corsHeaders(request, profile) : {};
    return { ...response, headers: { ...response.headers, ...cors } };
  };
  if (!profile) {
    return refuse(
      problem(404, 'unknown_profile', t('perfil desconhecido', 'no such profile')),
      'unknown_profile',
    );
  }
  const adapter = adapterFor(profile);

  if (request.method === 'OPTIONS') return preflight(request, profile);
  if (request.method === 'GET' && adapter.handshake) return adapter.handshake(request, profile);
  if (request.method !== 'POST') {
    return refuse(
      problem(
        405,
        'method_not_allowed',
        t(`${request.method} não é aceito aqui`, `${request.method} is not allowed here`),
        [],
        {
          allow: adapter.handshake ? 'GET, POST, OPTIONS' : 'POST, OPTIONS',
        },
      ),
      'method_not_allowed',
    );
  }
  if (request.body.length > MAX_INTAKE_BODY_BYTES) {
    return refuse(
      problem(
        413,
        'body_too_large',
        t(
          `o corpo passa de ${MAX_INTAKE_BODY_BYTES} bytes`,
          `the body exceeds ${MAX_INTAKE_BODY_BYTES} bytes`,
        ),
      ),
      'body_too_large',
    );
  }

  /** The Prospect API's client, whose accounts and branches bound what it may create. */
  let scope: Client | undefined;
  if (profile.source === 'prospect') {
    // Locked by failed sign-ins (the gateway's authorizer said so): 429, nothing checked.
    const locked = throttledByAuthorizer(request.authorizer);
    if (locked) {
      const retryAfter = String(locked.retryAfterSeconds);
      const message = tooManyFailuresMessage(locked.retryAfterSeconds);
      return refuse(
        problem(429, TOO_MANY_FAILURES, message, [], { 'retry-after': retryAfter }),
        TOO_MANY_FAILURES,
      );
    }
    const auth = await authenticateClient(
      request.headers.authorization,
      await deps.config.clients(),
      PROSPECT_API_ROLE,
    );
    if (!auth.ok) {
      const headers = auth.status === 401 ? BASIC_CHALLENGE : {};
      return refuse(problem(auth.status, auth.code, auth.message, [], headers), auth.code);
    }
    scope = auth.client;
    // A browser's form post from another site carries the client's credentials too (csrf.ts).
    const forged = checkCsrf(request, auth.client);
    if (!forged.ok)
      return refuse(problem(403, CROSS_SITE_REFUSED, forged.message), CROSS_SITE_REFUSED);
    const account = accountOfProfile(profile);
    if (scope.upstreams && !scope.upstreams.includes(account)) {
      const message = t(
        `este usuário não pode enviar à conta "${account}"; indique uma de ${scope.upstreams.join(', ')} com ?upstream=`,
        `this client may not post to the account "${account}"; name one of ${scope.upstreams.join(', ')} with ?upstream=`,
      );
      return refuse(
        problem(403, 'upstream_forbidden', message, [{ field: 'upstream', message }]),
        'upstream_forbidden',
      );
    }
  }
  const authenticity = adapter.authenticate(request, profile);
  if (!authenticity.ok) {
    return refuse(
      problem(authenticity.status, authenticity.code, authenticity.message),
      authenticity.code,
    );
  }

  const captured = await adapter.capture(request, profile);
  if ('problem' in captured) {
    if (!adapter.parkUnreadable) {
      return refuse(
        problem(400, 'invalid_body', captured.problem, captured.details ?? []),
        'invalid_body',
      );
    }
    const parked = unreadableLead(request, profile, captured);
    const { records, erased } = await acceptAll(deps, profileName, [parked], request.receivedAt);
    const ids = records.map((record) => record.leadId);
    return answer(adapter, profile, request, ids, outcomeWithDrops(records, erased));
  }
  if (captured.spam) {
    // Bots learn nothing: the answer looks like any other, and nothing is stored.
    return answer(
      adapter,
      profile,
      request,
      captured.leads.map(() => newLeadId()),
    );
  }

  if (profile.source === 'prospect' && captured.leads.length === 1 && captured.leads[0]) {
    const branch = captured.leads[0].prospect?.idBranch;
    if (scope?.branches && (branch == null || !scope.branches.includes(branch))) {
      const many = scope.branches.length > 1;
      const message = t(
        `este usuário só pode criar prospects ${many ? 'nas unidades' : 'na unidade'} ${scope.branches.join(', ')}, não em ${branch ?? '(nenhuma informada)'}`,
        `this client may create prospects in branch${many ? 'es' : ''} ${scope.branches.join(', ')} only, not ${branch ?? '(none given)'}`,
      );
      return refuse(
        problem(403, 'branch_forbidden', message, [{ field: 'idBranch', message }]),
        'branch_forbidden',
      );
    }
    // The Idempotency-Key (or content hash) is the client's own, bound to the body it came with.
    const scoped = scopeToClient(captured.leads[0], scope?.username ?? '');
    let accepted: Accepted | Dropped;
    try {
      accepted = await accept(
        deps,
        profileName,
        { ...initialState(scoped.capture, profile), fingerprint: scoped.fingerprint },
        request.receivedAt,
      );
    } catch (error) {
      if (!(error instanceof DedupConflictError)) throw error;
      return refuse(
        problem(
          422,
          'idempotency_key_reused',
          t(
            'esta Idempotency-Key já foi usada por este usuário para outro Prospect nas últimas 24 horas: envie o mesmo corpo de novo para ter a resposta original, ou use uma chave nova para um Prospect novo',
            'this Idempotency-Key was already used by this client for a different Prospect within the last 24 hours: send the same body again to get the original answer, or use a new key for a new Prospect',
          ),
        ),
        'idempotency_key_reused',
      );
    }
    if (isDropped(accepted)) noteDropped(deps, profileName, profile.source, 1);
    const response = isDropped(accepted)
      ? ERASED_PROSPECT
      : prospectAnswer(await waitForDelivery(accepted.record, deps, invocation), adapter);
    return { ...response, headers: { ...response.headers, ...corsHeaders(request, profile) } };
  }

  // The person's consent, as the profile maps it, dated when we received it.
  const receivedAt = request.receivedAt.toISOString();
  const states = captured.leads.map((lead) =>
    initialState(withConsent(lead, profile.consent, receivedAt), profile),
  );
  const { records, erased } = await acceptAll(deps, profileName, states, request.receivedAt);
  const ids = records.map((record) => record.leadId);
  return answer(adapter, profile, request, ids, outcomeWithDrops(records, erased));
}

/** An authentic body that could not be read: parked with the reason, the body kept as sent. */
function unreadableLead(
  request: IntakeRequest,
  profile: Profile,
  captured: { problem: string; dedupKey: string },
): LeadState {
  const capture: LeadCapture = {
    source: profile.source,
    dedupKey: captured.dedupKey,
    isTest: false,
    answers: [
      {
        key: 'corpo_recebido',
        label: 'Corpo recebido (não pôde ser lido)',
        value: redactSecrets(request.body.toString('utf8').slice(0, 64 * 1024), profile),
      },
    ],
    attribution: {},
  };
  return {
    source: profile.source,
    dedupKey: captured.dedupKey,
    capture,
    status: 'parked',
    reason: `corpo ilegível: ${captured.problem}`,
  };
}

/**
 * Records a request's leads one by one: the records, and how many were dropped as erased (told
 * to the events once for the request).
 */
async function acceptAll(
  deps: IntakeDeps,
  profileName: string,
  leads: readonly LeadState[],
  receivedAt: Date,
): Promise<{ records: LeadRecord[]; erased: number }> {
  const records: LeadRecord[] = [];
  let erased = 0;
  for (const lead of leads) {
    const accepted = await accept(deps, profileName, lead, receivedAt);
    if (isDropped(accepted)) erased += 1;
    else records.push(accepted.record);
  }
  noteDropped(deps, profileName, leads[0]?.source ?? '', erased);
  return { records, erased };
}

/** Tells the events how many leads of a request were dropped as erased (none: nothing). */
function noteDropped(deps: IntakeDeps, profile: string, source: string, leads: number): void {
  if (leads > 0) deps.events?.erasedDropped?.({ profile, source, leads });
}

// ---------------------------------------------------------------------------------------------
// The Prospect API's bounded wait

const IN_FLIGHT: ReadonlySet<LeadStatus> = new Set(['queued', 'sending']);

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls the ledger until the lead leaves queued/sending or the wait ends; the lead as last read.
 * A lead that is not in flight (a duplicate of a delivered one, a parked one) returns at once.
 */
async function waitForDelivery(
  lead: LeadRecord,
  deps: IntakeDeps,
  invocation: IntakeInvocation | undefined,
): Promise<LeadRecord> {
  if (!IN_FLIGHT.has(lead.status)) return lead;
  const wait = { ...PROSPECT_WAIT, ...deps.prospectWait };
  const sleep = deps.sleep ?? timer;
  const clock = () => (deps.now?.() ?? new Date()).getTime();
  const remaining = invocation ? invocation.remainingMs() - WAIT_RESERVE_MS : wait.budgetMs;
  const deadline = clock() + Math.min(wait.budgetMs, remaining);
  let current = lead;
  let delay = Math.max(wait.firstPollMs, 1);
  for (let left = deadline - clock(); left > 0; left = deadline - clock()) {
    await sleep(Math.min(delay, left));
    try {
      current = (await deps.ledger.get(lead.leadId)) ?? current;
    } catch {
      return current; // recorded and queued: the 202 answer stays true
    }
    if (!IN_FLIGHT.has(current.status)) return current;
    delay = Math.min(delay * 1.5, Math.max(wait.maxPollMs, 1));
  }
  return current;
}

/** The Prospect API's answer for the lead's state (see the module comment). */
function prospectAnswer(lead: LeadRecord, adapter: SourceAdapter<Profile>): PlatformResponse {
  switch (lead.status) {
    case 'delivered':
      return jsonResponse(200, { idProspect: lead.idProspect });
    case 'rejected': {
      const messages = lead.messages ?? [];
      const message = t(
        `o sistema da academia recusou o Prospect: ${lead.reason ?? messages.join('; ')}`,
        `the upstream refused the Prospect: ${lead.reason ?? messages.join('; ')}`,
      );
      return jsonResponse(400, {
        error: { code: 'rejected_upstream', message: say(message), details: messages },
        leadId: lead.leadId,
      });
    }
    case 'queued':
    case 'sending':
      return adapter.accepted([lead.leadId]);
    default:
      return jsonResponse(202, {
        leadId: lead.leadId,
        status: publicStatus(lead.status),
        ...(lead.reason !== undefined && { reason: lead.reason }),
      });
  }
}
