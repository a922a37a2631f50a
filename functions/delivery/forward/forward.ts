/**
 * The delivery use case: `forwardLead(message)` moves one lead towards the upstream, once, for
 * every queue message (the SQS Lambda in handler.ts, the local worker in worker-local.ts), and
 * says what becomes of the message (message-handback.ts): `done` or `retry` after `delayMs`.
 * No AWS imports: ports come in `deps`. The ledger is the truth and the queue only a wake-up:
 * a message for another version of the lead is a no-op.
 *
 * One attempt is five steps, a file each (their shared context, options and ports: attempt.ts):
 * 1. `claim` (claim.ts); 2. `complete` (complete.ts); 3. `look up` (ambiguity.ts);
 * 4. `post` (post.ts); 5. `conclude` (transitions.ts). Which answer becomes which outcome, and
 * the ambiguous-POST policy: docs/operations.md ("outcomes, retries and dead leads", "When a
 * POST may have created the prospect"); the steps in detail: docs/architecture.md.
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
