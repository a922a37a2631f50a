/**
 * The dead-letter redrive on SQS: `StartMessageMoveTask` from the dead-letter queue back to the
 * lead queue (the task runs asynchronously inside SQS, so the answer is `started` with its
 * handle). SQS allows one move task per source queue at a time, so a running task is looked up
 * first (`ListMessageMoveTasks`) and reported as `running` instead of starting a second one;
 * a start that loses a race with another caller is reported the same way.
 *
 * IAM the caller needs (SQS moves the messages with the caller's permissions): on the
 * dead-letter queue `sqs:StartMessageMoveTask`, `sqs:ListMessageMoveTasks`,
 * `sqs:ReceiveMessage`, `sqs:DeleteMessage`, `sqs:GetQueueAttributes`; on the lead queue
 * `sqs:SendMessage` (infra/constructs/lead-queue.ts, grantRedrive).
 */
import type { MessageMoveTask, Sqs } from '../kernel/sqs-aws.ts';
import type { DlqRedrive, RedriveResult } from './dlq-redrive.ts';

export interface SqsDlqRedriveOptions {
  client: Sqs;
  /** The dead-letter queue's ARN (the move's source). */
  deadLetterQueueArn: string;
  /** The lead queue's ARN (the destination). */
  queueArn: string;
  /** Messages moved per second; undefined lets SQS choose (up to 500/s). */
  maxPerSecond?: number;
}

const SQS_ARN = /^arn:aws[\w-]*:sqs:[\w-]+:\d{12}:[\w-]+$/;

function runningTask(entry: MessageMoveTask | undefined): RedriveResult | undefined {
  if (entry?.Status !== 'RUNNING') return undefined;
  return {
    status: 'running',
    ...(entry.TaskHandle !== undefined && { taskHandle: entry.TaskHandle }),
    ...(entry.ApproximateNumberOfMessagesMoved !== undefined && {
      moved: entry.ApproximateNumberOfMessagesMoved,
    }),
    ...(entry.ApproximateNumberOfMessagesToMove !== undefined && {
      toMove: entry.ApproximateNumberOfMessagesToMove,
    }),
  };
}

export function createSqsDlqRedrive(options: SqsDlqRedriveOptions): DlqRedrive {
  const { client, deadLetterQueueArn, queueArn, maxPerSecond } = options;
  for (const [name, arn] of [
    ['deadLetterQueueArn', deadLetterQueueArn],
    ['queueArn', queueArn],
  ] as const) {
    if (!SQS_ARN.test(arn)) throw new TypeError(`createSqsDlqRedrive: ${name} is not an SQS ARN`);
  }
  if (maxPerSecond !== undefined && !(Number.isInteger(maxPerSecond) && maxPerSecond >= 1)) {
    throw new RangeError('createSqsDlqRedrive: maxPerSecond must be a positive integer');
  }

  async function current(): Promise<RedriveResult | undefined> {
    const out = await client.listMessageMoveTasks({
      SourceArn: deadLetterQueueArn,
      MaxResults: 1,
    });
    return runningTask(out.Results?.[0]);
  }

  return {
    async redrive() {
      const running = await current();
      if (running) return running;
      try {
        const out = await client.startMessageMoveTask({
          SourceArn: deadLetterQueueArn,
          DestinationArn: queueArn,
          ...(maxPerSecond !== undefined && { MaxNumberOfMessagesPerSecond: maxPerSecond }),
        });
        return { status: 'started', taskHandle: out.TaskHandle ?? '' };
      } catch (error) {
        // Someone else started one between our list and our start: theirs does the work.
        const raced = await current().catch(() => undefined);
        if (raced) return raced;
        throw error;
      }
    },
  };
}
