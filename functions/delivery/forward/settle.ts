/**
 * What becomes of the queue message once `forwardLead` has answered, the same for the forwarder
 * Lambda (handler.ts, SQS) and the local worker (worker-local.ts, the local queue):
 * - `done` → the message is acknowledged (deleted);
 * - `retry` not counted against the lead (401, 429, pacing, lookups, a duplicate message) → a
 *   fresh message for the lead, delayed (at most 900 s; a longer wait is re-sent again), and the
 *   old one acknowledged: a long incident uses up no receives and fills no dead-letter queue. If
 *   that send fails, it is handled as a counted retry;
 * - `retry` counted → the message itself comes back after the delay (its visibility), so its
 *   receive count bounds it with the queue's maxReceiveCount.
 */
import type { LeadQueue } from '../ledger/lead-queue.ts';
import type { ForwardOutcome } from './forward.ts';

/** The two ways a consumer can hand its message back. */
export interface MessageSettlement {
  /** Deletes the message (SQS: the batch item succeeds). */
  acknowledge(): Promise<void>;
  /** Makes the message visible again after `delayMs` (SQS: ChangeMessageVisibility + failure). */
  retryAfter(delayMs: number): Promise<void>;
}

export type Settled = 'acknowledged' | 're-sent' | 'delayed';

export async function settleMessage(
  leadId: string,
  outcome: ForwardOutcome,
  queue: Pick<LeadQueue, 'send'>,
  message: MessageSettlement,
  onResendFailure: (error: unknown) => void = () => {},
): Promise<Settled> {
  if (outcome.kind === 'done') {
    await message.acknowledge();
    return 'acknowledged';
  }
  if (!outcome.counted) {
    let resent = false;
    try {
      await queue.send(leadId, { delaySeconds: outcome.delayMs / 1000 });
      resent = true;
    } catch (error) {
      onResendFailure(error);
    }
    if (resent) {
      await message.acknowledge();
      return 're-sent';
    }
  }
  await message.retryAfter(outcome.delayMs);
  return 'delayed';
}
