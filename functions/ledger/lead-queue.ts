/**
 * The lead queue: tells the delivery worker that a recorded lead is ready to send. A message
 * carries only the lead id; the ledger holds the lead itself, so a message never contains
 * personal data and a redelivered message is harmless (the worker's `claim` refuses a lead
 * that is being sent or is final). The SQS adapter is lead-queue-sqs.ts.
 */
import { isLeadId } from '../domain/lead-lifecycle.ts';

/** The longest delay a queue message can take (SQS: 900 s); a longer wait is re-sent again. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/**
 * A requested delay as the queue applies it: whole seconds (rounded up) within
 * 0..MAX_QUEUE_DELAY_SECONDS, so a longer delay comes back earlier than asked. Every adapter
 * sends with this, so the local queue delays exactly as SQS does.
 */
export function queueDelaySeconds(delaySeconds: number | undefined): number | undefined {
  if (delaySeconds === undefined) return undefined;
  if (Number.isNaN(delaySeconds)) throw new RangeError('delaySeconds must be a number');
  return Math.min(Math.max(Math.ceil(delaySeconds), 0), MAX_QUEUE_DELAY_SECONDS);
}

export interface LeadQueueSendOptions {
  /** Deliver no earlier than this many seconds from now (backoff, Retry-After). */
  delaySeconds?: number;
}

export interface LeadQueue {
  send(leadId: string, options?: LeadQueueSendOptions): Promise<void>;
}

/** The message body: `{"leadId":"ld_..."}`. */
export interface LeadMessage {
  leadId: string;
}

export function encodeLeadMessage(leadId: string): string {
  if (!isLeadId(leadId)) throw new TypeError('encodeLeadMessage: not a lead id');
  return JSON.stringify({ leadId } satisfies LeadMessage);
}

/** Reads a message body; undefined when it is not a lead message (a poison message). */
export function parseLeadMessage(body: string): LeadMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { leadId } = value as { leadId?: unknown };
  return isLeadId(leadId) ? { leadId } : undefined;
}
