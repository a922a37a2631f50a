/**
 * The delivery use case: `forwardLead(leadId)` takes one queued lead upstream, once. It runs for
 * every queue message (the SQS Lambda in handler.ts, the local worker in worker-local.ts) and
 * says what the caller should do with the message (settle.ts): `done` (delete it) or `retry`
 * after `delayMs`. No AWS imports: ports come in `deps`.
 *
 * One attempt is five named steps, each a conditional write on the lead (ledger/lead-ledger.ts):
 * 1. `claim`: a lease longer than everything this attempt may wait for. A final lead → done
 *    (never posted again); a lease held by another attempt → retry once it has run out. A lead
 *    found `sending` with an expired lease was left by an attempt that died mid-way: it is
 *    treated as an ambiguous POST.
 * 2. `complete`: a capture still `pending` (a webhook that carries ids only, such as Meta's) is
 *    completed by its source's `complete()` step (sources/source.ts); then it is mapped with the
 *    profile's CURRENT settings, so a parked lead replayed after a fix is mapped again; missing
 *    required fields → parked.
 * 3. `look up`: after an ambiguous POST, the prospect is looked up before posting again.
 * 4. `post`: through the upstream client and the pacer shared by every instance.
 * 5. `settle`: the upstream's answer (or the failure) becomes one ledger transition and an
 *    outcome:
 *
 * | answer                               | ledger                          | outcome                        |
 * |--------------------------------------|---------------------------------|--------------------------------|
 * | created                              | markDelivered(idProspect)       | done                           |
 * | 400-class `rejected`                 | markRejected(mensagens)         | done (never retried)           |
 * | 401/403 `unauthorized`               | release (not counted); the      | retry after authPauseMs        |
 * |                                      | shared pacer paused authPauseMs |                                |
 * | 429 `rate-limited`                   | release (not counted)           | retry after Retry-After        |
 * | `unavailable` (5xx, timeout, network)| release (counted), or markDead  | retry with backoff + full      |
 * |                                      | at maxAttempts                  | jitter; done when dead         |
 *
 * Only failures that say something about this lead's delivery count toward maxAttempts: a 401
 * (our key), a 429 (everyone's quota) or a paced-out wait would otherwise kill every lead in
 * flight during one incident. The queue's maxReceiveCount still bounds them (DLQ, alarmed).
 *
 * Ambiguous POST: a timeout, a network failure or a 5xx after the request may have reached the
 * upstream. The upstream may have created the prospect, so the lead records `ambiguousSince`
 * and the next attempt first calls `findProspects` (email + cellphone, registered since
 * ambiguousSince − lookupMarginMs). A match → delivered with its id, no second POST. No match →
 * POST. Lookup not permitted (401/403) → POST anyway (at-least-once) and say so in the log.
 *
 * Events carry lead ids, profiles, statuses, attempt numbers and error kinds, never personal
 * data and never the upstream's messages (they may quote what the person typed).
 */
import type { Profile } from '../config/config-schema.ts';
import type { ConfigSource } from '../config/config-source.ts';
import type { ExternalId } from '../domain/json.ts';
import type { LeadCapture } from '../domain/lead.ts';
import { LeadStateError, type LeadStatus } from '../domain/lead-lifecycle.ts';
import type { Prospect } from '../domain/prospect.ts';
import type { FailureDetails, LeadLedger, LeadRecord } from '../ledger/lead-ledger.ts';
import { adapterFor, mapCapture } from '../sources/registry.ts';
import { type CompletionContext, SourceLookupError } from '../sources/source.ts';
import type { UpstreamAccess } from '../upstream/paced-client.ts';
import { PacerWaitError } from '../upstream/pacer.ts';
import { type ProspectMatch, UpstreamError } from '../upstream/upstream-client.ts';

/**
 * `retry.counted`: whether this attempt counted against maxAttempts. A retry that was not counted
 * (401, 429, pacing, a lookup, a duplicate message) says nothing about the lead, so the caller
 * sends a fresh message with the delay instead of delaying this one (settle.ts): a long incident
 * then uses up no SQS receives and puts nothing in the dead-letter queue.
 */
export type ForwardOutcome =
  | { kind: 'done'; reason: string; delayMs?: undefined }
  | { kind: 'retry'; delayMs: number; reason: string; counted: boolean };

export type ForwardMetric =
  | 'LeadDelivered'
  | 'LeadRejected'
  | 'LeadRetried'
  | 'LeadDead'
  | 'LeadParked'
  | 'UpstreamAuthFailure';

/** One event per forwardLead call: ids, statuses and kinds only. */
export interface ForwardEvent {
  leadId: string;
  profile?: string;
  /** The lead's status after this attempt. */
  status?: LeadStatus;
  /** 1-based: failed attempts before this one + 1. */
  attempt?: number;
  outcome: ForwardOutcome['kind'];
  reason: string;
  delayMs?: number;
  /** The upstream / lookup error kind, when there was one. */
  errorKind?: string;
  /** HTTP status of that error, when the upstream answered. */
  errorStatus?: number;
  /** Anything worth a note (`lookup-not-permitted`, `found-by-lookup`). */
  note?: string;
  /** On a retry: seconds since the lead was received (the `LeadWaitingSeconds` metric). */
  waitingSeconds?: number;
}

/** Where delivery reports what it did (events.ts: logs and EMF metrics). */
export interface ForwardEvents {
  finished(event: ForwardEvent): void;
  metric(name: ForwardMetric): void;
  /** A prospect lookup after an ambiguous POST was not possible: the lead is posted again. */
  lookupSkipped(event: {
    leadId: string;
    profile: string;
    errorKind: string;
    errorStatus?: number;
  }): void;
  /** A transition was refused because another attempt took the lead (our lease ran out). */
  leaseLost(event: { leadId: string; transition: string; status: LeadStatus | undefined }): void;
}

export interface ForwardOptions {
  /** Counted failures before the lead is dead. Default 8. */
  maxAttempts?: number;
  /** Longest pacing wait an attempt accepts before handing the lead back. Default 5 000 ms. */
  maxPacingWaitMs?: number;
  /** Lease on the lead; default: lookup timeout + 2 × (upstream timeout + pacing wait) + 5 s. */
  leaseMs?: number;
  /** Pause after the upstream refused our key (401/403). Default 5 min. */
  authPauseMs?: number;
  /** Backoff after `unavailable`: full jitter over min(cap, base × 2^(n−1)). 2 s and 15 min. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Earliest retry after an ambiguous POST, so its effect can land before the lookup. 30 s. */
  ambiguousSettleMs?: number;
  /** How far before the ambiguous attempt the lookup searches. Default 60 s. */
  lookupMarginMs?: number;
  /** Retry delay when a 429 names no Retry-After. Default 1 s (production's window). */
  rateLimitFallbackMs?: number;
  /** A source lookup's (`complete()`) per-call timeout (sizes the lease). Default 10 s. */
  graphTimeoutMs?: number;
}

export interface ForwardDeps {
  ledger: LeadLedger;
  config: Pick<ConfigSource, 'profile'>;
  /** The upstream client and the shared pacer for the current upstream configuration. */
  upstream: () => Promise<UpstreamAccess>;
  /** What the sources' `complete()` steps use (their HTTP client). */
  lookups?: CompletionContext;
  events?: ForwardEvents;
  /** Called after the upstream refused the key (AwsConfigSource.refresh: re-read the secret). */
  onUnauthorized?: () => void;
  /** [0, 1); Math.random by default (jitter). */
  random?: () => number;
  options?: ForwardOptions;
}

export const DEFAULT_MAX_ATTEMPTS = 8;
export const DEFAULT_MAX_PACING_WAIT_MS = 5_000;
export const DEFAULT_AUTH_PAUSE_MS = 5 * 60_000;
export const DEFAULT_BACKOFF_BASE_MS = 2_000;
export const DEFAULT_BACKOFF_CAP_MS = 15 * 60_000;
export const DEFAULT_AMBIGUOUS_SETTLE_MS = 30_000;
export const DEFAULT_LOOKUP_MARGIN_MS = 60_000;
export const DEFAULT_LOOKUP_TIMEOUT_MS = 10_000;
const LEASE_MARGIN_MS = 5_000;
/** Spread of retries that all wait for the same moment (auth pause, Retry-After). */
const SPREAD_MS = 5_000;
/** Statuses a refused claim cannot change: the message is done. */
const SETTLED: ReadonlySet<LeadStatus> = new Set([
  'delivered',
  'rejected',
  'dead',
  'parked',
  'test',
]);

type ResolvedOptions = Required<Omit<ForwardOptions, 'leaseMs'>> & { leaseMs?: number };

function resolveOptions(options: ForwardOptions = {}): ResolvedOptions {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new RangeError('maxAttempts must be a whole number ≥ 1');
  }
  return {
    maxAttempts,
    maxPacingWaitMs: options.maxPacingWaitMs ?? DEFAULT_MAX_PACING_WAIT_MS,
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    authPauseMs: options.authPauseMs ?? DEFAULT_AUTH_PAUSE_MS,
    backoffBaseMs: options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
    backoffCapMs: options.backoffCapMs ?? DEFAULT_BACKOFF_CAP_MS,
    ambiguousSettleMs: options.ambiguousSettleMs ?? DEFAULT_AMBIGUOUS_SETTLE_MS,
    lookupMarginMs: options.lookupMarginMs ?? DEFAULT_LOOKUP_MARGIN_MS,
    rateLimitFallbackMs: options.rateLimitFallbackMs ?? 1_000,
    graphTimeoutMs: options.graphTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS,
  };
}

/** The lease an attempt takes: longer than all it may wait for. */
export function leaseMsFor(upstreamTimeoutMs: number, options: ForwardOptions = {}): number {
  const o = resolveOptions(options);
  return (
    o.leaseMs ?? o.graphTimeoutMs + 2 * (upstreamTimeoutMs + o.maxPacingWaitMs) + LEASE_MARGIN_MS
  );
}

/** Full jitter: uniform in [0, min(cap, base × 2^(attempt − 1))). */
export function backoffMs(attempt: number, random: () => number, base: number, cap: number) {
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** True when a failed POST may still have created the prospect upstream. */
export function isAmbiguousPost(error: UpstreamError): boolean {
  if (error.kind !== 'unavailable') return false;
  // The endpoint does not exist (a wrong base URL): nothing was created.
  if (error.status !== undefined && [404, 405, 410].includes(error.status)) return false;
  // The connection was never made: the request never left.
  const code = causeCode(error);
  return !(code && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code));
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

function digits(value: string | null | undefined): string {
  return (value ?? '').replace(/\D/g, '');
}

/** Same email (ignoring case) and same cellphone (digits; with or without the country code). */
export function matchesProspect(match: ProspectMatch, prospect: Prospect): boolean {
  const email = prospect.email?.trim().toLowerCase();
  if (!email || match.email?.trim().toLowerCase() !== email) return false;
  const wanted = digits(prospect.cellphone);
  const found = digits(match.cellphone);
  if (wanted.length < 8 || found.length < 8) return false;
  return wanted === found || wanted.endsWith(found) || found.endsWith(wanted);
}

function newestId(matches: readonly ProspectMatch[]): ExternalId | undefined {
  let best: ProspectMatch | undefined;
  for (const match of matches) {
    if (!best || BigInt(String(match.idProspect)) > BigInt(String(best.idProspect))) best = match;
  }
  return best?.idProspect;
}

const SILENT: ForwardEvents = {
  finished() {},
  metric() {},
  lookupSkipped() {},
  leaseLost() {},
};

// --- one attempt ----------------------------------------------------------------------------

/** What every step of one attempt shares. */
interface Attempt {
  leadId: string;
  deps: ForwardDeps;
  options: ResolvedOptions;
  events: ForwardEvents;
  random: () => number;
  now: () => Date;
  access: UpstreamAccess;
  /** The event this attempt reports when it finishes (filled in as it goes). */
  event: ForwardEvent;
}

/** The lead this attempt holds, once claimed. */
interface Held extends Attempt {
  lead: LeadRecord;
  /** Kept on every failure transition once set: the lead may exist upstream. */
  ambiguousSince: string | undefined;
}

/**
 * Sends one lead upstream (see the module comment). Throws only on infrastructure failures (the
 * ledger unreachable, the configuration unreadable): the caller leaves the message to come back
 * after its visibility timeout, by which time the lease has run out.
 */
export async function forwardLead(
  leadId: string,
  deps: ForwardDeps,
  now: () => Date = () => new Date(),
): Promise<ForwardOutcome> {
  const attempt: Attempt = {
    leadId,
    deps,
    options: resolveOptions(deps.options),
    events: deps.events ?? SILENT,
    random: deps.random ?? Math.random,
    now,
    access: await deps.upstream(),
    event: { leadId, outcome: 'done', reason: '' },
  };
  const claimed = await claim(attempt);
  if ('outcome' in claimed) return claimed.outcome;
  const held = claimed.held;
  try {
    const prepared = await complete(held);
    if ('outcome' in prepared) return prepared.outcome;
    if (held.ambiguousSince) {
      const found = await lookUp(held, prepared.prospect);
      if (found) return found;
    }
    return await post(held, prepared.prospect);
  } catch (error) {
    // The lease was lost to another attempt (ours ran too long): that attempt owns the lead now.
    if (error instanceof LeadStateError) {
      held.events.leaseLost({ leadId, transition: error.transition, status: error.status });
      return finish(held, { kind: 'done', reason: 'lease-lost' }, error.status);
    }
    throw error;
  } finally {
    await held.access.pacer.flush?.().catch(() => undefined);
  }
}

// --- 1. claim -------------------------------------------------------------------------------

/** Takes the lead's lease, or says why the message is done / must wait. */
async function claim(a: Attempt): Promise<{ held: Held } | { outcome: ForwardOutcome }> {
  const { ledger } = a.deps;
  // A read first: a final lead (the usual duplicate message) costs no write, and a lead left
  // `sending` by an attempt that died mid-way is recognised (its POST may have gone out).
  const before = await ledger.get(a.leadId);
  const settled = refusal(a, before);
  if (settled) return { outcome: settled };

  const leaseMs = leaseMsFor(a.access.timeoutMs, a.deps.options);
  const lead = await ledger.claim(a.leadId, leaseMs, a.now());
  if (!lead) {
    const current = await ledger.get(a.leadId);
    const final = refusal(a, current);
    if (final || !current) {
      return { outcome: final ?? finish(a, { kind: 'done', reason: 'unknown-lead' }) };
    }
    // Another attempt holds the lease (a duplicate message): come back when it has run out.
    const leaseLeft = current.leaseUntil ? Date.parse(current.leaseUntil) - a.now().getTime() : 0;
    const delayMs = Math.max(leaseLeft, 0) + 1_000;
    const outcome = { kind: 'retry', delayMs, reason: 'lease-held', counted: false } as const;
    return { outcome: finish(a, outcome, current.status, current) };
  }
  Object.assign(a.event, { profile: lead.profile, attempt: lead.attempts + 1 });
  // An attempt that was cut off while `sending` (a Lambda timeout, a crash, a worker stopped
  // mid-way) may have posted: treat it as ambiguous from its claim (its last transition).
  const interrupted = before?.status === 'sending' ? before.updatedAt : undefined;
  if (interrupted && !lead.ambiguousSince) a.event.note = 'previous-attempt-interrupted';
  return { held: { ...a, lead, ambiguousSince: lead.ambiguousSince ?? interrupted } };
}

/** Where the lead stands when no claim is possible; undefined while it can still be sent. */
function refusal(a: Attempt, current: LeadRecord | undefined): ForwardOutcome | undefined {
  if (!current) return finish(a, { kind: 'done', reason: 'unknown-lead' });
  Object.assign(a.event, { profile: current.profile, attempt: current.attempts });
  if (SETTLED.has(current.status)) {
    return finish(a, { kind: 'done', reason: `already-${current.status}` }, current.status);
  }
  return undefined;
}

// --- 2. complete ----------------------------------------------------------------------------

/** The prospect to send: the capture completed by its source if pending, then mapped. */
async function complete(h: Held): Promise<{ prospect: Prospect } | { outcome: ForwardOutcome }> {
  const profile = await h.deps.config.profile(h.lead.profile);
  if (!profile) {
    return {
      outcome: await park(h, `profile '${h.lead.profile}' is not configured`, 'no-profile'),
    };
  }
  let capture: LeadCapture = h.lead.capture;
  if (capture.pending) {
    const completed = await completeCapture(h, capture, profile);
    if ('outcome' in completed) return completed;
    capture = completed.capture;
    if (capture.isTest && !profile.deliverTestLeads) {
      const reason = `${adapterFor(profile).label} test lead: not delivered; set deliverTestLeads on the profile to deliver test leads`;
      return { outcome: await park(h, reason, 'test-lead') };
    }
  }
  const mapped = mapCapture(capture, profile);
  if (mapped.missing.length > 0) {
    const reason = `required fields missing: ${mapped.missing.join(', ')}`;
    return { outcome: await park(h, reason, 'missing-fields') };
  }
  return { prospect: mapped.prospect };
}

/** The source's `complete()` step (Meta's Graph lookup), its failures settled by kind. */
async function completeCapture(
  h: Held,
  pending: LeadCapture,
  profile: Profile,
): Promise<{ capture: LeadCapture } | { outcome: ForwardOutcome }> {
  const source = adapterFor(profile);
  if (!source.complete) {
    const reason = `the capture waits for a ${pending.pending?.kind} lookup, but profile '${h.lead.profile}' is a ${profile.source} profile`;
    return { outcome: await park(h, reason, 'pending-without-lookup') };
  }
  try {
    return { capture: await source.complete(pending, profile, h.deps.lookups ?? {}) };
  } catch (error) {
    if (!(error instanceof SourceLookupError)) throw error;
    const code = `${lookupPrefix(pending)}-${error.kind}`;
    h.event.errorKind = code;
    if (error.status !== undefined) h.event.errorStatus = error.status;
    switch (error.kind) {
      case 'rejected':
        return { outcome: await park(h, `${error.service}: ${error.message}`, code) };
      case 'unauthorized':
        // The platform token: an operator fixes it; the lead waits, counted against nothing.
        return {
          outcome: await holdBack(h, error.message, h.options.authPauseMs + spread(h), code),
        };
      case 'rate-limited':
        return {
          outcome: await holdBack(
            h,
            error.message,
            (error.retryAfterMs ?? 60_000) + spread(h),
            code,
          ),
        };
      case 'unavailable':
        return { outcome: await fail(h, error.message, code) };
    }
  }
}

/** `graph` for Meta's lookups (the codes operators and alarms know), else the pending kind. */
function lookupPrefix(capture: LeadCapture): string {
  const kind = capture.pending?.kind ?? 'lookup';
  return kind === 'meta-graph' ? 'graph' : kind;
}

// --- 3. look up -----------------------------------------------------------------------------

/**
 * After an ambiguous POST: the prospect registered since then, if the upstream has it (the lead
 * is then delivered with its id); undefined when the POST must be sent (again).
 */
async function lookUp(h: Held, prospect: Prospect): Promise<ForwardOutcome | undefined> {
  const since = new Date(Date.parse(h.ambiguousSince ?? '') - h.options.lookupMarginMs);
  try {
    const matches = await h.access.client.findProspects({
      ...(prospect.email ? { email: prospect.email } : {}),
      ...(prospect.cellphone ? { cellphone: prospect.cellphone } : {}),
      registeredSince: since,
    });
    const found = newestId(matches.filter((match) => matchesProspect(match, prospect)));
    if (found !== undefined) {
      h.event.note = 'found-by-lookup';
      return await delivered(h, found, 'delivered-by-lookup');
    }
    h.event.note = 'lookup-no-match';
    return undefined;
  } catch (error) {
    const paced = await pacerBusy(h, error);
    if (paced) return paced;
    if (!(error instanceof UpstreamError)) throw error;
    noteError(h, error);
    if (error.kind === 'rate-limited') return await rateLimited(h, error);
    if (error.kind === 'unavailable') {
      // Not counted: this lead may already exist upstream and only a lookup can tell, so a
      // failed lookup says nothing new about it and must not push it towards `dead`. The
      // queue's maxReceiveCount still bounds it (DLQ, alarmed, replayable), as for 429s.
      const delayMs = backoffMs(
        h.lead.attempts + 1,
        h.random,
        h.options.backoffBaseMs,
        h.options.backoffCapMs,
      );
      return await holdBack(h, error.message, delayMs, 'lookup-unavailable');
    }
    // unauthorized (the key may not read prospects) or rejected (the lookup's own query):
    // at-least-once wins, post anyway.
    h.event.note = `lookup-${error.kind}-posted-anyway`;
    delete h.event.errorKind;
    delete h.event.errorStatus;
    h.events.lookupSkipped({
      leadId: h.leadId,
      profile: h.lead.profile,
      errorKind: error.kind,
      ...(error.status !== undefined && { errorStatus: error.status }),
    });
    return undefined;
  }
}

// --- 4. post --------------------------------------------------------------------------------

async function post(h: Held, prospect: Prospect): Promise<ForwardOutcome> {
  const postStarted = h.now();
  try {
    const created = await h.access.client.createProspect(prospect);
    return await delivered(h, created.idProspect, 'delivered');
  } catch (error) {
    const paced = await pacerBusy(h, error);
    if (paced) return paced;
    if (!(error instanceof UpstreamError)) throw error;
    noteError(h, error);
    switch (error.kind) {
      case 'rejected': {
        const messages = error.messages.length > 0 ? error.messages : [error.message];
        await h.deps.ledger.markRejected(h.leadId, messages, h.now());
        h.events.metric('LeadRejected');
        return finish(h, { kind: 'done', reason: 'rejected' }, 'rejected');
      }
      case 'unauthorized': {
        // Our key (or its permission) is wrong: stop every instance for a while, keep the lead.
        h.access.pacer.pauseUntil(h.now().getTime() + h.options.authPauseMs);
        h.events.metric('UpstreamAuthFailure');
        h.deps.onUnauthorized?.();
        const delayMs = h.options.authPauseMs + spread(h);
        return await holdBack(h, error.message, delayMs, 'unauthorized');
      }
      case 'rate-limited':
        return await rateLimited(h, error);
      case 'unavailable': {
        const ambiguous = isAmbiguousPost(error);
        if (!h.ambiguousSince && ambiguous) h.ambiguousSince = postStarted.toISOString();
        if (ambiguous) h.event.note = 'ambiguous-post';
        const minDelayMs = h.ambiguousSince ? h.options.ambiguousSettleMs : 0;
        return await fail(
          h,
          error.message,
          ambiguous ? 'ambiguous-post' : 'unavailable',
          minDelayMs,
        );
      }
    }
  }
}

// --- 5. settle: one ledger transition, one outcome ------------------------------------------

function finish(
  a: Attempt,
  outcome: ForwardOutcome,
  status?: LeadStatus,
  lead?: Pick<LeadRecord, 'receivedAt'>,
): ForwardOutcome {
  const receivedMs = lead ? Date.parse(lead.receivedAt) : Number.NaN;
  Object.assign(a.event, {
    outcome: outcome.kind,
    reason: outcome.reason,
    ...(outcome.kind === 'retry' && { delayMs: outcome.delayMs }),
    ...(outcome.kind === 'retry' &&
      Number.isFinite(receivedMs) && {
        waitingSeconds: Math.max(0, Math.round((a.now().getTime() - receivedMs) / 1000)),
      }),
    ...(status && { status }),
  });
  a.events.finished(a.event);
  return outcome;
}

/** What a failure transition keeps: the ambiguity, once there is one. */
function kept(h: Held): FailureDetails {
  return h.ambiguousSince ? { ambiguousSince: h.ambiguousSince } : {};
}

async function delivered(h: Held, idProspect: ExternalId, reason: string) {
  await h.deps.ledger.markDelivered(h.leadId, idProspect, h.now());
  h.events.metric('LeadDelivered');
  return finish(h, { kind: 'done', reason }, 'delivered');
}

async function park(h: Held, reason: string, code: string): Promise<ForwardOutcome> {
  await h.deps.ledger.markParked(h.leadId, reason, h.now());
  h.events.metric('LeadParked');
  return finish(h, { kind: 'done', reason: code }, 'parked');
}

/** Retry without counting an attempt: the failure says nothing about this lead. */
async function holdBack(
  h: Held,
  error: string,
  delayMs: number,
  code: string,
): Promise<ForwardOutcome> {
  await h.deps.ledger.release(h.leadId, error, h.now(), { ...kept(h), countAttempt: false });
  h.events.metric('LeadRetried');
  const outcome = { kind: 'retry', delayMs: Math.ceil(delayMs), reason: code, counted: false };
  return finish(h, outcome as ForwardOutcome, 'queued', h.lead);
}

/** A counted failure: retry with backoff, or dead once maxAttempts is reached. */
async function fail(h: Held, error: string, code: string, minDelayMs = 0): Promise<ForwardOutcome> {
  const attempt = h.lead.attempts + 1;
  if (attempt >= h.options.maxAttempts) {
    await h.deps.ledger.markDead(h.leadId, error, h.now(), kept(h));
    h.events.metric('LeadDead');
    return finish(h, { kind: 'done', reason: `dead-after-${attempt}-attempts` }, 'dead');
  }
  await h.deps.ledger.release(h.leadId, error, h.now(), kept(h));
  h.events.metric('LeadRetried');
  const delayMs = Math.max(
    minDelayMs,
    backoffMs(attempt, h.random, h.options.backoffBaseMs, h.options.backoffCapMs),
  );
  return finish(h, { kind: 'retry', delayMs, reason: code, counted: true }, 'queued', h.lead);
}

/** The shared pacer refused a wait longer than maxPacingWaitMs: hand the lead back until then. */
async function pacerBusy(h: Held, error: unknown): Promise<ForwardOutcome | undefined> {
  if (!(error instanceof PacerWaitError)) return undefined;
  return holdBack(h, 'pacer: upstream paused', error.waitMs + spread(h), 'pacer-busy');
}

async function rateLimited(h: Held, error: UpstreamError): Promise<ForwardOutcome> {
  const delayMs =
    (error.retryAfterMs ?? h.options.rateLimitFallbackMs) + Math.floor(h.random() * 250);
  return holdBack(h, error.message, delayMs, 'rate-limited');
}

function noteError(h: Held, error: UpstreamError): void {
  h.event.errorKind = error.kind;
  if (error.status !== undefined) h.event.errorStatus = error.status;
}

function spread(a: Attempt): number {
  return Math.floor(a.random() * SPREAD_MS);
}
