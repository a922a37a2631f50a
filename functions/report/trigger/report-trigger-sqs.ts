/**
 * The report trigger on AWS: one SendMessage to the `refresh` queue, which the refresher Lambda
 * consumes one message at a time (batch size 1, reserved concurrency 1: refreshes never overlap).
 */
import type { Sqs } from '../../kernel/sqs-aws.ts';
import { encodeRefreshMessage, type ReportTrigger, refreshMessage } from './report-trigger.ts';

export interface SqsReportTriggerOptions {
  client: Sqs;
  queueUrl: string;
  now?: () => Date;
}

export function createSqsReportTrigger(options: SqsReportTriggerOptions): ReportTrigger {
  if (!options.queueUrl) throw new TypeError('createSqsReportTrigger: queueUrl is required');
  const now = options.now ?? (() => new Date());
  return {
    async requestRefresh(request = {}) {
      const delay = Math.min(900, Math.max(0, Math.ceil(request.delaySeconds ?? 0)));
      await options.client.sendMessage({
        QueueUrl: options.queueUrl,
        MessageBody: encodeRefreshMessage(refreshMessage(request, now())),
        ...(delay > 0 && { DelaySeconds: delay }),
      });
    },
  };
}
