/**
 * The refresher Lambda: consumes the `refresh` SQS queue (batch size 1, reserved concurrency 1,
 * so refreshes never overlap) and runs each message through the refresh use case with the
 * invocation's remaining time, so a long refresh checkpoints and continues in the next one.
 * A refresh that fails is recorded in the status and the message is consumed (the next schedule
 * tick retries); only a failure to record the outcome (the store) returns the message to the
 * queue, and after maxReceiveCount to the dead-letter queue. Wiring (AWS or local) is chosen
 * once per container.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { flushMetrics, logger } from '../../kernel/observability.ts';
import { handlerWiring } from '../../kernel/ready.ts';
import { decodeRefreshMessage } from '../trigger/report-trigger.ts';
import { refreshQueueEvents } from './events.ts';
import { type AccountsRefreshDeps, refreshRequest } from './refresh.ts';

const wiring = handlerWiring<AccountsRefreshDeps>({
  aws: () => import('./wiring-aws.ts').then((m) => m.awsRefreshDeps()),
  local: () => import('./wiring-local.ts').then((m) => m.localRefreshDeps()),
});

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

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
        const remainingMs = () => context.getRemainingTimeInMillis();
        await refreshRequest({ ...resolved, remainingMs }, message);
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
