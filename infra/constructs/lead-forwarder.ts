/**
 * The delivery engine's wiring (the forwarder and the reconciler functions are created by the
 * stack like every function, FUNCTIONS in functions/kernel/routes.ts): the lead queue's SQS event
 * source on the forwarder, the reconciler's schedule, and the checks that keep the queue, the
 * event source and the function consistent.
 *
 * - Event source: batches of up to 5 messages, partial batch responses
 *   (`ReportBatchItemFailures`: only the failed records return to the queue, the handler may
 *   delay them with ChangeMessageVisibility), and MaximumConcurrency 2.
 * - Concurrency: the event source runs at most `maxConcurrency` batches at once (2 for one
 *   account: the least Lambda allows). With `reserved` (the deploy configuration's
 *   `reserveConcurrency`), the function reserves at least that many, or the event source would
 *   meet Lambda throttles: a throttled batch goes back to the queue and costs a receive
 *   (maxReceiveCount) without a delivery attempt, which is why AWS advises reserved ≥
 *   MaximumConcurrency; reserving also keeps those instances free whatever else the account
 *   runs. Without it (the default: a new account's quota cannot hold a reservation), the
 *   function reserves nothing and MaximumConcurrency alone caps it; it throttles only when the
 *   account's whole pool is busy (ForwarderThrottlesAlarm says so).
 *   These caps only bound how many forwarders exist; the upstream's rate (about 5/s and 40/min
 *   per IP) is kept by the shared pacer, a token slot in the ledger table that every forwarder
 *   instance takes before a call (functions/upstream/pacer-dynamodb.ts), so two instances do not
 *   double the rate. Two rather than one so that a slow Graph lookup or upstream answer does not
 *   stall the whole queue; more would only wait on the pacer.
 * - Timeouts: the function must not run longer than LeadQueue.consumerTimeout (the queue's
 *   visibility timeout is 6 × that), or a batch still in work would be handed out again.
 * - The ledger is the truth and a message only a wake-up (functions/delivery/forward/forward.ts):
 *   every retry is a fresh delayed message (sqs:SendMessage, the function's `queue:send` need),
 *   so waits use no receives; only a message the function fails on outright (the ledger
 *   unreachable) comes back after the visibility timeout, and after maxReceiveCount (8) moves
 *   to the DLQ, where nothing is lost: the reconciler wakes its lead from the ledger.
 * - Reconciler: EventBridge Scheduler invokes its `live` alias every minute, asynchronously
 *   (functions/delivery/reconcile/): it wakes the leads nothing is working on (a message lost,
 *   a worker dead mid-attempt). Scheduler retries handing the event to Lambda twice within the
 *   minute; Lambda retries no failed run (EventInvokeConfig: 0 retries, events older than a
 *   minute dropped), since the next tick a minute later redoes it from the ledger, so it needs
 *   no dead-letter queue of its own.
 * - The event source and the schedule invoke the functions' `live` aliases (the released
 *   version), never `$LATEST`.
 *
 * Grants: the event source grants what consuming needs (sqs:ReceiveMessage, DeleteMessage,
 * ChangeMessageVisibility, GetQueueAttributes, GetQueueUrl on the lead queue only); the ledger,
 * the explicit ChangeMessageVisibility and SendMessage come from the function's `needs`
 * (functions/kernel/routes.ts).
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import type { LeadQueue } from './lead-queue.ts';
import type { NodeFunction } from './node-function.ts';
import { scheduledInvokeSettings, schedulerRole } from './scheduler-role.ts';

/** Messages per invocation. */
export const FORWARDER_BATCH_SIZE = 5;
/** Batches in flight at once (the event source's MaximumConcurrency; Lambda allows 2..1000). */
export const FORWARDER_MAX_CONCURRENCY = 2;

export interface LeadForwarderProps {
  /** The forwarder function (FUNCTIONS.forwarder), with its reserved concurrency set. */
  fn: NodeFunction;
  /** The queue it consumes; its consumerTimeout must cover the function's timeout. */
  queue: LeadQueue;
  /** The reconciler function (FUNCTIONS.reconciler), invoked every minute. */
  reconciler: NodeFunction;
  /** @default FORWARDER_BATCH_SIZE (5) */
  batchSize?: number;
  /** @default FORWARDER_MAX_CONCURRENCY (2) */
  maxConcurrency?: number;
  /**
   * Whether `fn` reserves concurrency (then at least `maxConcurrency`); false: it must reserve
   * none, and the event source's MaximumConcurrency is its only cap. @default true
   */
  reserved?: boolean;
}

export class LeadForwarder extends Construct {
  readonly fn: NodeFunction;
  readonly eventSource: SqsEventSource;
  readonly maxConcurrency: number;
  readonly reconcilerSchedule: Schedule;

  constructor(scope: Construct, id: string, props: LeadForwarderProps) {
    super(scope, id);
    const { fn, queue } = props;
    const batchSize = props.batchSize ?? FORWARDER_BATCH_SIZE;
    const maxConcurrency = props.maxConcurrency ?? FORWARDER_MAX_CONCURRENCY;
    const fnTimeout = fn.timeout?.toSeconds();
    if (fnTimeout === undefined || fnTimeout > queue.consumerTimeout.toSeconds()) {
      throw new RangeError(
        `LeadForwarder: the function's timeout (${fnTimeout ?? 'unset'} s) must not exceed the lead queue's consumerTimeout (${queue.consumerTimeout.toSeconds()} s); pass its timeout to LeadQueue`,
      );
    }
    checkReservation(fn, maxConcurrency, props.reserved ?? true);
    this.fn = fn;
    this.maxConcurrency = maxConcurrency;

    this.eventSource = new SqsEventSource(queue.queue, {
      batchSize,
      reportBatchItemFailures: true,
      maxConcurrency,
    });
    // On the alias: the released version consumes the queue, never $LATEST.
    fn.live.addEventSource(this.eventSource);

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

    this.reconcilerSchedule = new Schedule(this, 'ReconcilerSchedule', {
      description: 'Wakes the leads that nothing is working on (the delivery reconciler)',
      schedule: ScheduleExpression.rate(Duration.minutes(1)),
      target: new LambdaInvoke(props.reconciler.live, {
        role: schedulerRole(
          this,
          'ReconcilerScheduleRole',
          'EventBridge Scheduler invokes the delivery reconciler',
        ),
        input: ScheduleTargetInput.fromObject({ reason: 'schedule' }),
        maxEventAge: Duration.minutes(1),
        retryAttempts: 2,
      }),
    });
    // A failed run is not retried by Lambda: the next tick, a minute later, redoes it.
    scheduledInvokeSettings(props.reconciler.live, {
      retryAttempts: 0,
      maxEventAge: Duration.minutes(1),
      dropped:
        "A failed reconciler run is not worth keeping: the next tick, a minute later, reads the ledger afresh and wakes whatever the failed run left; the failure itself raises ReconcilerErrorsAlarm and is in the function's log.",
    });
    Validations.of(props.reconciler).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Invoked every minute by EventBridge Scheduler (asynchronously, on its live alias). Its EventInvokeConfig retries no failed run and drops events older than a minute: the next tick, a minute later, redoes whatever a failed run left (the reconciler reads the ledger afresh), so there is nothing to keep in a dead-letter queue; a failing run raises ReconcilerErrorsAlarm.',
    });
  }
}

/** The function's reservation agrees with the event source's cap (module comment). */
function checkReservation(fn: NodeFunction, maxConcurrency: number, wanted: boolean): void {
  const reserved = (fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions;
  if (!wanted) {
    if (reserved === undefined) return;
    throw new RangeError(
      `LeadForwarder: reserved is false, but the function reserves concurrency (${String(reserved)}); leave reservedConcurrentExecutions unset`,
    );
  }
  if (typeof reserved !== 'number' || reserved < maxConcurrency) {
    throw new RangeError(
      `LeadForwarder: the function's reserved concurrency (${String(reserved ?? 'unset')}) must be at least the event source's maxConcurrency (${maxConcurrency}), or batches are throttled and burn receives`,
    );
  }
}
