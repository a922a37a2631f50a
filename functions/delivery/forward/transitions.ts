/**
 * Step 5 of an attempt, `settle`: every way an attempt ends is one ledger transition and one
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

export async function delivered(h: Held, idProspect: ExternalId, reason: string) {
  await h.deps.ledger.markDelivered(h.leadId, idProspect, h.now());
  h.events.metric(METRICS.leadDelivered);
  return finish(h, { kind: 'done', reason }, 'delivered');
}

export async function park(h: Held, reason: string, code: string): Promise<ForwardOutcome> {
  await h.deps.ledger.markParked(h.leadId, h.lead.version, reason, h.now());
  h.events.metric(METRICS.leadParked);
  return finish(h, { kind: 'done', reason: code }, 'parked');
}

/** What `release` is told: why, and until when. */
type ReleaseDetails = Omit<Release, 'ambiguousSince' | 'ambiguousSettle' | 'nextAttemptAt'> &
  ({ delayMs: number; until?: undefined } | { until: Date; delayMs?: undefined });

/** Back to queued for `delayMs` (or `until` a moment); the message comes back then. */
export async function release(
  h: Held,
  code: string,
  details: ReleaseDetails,
): Promise<ForwardOutcome> {
  return finish(h, await releaseLead(h, code, details), 'queued', h.lead);
}

/** `release`'s ledger transition and outcome, not yet reported. */
async function releaseLead(
  h: Held,
  code: string,
  { delayMs, until, ...details }: ReleaseDetails,
): Promise<ForwardOutcome & { kind: 'retry' }> {
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
  h.events.metric(METRICS.leadRetried);
  h.event.counted = released.attempts;
  return {
    kind: 'retry',
    delayMs: Math.max(0, nextAttemptAt.getTime() - now.getTime()),
    reason: code,
    version: released.version,
    ...(h.account !== undefined && { account: h.account }),
  };
}

/**
 * A failure that is the lead's own only if the upstream kept serving other leads since this one
 * last failed: counted then (dead at maxAttempts), else not. Waits with backoff.
 */
export async function failed(
  h: Held,
  error: string,
  code: string,
  counted: boolean,
  minDelayMs = 0,
): Promise<ForwardOutcome> {
  const attempts = h.lead.attempts + (counted ? 1 : 0);
  if (counted && attempts >= h.options.maxAttempts) {
    await h.deps.ledger.markDead(h.leadId, h.lead.version, error, h.now(), { counted: true });
    h.events.metric(METRICS.leadDead);
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
export async function accountFailure(
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
    h.events.metric(METRICS.upstreamCircuitOpened);
    h.events.circuitChanged({ state: 'open', reason: after.reason ?? code, leadId: h.leadId });
  }
  if (after.state === 'open') {
    // Everyone waits for the probe; nothing about this lead was learnt. One lead carries the
    // probe with a message; any other waits in the ledger with none (delivery/waiting.ts).
    const probeAt = (after.probeAt ?? nowMs) + spread(h);
    const carries = await h.access.circuit.carry(nowMs, h.leadId, probeAt + CARRIER_MARGIN_MS);
    const released = await releaseLead(h, code, {
      error: error.message,
      delayMs: probeAt - nowMs,
      counted: false,
      failed: true,
    });
    const account = h.account ?? DEFAULT_ACCOUNT;
    const waiting =
      !carries &&
      (await h.deps.ledger.waitFor(h.leadId, released.version, {
        circuit: account,
        recheckAt: new Date(nowMs + h.options.circuitRecheckMs),
        note: circuitWaitNote(account),
        now: h.now(),
      }));
    if (waiting) return finish(h, { kind: 'done', reason: 'circuit-wait' }, 'queued', h.lead);
    return finish(h, released, 'queued', h.lead);
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
export async function upstreamAnswered(h: Held): Promise<void> {
  const { before, after } = await h.access.circuit.succeeded(h.now().getTime());
  if (before.state === 'open' && after.state === 'closed') {
    h.events.metric(METRICS.upstreamCircuitClosed);
    h.events.circuitChanged({ state: 'closed', leadId: h.leadId });
    // The leads that waited for it go once this attempt is settled (forward.ts, wakeAfterClose).
    h.closedCircuit = true;
  }
}

/**
 * After the attempt that closed its account's circuit: the leads that waited for it with no
 * message go now (delivery/waiting.ts). A failure here leaves them to their recheck.
 */
export async function wakeAfterClose(h: Held): Promise<void> {
  if (!h.closedCircuit || !h.deps.queue || h.account === undefined) return;
  await wakeWaiting({ ledger: h.deps.ledger, queue: h.deps.queue }, h.account, {
    now: h.now,
    wakeGraceMs: h.options.wakeGraceMs,
  }).catch(() => undefined);
}

/** The shared pacer refused a wait longer than maxPacingWaitMs: hand the lead back until then. */
export async function pacerBusy(h: Held, error: unknown): Promise<ForwardOutcome | undefined> {
  if (!(error instanceof PacerWaitError)) return undefined;
  return release(h, 'pacer-busy', {
    error: 'waiting for the upstream pacer',
    delayMs: error.waitMs,
    counted: false,
    failed: false,
  });
}

/** A 429: the pacer is paused for everyone; this lead waits exactly Retry-After, in its place. */
export async function rateLimited(h: Held, error: UpstreamError): Promise<ForwardOutcome> {
  const waitMs = error.retryAfterMs ?? h.options.rateLimitFallbackMs;
  return release(h, 'rate-limited', {
    error: error.message,
    delayMs: waitMs,
    counted: false,
    failed: false,
  });
}

export function noteError(h: Held, error: UpstreamError): void {
  h.event.errorKind = error.kind;
  if (error.status !== undefined) h.event.errorStatus = error.status;
}

export function spread(a: Attempt): number {
  return Math.floor(a.random() * a.options.spreadMs);
}
