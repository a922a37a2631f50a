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
 * One attempt is five named steps, each in its own file (the context they share, the options
 * and the ports are attempt.ts's):
 * 1. `claim` (claim.ts): read the lead; a final one, or a message from another chain → done; not
 *    due yet → wait until it is; past the horizon → dead. The account's circuit
 *    (upstream/circuit.ts) decides whether anything may reach the upstream now (while it is
 *    open only the probe goes, carried by one lead; the others wait in the ledger with no
 *    message, counted against nothing, and the attempt that closes the circuit wakes them:
 *    delivery/waiting.ts). Then a lease, fenced by the version.
 * 2. `complete` (complete.ts): a capture left `pending` (a webhook that carries ids only, such
 *    as Meta's) is completed by its source's `complete()` step and kept in the ledger; a
 *    platform's test lead then becomes `test`; mapped with the profile's current settings, an
 *    operator's correction laid over the result (missing fields → parked).
 * 3. `look up` (ambiguity.ts): after an ambiguous POST, the prospect is looked up before
 *    posting again.
 * 4. `post` (post.ts): through the upstream client and the account's shared pacer.
 * 5. `settle` (transitions.ts): the answer becomes one ledger transition and an outcome:
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
import { LeadStateError } from '../../domain/lead-lifecycle.ts';
import type { LeadMessage } from '../../ledger/lead-queue.ts';
import { lookUp } from './ambiguity.ts';
import {
  type Attempt,
  type ForwardDeps,
  type ForwardOutcome,
  resolveOptions,
  SILENT,
} from './attempt.ts';
import { claim } from './claim.ts';
import { complete } from './complete.ts';
import { post } from './post.ts';
import { finish, wakeAfterClose } from './transitions.ts';

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
    await wakeAfterClose(held);
  }
}
