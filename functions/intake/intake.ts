/**
 * The intake use case: `POST /leads/{profile}` (and its GET handshake and CORS preflight).
 * Authenticates the request with the profile's source, captures its leads, records each durably
 * in the ledger before answering (ledger/record-capture.ts), enqueues what can be delivered, and answers the
 * way the platform expects. A profile whose source is `prospect` (the seed's
 * `POST /api/v1/prospects` comes here too) gets the checks every profile's request gets (the
 * profile exists, the method, the body's size) and is then handed to its own use case,
 * prospect-api.ts. No AWS imports: ports come in `deps` (intake-deps.ts).
 *
 * Rules (docs/sources.md): unauthentic → 401/403, nothing stored (a credential rotated in the
 * console is accepted in its former value too for its grace period: sources/rotation.ts).
 * Authentic but unreadable → parked with the reason for ad platforms and form builders (they drop leads we answer with 4xx),
 * 400 for plain forms. Test leads → kept as `test` with the Prospect they would have become, not
 * delivered unless the profile says so, their dedup key remembered for
 * TEST_LEAD_DEDUP_WINDOW_SECONDS only. A lead the mapping cannot complete → parked with the
 * fields it lacks. Recording a capture and waking it is shared with the admin backfill
 * (ledger/record-capture.ts). Each source's answer is told what became of the leads (`outcome`):
 * sources a person or a program reads (forms through Zapier or Make) say `"status": "parked"`
 * with the reason, as the Prospect API does; ad platforms keep their fixed answers. Every source
 * answers at once, as its platform expects (only the Prospect API waits for the delivery).
 *
 * A lead erased at its person's request and sent again (platforms redeliver for hours to days,
 * and the signatures of Typeform, Meta and Tally carry no timestamp, so the same signed body is
 * authentic again) is recognised by the ledger's tombstones before anything is written
 * (ledger/record-capture.ts) and dropped: acknowledged with the platform's usual success answer
 * (ad platforms drop leads answered with 4xx and retry on 5xx), its `outcome` saying `erased`
 * (`status: "erased"` when every lead of the request was; `erased: n` beside the others'
 * status), one `erasedDropped` event per request (a log line and the ErasedLeadDropped metric).
 */

import { accountOfProfile } from '../config/config-accounts.ts';
import type { Profile } from '../config/config-schema.ts';
import type { LeadCapture } from '../domain/lead.ts';
import { newLeadId } from '../domain/lead-lifecycle.ts';
import { withConsent } from '../domain/personal-data.ts';
import { type HttpResponse, problem } from '../kernel/http.ts';
import { t } from '../kernel/language.ts';
import {
  initialState,
  type LeadState,
  outcomeWithDrops,
  recordLeads,
} from '../ledger/record-capture.ts';
import { adapterFor, secretKeysOf } from '../sources/registry.ts';
import { authenticateRotated, handshakeRotated } from '../sources/rotation.ts';
import type { AcceptedOutcome, IntakeRequest } from '../sources/source.ts';
import { branchesOf } from '../upstream/branch-directory.ts';
import { type IntakeCall, preflight, refuse, withCors } from './cors-and-refusals.ts';
import type { IntakeDeps, IntakeInvocation } from './intake-deps.ts';
import {
  admitProspectCaller,
  handleProspect,
  type ProspectCaller,
  prospectProfileFor,
} from './prospect-api.ts';
import { TOO_MANY_WRONG_TOKENS, throttledRefusal } from './token-guessing.ts';

/** Request bodies above this are refused with 413 (a lead is a few KB; DynamoDB items ≤ 400 KB). */
export const MAX_INTAKE_BODY_BYTES = 256 * 1024;

/**
 * How long a test lead's dedup key is remembered (the shared record step's rule, with the other
 * dedup windows: ledger/record-capture.ts).
 */

/**
 * Handles one request to `/leads/{profile}`; for the Prospect API pass the name of the profile
 * whose source is `prospect`.
 */
export async function handleIntake(
  profileName: string,
  request: IntakeRequest,
  deps: IntakeDeps,
  invocation?: IntakeInvocation,
  caller?: ProspectCaller,
): Promise<HttpResponse> {
  const profile = await deps.config.profile(profileName);
  if (!profile) {
    const unknown = problem(404, 'unknown_profile', t('perfil desconhecido', 'no such profile'));
    return refuse(deps, { profileName, request }, unknown, 'unknown_profile');
  }
  const call: IntakeCall = { profileName, profile, adapter: adapterFor(profile), request };
  const { adapter } = call;

  if (request.method === 'OPTIONS') return preflight(request, profile);
  // A credential rotated in the console: its former value too, and a fresh read of the profile.
  const recheck = deps.config.recheckProfile;
  const rotation = { now: request.receivedAt, reread: recheck && (() => recheck(profileName)) };
  if (request.method === 'GET' && adapter.handshake) {
    // A wrong verify token is a guess like a wrong token (token-guessing.ts).
    return guessAnswer(
      deps,
      call,
      await handshakeRotated(adapter.handshake, request, profile, rotation),
    );
  }
  if (request.method !== 'POST') {
    const allow = adapter.handshake ? 'GET, POST, OPTIONS' : 'POST, OPTIONS';
    const message = t(
      `${request.method} não é aceito aqui`,
      `${request.method} is not allowed here`,
    );
    const refused = problem(405, 'method_not_allowed', message, [], { allow });
    return refuse(deps, call, refused, 'method_not_allowed');
  }
  if (request.body.length > MAX_INTAKE_BODY_BYTES) {
    const message = t(
      `o corpo passa de ${MAX_INTAKE_BODY_BYTES} bytes`,
      `the body exceeds ${MAX_INTAKE_BODY_BYTES} bytes`,
    );
    return refuse(deps, call, problem(413, 'body_too_large', message), 'body_too_large');
  }
  if (profile.source === 'prospect') return handleProspect(call, deps, invocation, caller);

  const authenticity = await authenticateRotated(adapter, request, profile, rotation);
  if (!authenticity.ok) {
    const { status, code, message } = authenticity;
    const answered = await guessAnswer(deps, call, problem(status, code, message));
    const refusedAs = answered.statusCode === 429 ? TOO_MANY_WRONG_TOKENS : code;
    return refuse(deps, call, answered, refusedAs);
  }
  const captured = await adapter.capture(request, profile);
  if ('problem' in captured) {
    if (!adapter.parkUnreadable) {
      const invalid = problem(400, 'invalid_body', captured.problem, captured.details ?? []);
      return refuse(deps, call, invalid, 'invalid_body');
    }
    return recordAndAnswer(call, deps, [unreadableLead(request, profile, captured)]);
  }
  if (captured.spam) {
    // Bots learn nothing: the answer looks like any other, and nothing is stored.
    return answer(
      call,
      captured.leads.map(() => newLeadId()),
    );
  }
  // The person's consent, as the profile maps it, dated when we received it.
  const receivedAt = request.receivedAt.toISOString();
  // The account's named branches: a chain form's "Qual unidade?" answer chooses among them.
  const branches = await branchesOf(deps.branches, accountOfProfile(profile));
  const states = captured.leads.map((lead) =>
    initialState(withConsent(lead, profile.consent, receivedAt), profile, branches),
  );
  return recordAndAnswer(call, deps, states);
}

/**
 * A refusal of the profile's check as answered once the token-guessing throttle has seen it
 * (token-guessing.ts): a 403 from an address locked for this profile becomes the 429.
 */
function guessAnswer(deps: IntakeDeps, call: IntakeCall, refusal: HttpResponse) {
  const where = { profileName: call.profileName, sourceIp: call.request.sourceIp };
  return throttledRefusal(deps.tokenGuesses, where, refusal, (error) =>
    deps.events?.throttleUnavailable?.(error),
  );
}

/** Records the request's leads and answers with what became of them. */
async function recordAndAnswer(
  call: IntakeCall,
  deps: IntakeDeps,
  leads: readonly LeadState[],
): Promise<HttpResponse> {
  const { records, erased } = await recordLeads(
    deps,
    call.profileName,
    leads,
    call.request.receivedAt,
  );
  const ids = records.map((record) => record.leadId);
  return answer(call, ids, outcomeWithDrops(records, erased));
}

/**
 * The source's success answer (a plain HTML form with a `redirectUrl`: 303 there), with the
 * CORS headers of an allowed origin.
 */
function answer(
  { profile, adapter, request }: IntakeCall,
  leadIds: readonly string[],
  outcome?: AcceptedOutcome,
): HttpResponse {
  if (profile.redirectUrl && profile.source === 'form' && isPlainHtmlForm(request)) {
    return { statusCode: 303, headers: { location: profile.redirectUrl }, body: '' };
  }
  return withCors(adapter.accepted(leadIds, outcome), request, profile);
}

function isPlainHtmlForm(request: IntakeRequest): boolean {
  return (
    request.contentType === 'application/x-www-form-urlencoded' ||
    request.contentType === 'multipart/form-data'
  );
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
    account: accountOfProfile(profile),
    dedupKey: captured.dedupKey,
    capture,
    status: 'parked',
    reason: `corpo ilegível: ${captured.problem}`,
  };
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

/**
 * Handles one `POST /api/v1/prospects` (`asked`: its `?upstream=`): the caller is admitted first,
 * so that the account its Prospect goes to can be its own (prospect-api.ts `prospectProfileFor`),
 * then the request goes to that account's `prospect` profile. Other methods go to the first
 * `prospect` profile, which answers them as any profile does.
 */
export async function handleProspectApi(
  asked: string | undefined,
  request: IntakeRequest,
  deps: IntakeDeps,
  invocation?: IntakeInvocation,
): Promise<HttpResponse> {
  if (request.method !== 'POST') {
    const first = await deps.config.profileNameFor('prospect', asked);
    return handleIntake(first ?? '', request, deps, invocation);
  }
  const call = { profileName: 'prospect-api', request };
  const caller = await admitProspectCaller(deps, request);
  if (!caller.ok) return refuse(deps, call, caller.result, caller.code);
  const chosen = await prospectProfileFor(deps, caller, asked);
  if (!chosen.ok) return refuse(deps, call, chosen.result, chosen.code);
  return handleIntake(chosen.name, request, deps, invocation, caller);
}
