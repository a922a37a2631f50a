/**
 * The refresher Lambda: its `live` alias consumes the `refresh` SQS queue (batch size 1, at most
 * 2 invocations at once, reserved concurrency 2) and runs each message through the refresh use
 * case with the invocation's remaining time, so a long refresh checkpoints and continues in the
 * next one. One refresh at a time is kept by the refresh lease (lease.ts): a refresh or
 * continuation that finds another holding it is sent again a little later and acknowledged; a
 * tick of the schedule runs beside a refresh (it only asks for the refreshes now due). So no
 * message is throttled or returned to the queue for waiting.
 * A refresh that fails is recorded in the status and the message is consumed (the next schedule
 * tick retries); only a failure to record the outcome (the store) or to reach the lease returns
 * the message to the queue, and after maxReceiveCount to the dead-letter queue. Wiring (AWS or
 * local) is chosen once per container.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { flushMetrics, logger } from '../../kernel/observability.ts';
import { handlerWiring } from '../../kernel/ready.ts';
import { decodeRefreshMessage, type RefreshMessage } from '../trigger/report-trigger.ts';
import { refreshQueueEvents } from './events.ts';
import { type LeasedRefreshDeps, leasedRefresh } from './lease.ts';
import { type AccountsRefreshDeps, isTick, refreshRequest } from './refresh.ts';

/** How long a lease outlives the invocation that took it, at most (its holder died). */
export const LEASE_MARGIN_MS = 30_000;

/** The wiring: the use case's ports, and on AWS the lease (locally the trigger runs one at a time). */
type RefresherDeps = AccountsRefreshDeps & { lease?: Omit<LeasedRefreshDeps, 'ttlMs'> };

const wiring = handlerWiring<RefresherDeps>({
  aws: () => import('./wiring-aws.ts').then((m) => m.awsRefreshDeps()),
  local: () => import('./wiring-local.ts').then((m) => m.localRefreshDeps()),
});

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

/** One message: a tick at once, a refresh or continuation while holding the lease. */
function runMessage(resolved: RefresherDeps, message: RefreshMessage, context: Context) {
  const remainingMs = () => context.getRemainingTimeInMillis();
  const run = () => refreshRequest({ ...resolved, remainingMs }, message);
  if (!resolved.lease || isTick(message)) return run();
  const ttlMs = remainingMs() + LEASE_MARGIN_MS;
  return leasedRefresh({ ...resolved.lease, ttlMs }, context.awsRequestId, message, run);
}

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  // Every line of this invocation: Lambda's request id, cold_start, the function's name.
  logger.addContext(context);
  const resolved = await wiring.get();
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  try {
    for (const record of event.Records) {
      const sentAt = new Date(Number(record.attributes?.SentTimestamp));
      const message = decodeRefreshMessage(record.body, sentAt);
      if (!message) {
        refreshQueueEvents.notARefresh({ messageId: record.messageId });
        continue;
      }
      try {
        await runMessage(resolved, message, context);
      } catch (error) {
        refreshQueueEvents.notRecorded({ messageId: record.messageId, error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
  } finally {
    flushMetrics();
  }
  return { batchItemFailures };
}
