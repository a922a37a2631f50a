/**
 * Step 1 of an attempt, `claim`: read the lead and decide whether this message may move it now.
 * A final lead, or a message from another chain → done; not due yet, or a live lease elsewhere →
 * wait; past the horizon → dead; its profile no longer configured → it waits for it (never
 * parked for a configuration edit). Then the account's circuit (upstream/circuit.ts) decides
 * whether anything may reach the upstream now (while it is open only the probe goes; one lead
 * carries it and the others wait in the ledger with no message, counted against nothing:
 * delivery/waiting.ts), and the lead is leased, fenced by its version.
 */
import { accountOfProfile } from '../../config/config-accounts.ts';
import type { LeadStatus } from '../../domain/lead-lifecycle.ts';
import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import { METRICS } from '../../kernel/metrics.ts';
import type { LeadRecord } from '../../ledger/lead-ledger.ts';
import type { LeadMessage } from '../../ledger/lead-queue.ts';
import type { Circuit } from '../../upstream/circuit.ts';
import { CARRIER_MARGIN_MS, circuitWaitNote, PROFILE_WAIT } from '../waiting.ts';
import { type Attempt, type ForwardOutcome, type Held, leaseMsFor } from './attempt.ts';
import { finish, spread } from './transitions.ts';

/** Statuses nothing but an operator changes: a message for them is done. */
const SETTLED: ReadonlySet<LeadStatus> = new Set([
  'delivered',
  'rejected',
  'dead',
  'parked',
  'test',
]);

/** Takes the lead for this attempt, or says why the message is done / must wait. */
export async function claim(
  attempt: Attempt,
  message: LeadMessage,
): Promise<{ held: Held } | { outcome: ForwardOutcome }> {
  const { ledger } = attempt.deps;
  const lead = await ledger.get(attempt.leadId);
  if (!lead) return { outcome: finish(attempt, { kind: 'done', reason: 'unknown-lead' }) };
  Object.assign(attempt.event, { profile: lead.profile, counted: lead.attempts });
  if (SETTLED.has(lead.status)) {
    return {
      outcome: finish(attempt, { kind: 'done', reason: `already-${lead.status}` }, lead.status),
    };
  }
  // A message from another chain (a duplicate, a redelivery of an old one): the lead's own
  // chain carries on without it. The exception is the message that started the attempt holding
  // the lead now (claiming moved the version on): handed back by a stopping worker, or back
  // after its visibility timeout because the attempt died, it carries the chain on once the
  // lease is over.
  const startedTheAttempt = lead.status === 'sending' && message.version === lead.version - 1;
  if (message.version !== undefined && message.version !== lead.version && !startedTheAttempt) {
    return { outcome: finish(attempt, { kind: 'done', reason: 'stale-message' }, lead.status) };
  }
  // The lead's account (the one it was accepted for; for an older lead, its profile's, or
  // `default` for a profile no longer configured) decides whose circuit, pacer and credentials
  // this attempt uses, and is the lead's tenant on the queue.
  const profile = await attempt.deps.config.profile(lead.profile);
  attempt.account = lead.account ?? accountOfProfile(profile ?? {});
  const nowMs = attempt.now().getTime();
  if (nowMs - Date.parse(lead.queuedAt) > attempt.options.horizonMs) {
    const hours = Math.round(attempt.options.horizonMs / 3_600_000);
    const error = `not delivered within the delivery horizon (${hours} h); last error: ${lead.lastError ?? 'none'}`;
    await ledger.markDead(attempt.leadId, lead.version, error, attempt.now());
    attempt.events.metric(METRICS.leadDead);
    return { outcome: finish(attempt, { kind: 'done', reason: 'dead-past-horizon' }, 'dead') };
  }
  const dueAt = lead.status === 'queued' ? lead.nextAttemptAt : lead.leaseUntil;
  const waitMs = dueAt ? Date.parse(dueAt) - nowMs : 0;
  if (waitMs > 0) {
    // Early (SQS delays at most 15 minutes), or another attempt holds a live lease.
    const reason = lead.status === 'queued' ? 'not-due-yet' : 'lease-held';
    return {
      outcome: wait(attempt, lead, waitMs + (lead.status === 'sending' ? 1_000 : 0), reason),
    };
  }

  // Its profile was removed or renamed since it was accepted: it waits for it to come back.
  if (!profile) return { outcome: await profileWait(attempt, lead) };

  const access = await attempt.deps.upstream(attempt.account);
  const gate = await access.circuit.gate(nowMs);
  if (gate.kind === 'open') {
    attempt.event.note = 'circuit-open';
    return {
      outcome: await circuitWait(attempt, lead, access.circuit, gate.retryAt + spread(attempt)),
    };
  }

  const leaseMs = leaseMsFor(access.timeoutMs, attempt.deps.options);
  const claimed = await ledger.claim(attempt.leadId, lead.version, leaseMs, attempt.now());
  if (!claimed) {
    // Someone else moved it between our read and our claim: their chain owns it.
    return { outcome: finish(attempt, { kind: 'done', reason: 'claimed-elsewhere' }, lead.status) };
  }
  Object.assign(attempt.event, { attempt: claimed.tries });
  if (gate.kind === 'probe') attempt.event.note = 'probe';
  if (lead.status === 'sending' && !claimed.ambiguousSince) {
    // The previous attempt died holding the lead: its POST may have gone out.
    attempt.event.note = 'previous-attempt-interrupted';
    claimed.ambiguousSince = lead.updatedAt;
    claimed.ambiguousSettle = true;
  }
  return { held: { ...attempt, access, lead: claimed, probe: gate.kind === 'probe', profile } };
}

/**
 * The account's circuit is open (delivery/waiting.ts): the one lead that carries the probe keeps
 * a message due at `probeAt` (its ledger `dueAt` moved past it, so the reconciler adds no copy);
 * any other waits in the ledger with no message, until the circuit's closing wakes it.
 */
async function circuitWait(
  attempt: Attempt,
  lead: LeadRecord,
  circuit: Circuit,
  probeAt: number,
): Promise<ForwardOutcome> {
  const now = attempt.now();
  const account = attempt.account ?? lead.account ?? DEFAULT_ACCOUNT;
  // The carrier's turn lasts past its probe by the longest probe interval and a margin.
  if (await circuit.carry(now.getTime(), attempt.leadId, probeAt + CARRIER_MARGIN_MS)) {
    const dueAt = new Date(probeAt + attempt.options.wakeGraceMs);
    const moved = await attempt.deps.ledger.wake(attempt.leadId, lead.version, { dueAt, now });
    if (!moved) return finish(attempt, { kind: 'done', reason: 'claimed-elsewhere' }, lead.status);
    return wait(attempt, moved, probeAt - now.getTime(), 'circuit-open');
  }
  const waiting = await attempt.deps.ledger.waitFor(attempt.leadId, lead.version, {
    circuit: account,
    recheckAt: new Date(now.getTime() + attempt.options.circuitRecheckMs),
    note: circuitWaitNote(account),
    now,
  });
  if (!waiting) return finish(attempt, { kind: 'done', reason: 'claimed-elsewhere' }, lead.status);
  return finish(attempt, { kind: 'done', reason: 'circuit-wait' }, lead.status, lead);
}

/**
 * The lead's profile is not configured (removed or renamed after the lead was accepted): a
 * configuration edit never strands an accepted lead. It waits, visibly and uncounted, its
 * message coming back every `profileRecheckMs` (its ledger `dueAt` past that, so the reconciler
 * adds no copy), until the profile is back or the horizon passes. It is listed under
 * PROFILE_WAIT: the reload or the version that brings the profile back wakes it at once.
 */
async function profileWait(attempt: Attempt, lead: LeadRecord): Promise<ForwardOutcome> {
  const now = attempt.now();
  const recheckMs = attempt.options.profileRecheckMs;
  const waiting = await attempt.deps.ledger.waitFor(attempt.leadId, lead.version, {
    // Listed, so that the configuration bringing the profile back wakes it (waiting.ts).
    circuit: PROFILE_WAIT,
    recheckAt: new Date(now.getTime() + recheckMs + attempt.options.wakeGraceMs),
    note: `o perfil '${lead.profile}' não está configurado: o lead aguarda que ele volte à configuração (nova verificação a cada ${Math.round(recheckMs / 1000)} s)`,
    now,
  });
  if (!waiting) return finish(attempt, { kind: 'done', reason: 'claimed-elsewhere' }, lead.status);
  attempt.event.note = 'no-profile';
  return wait(attempt, waiting, recheckMs, 'no-profile');
}

/** Look at the lead again later, without touching the ledger (its chain is unchanged). */
function wait(attempt: Attempt, lead: LeadRecord, delayMs: number, reason: string): ForwardOutcome {
  const outcome = { kind: 'retry', delayMs: Math.max(0, Math.ceil(delayMs)), reason } as const;
  return finish(
    attempt,
    {
      ...outcome,
      version: lead.version,
      ...(attempt.account !== undefined && { account: attempt.account }),
    },
    lead.status,
    lead,
  );
}
