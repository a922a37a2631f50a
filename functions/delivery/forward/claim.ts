/**
 * Step 1 of an attempt, `claim`: read the lead and decide whether this message may move it now.
 * A final lead, or a message from another chain → done; not due yet, or a live lease elsewhere →
 * wait; past the horizon → dead. Then the account's circuit (upstream/circuit.ts) decides
 * whether anything may reach the upstream now (while it is open only the probe goes; the others
 * wait, counted against nothing), and the lead is leased, fenced by its version.
 */
import { accountOfProfile } from '../../config/config-schema.ts';
import type { LeadStatus } from '../../domain/lead-lifecycle.ts';
import { METRICS } from '../../kernel/metrics.ts';
import type { LeadRecord } from '../../ledger/lead-ledger.ts';
import type { LeadMessage } from '../../ledger/lead-queue.ts';
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
    a.events.metric(METRICS.leadDead);
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
    const reason = `o perfil '${lead.profile}' não está configurado`;
    await ledger.markParked(a.leadId, claimed.version, reason, a.now());
    a.events.metric(METRICS.leadParked);
    return { outcome: finish(a, { kind: 'done', reason: 'no-profile' }, 'parked') };
  }
  return { held: { ...a, access, lead: claimed, probe: gate.kind === 'probe', profile } };
}

/** Look at the lead again later, without touching the ledger (its chain is unchanged). */
function wait(a: Attempt, lead: LeadRecord, delayMs: number, reason: string): ForwardOutcome {
  const outcome = { kind: 'retry', delayMs: Math.max(0, Math.ceil(delayMs)), reason } as const;
  return finish(a, { ...outcome, version: lead.version }, lead.status, lead);
}
