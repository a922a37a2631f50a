/**
 * Step 5 of an attempt, `conclude`: every way an attempt ends is one ledger transition and one
 * outcome for the queue consumer, reported once (`finish`): delivered, parked, released for a
 * later attempt (`release`; `failed` adds the backoff of a lead's own failure), a failure that
 * is the account's rather than the lead's (`accountFailure`, on the circuit), the circuit
 * closing when the upstream answers, the shared pacer busy, a 429. The table in forward.ts says
 * which answer becomes which.
 */
import type { ExternalId } from '../../domain/json.ts';
import type { LeadStatus } from '../../domain/lead-lifecycle.ts';
import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import { METRICS } from '../../kernel/metrics.ts';
import type { LeadRecord, Release } from '../../ledger/lead-ledger.ts';
import { PacerWaitError } from '../../upstream/pacer.ts';
import type { UpstreamError } from '../../upstream/upstream-errors.ts';
import { CARRIER_MARGIN_MS, circuitWaitNote, wakeWaiting } from '../waiting.ts';
import { type Attempt, backoffMs, type ForwardOutcome, type Held } from './attempt.ts';

export function finish(
  attempt: Attempt,
  outcome: ForwardOutcome,
  status?: LeadStatus,
  lead?: Pick<LeadRecord, 'receivedAt'>,
): ForwardOutcome {
  const receivedMs = lead ? Date.parse(lead.receivedAt) : Number.NaN;
  Object.assign(attempt.event, {
    outcome: outcome.kind,
    reason: outcome.reason,
    ...(outcome.kind === 'retry' && { delayMs: outcome.delayMs }),
    ...(outcome.kind === 'retry' &&
      Number.isFinite(receivedMs) && {
        waitingSeconds: Math.max(0, Math.round((attempt.now().getTime() - receivedMs) / 1000)),
      }),
    ...(status && { status }),
  });
  attempt.events.finished(attempt.event);
  return outcome;
}

export async function delivered(held: Held, idProspect: ExternalId, reason: string) {
  await held.deps.ledger.markDelivered(held.leadId, idProspect, held.now());
  held.events.metric(METRICS.leadDelivered);
  return finish(held, { kind: 'done', reason }, 'delivered');
}

export async function park(held: Held, reason: string, code: string): Promise<ForwardOutcome> {
  await held.deps.ledger.markParked(held.leadId, held.lead.version, reason, held.now());
  held.events.metric(METRICS.leadParked);
  return finish(held, { kind: 'done', reason: code }, 'parked');
}

/** What `release` is told: why, and until when. */
type ReleaseDetails = Omit<Release, 'ambiguousSince' | 'ambiguousSettle' | 'nextAttemptAt'> &
  ({ delayMs: number; until?: undefined } | { until: Date; delayMs?: undefined });

/** Back to queued for `delayMs` (or `until` a moment); the message comes back then. */
export async function release(
  held: Held,
  code: string,
  details: ReleaseDetails,
): Promise<ForwardOutcome> {
  return finish(held, await releaseLead(held, code, details), 'queued', held.lead);
}

/** `release`'s ledger transition and outcome, not yet reported. */
async function releaseLead(
  held: Held,
  code: string,
  { delayMs, until, ...details }: ReleaseDetails,
): Promise<ForwardOutcome & { kind: 'retry' }> {
  const now = held.now();
  const nextAttemptAt = until ?? new Date(now.getTime() + Math.max(0, delayMs ?? 0));
  const released = await held.deps.ledger.release(
    held.leadId,
    held.lead.version,
    {
      ...details,
      nextAttemptAt,
      ...(held.lead.ambiguousSince !== undefined && {
        ambiguousSince: held.lead.ambiguousSince,
        ambiguousSettle: held.lead.ambiguousSettle === true,
      }),
    },
    now,
  );
  held.events.metric(METRICS.leadRetried);
  held.event.counted = released.attempts;
  return {
    kind: 'retry',
    delayMs: Math.max(0, nextAttemptAt.getTime() - now.getTime()),
    reason: code,
    version: released.version,
    ...(held.account !== undefined && { account: held.account }),
  };
}

/**
 * A failure that is the lead's own only if the upstream kept serving other leads since this one
 * last failed: counted then (dead at maxAttempts), else not. Waits with backoff.
 */
export async function failed(
  held: Held,
  error: string,
  code: string,
  counted: boolean,
  minDelayMs = 0,
): Promise<ForwardOutcome> {
  const attempts = held.lead.attempts + (counted ? 1 : 0);
  if (counted && attempts >= held.options.maxAttempts) {
    await held.deps.ledger.markDead(held.leadId, held.lead.version, error, held.now(), {
      counted: true,
    });
    held.events.metric(METRICS.leadDead);
    held.event.counted = attempts;
    return finish(held, { kind: 'done', reason: `dead-after-${attempts}-failures` }, 'dead');
  }
  const delayMs = Math.max(
    minDelayMs,
    backoffMs(
      Math.max(1, attempts),
      held.random,
      held.options.backoffBaseMs,
      held.options.backoffCapMs,
    ),
  );
  return release(held, code, {
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
export async function accountFailure(
  held: Held,
  error: UpstreamError,
  code: string,
  options: { immediate?: boolean } = {},
): Promise<ForwardOutcome> {
  const nowMs = held.now().getTime();
  const { before, after } = await held.access.circuit.failed(nowMs, {
    immediate: options.immediate === true,
    reason: error.status === undefined ? error.kind : `${error.kind} ${error.status}`,
    probe: held.probe,
  });
  if (before.state === 'closed' && after.state === 'open') {
    held.events.metric(METRICS.upstreamCircuitOpened);
    held.events.circuitChanged({
      state: 'open',
      reason: after.reason ?? code,
      leadId: held.leadId,
    });
  }
  if (after.state === 'open') {
    // Everyone waits for the probe; nothing about this lead was learnt. One lead carries the
    // probe with a message; any other waits in the ledger with none (delivery/waiting.ts).
    const probeAt = (after.probeAt ?? nowMs) + spread(held);
    const carries = await held.access.circuit.carry(
      nowMs,
      held.leadId,
      probeAt + CARRIER_MARGIN_MS,
    );
    const released = await releaseLead(held, code, {
      error: error.message,
      delayMs: probeAt - nowMs,
      counted: false,
      failed: true,
    });
    const account = held.account ?? DEFAULT_ACCOUNT;
    const waiting =
      !carries &&
      (await held.deps.ledger.waitFor(held.leadId, released.version, {
        circuit: account,
        recheckAt: new Date(nowMs + held.options.circuitRecheckMs),
        note: circuitWaitNote(account),
        now: held.now(),
      }));
    if (waiting) return finish(held, { kind: 'done', reason: 'circuit-wait' }, 'queued', held.lead);
    return finish(held, released, 'queued', held.lead);
  }
  // The circuit is closed: the upstream answers others. A repeated failure while it does is
  // this lead's own.
  const lastFailure = held.lead.lastFailureAt ? Date.parse(held.lead.lastFailureAt) : undefined;
  const counted =
    code !== 'lookup-unavailable' &&
    lastFailure !== undefined &&
    before.lastSuccessAt !== undefined &&
    before.lastSuccessAt > lastFailure;
  const minDelayMs = held.lead.ambiguousSince ? held.options.lookupDelayMs : 0;
  return failed(held, error.message, code, counted, minDelayMs);
}

/** The upstream answered a POST (created or refused it): the circuit closes if it was open. */
export async function upstreamAnswered(held: Held): Promise<void> {
  const { before, after } = await held.access.circuit.succeeded(held.now().getTime());
  if (before.state === 'open' && after.state === 'closed') {
    held.events.metric(METRICS.upstreamCircuitClosed);
    held.events.circuitChanged({ state: 'closed', leadId: held.leadId });
    // The leads that waited for it go once this attempt is settled (forward.ts, wakeAfterClose).
    held.closedCircuit = true;
  }
}

/**
 * After the attempt that closed its account's circuit: the leads that waited for it with no
 * message go now (delivery/waiting.ts). A failure here leaves them to their recheck.
 */
export async function wakeAfterClose(held: Held): Promise<void> {
  if (!held.closedCircuit || !held.deps.queue || held.account === undefined) return;
  await wakeWaiting({ ledger: held.deps.ledger, queue: held.deps.queue }, held.account, {
    now: held.now,
    wakeGraceMs: held.options.wakeGraceMs,
  }).catch(() => undefined);
}

/** The shared pacer refused a wait longer than maxPacingWaitMs: hand the lead back until then. */
export async function pacerBusy(held: Held, error: unknown): Promise<ForwardOutcome | undefined> {
  if (!(error instanceof PacerWaitError)) return undefined;
  return release(held, 'pacer-busy', {
    error: 'waiting for the upstream pacer',
    delayMs: error.waitMs,
    counted: false,
    failed: false,
  });
}

/** A 429: the pacer is paused for everyone; this lead waits exactly Retry-After, in its place. */
export async function rateLimited(held: Held, error: UpstreamError): Promise<ForwardOutcome> {
  const waitMs = error.retryAfterMs ?? held.options.rateLimitFallbackMs;
  return release(held, 'rate-limited', {
    error: error.message,
    delayMs: waitMs,
    counted: false,
    failed: false,
  });
}

export function noteError(held: Held, error: UpstreamError): void {
  held.event.errorKind = error.kind;
  if (error.status !== undefined) held.event.errorStatus = error.status;
}

export function spread(attempt: Attempt): number {
  return Math.floor(attempt.random() * attempt.options.spreadMs);
}
