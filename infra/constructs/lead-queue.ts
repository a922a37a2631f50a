/**
 * The lead queue: a standard SQS queue the intake sends `{"leadId"}` messages to and the
 * forwarder consumes, with a dead-letter queue. Standard, not FIFO: the queue adapter
 * (functions/ledger/lead-queue-sqs.ts) needs per-message delays, which FIFO queues refuse, and
 * the ledger's claim already stops double deliveries.
 *
 * - Both queues: SQS-managed server-side encryption (no KMS key, so no KMS grant) and a policy
 *   that refuses requests without TLS.
 * - Redrive: after `maxReceiveCount` receives (default 8) a message moves to the DLQ.
 *   8 because a receive is not always a delivery attempt (a Lambda throttle or a crash before
 *   the handler also counts; AWS advises at least 5 for Lambda consumers), while each round
 *   costs a visibility timeout (6 × the forwarder's timeout), so a CRM outage reaches the DLQ
 *   in tens of minutes rather than days. Peer products stop at 8 to 50 attempts; ours keep the
 *   lead in the ledger either way, and the DLQ is redriven after the fault is fixed.
 * - Retention: the main queue 4 days, the DLQ 14 days (the SQS maximum). On a standard queue a
 *   message keeps its ORIGINAL enqueue timestamp when it moves to the DLQ, so retention in the
 *   DLQ counts from when the intake sent it: a DLQ with the main queue's retention would drop a
 *   message that spent days retrying almost at once. 14 days leaves the operator time to redrive.
 * - Visibility timeout: 6 × the consumer's timeout (AWS advice for Lambda event sources; Lambda
 *   refuses an event source whose function timeout exceeds it), so a slow batch is not handed
 *   to a second forwarder while the first still works on it.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../functions/kernel/env.ts';

/**
 * What StartMessageMoveTask needs on the dead-letter queue (the move task's source): the task
 * itself, the listing of tasks, and the receive, delete and attribute reads SQS performs as the
 * caller while it moves messages (SQS developer guide, "Configuring queue permissions for
 * dead-letter queue redrive"). On the destination it needs sqs:SendMessage only.
 */
export const REDRIVE_SOURCE_ACTIONS = [
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:ListMessageMoveTasks',
  'sqs:ReceiveMessage',
  'sqs:StartMessageMoveTask',
] as const;

/** Receives before a message moves to the DLQ (see the module comment). */
export const DEFAULT_MAX_RECEIVE_COUNT = 8;
/** The forwarder's timeout the visibility timeout is sized for, unless told. */
export const DEFAULT_CONSUMER_TIMEOUT = Duration.seconds(30);
/** Visibility timeout = this × the consumer's timeout. */
export const VISIBILITY_FACTOR = 6;
export const QUEUE_RETENTION = Duration.days(4);
export const DEAD_LETTER_RETENTION = Duration.days(14);

/** Lambda's longest timeout; 6 × 900 s stays under SQS's 12-hour visibility limit. */
const MAX_CONSUMER_SECONDS = 900;
/** SQS accepts maxReceiveCount 1..1000. */
const MAX_RECEIVE_COUNT_LIMIT = 1000;

export interface LeadQueueProps {
  /**
   * Timeout of the function that consumes the queue (the forwarder); the visibility timeout
   * is 6 × this. The consumer must not run longer.
   * @default 30 seconds
   */
  consumerTimeout?: Duration;
  /**
   * Receives of a message before SQS moves it to the dead-letter queue.
   * @default 8
   */
  maxReceiveCount?: number;
}

export class LeadQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** The longest timeout a consumer of `queue` may have. */
  readonly consumerTimeout: Duration;
  readonly maxReceiveCount: number;

  constructor(scope: Construct, id: string, props: LeadQueueProps = {}) {
    super(scope, id);
    const consumerTimeout = props.consumerTimeout ?? DEFAULT_CONSUMER_TIMEOUT;
    const maxReceiveCount = props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT;
    const consumerSeconds = consumerTimeout.toSeconds();
    if (!(Number.isInteger(consumerSeconds) && consumerSeconds >= 1)) {
      throw new RangeError('LeadQueue: consumerTimeout must be a whole number of seconds, ≥ 1');
    }
    if (consumerSeconds > MAX_CONSUMER_SECONDS) {
      throw new RangeError(
        `LeadQueue: consumerTimeout ${consumerSeconds} s exceeds Lambda's ${MAX_CONSUMER_SECONDS} s`,
      );
    }
    if (
      !(
        Number.isInteger(maxReceiveCount) &&
        maxReceiveCount >= 1 &&
        maxReceiveCount <= MAX_RECEIVE_COUNT_LIMIT
      )
    ) {
      throw new RangeError(
        `LeadQueue: maxReceiveCount must be an integer from 1 to ${MAX_RECEIVE_COUNT_LIMIT}`,
      );
    }
    this.consumerTimeout = consumerTimeout;
    this.maxReceiveCount = maxReceiveCount;

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // A dead-letter queue by its RedriveAllowPolicy (Control Tower's CT.SQS.PR.1). `byQueue`
      // would have to name the lead queue's ARN, which exists only after this queue (its
      // RedrivePolicy names this one): a cycle. A dead-letter queue takes only queues of its
      // own account and Region, so `allowAll` means this stack's account.
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
      // Counts from the original enqueue time (module comment): keep it at the maximum.
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: QUEUE_RETENTION,
      visibilityTimeout: Duration.seconds(consumerSeconds * VISIBILITY_FACTOR),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount },
    });

    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the dead-letter queue of the lead queue: messages end here after maxReceiveCount receives and stay 14 days for an operator to redrive; a dead-letter queue of its own would only move them further from that redrive.',
    });
  }

  /**
   * Lets `fn` enqueue leads: sqs:SendMessage on the lead queue only (no receive, delete or
   * attribute reads; no KMS, the encryption is SQS-managed), and LEAD_QUEUE_URL.
   */
  grantSend(fn: LambdaFunction): void {
    fn.addEnvironment(ENV.leadQueueUrl, this.queue.queueUrl);
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['sqs:SendMessage'],
      resourceArns: [this.queue.queueArn],
    });
  }

  /**
   * Lets `fn` postpone a message it received: sqs:ChangeMessageVisibility on the lead queue
   * only (the forwarder delays a retry this way), and LEAD_QUEUE_URL. The SQS event source's
   * own grant also holds this action; it is stated here because the handler calls it itself.
   */
  grantChangeVisibility(fn: LambdaFunction): void {
    fn.addEnvironment(ENV.leadQueueUrl, this.queue.queueUrl);
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['sqs:ChangeMessageVisibility'],
      resourceArns: [this.queue.queueArn],
    });
  }

  /**
   * Lets `fn` move the dead-letter queue's messages back to the lead queue (DLQ redrive with
   * StartMessageMoveTask) and see the move tasks: REDRIVE_SOURCE_ACTIONS on the dead-letter
   * queue only, sqs:SendMessage on the lead queue (the destination), and LEAD_QUEUE_ARN and
   * LEAD_DLQ_ARN. No CancelMessageMoveTask, no purge, nothing on other queues.
   */
  grantRedrive(fn: LambdaFunction): void {
    fn.addEnvironment(ENV.leadQueueArn, this.queue.queueArn);
    fn.addEnvironment(ENV.leadDlqArn, this.deadLetterQueue.queueArn);
    Grant.addToPrincipal({
      grantee: fn,
      actions: [...REDRIVE_SOURCE_ACTIONS],
      resourceArns: [this.deadLetterQueue.queueArn],
    });
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['sqs:SendMessage'],
      resourceArns: [this.queue.queueArn],
    });
  }
}
