/**
 * The lead queue: wakes the delivery worker for a lead. The ledger is the truth (when the lead
 * is due, who holds it); a message only says "look at this lead now", and carries the lead id and
 * the delivery chain's version it was sent for. A message that does not match the lead's
 * current version is a no-op, so a redelivered or duplicated message can never start a second
 * chain; a message that never arrives is replaced by the reconciler's. Messages carry no
 * personal data. The SQS adapter is lead-queue-sqs.ts, the local one lead-queue-local.ts.
 *
 * Every message names its tenant, the lead's upstream account (`group`): the queue is fair
 * between tenants (SQS fair queues: a standard queue whose messages carry a MessageGroupId), so
 * one account's backlog never holds another account's fresh lead behind it (docs/operations.md,
 * "Fairness between accounts").
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
  /** The delivery chain (the lead's version) the message is for; absent: whatever is current. */
  version?: number;
  /**
   * The lead's tenant: its upstream account (LeadRecord.account). Messages without one are each
   * a tenant of their own, as SQS treats them.
   */
  group?: string;
}

/** SQS's MessageGroupId: 1 to 128 letters, digits and punctuation. */
const GROUP = /^[\x21-\x7e]{1,128}$/;

/** Throws a TypeError for a group SQS would refuse (an account name always fits). */
export function checkGroup(group: string | undefined): void {
  if (group !== undefined && !GROUP.test(group)) {
    throw new TypeError('the message group is 1 to 128 printable ASCII characters');
  }
}

export interface LeadQueue {
  send(leadId: string, options?: LeadQueueSendOptions): Promise<void>;
}

/** The message: `{"leadId":"ld_...","v":3}` (`v` absent in messages from before versions). */
export interface LeadMessage {
  leadId: string;
  version?: number;
}

export function encodeLeadMessage(leadId: string, version?: number): string {
  if (!isLeadId(leadId)) throw new TypeError('encodeLeadMessage: not a lead id');
  if (version !== undefined && !(Number.isSafeInteger(version) && version >= 0)) {
    throw new TypeError('encodeLeadMessage: the version is a whole number');
  }
  return JSON.stringify(version === undefined ? { leadId } : { leadId, v: version });
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
  const { leadId, v } = value as { leadId?: unknown; v?: unknown };
  if (!isLeadId(leadId)) return undefined;
  if (v === undefined) return { leadId };
  return Number.isSafeInteger(v) && (v as number) >= 0
    ? { leadId, version: v as number }
    : undefined;
}
