/**
 * The delivery wiring of the forwarder function (FUNCTIONS.forwarder, created by the stack like
 * every function): the lead queue's SQS event source, the retry cap it reads, and the checks that
 * keep the queue, the event source and the function consistent.
 *
 * - Event source: batches of up to 5 messages, partial batch responses
 *   (`ReportBatchItemFailures`: only the failed records return to the queue, the handler may
 *   delay them with ChangeMessageVisibility), and MaximumConcurrency 2.
 * - Concurrency: the event source runs at most 2 batches at once; the function's reserved
 *   concurrency (FunctionSpec.reservedConcurrency) must be at least that, or the event source
 *   meets Lambda throttles: a throttled batch goes back to the queue and costs a receive
 *   (maxReceiveCount) without a delivery attempt, which is why AWS advises reserved ≥
 *   MaximumConcurrency. Reserving also keeps two instances free whatever else the account runs.
 *   These caps only bound how many forwarders exist; the upstream's rate (about 5/s and 40/min
 *   per IP) is kept by the shared pacer, a token slot in the ledger table that every forwarder
 *   instance takes before a call (functions/upstream/pacer-dynamodb.ts), so two instances do not
 *   double the rate. Two rather than one so that a slow Graph lookup or upstream answer does not
 *   stall the whole queue; more would only wait on the pacer.
 * - Timeouts: the function must not run longer than LeadQueue.consumerTimeout (the queue's
 *   visibility timeout is 6 × that), or a batch still in work would be handed out again.
 * - MAX_ATTEMPTS (default 8): delivery attempts before the forwarder marks a lead dead. Retries
 *   that are not counted (401s, 429s, pacer waits: functions/delivery/forward.ts) are re-sent as
 *   fresh messages (sqs:SendMessage, the function's `queue:send` need), so they use no receives;
 *   the queue's maxReceiveCount (8) bounds the rest (crashes, timeouts); those messages end in
 *   the DLQ, which is alarmed and redriven by the admin replay.
 *
 * Grants: the event source grants what consuming needs (sqs:ReceiveMessage, DeleteMessage,
 * ChangeMessageVisibility, GetQueueAttributes, GetQueueUrl on the lead queue only); the ledger,
 * the explicit ChangeMessageVisibility and SendMessage come from the function's `needs`
 * (functions/kernel/routes.ts).
 */
import { Validations } from 'aws-cdk-lib';
import type { CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { ENV } from '../../functions/kernel/env.ts';
import type { LeadQueue } from './lead-queue.ts';

/** Delivery attempts before a lead is dead, unless the stack says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 8;
/** Messages per invocation. */
export const FORWARDER_BATCH_SIZE = 5;
/** Batches in flight at once (the event source's MaximumConcurrency; Lambda allows 2..1000). */
export const FORWARDER_MAX_CONCURRENCY = 2;

export interface LeadForwarderProps {
  /** The forwarder function (FUNCTIONS.forwarder), with its reserved concurrency set. */
  fn: LambdaFunction;
  /** The queue it consumes; its consumerTimeout must cover the function's timeout. */
  queue: LeadQueue;
  /** @default DEFAULT_MAX_ATTEMPTS (8) */
  maxAttempts?: number;
  /** @default FORWARDER_BATCH_SIZE (5) */
  batchSize?: number;
  /** @default FORWARDER_MAX_CONCURRENCY (2) */
  maxConcurrency?: number;
}

export class LeadForwarder extends Construct {
  readonly fn: LambdaFunction;
  readonly eventSource: SqsEventSource;
  readonly maxAttempts: number;
  readonly maxConcurrency: number;

  constructor(scope: Construct, id: string, props: LeadForwarderProps) {
    super(scope, id);
    const { fn, queue } = props;
    const maxAttempts = props.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    const batchSize = props.batchSize ?? FORWARDER_BATCH_SIZE;
    const maxConcurrency = props.maxConcurrency ?? FORWARDER_MAX_CONCURRENCY;
    if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
      throw new RangeError('LeadForwarder: maxAttempts must be a whole number ≥ 1');
    }
    const fnTimeout = fn.timeout?.toSeconds();
    if (fnTimeout === undefined || fnTimeout > queue.consumerTimeout.toSeconds()) {
      throw new RangeError(
        `LeadForwarder: the function's timeout (${fnTimeout ?? 'unset'} s) must not exceed the lead queue's consumerTimeout (${queue.consumerTimeout.toSeconds()} s); pass its timeout to LeadQueue`,
      );
    }
    const reserved = (fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions;
    if (typeof reserved !== 'number' || reserved < maxConcurrency) {
      throw new RangeError(
        `LeadForwarder: the function's reserved concurrency (${String(reserved ?? 'unset')}) must be at least the event source's maxConcurrency (${maxConcurrency}), or batches are throttled and burn receives`,
      );
    }
    this.fn = fn;
    this.maxAttempts = maxAttempts;
    this.maxConcurrency = maxConcurrency;

    fn.addEnvironment(ENV.maxAttempts, String(maxAttempts));
    this.eventSource = new SqsEventSource(queue.queue, {
      batchSize,
      reportBatchItemFailures: true,
      maxConcurrency,
    });
    fn.addEventSource(this.eventSource);

    Validations.of(fn).acknowledge(
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked only by its SQS event source mapping, which is synchronous: an asynchronous dead-letter queue never applies. A message the forwarder fails on returns to the lead queue and, after maxReceiveCount receives, moves to its dead-letter queue (alarmed, redriven by POST /admin/replay).',
      },
      {
        id: 'Serverless-LambdaEventSourceMappingDestination',
        reason:
          "SQS event source mappings take no on-failure destination (only stream and Kafka sources do): failed lead messages go to the lead queue's dead-letter queue through its redrive policy, and an alarm watches it.",
      },
    );
  }
}
