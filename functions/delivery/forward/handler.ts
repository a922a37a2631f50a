/**
 * The forwarder Lambda: consumes the lead queue (SQS event source, ReportBatchItemFailures).
 * Each record is one `{"leadId","v"}` message, its MessageGroupId the lead's account; records
 * of different accounts run side by side, each account's one after the other (`byAccount`: its
 * pacer spaces them anyway, and one account's wait never holds another's leads), with
 * `forwardLead`, and the record handed back as message-handback.ts says: acknowledged (the record succeeds and SQS deletes it), re-sent (a fresh
 * delayed message for the lead's chain, the record succeeds) or, when that send fails, delayed
 * (ChangeMessageVisibility to the delay, at most 12 h, and the record is reported failed, so SQS
 * hands it out again after that delay);
 * - a poison message (not a lead message) is logged and acknowledged: redelivering it would
 *   never help;
 * - a record that no longer fits in the invocation's remaining time is not started: it goes
 *   back with a short visibility;
 * - an unexpected error (the ledger unreachable) fails the record without touching its
 *   visibility: it comes back after the queue's visibility timeout, when the lease has expired.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { flushMetrics, logger } from '../../kernel/observability.ts';
import { handlerWiring } from '../../kernel/ready.ts';
import type { Sqs } from '../../kernel/sqs-aws.ts';
import { type LeadQueue, parseLeadMessage } from '../../ledger/lead-queue.ts';
import { checkLookupPermission } from './ambiguity.ts';
import { type ForwardDeps, leaseMsFor } from './attempt.ts';
import { queueEvents } from './events.ts';
import { forwardLead } from './forward.ts';
import { handBackMessage } from './message-handback.ts';

export interface DeliveryHandlerDeps {
  forward: ForwardDeps;
  /** ChangeMessageVisibility on the lead queue (kernel/sqs-aws.ts). */
  sqs: Sqs;
  queueUrl: string;
  /** The same lead queue, to re-send a lead whose retry was not counted. */
  queue: LeadQueue;
  now?: () => Date;
}

/** SQS's longest visibility timeout: 12 hours. */
export const MAX_VISIBILITY_SECONDS = 43_200;
/** Time kept back when deciding whether one more lead fits in the invocation. */
const SAFETY_MS = 2_000;
/** Visibility of a record not started for lack of time: soon, by another invocation. */
const NOT_STARTED_SECONDS = 5;

/** Marks a record failed so that SQS delivers it again after the visibility we set. */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
  readonly delayMs: number;

  constructor(delayMs: number, reason: string) {
    super(`retry in ${delayMs} ms: ${reason}`);
    this.delayMs = delayMs;
  }
}

/** A delay in ms as SQS visibility seconds, within 0..12 h (rounded up). */
export function visibilitySeconds(delayMs: number): number {
  if (!Number.isFinite(delayMs)) return MAX_VISIBILITY_SECONDS;
  return Math.min(Math.max(Math.ceil(delayMs / 1000), 0), MAX_VISIBILITY_SECONDS);
}

export function createDeliveryHandler(deps: DeliveryHandlerDeps) {
  const processor = new BatchProcessor(EventType.SQS);
  // Once per instance and account, on its first batch: may the account's key look prospects up
  // (what resolves an ambiguous POST)? Said loudly when not: a metric (alarmed) and a log line.
  const permissionChecked = new Map<string, Promise<void>>();
  const checkPermission = (account: string, client: Parameters<typeof checkLookupPermission>[0]) =>
    checkLookupPermission(client).then((permission) => {
      if (permission === 'forbidden') {
        queueEvents.lookupForbidden({ upstream: account, lookupPermission: permission });
      } else if (permission === 'unknown') {
        permissionChecked.delete(account);
      }
    });

  async function setVisibility(record: SQSRecord, seconds: number): Promise<void> {
    try {
      await deps.sqs.changeMessageVisibility({
        QueueUrl: deps.queueUrl,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: seconds,
      });
    } catch (error) {
      // The record still fails: it comes back after the queue's visibility timeout instead.
      queueEvents.visibilityUnchanged({ messageId: record.messageId, error });
    }
  }

  return async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
    // Every line of this invocation: Lambda's request id, cold_start, the function's name.
    logger.addContext(context);
    try {
      const accounts = await deps.forward.config.accounts();
      const accesses = await Promise.all(accounts.map((name) => deps.forward.upstream(name)));
      await Promise.all(
        accounts.map((name, index) => {
          const access = accesses[index];
          if (access && !permissionChecked.has(name)) {
            permissionChecked.set(name, checkPermission(name, access.client));
          }
          return permissionChecked.get(name);
        }),
      );
      // A record starts only when the longest attempt any account allows still fits.
      const longest = Math.max(...accesses.map((access) => access.timeoutMs));
      const neededMs = leaseMsFor(longest, deps.forward.options) + SAFETY_MS;

      const recordHandler = async (record: SQSRecord): Promise<string> => {
        const message = parseLeadMessage(record.body);
        if (!message) {
          queueEvents.poisonDropped({ messageId: record.messageId });
          return 'poison';
        }
        if (context.getRemainingTimeInMillis() < neededMs) {
          await setVisibility(record, NOT_STARTED_SECONDS);
          throw new RetryLater(NOT_STARTED_SECONDS * 1000, 'not started: out of time');
        }
        let outcome: Awaited<ReturnType<typeof forwardLead>>;
        try {
          outcome = await forwardLead(message, deps.forward, deps.now);
        } catch (error) {
          const { messageId } = record;
          queueEvents.failed({ leadId: message.leadId, messageId, error });
          throw error;
        }
        const handedBack = await handBackMessage(
          message.leadId,
          outcome,
          deps.queue,
          {
            acknowledge: async () => {},
            retryAfter: (delayMs) => setVisibility(record, visibilitySeconds(delayMs)),
          },
          (error) =>
            queueEvents.resendFailed({
              leadId: message.leadId,
              messageId: record.messageId,
              error,
            }),
        );
        if (handedBack === 'delayed') throw new RetryLater(outcome.delayMs ?? 0, outcome.reason);
        return handedBack === 're-sent' ? `re-sent: ${outcome.reason}` : outcome.reason;
      };

      return await processPartialResponse(event, byAccount(recordHandler), processor, {
        context,
        // Accounts side by side, each account's records in order (byAccount).
        processInParallel: true,
        // Retries are not errors: all records asking for a retry is a normal answer.
        throwOnFullBatchFailure: false,
      });
    } finally {
      flushMetrics();
    }
  };
}

/**
 * Runs a batch's records per account in order and the accounts side by side: a record waits
 * only for the records of its own group (its MessageGroupId, the lead's account; records
 * sent without one, before messages named their account, form one group), so one account's pacer never holds another's leads.
 */
export function byAccount<T>(
  handle: (record: SQSRecord) => Promise<T>,
): (record: SQSRecord) => Promise<T> {
  const chains = new Map<string, Promise<unknown>>();
  return (record) => {
    const group = record.attributes?.MessageGroupId ?? '';
    const before = chains.get(group) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(() => handle(record));
    chains.set(group, run);
    return run;
  };
}

// No local wiring: the local runtime runs the delivery as a worker of its own (delivery/service-local.ts).
const wiring = handlerWiring({
  aws: () => import('./wiring-aws.ts').then((m) => createDeliveryHandler(m.awsDeliveryDeps())),
});

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

/** The Lambda entry point, wired to AWS on first use. */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return (await wiring.get())(event, context);
}
