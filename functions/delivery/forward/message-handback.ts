/**
 * What becomes of the queue message once `forwardLead` has answered, the same for the forwarder
 * Lambda (handler.ts, SQS) and the local worker (worker-local.ts, the local queue). The ledger
 * holds the lead's state, so a message is only a wake-up:
 * - `done` → the message is acknowledged (deleted);
 * - `retry` → a fresh message for the lead's chain (its version), in its account's group,
 *   delayed (at most 900 s; a longer wait is re-sent again when it comes back early), and the
 *   old one acknowledged: a wait of any length uses up no receives and never fills the
 *   dead-letter queue;
 * - if that send fails, the message itself comes back after the delay (its visibility), and if
 *   even that fails, after the queue's visibility timeout; the reconciler wakes the lead if all
 *   of these are lost.
 */
import type { LeadQueue } from '../../ledger/lead-queue.ts';
import type { ForwardOutcome } from './attempt.ts';

/** The two ways a consumer can hand its message back. */
export interface MessageHandback {
  /** Deletes the message (SQS: the batch item succeeds). */
  acknowledge(): Promise<void>;
  /** Makes the message visible again after `delayMs` (SQS: ChangeMessageVisibility + failure). */
  retryAfter(delayMs: number): Promise<void>;
}

export type HandedBack = 'acknowledged' | 're-sent' | 'delayed';

export async function handBackMessage(
  leadId: string,
  outcome: ForwardOutcome,
  queue: Pick<LeadQueue, 'send'>,
  message: MessageHandback,
  onResendFailure: (error: unknown) => void = () => {},
): Promise<HandedBack> {
  if (outcome.kind === 'done') {
    await message.acknowledge();
    return 'acknowledged';
  }
  try {
    await queue.send(leadId, {
      delaySeconds: outcome.delayMs / 1000,
      version: outcome.version,
      ...(outcome.account !== undefined && { group: outcome.account }),
    });
  } catch (error) {
    onResendFailure(error);
    await message.retryAfter(outcome.delayMs);
    return 'delayed';
  }
  await message.acknowledge();
  return 're-sent';
}
