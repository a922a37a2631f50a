/**
 * The delivery use case: `forwardLead(message)` moves one lead towards the upstream, once. It
 * runs for every queue message (the SQS Lambda in handler.ts, the local worker in
 * worker-local.ts) and says what to do with the message (settle.ts): `done` (delete it) or
 * `retry` (a fresh message for the lead's chain after `delayMs`). No AWS imports: ports come in
 * `deps`.
 *
 * The ledger is the truth and the queue only a wake-up (docs/operations.md, "The delivery
 * engine"): the lead records who holds it (a lease, fenced by its `version`), when its next
 * attempt is due and how many failures of its own it has had. A message for another version is
 * a no-op, so a redelivered lead never starts a second chain; a lead whose message was lost is
 * woken by the reconciler (reconcile.ts).
 *
 * One attempt is five named steps:
 * 1. `claim`: read the lead; a final one, or a message from another chain → done; not due yet →
 *    wait until it is; past the horizon → dead. The account's circuit (upstream/circuit.ts)
 *    decides whether anything may reach the upstream now (while it is open only the probe goes;
 *    the others wait, counted against nothing). Then a lease, fenced by the version.
 * 2. `complete`: a capture left `pending` (a webhook that carries ids only, such as Meta's) is
 *    completed by its source's `complete()` step and kept in the ledger; a platform's test lead
 *    then becomes `test`; mapped with the profile's current settings, an operator's correction
 *    laid over the result (missing fields → parked).
 * 3. `look up`: after an ambiguous POST, the prospect is looked up before posting again.
 * 4. `post`: through the upstream client and the account's shared pacer.
 * 5. `settle`: the answer becomes one ledger transition and an outcome:
 *
 * | answer                                   | ledger                               | circuit      |
 * |------------------------------------------|--------------------------------------|--------------|
 * | created                                  | delivered (idProspect)               | success      |
 * | 4xx `rejected` (the upstream's messages) | rejected, never retried              | success      |
 * | 401/403 `unauthorized`                   | waits for the probe, not counted     | opens now    |
 * | 429 `rate-limited`                       | waits exactly Retry-After, not counted | (the pacer pauses) |
 * | refused / DNS (never sent)               | waits, not counted                   | opens now    |
 * | 5xx, timeout, connection lost            | waits; counted only if the upstream served others since this lead last failed | failure (opens at the threshold) |
 *
 * A lead is dead only after maxAttempts failures of its own, or when it has waited longer than
 * the horizon (days; an alarm fires long before).
 *
 * Ambiguous POST: a timeout, a connection lost after sending, a 500/502/504: the upstream may
 * have created the prospect. The lead records `ambiguousSince`; the next attempt, seconds later,
 * looks the prospect up (email and phone, registered since ambiguousSince minus a margin that
 * covers any time zone the upstream may read dates in). A match → delivered with its id. No
 * match → post again, after a settling time when the first request may still be in progress (a
 * timeout). If the key may not read prospects, the profile decides: `ambiguous: "repost"` (the
 * default: at-least-once) or `"park"` (a person checks in the upstream first).
 *
 * Events carry lead ids, profiles, statuses, attempt numbers and error kinds, never personal
 * data and never the upstream's messages (they may quote what the person typed).
 */
import { accountOfProfile, type Profile } from '../../config/config-schema.ts';
import type { ConfigSource } from '../../config/config-source.ts';
import type { ExternalId } from '../../domain/json.ts';
import type { LeadCapture } from '../../domain/lead.ts';
import { applyCorrection } from '../../domain/lead-correction.ts';
import { LeadStateError, type LeadStatus } from '../../domain/lead-lifecycle.ts';
import { mapCapture } from '../../domain/map-capture.ts';
import type { Prospect } from '../../domain/prospect.ts';
import type { LeadLedger, LeadRecord, Release } from '../../ledger/lead-ledger.ts';
import type { LeadMessage } from '../../ledger/lead-queue.ts';
import { adapterFor, sourceLabel } from '../../sources/registry.ts';
import { type CompletionContext, SourceLookupError } from '../../sources/source.ts';
import type { Circuit } from '../../upstream/circuit.ts';
import type { UpstreamAccess } from '../../upstream/paced-client.ts';
import { PacerWaitError } from '../../upstream/pacer.ts';
import { type ProspectMatch, UpstreamError } from '../../upstream/upstream-client.ts';

export type ForwardOutcome =
  | { kind: 'done'; reason: string; delayMs?: undefined }
  /** Look at the lead again after `delayMs`, for its chain `version`. */
  | { kind: 'retry'; delayMs: number; reason: string; version: number };

export type ForwardMetric =
  | 'LeadDelivered'
  | 'LeadRejected'
  | 'LeadRetried'
  | 'LeadDead'
  | 'LeadParked'
  | 'LeadTest'
  | 'UpstreamAuthFailure'
  | 'UpstreamCircuitOpened'
  | 'UpstreamCircuitClosed'
  | 'UpstreamLookupForbidden';

/** One event per forwardLead call: ids, statuses and kinds only. */
export interface ForwardEvent {
  leadId: string;
  profile?: string;
  /** The lead's status after this attempt. */
  status?: LeadStatus;
  /** 1-based: this attempt's number since the lead was (re)queued. */
  attempt?: number;
  /** Failures counted against the lead so far. */
  counted?: number;
  outcome: ForwardOutcome['kind'];
  reason: string;
  delayMs?: number;
  /** The upstream / lookup error kind, when there was one. */
  errorKind?: string;
  /** HTTP status of that error, when the upstream answered. */
  errorStatus?: number;
  /** Anything worth a note (`probe`, `found-by-lookup`, `lookup-no-match`). */
  note?: string;
  /** On a retry: seconds since the lead was received (the `LeadWaitingSeconds` metric). */
  waitingSeconds?: number;
}

/** Where delivery reports what it did (events.ts: logs and EMF metrics). */
export interface ForwardEvents {
  finished(event: ForwardEvent): void;
  metric(name: ForwardMetric): void;
  /** A prospect lookup after an ambiguous POST was not possible. */
  lookupSkipped(event: {
    leadId: string;
    profile: string;
    errorKind: string;
    errorStatus?: number;
    outcome: 'posted-again' | 'parked';
  }): void;
  /** A transition was refused because another attempt took the lead (our lease ran out). */
  leaseLost(event: { leadId: string; transition: string; status: LeadStatus | undefined }): void;
  /** The circuit opened or closed (the attempt that made it). */
  circuitChanged(event: { state: 'open' | 'closed'; reason?: string; leadId: string }): void;
}

export interface ForwardOptions {
  /** Failures of a lead's own before it is dead. Default: the configuration's (8). */
  maxAttempts?: number;
  /** How long a lead may wait to be delivered before it is dead. Default: the configuration's. */
  horizonMs?: number;
  /** Longest pacing wait an attempt accepts before handing the lead back. Default 5 000 ms. */
  maxPacingWaitMs?: number;
  /** Lease on the lead; default: lookup timeout + 2 × (upstream timeout + pacing wait) + 5 s. */
  leaseMs?: number;
  /** Backoff after a lead's own failure: full jitter over min(cap, base × 2^(n−1)). 2 s, 15 min. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Wait after an ambiguous POST before looking the prospect up. Default 2 000 ms. */
  lookupDelayMs?: number;
  /**
   * After a POST that timed out (it may still be in progress upstream), how long after it the
   * last lookup comes before posting again. Default 20 000 ms.
   */
  settleMs?: number;
  /**
   * How far before the ambiguous attempt the lookup searches: it covers any time zone the
   * upstream may read `registerDateStart` in (UTC−12 … UTC+14). Default 15 hours.
   */
  lookupMarginMs?: number;
  /** Wait when a 429 names no Retry-After. Default 1 s (production's window). */
  rateLimitFallbackMs?: number;
  /** A source lookup's (`complete()`) per-call timeout (sizes the lease). Default 10 s. */
  lookupTimeoutMs?: number;
  /** Retries that wait for the same moment (a probe) are spread over this much. Default 5 s. */
  spreadMs?: number;
}

export interface ForwardDeps {
  ledger: LeadLedger;
  /** Profiles, and the configured delivery settings (maxAttempts, horizonHours). */
  config: Pick<ConfigSource, 'profile' | 'delivery' | 'accounts'>;
  /** An upstream account's client, shared pacer and circuit, as configured now. */
  upstream: (account: string) => Promise<UpstreamAccess & { circuit: Circuit }>;
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
export const DEFAULT_HORIZON_MS = 72 * 3_600_000;
export const DEFAULT_MAX_PACING_WAIT_MS = 5_000;
export const DEFAULT_BACKOFF_BASE_MS = 2_000;
export const DEFAULT_BACKOFF_CAP_MS = 15 * 60_000;
export const DEFAULT_LOOKUP_DELAY_MS = 2_000;
export const DEFAULT_SETTLE_MS = 20_000;
export const DEFAULT_LOOKUP_MARGIN_MS = 15 * 3_600_000;
export const DEFAULT_LOOKUP_TIMEOUT_MS = 10_000;
const LEASE_MARGIN_MS = 5_000;
/** Statuses nothing but an operator changes: a message for them is done. */
const SETTLED: ReadonlySet<LeadStatus> = new Set([
  'delivered',
  'rejected',
  'dead',
  'parked',
  'test',
]);
/** Connection errors that mean the request never left: nothing can have been created. */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);
/** HTTP statuses after which the upstream may have created the prospect. */
const AMBIGUOUS_STATUSES = new Set([500, 502, 504]);

type ResolvedOptions = Required<Omit<ForwardOptions, 'leaseMs'>> & { leaseMs?: number };

function resolveOptions(options: ForwardOptions = {}): ResolvedOptions {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new RangeError('maxAttempts must be a whole number ≥ 1');
  }
  return {
    maxAttempts,
    horizonMs: options.horizonMs ?? DEFAULT_HORIZON_MS,
    maxPacingWaitMs: options.maxPacingWaitMs ?? DEFAULT_MAX_PACING_WAIT_MS,
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    backoffBaseMs: options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
    backoffCapMs: options.backoffCapMs ?? DEFAULT_BACKOFF_CAP_MS,
    lookupDelayMs: options.lookupDelayMs ?? DEFAULT_LOOKUP_DELAY_MS,
    settleMs: options.settleMs ?? DEFAULT_SETTLE_MS,
    lookupMarginMs: options.lookupMarginMs ?? DEFAULT_LOOKUP_MARGIN_MS,
    rateLimitFallbackMs: options.rateLimitFallbackMs ?? 1_000,
    lookupTimeoutMs: options.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS,
    spreadMs: options.spreadMs ?? 5_000,
  };
}

/** The lease an attempt takes: longer than all it may wait for. */
export function leaseMsFor(upstreamTimeoutMs: number, options: ForwardOptions = {}): number {
  const o = resolveOptions(options);
  return (
    o.leaseMs ?? o.lookupTimeoutMs + 2 * (upstreamTimeoutMs + o.maxPacingWaitMs) + LEASE_MARGIN_MS
  );
}

/** Full jitter: uniform in [0, min(cap, base × 2^(attempt − 1))). */
export function backoffMs(attempt: number, random: () => number, base: number, cap: number) {
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
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

/** What an `unavailable` POST says: did the request leave, may it have taken effect? */
export function classifyUnavailable(error: UpstreamError): {
  /** The request never reached the upstream (refused, DNS). */
  neverSent: boolean;
  /** The upstream may have created the prospect. */
  ambiguous: boolean;
  /** ...and may still be doing so (a timeout, a connection lost mid-way): let it settle. */
  settle: boolean;
} {
  const code = causeCode(error);
  if (code !== undefined && NEVER_SENT.has(code)) {
    return { neverSent: true, ambiguous: false, settle: false };
  }
  if (error.status !== undefined) {
    // 2xx without an id: created, id unknown. 500/502/504: the request may have been processed.
    const created = error.status >= 200 && error.status < 300;
    const ambiguous = created || AMBIGUOUS_STATUSES.has(error.status);
    return { neverSent: false, ambiguous, settle: false };
  }
  // No answer at all after the request left: a timeout or a lost connection.
  return { neverSent: false, ambiguous: true, settle: true };
}

/** True when a failed POST may still have created the prospect upstream. */
export function isAmbiguousPost(error: UpstreamError): boolean {
  return error.kind === 'unavailable' && classifyUnavailable(error).ambiguous;
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
  circuitChanged() {},
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
  /** The event this attempt reports when it finishes (filled in as it goes). */
  event: ForwardEvent;
}

/** The lead this attempt holds, once claimed. */
interface Held extends Attempt {
  /** The upstream account of the lead's profile: its client, pacer and circuit. */
  access: UpstreamAccess & { circuit: Circuit };
  /** The lead as claimed: `version` is this attempt's chain. */
  lead: LeadRecord;
  /** This attempt is the circuit's probe. */
  probe: boolean;
  profile: Profile;
}

/**
 * Moves one lead on (see the module comment). Throws only on infrastructure failures (the
 * ledger unreachable, the configuration unreadable): the caller leaves the message to come back
 * after its visibility timeout, and the reconciler wakes the lead if it does not.
 */
export async function forwardLead(
  message: LeadMessage,
  deps: ForwardDeps,
  now: () => Date = () => new Date(),
): Promise<ForwardOutcome> {
  const configured = await deps.config.delivery();
  const attempt: Attempt = {
    leadId: message.leadId,
    deps,
    options: resolveOptions({
      maxAttempts: configured.maxAttempts,
      horizonMs: configured.horizonHours * 3_600_000,
      ...deps.options,
    }),
    events: deps.events ?? SILENT,
    random: deps.random ?? Math.random,
    now,
    event: { leadId: message.leadId, outcome: 'done', reason: '' },
  };
  const claimed = await claim(attempt, message);
  if ('outcome' in claimed) return claimed.outcome;
  const held = claimed.held;
  try {
    const prepared = await complete(held);
    if ('outcome' in prepared) return prepared.outcome;
    if (held.lead.ambiguousSince) {
      const looked = await lookUp(held, prepared.prospect);
      if (looked) return looked;
    }
    return await post(held, prepared.prospect);
  } catch (error) {
    // The lease was lost to another attempt (ours ran too long): that attempt owns the lead now.
    if (error instanceof LeadStateError) {
      held.events.leaseLost({
        leadId: held.leadId,
        transition: error.transition,
        status: error.status,
      });
      return finish(held, { kind: 'done', reason: 'lease-lost' }, error.status);
    }
    throw error;
  } finally {
    await held.access.pacer.flush?.().catch(() => undefined);
  }
}

// --- 1. claim -------------------------------------------------------------------------------

/** Takes the lead for this attempt, or says why the message is done / must wait. */
async function claim(
  a: Attempt,
  message: LeadMessage,
): Promise<{ held: Held } | { outcome: ForwardOutcome }> {
  const { ledger } = a.deps;
  const lead = await ledger.get(a.leadId);
  if (!lead) return { outcome: finish(a, { kind: 'done', reason: 'unknown-lead' }) };
  Object.assign(a.event, { profile: lead.profile, counted: lead.attempts });
  if (SETTLED.has(lead.status)) {
    return { outcome: finish(a, { kind: 'done', reason: `already-${lead.status}` }, lead.status) };
  }
  // A message from another chain (a duplicate, a redelivery of an old one): the lead's own
  // chain carries on without it. The exception is the message that started the attempt holding
  // the lead now (claiming moved the version on): handed back by a stopping worker, or back
  // after its visibility timeout because the attempt died, it carries the chain on once the
  // lease is over.
  const startedTheAttempt = lead.status === 'sending' && message.version === lead.version - 1;
  if (message.version !== undefined && message.version !== lead.version && !startedTheAttempt) {
    return { outcome: finish(a, { kind: 'done', reason: 'stale-message' }, lead.status) };
  }
  const nowMs = a.now().getTime();
  if (nowMs - Date.parse(lead.queuedAt) > a.options.horizonMs) {
    const hours = Math.round(a.options.horizonMs / 3_600_000);
    const error = `not delivered within the delivery horizon (${hours} h); last error: ${lead.lastError ?? 'none'}`;
    await ledger.markDead(a.leadId, lead.version, error, a.now());
    a.events.metric('LeadDead');
    return { outcome: finish(a, { kind: 'done', reason: 'dead-past-horizon' }, 'dead') };
  }
  const dueAt = lead.status === 'queued' ? lead.nextAttemptAt : lead.leaseUntil;
  const waitMs = dueAt ? Date.parse(dueAt) - nowMs : 0;
  if (waitMs > 0) {
    // Early (SQS delays at most 15 minutes), or another attempt holds a live lease.
    const reason = lead.status === 'queued' ? 'not-due-yet' : 'lease-held';
    return { outcome: wait(a, lead, waitMs + (lead.status === 'sending' ? 1_000 : 0), reason) };
  }

  // The lead's account (its profile's; `default` for a profile no longer configured, which is
  // parked below) decides whose circuit, pacer and credentials this attempt uses.
  const profile = await a.deps.config.profile(lead.profile);
  const access = await a.deps.upstream(accountOfProfile(profile ?? {}));
  const gate = await access.circuit.gate(nowMs);
  if (gate.kind === 'open') {
    a.event.note = 'circuit-open';
    return { outcome: wait(a, lead, gate.retryAt - nowMs + spread(a), 'circuit-open') };
  }

  const leaseMs = leaseMsFor(access.timeoutMs, a.deps.options);
  const claimed = await ledger.claim(a.leadId, lead.version, leaseMs, a.now());
  if (!claimed) {
    // Someone else moved it between our read and our claim: their chain owns it.
    return { outcome: finish(a, { kind: 'done', reason: 'claimed-elsewhere' }, lead.status) };
  }
  Object.assign(a.event, { attempt: claimed.tries });
  if (gate.kind === 'probe') a.event.note = 'probe';
  if (lead.status === 'sending' && !claimed.ambiguousSince) {
    // The previous attempt died holding the lead: its POST may have gone out.
    a.event.note = 'previous-attempt-interrupted';
    claimed.ambiguousSince = lead.updatedAt;
    claimed.ambiguousSettle = true;
  }
  if (!profile) {
    const reason = `profile '${lead.profile}' is not configured`;
    await ledger.markParked(a.leadId, claimed.version, reason, a.now());
    a.events.metric('LeadParked');
    return { outcome: finish(a, { kind: 'done', reason: 'no-profile' }, 'parked') };
  }
  return { held: { ...a, access, lead: claimed, probe: gate.kind === 'probe', profile } };
}

/** Look at the lead again later, without touching the ledger (its chain is unchanged). */
function wait(a: Attempt, lead: LeadRecord, delayMs: number, reason: string): ForwardOutcome {
  const outcome = { kind: 'retry', delayMs: Math.max(0, Math.ceil(delayMs)), reason } as const;
  return finish(a, { ...outcome, version: lead.version }, lead.status, lead);
}

// --- 2. complete ----------------------------------------------------------------------------

/** The prospect to send: the capture completed by its source if pending, then mapped. */
async function complete(h: Held): Promise<{ prospect: Prospect } | { outcome: ForwardOutcome }> {
  let capture: LeadCapture = h.lead.capture;
  const wasPending = capture.pending !== undefined;
  if (capture.pending) {
    const completed = await completeCapture(h, capture);
    if ('outcome' in completed) return completed;
    capture = completed.capture;
  }
  // An operator's correction is laid over the mapping, so it always wins over the profile's
  // current settings while everything it does not touch follows them (lead-correction.ts).
  const mapped = applyCorrection(
    mapCapture(capture, h.profile, sourceLabel(capture.source)),
    h.lead.correction,
  );
  // What the person sent (the platform's answers once looked up) and the Prospect they make
  // are kept, so that an operator can read and fix them.
  if (wasPending || JSON.stringify(mapped.prospect) !== JSON.stringify(h.lead.prospect)) {
    await h.deps.ledger.saveMapping(
      h.leadId,
      h.lead.version,
      { ...(wasPending && { capture }), prospect: mapped.prospect },
      h.now(),
    );
  }
  if (capture.isTest && !h.profile.deliverTestLeads) {
    const label = adapterFor(h.profile).label;
    const reason = `${label} test lead: kept, not delivered (set deliverTestLeads on the profile to deliver test leads)`;
    await h.deps.ledger.markTest(h.leadId, h.lead.version, reason, h.now());
    h.events.metric('LeadTest');
    return { outcome: finish(h, { kind: 'done', reason: 'test-lead' }, 'test') };
  }
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
): Promise<{ capture: LeadCapture } | { outcome: ForwardOutcome }> {
  const source = adapterFor(h.profile);
  if (!source.complete) {
    const reason = `the capture waits for a ${pending.pending?.kind} lookup, but profile '${h.lead.profile}' is a ${h.profile.source} profile`;
    return { outcome: await park(h, reason, 'pending-without-lookup') };
  }
  try {
    return { capture: await source.complete(pending, h.profile, h.deps.lookups ?? {}) };
  } catch (error) {
    if (!(error instanceof SourceLookupError)) throw error;
    const code = `${lookupPrefix(pending)}-${error.kind}`;
    h.event.errorKind = code;
    if (error.status !== undefined) h.event.errorStatus = error.status;
    switch (error.kind) {
      case 'rejected':
        return { outcome: await park(h, `${error.service}: ${error.message}`, code) };
      case 'unauthorized':
        // The platform's token: an operator fixes it; the lead waits, counted against nothing.
        return {
          outcome: await release(h, code, {
            error: error.message,
            delayMs: 5 * 60_000 + spread(h),
            counted: false,
            failed: true,
          }),
        };
      case 'rate-limited':
        return {
          outcome: await release(h, code, {
            error: error.message,
            delayMs: (error.retryAfterMs ?? 60_000) + spread(h),
            counted: false,
            failed: true,
          }),
        };
      case 'unavailable':
        return { outcome: await failed(h, error.message, code, false) };
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
 * After an ambiguous POST: delivered when the upstream has the prospect; a wait when the first
 * request may still land; undefined when the POST must be sent (again).
 */
async function lookUp(h: Held, prospect: Prospect): Promise<ForwardOutcome | undefined> {
  const since = Date.parse(h.lead.ambiguousSince ?? '');
  try {
    const matches = await h.access.client.findProspects({
      ...(prospect.email ? { email: prospect.email } : {}),
      ...(prospect.cellphone ? { cellphone: prospect.cellphone } : {}),
      registeredSince: new Date(since - h.options.lookupMarginMs),
    });
    const found = newestId(matches.filter((match) => matchesProspect(match, prospect)));
    if (found !== undefined) {
      h.event.note = 'found-by-lookup';
      return await delivered(h, found, 'delivered-by-lookup');
    }
    h.event.note = 'lookup-no-match';
    const settled = since + h.options.settleMs;
    if (h.lead.ambiguousSettle && h.now().getTime() < settled) {
      // A timed-out request may still be creating it: look once more when it must have landed.
      return await release(h, 'lookup-settling', {
        error: 'ambiguous POST: looking up again before posting',
        until: new Date(settled),
        counted: false,
        failed: false,
      });
    }
    return undefined;
  } catch (error) {
    const paced = await pacerBusy(h, error);
    if (paced) return paced;
    if (!(error instanceof UpstreamError)) throw error;
    noteError(h, error);
    if (error.kind === 'rate-limited') return await rateLimited(h, error);
    if (error.kind === 'unavailable') return await accountFailure(h, error, 'lookup-unavailable');
    // unauthorized (the key may not read prospects) or rejected (the lookup's own query).
    h.events.metric('UpstreamLookupForbidden');
    const parks = h.profile.ambiguous === 'park';
    h.events.lookupSkipped({
      leadId: h.leadId,
      profile: h.lead.profile,
      errorKind: error.kind,
      ...(error.status !== undefined && { errorStatus: error.status }),
      outcome: parks ? 'parked' : 'posted-again',
    });
    if (parks) {
      const reason =
        'the upstream may already have this prospect (an earlier attempt got no answer), and the key may not look prospects up: check in the upstream, then retry or mark it delivered';
      return await park(h, reason, 'ambiguous-parked');
    }
    h.event.note = `lookup-${error.kind}-posted-anyway`;
    delete h.event.errorKind;
    delete h.event.errorStatus;
    return undefined;
  }
}

// --- 4. post --------------------------------------------------------------------------------

async function post(h: Held, prospect: Prospect): Promise<ForwardOutcome> {
  const postStarted = h.now();
  try {
    const created = await h.access.client.createProspect(prospect);
    await upstreamAnswered(h);
    return await delivered(h, created.idProspect, 'delivered');
  } catch (error) {
    const paced = await pacerBusy(h, error);
    if (paced) return paced;
    if (!(error instanceof UpstreamError)) throw error;
    noteError(h, error);
    switch (error.kind) {
      case 'rejected': {
        await upstreamAnswered(h);
        const messages = error.messages.length > 0 ? error.messages : [error.message];
        await h.deps.ledger.markRejected(h.leadId, h.lead.version, messages, h.now());
        h.events.metric('LeadRejected');
        return finish(h, { kind: 'done', reason: 'rejected' }, 'rejected');
      }
      case 'unauthorized':
        // Our key (or its permission): every lead fails the same way until someone fixes it.
        h.events.metric('UpstreamAuthFailure');
        h.deps.onUnauthorized?.();
        return await accountFailure(h, error, 'unauthorized', { immediate: true });
      case 'rate-limited':
        return await rateLimited(h, error);
      case 'unavailable': {
        const what = classifyUnavailable(error);
        if (what.ambiguous) {
          h.event.note = 'ambiguous-post';
          h.lead.ambiguousSince ??= postStarted.toISOString();
          h.lead.ambiguousSettle = what.settle || h.lead.ambiguousSettle === true;
        }
        return await accountFailure(h, error, what.ambiguous ? 'ambiguous-post' : 'unavailable', {
          immediate: what.neverSent,
        });
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

async function delivered(h: Held, idProspect: ExternalId, reason: string) {
  await h.deps.ledger.markDelivered(h.leadId, idProspect, h.now());
  h.events.metric('LeadDelivered');
  return finish(h, { kind: 'done', reason }, 'delivered');
}

async function park(h: Held, reason: string, code: string): Promise<ForwardOutcome> {
  await h.deps.ledger.markParked(h.leadId, h.lead.version, reason, h.now());
  h.events.metric('LeadParked');
  return finish(h, { kind: 'done', reason: code }, 'parked');
}

/** Back to queued for `delayMs` (or `until` a moment); the message comes back then. */
async function release(
  h: Held,
  code: string,
  {
    delayMs,
    until,
    ...details
  }: Omit<Release, 'ambiguousSince' | 'ambiguousSettle' | 'nextAttemptAt'> &
    ({ delayMs: number; until?: undefined } | { until: Date; delayMs?: undefined }),
): Promise<ForwardOutcome> {
  const now = h.now();
  const nextAttemptAt = until ?? new Date(now.getTime() + Math.max(0, delayMs ?? 0));
  const released = await h.deps.ledger.release(
    h.leadId,
    h.lead.version,
    {
      ...details,
      nextAttemptAt,
      ...(h.lead.ambiguousSince !== undefined && {
        ambiguousSince: h.lead.ambiguousSince,
        ambiguousSettle: h.lead.ambiguousSettle === true,
      }),
    },
    now,
  );
  h.events.metric('LeadRetried');
  h.event.counted = released.attempts;
  return finish(
    h,
    {
      kind: 'retry',
      delayMs: Math.max(0, nextAttemptAt.getTime() - now.getTime()),
      reason: code,
      version: released.version,
    },
    'queued',
    h.lead,
  );
}

/**
 * A failure that is the lead's own only if the upstream kept serving other leads since this one
 * last failed: counted then (dead at maxAttempts), else not. Waits with backoff.
 */
async function failed(
  h: Held,
  error: string,
  code: string,
  counted: boolean,
  minDelayMs = 0,
): Promise<ForwardOutcome> {
  const attempts = h.lead.attempts + (counted ? 1 : 0);
  if (counted && attempts >= h.options.maxAttempts) {
    await h.deps.ledger.markDead(h.leadId, h.lead.version, error, h.now(), { counted: true });
    h.events.metric('LeadDead');
    h.event.counted = attempts;
    return finish(h, { kind: 'done', reason: `dead-after-${attempts}-failures` }, 'dead');
  }
  const delayMs = Math.max(
    minDelayMs,
    backoffMs(Math.max(1, attempts), h.random, h.options.backoffBaseMs, h.options.backoffCapMs),
  );
  return release(h, code, {
    error,
    delayMs,
    counted,
    failed: true,
  });
}

/**
 * A failure that says nothing about the lead (the upstream down, our key refused): recorded on
 * the account's circuit; the lead waits for the circuit when it opened, else retries soon.
 */
async function accountFailure(
  h: Held,
  error: UpstreamError,
  code: string,
  options: { immediate?: boolean } = {},
): Promise<ForwardOutcome> {
  const nowMs = h.now().getTime();
  const { before, after } = await h.access.circuit.failed(nowMs, {
    immediate: options.immediate === true,
    reason: error.status === undefined ? error.kind : `${error.kind} ${error.status}`,
    probe: h.probe,
  });
  if (before.state === 'closed' && after.state === 'open') {
    h.events.metric('UpstreamCircuitOpened');
    h.events.circuitChanged({ state: 'open', reason: after.reason ?? code, leadId: h.leadId });
  }
  if (after.state === 'open') {
    // Everyone waits for the probe; nothing about this lead was learnt.
    return release(h, code, {
      error: error.message,
      delayMs: (after.probeAt ?? nowMs) - nowMs + spread(h),
      counted: false,
      failed: true,
    });
  }
  // The circuit is closed: the upstream answers others. A repeated failure while it does is
  // this lead's own.
  const lastFailure = h.lead.lastFailureAt ? Date.parse(h.lead.lastFailureAt) : undefined;
  const counted =
    code !== 'lookup-unavailable' &&
    lastFailure !== undefined &&
    before.lastSuccessAt !== undefined &&
    before.lastSuccessAt > lastFailure;
  const minDelayMs = h.lead.ambiguousSince ? h.options.lookupDelayMs : 0;
  return failed(h, error.message, code, counted, minDelayMs);
}

/** The upstream answered a POST (created or refused it): the circuit closes if it was open. */
async function upstreamAnswered(h: Held): Promise<void> {
  const { before, after } = await h.access.circuit.succeeded(h.now().getTime());
  if (before.state === 'open' && after.state === 'closed') {
    h.events.metric('UpstreamCircuitClosed');
    h.events.circuitChanged({ state: 'closed', leadId: h.leadId });
  }
}

/** The shared pacer refused a wait longer than maxPacingWaitMs: hand the lead back until then. */
async function pacerBusy(h: Held, error: unknown): Promise<ForwardOutcome | undefined> {
  if (!(error instanceof PacerWaitError)) return undefined;
  return release(h, 'pacer-busy', {
    error: 'waiting for the upstream pacer',
    delayMs: error.waitMs,
    counted: false,
    failed: false,
  });
}

/** A 429: the pacer is paused for everyone; this lead waits exactly Retry-After, in its place. */
async function rateLimited(h: Held, error: UpstreamError): Promise<ForwardOutcome> {
  const waitMs = error.retryAfterMs ?? h.options.rateLimitFallbackMs;
  return release(h, 'rate-limited', {
    error: error.message,
    delayMs: waitMs,
    counted: false,
    failed: false,
  });
}

function noteError(h: Held, error: UpstreamError): void {
  h.event.errorKind = error.kind;
  if (error.status !== undefined) h.event.errorStatus = error.status;
}

function spread(a: Attempt): number {
  return Math.floor(a.random() * a.options.spreadMs);
}

// --- exactly-once made visible ----------------------------------------------------------------

/** Whether the upstream key may look prospects up (what resolves an ambiguous POST). */
export type LookupPermission = 'permitted' | 'forbidden' | 'unknown';

/**
 * Asks the upstream for a prospect that cannot exist: an answer (even empty) means the key may
 * look prospects up; 401/403 means it may not, so an ambiguous POST cannot be checked and a
 * crash at the wrong moment can create a duplicate (docs/operations.md). `unknown` when the
 * upstream did not answer.
 */
export async function checkLookupPermission(
  client: UpstreamAccess['client'],
  now: Date = new Date(),
): Promise<LookupPermission> {
  try {
    await client.findProspects({
      email: 'lookup-permission-check@invalid.invalid',
      registeredSince: now,
    });
    return 'permitted';
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === 'unauthorized') return 'forbidden';
    return 'unknown';
  }
}
