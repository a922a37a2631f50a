/**
 * The lead queue on a standard SQS queue: one SendMessage per lead, body `{"leadId","v"}`, its
 * MessageGroupId the lead's account (what makes the standard queue a fair queue: SQS keeps one
 * group's backlog from delaying the others'; docs/operations.md, "Fairness between accounts").
 * SQS delays a message at most 900 s: a longer delay is capped at 900 s, so the lead comes back
 * earlier than asked (a caller that must wait longer has to delay it again). FIFO queues are
 * refused: they take no per-message delay, and the ledger's claim already stops double sends.
 */
import type { Sqs } from '../kernel/sqs-aws.ts';
import { checkGroup, encodeLeadMessage, type LeadQueue, queueDelaySeconds } from './lead-queue.ts';

export interface SqsLeadQueueOptions {
  client: Sqs;
  queueUrl: string;
}

export function createSqsLeadQueue({ client, queueUrl }: SqsLeadQueueOptions): LeadQueue {
  if (!queueUrl) throw new TypeError('createSqsLeadQueue: queueUrl is required');
  if (queueUrl.endsWith('.fifo')) {
    throw new TypeError('createSqsLeadQueue: FIFO queues are not supported (no per-message delay)');
  }
  return {
    async send(leadId, options = {}) {
      const delay = queueDelaySeconds(options.delaySeconds);
      checkGroup(options.group);
      await client.sendMessage({
        QueueUrl: queueUrl,
        MessageBody: encodeLeadMessage(leadId, options.version),
        ...(delay !== undefined && delay > 0 && { DelaySeconds: delay }),
        ...(options.group !== undefined && { MessageGroupId: options.group }),
      });
    },
  };
}
