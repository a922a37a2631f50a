/**
 * The debtors report's refresh half: where the snapshot lives, what refreshes it and when, and
 * the alarms that say it is failing or old (docs/report.md).
 *
 * - Store: an S3 bucket (functions/report/store/report-store-s3.ts keeps `debtors/current.json`,
 *   `status.json`, `checkpoint.json`). S3, not DynamoDB: a snapshot of thousands of rows is
 *   megabytes, beyond a DynamoDB item's 400 KB, and one PutObject replaces it atomically.
 *   SSE-KMS with the AWS managed key and a bucket key (no key to grant), access logs in a
 *   bucket of their own (30 days), versioning for recovery (the ten newest earlier versions are kept,
 *   older ones expire after a week), public access blocked, TLS enforced, retained with the
 *   stack (it is cheap to keep and the only copy of the last good snapshot).
 * - Refresh queue: a standard SQS queue of refresh requests (schedule, admin route,
 *   continuations) with a dead-letter queue after 5 receives. The refresher's `live` alias
 *   consumes it with batch size 1 and MaximumConcurrency 2 (the least Lambda allows); with
 *   `reserveConcurrency` the function reserves the same 2, so the event source never meets a
 *   throttle (a throttled message would cost a receive for nothing and, during a long refresh,
 *   reach the DLQ); without it (the default) MaximumConcurrency alone caps it. Its
 *   visibility timeout is 6 × the refresher's timeout (AWS advice for Lambda event sources).
 * - One refresh at a time, by a lease rather than by concurrency: a refresh (or continuation)
 *   holds a lease item in the ledger table (functions/report/refresh/lease.ts); a tick arriving
 *   meanwhile runs beside it (it only asks for the refreshes now due) and is acknowledged, and
 *   a refresh request that finds the lease taken is sent again, delayed, and acknowledged.
 * - Refresher: a NodeFunction (functions/report/refresh/handler.ts), 1 GB, timeout
 *   REFRESHER_TIMEOUT_SECONDS; it checkpoints and continues when an invocation runs short. It
 *   paces its upstream calls on the pacer item of the ledger table, with delivery, and records
 *   the branch names each account's report carries there (the chain forms' branch matching).
 * - Schedule: EventBridge Scheduler sends `{"kind":"refresh","reason":"schedule"}` to the queue
 *   every minute; the refresher asks for the refresh of each account whose report is due (its
 *   own refreshSeconds, which change without a deploy). A tick that cannot be delivered within
 *   a minute is dropped (the next one replaces it).
 * - Recursive loops: the refresher sends to the queue it consumes on purpose (continuations,
 *   deferred requests), so Lambda's loop detection is set to Allow (REFRESHER_LOOP_REASON).
 * - Alarms: a refresh failed (ReportRefreshFailed ≥ 1 in either of the last two refresh
 *   intervals of the account `default`); a report is stale (at the ticks, the oldest account
 *   report's age over its refreshSeconds, ReportAgeRatio, exceeds 2 over five minutes, and no
 *   data at all counts as stale: a refresher that never runs emits nothing); refresh messages
 *   in the dead-letter queue; refresher errors.
 *
 * Grants are least privilege and name each object: the refresher reads and writes the three
 * keys and deletes the checkpoint; a reader (the report function) only gets the snapshot and
 * the status; a trigger only sends to the queue. Both also get s3:ListBucket on this bucket:
 * without it S3 answers a missing key (a fresh deploy) with 403 instead of 404.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Grant } from 'aws-cdk-lib/aws-iam';
import { type Function as LambdaFunction, RecursiveLoop } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { SqsSendMessage } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../functions/kernel/env.ts';
import { METRICS } from '../../functions/kernel/metrics.ts';
import { REFRESH_LEASE_KEY } from '../../functions/report/refresh/lease-dynamodb.ts';
import { REFRESHER_TIMEOUT_SECONDS } from '../../functions/report/refresh/refresh.ts';
import { REPORT_KEYS, reportKeys } from '../../functions/report/store/report-store-s3.ts';
import { ACCEPTED_CONTROLS, acknowledgeControls } from './control-tower.ts';
import type { LeadStore } from './lead-store.ts';
import type { LeadsSecrets } from './leads-secrets.ts';
import { acknowledgeWildcards } from './nag.ts';
import { NodeFunction } from './node-function.ts';
import { schedulerRole } from './scheduler-role.ts';

/** The refresher's metrics (functions/report/refresh/events.ts), named in kernel/metrics.ts. */
export const REPORT_METRICS = {
  failed: METRICS.reportRefreshFailed,
  succeeded: METRICS.reportRefreshSucceeded,
  age: METRICS.reportAgeSeconds,
  /** At each scheduled tick: the oldest account report's age over its refreshSeconds. */
  ageRatio: METRICS.reportAgeRatio,
} as const;

/** How often the schedule ticks; each tick asks for the refreshes of the accounts now due. */
export const TICK_SECONDS = 60;
/** The stale alarm fires when a report is older than this many of its refresh intervals. */
export const STALE_RATIO = 2;
/** The stale alarm's period: five ticks. */
const STALE_PERIOD_SECONDS = 5 * TICK_SECONDS;

/**
 * The refresher's reserved concurrency and its event source's MaximumConcurrency: equal, so that
 * the event source is never throttled, and 2 because Lambda allows no less. One refresh at a
 * time is the lease's job (module comment).
 */
export const REFRESHER_CONCURRENCY = 2;

/** Why the refresher may send to its own queue (Lambda's recursive loop detection: Allow). */
export const REFRESHER_LOOP_REASON =
  'The refresher sends to the refresh queue it consumes on purpose: a continuation when a refresh does not fit in one invocation, and a request that found another refresh running, sent again a little later. Those chains end when the refresh completes (or its checkpoint is over an hour old and it starts over) and when the lease is free (it expires with the running invocation), not after a number of hops; Lambda would cut a long refresh after about 16 and leave its report stale until a later tick.';

/** Receives of a refresh message before it moves to the dead-letter queue. */
export const REFRESH_MAX_RECEIVE_COUNT = 5;
/** Visibility timeout = this × the refresher's timeout. */
export const VISIBILITY_FACTOR = 6;
/** Earlier versions of each object kept whatever their age, and how long older ones stay. */
export const NONCURRENT_VERSIONS_KEPT = 10;
export const NONCURRENT_VERSION_DAYS = 7;

/** CloudWatch alarms evaluate at most one day of periods shorter than an hour. */
const MAX_ALARM_SPAN_SECONDS = 86_400;

export interface DebtorsReportProps {
  /** `leads-<stage>-report-refresher`. */
  stage: string;
  /** report.refreshSeconds of the deploy configuration. */
  refreshSeconds: number;
  /** The refresher reads each account's upstream credentials from here. */
  secrets: LeadsSecrets;
  /**
   * The ledger table holding the account-wide upstream pacer item that delivery paces on: the
   * refresher paces on it too (LeadStore.grantPacer: that item only, and LEDGER_TABLE_NAME), and
   * records each account's learned branch names there (LeadStore.grantBranchNames).
   */
  ledger: LeadStore;
  /**
   * Reserve REFRESHER_CONCURRENCY executions for the refresher (the deploy configuration's
   * `reserveConcurrency`); false: none, its event source's MaximumConcurrency caps it.
   * @default true
   */
  reserveConcurrency?: boolean;
  /** @default REFRESHER_TIMEOUT_SECONDS (functions/report/refresh/refresh.ts) */
  refresherTimeout?: Duration;
  /** Where the functions' Powertools metrics go. @default 'Leads' */
  metricsNamespace?: string;
  /** The `service` dimension of those metrics. @default 'leads' */
  serviceName?: string;
}

/** How long the report bucket's access logs are kept. */
const ACCESS_LOG_DAYS = 30;

/** A whole number of minutes, in seconds, at least one minute. */
function wholeMinutes(seconds: number): number {
  return Math.max(60, Math.ceil(seconds / 60) * 60);
}

export class DebtorsReport extends Construct {
  readonly bucket: Bucket;
  /** The server access logs of `bucket` (30 days). */
  readonly accessLogs: Bucket;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly refresher: NodeFunction;
  readonly schedule: Schedule;
  readonly alarms: {
    refreshFailed: Alarm;
    stale: Alarm;
    deadLetters: Alarm;
    refresherErrors: Alarm;
  };

  constructor(scope: Construct, id: string, props: DebtorsReportProps) {
    super(scope, id);
    const { refreshSeconds } = props;
    if (!(Number.isFinite(refreshSeconds) && refreshSeconds >= 60)) {
      throw new RangeError('DebtorsReport: refreshSeconds must be at least 60');
    }
    const timeout = props.refresherTimeout ?? Duration.seconds(REFRESHER_TIMEOUT_SECONDS);
    const namespace = props.metricsNamespace ?? 'Leads';
    const serviceName = props.serviceName ?? 'leads';

    // The access logs reach their bucket through its policy (no ACLs: ownership enforced), as
    // cdk.json sets for the app; set here too, so the construct is the same outside the CDK CLI.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    this.accessLogs = this.accessLogBucket();
    this.bucket = new Bucket(this, 'Bucket', {
      // The snapshots hold debtors' personal data: SSE-KMS with the AWS managed key (its use is
      // in CloudTrail; no key policy to keep) and a bucket key, so a refresh costs a KMS call
      // per bucket key rather than per object (Control Tower's CT.S3.PR.10).
      encryption: BucketEncryption.KMS_MANAGED,
      bucketKeyEnabled: true,
      // Who read or wrote which object, from where (CT.S3.PR.2): server access logs rather
      // than CloudTrail data events, which need a trail of their own (and its bucket) and cost
      // 0.10 USD per 100,000 calls, while a refresh every 15 minutes of thousands of accounts
      // makes millions a month; access logs cost only their storage (30 days).
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'debtors-bucket/',
      enforceSSL: true,
      versioned: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Kept when the stack goes; a failed first create takes back its empty bucket.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      lifecycleRules: [
        {
          id: 'earlier-snapshots',
          noncurrentVersionExpiration: Duration.days(NONCURRENT_VERSION_DAYS),
          noncurrentVersionsToRetain: NONCURRENT_VERSIONS_KEPT,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        // Clearing the checkpoint leaves a delete marker: drop it once nothing is behind it.
        { id: 'delete-markers', expiredObjectDeleteMarker: true },
      ],
    });
    acknowledgeControls(
      this.bucket,
      ACCEPTED_CONTROLS.noObjectLock,
      ACCEPTED_CONTROLS.noEventNotifications,
    );

    this.deadLetterQueue = new Queue(this, 'RefreshDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // A dead-letter queue by its RedriveAllowPolicy (Control Tower's CT.SQS.PR.1). `byQueue`
      // would have to name the refresh queue's ARN, which exists only after this queue (its
      // RedrivePolicy names this one): a cycle. A dead-letter queue takes only queues of its
      // own account and Region, so `allowAll` means this stack's account.
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the dead-letter queue of the refresh queue: a refresh request ends here when the refresher could not record its outcome 5 times; it raises an alarm and is redriven or dropped by an operator (docs/report.md).',
    });
    this.queue = new Queue(this, 'RefreshQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // A request older than a day has long been replaced by the schedule's next ones.
      retentionPeriod: Duration.days(1),
      visibilityTimeout: Duration.seconds(timeout.toSeconds() * VISIBILITY_FACTOR),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: REFRESH_MAX_RECEIVE_COUNT },
    });

    this.refresher = new NodeFunction(this, 'Refresher', {
      entry: 'functions/report/refresh/handler.ts',
      functionName: `leads-${props.stage}-report-refresher`,
      description:
        'Debtors report refresh: pages the upstream per branch and replaces the snapshot',
      memorySize: 1024,
      timeout,
      // As many as the event source may run at once (never throttled); the lease keeps one
      // refresh at a time.
      ...((props.reserveConcurrency ?? true) && {
        reservedConcurrentExecutions: REFRESHER_CONCURRENCY,
      }),
      recursiveLoop: RecursiveLoop.ALLOW,
      recursiveLoopReason: REFRESHER_LOOP_REASON,
      metricsNamespace: namespace,
      serviceName,
    });
    this.refresher.live.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: REFRESHER_CONCURRENCY,
      }),
    );
    Validations.of(this.refresher).acknowledge(
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked only by its SQS event source mapping, which is synchronous: an asynchronous dead-letter queue never applies. A message the refresher fails on returns to the refresh queue and, after 5 receives, moves to its dead-letter queue (alarmed).',
      },
      {
        id: 'Serverless-LambdaEventSourceMappingDestination',
        reason:
          "SQS event source mappings take no on-failure destination (only stream and Kafka sources do): failed refresh messages go to the refresh queue's dead-letter queue through its redrive policy, and an alarm watches it.",
      },
    );
    props.secrets.grantRead(this.refresher, 'upstream');
    props.ledger.grantPacer(this.refresher);
    props.ledger.grantBranchNames(this.refresher);
    props.ledger.grantLease(this.refresher, REFRESH_LEASE_KEY);
    this.grantRefresh(this.refresher);

    // Accounts and their refreshSeconds change without a deploy (the configuration store): the
    // schedule ticks every minute and the refresher asks for the refreshes now due.
    this.schedule = new Schedule(this, 'Schedule', {
      description: 'Ticks every minute: the refresher refreshes the accounts whose report is due',
      schedule: ScheduleExpression.rate(Duration.seconds(TICK_SECONDS)),
      target: new SqsSendMessage(this.queue, {
        role: schedulerRole(this, 'ScheduleRole', 'EventBridge Scheduler sends the refresh ticks'),
        input: ScheduleTargetInput.fromObject({ kind: 'refresh', reason: 'schedule' }),
        maxEventAge: Duration.seconds(TICK_SECONDS),
        retryAttempts: 3,
      }),
    });

    this.alarms = this.reportAlarms({ namespace, serviceName, refreshSeconds });
  }

  /** The refresh's alarms (module comment): failed, stale, dead letters, refresher errors. */
  private reportAlarms(on: { namespace: string; serviceName: string; refreshSeconds: number }) {
    const { namespace, serviceName, refreshSeconds } = on;
    const metric = (metricName: string, statistic: string, periodSeconds: number) =>
      new Metric({
        namespace,
        metricName,
        dimensionsMap: { service: serviceName },
        statistic,
        period: Duration.seconds(periodSeconds),
      });
    const failurePeriod = Math.min(wholeMinutes(refreshSeconds), MAX_ALARM_SPAN_SECONDS / 2);
    return {
      refreshFailed: new Alarm(this, 'RefreshFailedAlarm', {
        alarmDescription:
          'A debtors report refresh failed: the last snapshot is still served, marked stale. See lastError in debtors/status.json (docs/report.md, Alarms).',
        metric: metric(REPORT_METRICS.failed, 'Sum', failurePeriod),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 2,
        datapointsToAlarm: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      stale: new Alarm(this, 'StaleAlarm', {
        alarmDescription: `An account's debtors report is older than ${STALE_RATIO} × its refreshSeconds, or the refresher reported nothing: refreshes fail or do not run (docs/report.md, Alarms).`,
        metric: metric(REPORT_METRICS.ageRatio, 'Maximum', STALE_PERIOD_SECONDS),
        threshold: STALE_RATIO,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.BREACHING,
      }),
      deadLetters: new Alarm(this, 'RefreshDeadLetterAlarm', {
        alarmDescription:
          'Refresh requests reached the dead-letter queue: the refresher could not record their outcome (docs/report.md, Alarms).',
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      refresherErrors: new Alarm(this, 'RefresherErrorsAlarm', {
        alarmDescription:
          'The debtors report refresher threw (store or queue failure, timeout): see its log (docs/report.md, Alarms).',
        metric: this.refresher.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    };
  }

  /** The objects `pick` names, for the account `default` and (a wildcard) every other account. */
  private objectArns(...pick: (keyof typeof REPORT_KEYS)[]): string[] {
    const others = reportKeys('*');
    return pick.flatMap((key) => [
      this.bucket.arnForObjects(REPORT_KEYS[key]),
      this.bucket.arnForObjects(others[key]),
    ]);
  }

  /**
   * Where S3 delivers the report bucket's access logs: SSE-S3 (S3 does not deliver access logs
   * to a bucket whose default encryption is SSE-KMS), TLS only, private, 30 days (as the
   * functions' logs: the requesters' addresses are personal data).
   */
  private accessLogBucket(): Bucket {
    const bucket = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      lifecycleRules: [{ id: 'expire', expiration: Duration.days(ACCESS_LOG_DAYS) }],
    });
    const reason =
      'This bucket holds the access logs of the debtors report bucket: logging it as well would log the log deliveries, into itself or into one more bucket.';
    Validations.of(bucket).acknowledge({ id: 'AwsSolutions-S1', reason });
    acknowledgeControls(
      bucket,
      { id: 's3_bucket_logging_enabled_check', reason },
      {
        id: 's3_bucket_default_encryption_kms_check',
        reason:
          'S3 delivers server access logs only to a bucket encrypted with SSE-S3 (not SSE-KMS); the logs hold object keys and requesters, no report content.',
      },
      {
        id: 's3_bucket_versioning_enabled_check',
        reason:
          'S3 writes each access log object once and never overwrites it; versions would only keep expired logs longer than their 30 days.',
      },
      ACCEPTED_CONTROLS.noObjectLock,
      ACCEPTED_CONTROLS.noEventNotifications,
    );
    return bucket;
  }

  /** The acknowledgement of `fn`'s per-account object wildcards (see objectArns). */
  private acknowledgeAccounts(fn: LambdaFunction, arns: readonly string[]): void {
    acknowledgeWildcards(
      fn,
      arns.filter((arn) => arn.includes('*')),
      'One object name per upstream account (`debtors/accounts/<account>/current.json`, status.json, checkpoint.json): accounts are added with `npm run config -- push` without a deploy, so their names cannot be listed in the policy beforehand. The wildcard stands for the account name only, in this bucket.',
    );
  }

  /** s3:ListBucket on this bucket only, so that a missing key reads as 404 (module comment). */
  private grantList(fn: LambdaFunction): void {
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['s3:ListBucket'],
      resourceArns: [this.bucket.bucketArn],
    });
  }

  /** The refresher: read and write the three keys, delete the checkpoint, send continuations. */
  private grantRefresh(fn: LambdaFunction): void {
    fn.addEnvironment(ENV.reportBucket, this.bucket.bucketName);
    fn.addEnvironment(ENV.reportRefreshQueueUrl, this.queue.queueUrl);
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['s3:GetObject', 's3:PutObject'],
      resourceArns: this.objectArns('current', 'status', 'checkpoint'),
    });
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['s3:DeleteObject'],
      resourceArns: this.objectArns('checkpoint'),
    });
    this.grantList(fn);
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['sqs:SendMessage'],
      resourceArns: [this.queue.queueArn],
    });
    this.acknowledgeAccounts(fn, this.objectArns('current', 'status', 'checkpoint'));
  }

  /**
   * Lets `fn` read the snapshot and the refresh status (s3:GetObject on those two keys, no
   * write, no checkpoint) and sets REPORT_BUCKET_NAME.
   */
  grantRead(fn: LambdaFunction): void {
    fn.addEnvironment(ENV.reportBucket, this.bucket.bucketName);
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['s3:GetObject'],
      resourceArns: this.objectArns('current', 'status'),
    });
    this.grantList(fn);
    this.acknowledgeAccounts(fn, this.objectArns('current', 'status'));
  }

  /** Lets `fn` ask for a refresh: sqs:SendMessage on the refresh queue only, and its URL. */
  grantTrigger(fn: LambdaFunction): void {
    fn.addEnvironment(ENV.reportRefreshQueueUrl, this.queue.queueUrl);
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['sqs:SendMessage'],
      resourceArns: [this.queue.queueArn],
    });
  }
}
