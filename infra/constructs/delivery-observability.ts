/**
 * Watching lead delivery: an alarm topic, the delivery alarms and a CloudWatch dashboard
 * (docs/deploy.md, "Alarms and the dashboard").
 *
 * Alarms (each notifies the topic when it goes into ALARM and when it recovers):
 * - dead letters: the lead queue's DLQ holds ≥ 1 message (ApproximateNumberOfMessagesVisible);
 *   the forwarder failed on it outright that often (the ledger unreachable, a poison message).
 *   No lead is lost with it: the reconciler wakes leads from the ledger;
 * - backlog: the oldest lead message is older than `maxMessageAge` (default 15 min:
 *   ApproximateAgeOfOldestMessage); delivery is stuck or far behind (upstream down, pacing);
 * - waiting leads: a lead going back for a retry had waited longer than `maxMessageAge` since
 *   it was received (LeadWaitingSeconds, Maximum, recorded on every retry). Held-back leads are re-sent as fresh
 *   messages (functions/delivery/forward/handler.ts), so the queue's message age no longer shows their
 *   wait; this alarm does;
 * - upstream auth: ≥ 1 UpstreamAuthFailure (the upstream or Graph refused our credentials):
 *   every delivery fails until an operator fixes the secret, so one is enough;
 * - upstream down: an account's circuit is open (the reconciler's UpstreamCircuitOpen gauge,
 *   recorded every minute, ≥ 1): failures that say nothing about a lead opened it, and leads
 *   wait for a probe, counted against nothing. The alarm stays in alarm as long as the circuit
 *   stays open and recovers once every circuit is closed;
 * - lookups forbidden: ≥ 1 UpstreamLookupForbidden (the key may not look prospects up, so an
 *   ambiguous POST cannot be checked: exactly-once depends on that permission);
 * - dead leads: ≥ 1 LeadDead (a lead's own failures ran out, or it waited past the delivery
 *   horizon). Those are final in the ledger, so the DLQ alarm alone would miss them;
 * - forwarder and reconciler errors: a function threw or timed out (Lambda Errors ≥ 1);
 * - sign-in failures: ≥ AUTH_FAILURE_THRESHOLD AuthFailure in a period (wrong Basic passwords at
 *   the authorizer: someone guessing, or a client whose password changed; the throttle answers
 *   429 meanwhile: docs/privacy.md and SECURITY.md).
 * - leads parked: ≥ 1 LeadParked (a lead lacks a field the upstream needs: an operator completes
 *   it in the console); leads rejected: ≥ 1 LeadRejected (the upstream refused one);
 * - intake refusing requests: ≥ REFUSAL_THRESHOLD LeadUnauthentic (401/403: a wrong secret or
 *   token at a platform, whose leads are then lost at the platform's side) in one period;
 * - intake errors: the intake function threw or timed out (Lambda Errors ≥ 1);
 * - quiet profiles: not an alarm. The watch function (functions/watch/) runs every hour
 *   (EventBridge Scheduler, on its `live` alias) and publishes to the topic itself, naming the profiles that received
 *   no lead for their `quietHours`: profiles change without a deploy, so per-profile alarms made
 *   at deploy would watch a stale list (and count against CloudFormation's limits). Its own
 *   failures alarm (watch errors).
 * Missing data is "not breaching": no traffic is no problem. Thresholds count in 5-minute
 * periods, one period to alarm: each of these is worth a look the first time.
 *
 * Custom metrics are Powertools EMF metrics: namespace POWERTOOLS_METRICS_NAMESPACE and the
 * dimension `service` = POWERTOOLS_SERVICE_NAME, the NodeFunction defaults ('Leads', 'leads').
 * Pass the same values here if a function is given others.
 *
 * Topic: encrypted with a customer managed KMS key (rotated yearly; about 1 USD a month),
 * because CloudWatch cannot publish to a topic under the AWS managed `aws/sns` key: the key
 * policy lets cloudwatch.amazonaws.com use it for this account's alarms only (aws:SourceAccount,
 * aws:SourceArn), and the topic policy lets alarms of this account publish (the TLS-only policy replaces SNS's default one, which allowed the account). An email
 * subscription is added when the deploy config sets `alarmEmail` (the address confirms it once);
 * otherwise subscribe to the AlarmTopicArn output.
 */
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { METRICS } from '../../functions/kernel/metrics.ts';
import { ALERT_TOPIC_ENV, CONSOLE_URL_ENV } from '../../functions/watch/alert-env.ts';
import type { LeadQueue } from './lead-queue.ts';
import type { NodeFunction } from './node-function.ts';
import { scheduledInvokeSettings, schedulerRole } from './scheduler-role.ts';

/**
 * The lead metrics the alarms and the dashboard read: the intake's, the forwarder's, the
 * reconciler's and the authorizer's, named once in functions/kernel/metrics.ts with the
 * functions that emit them.
 */
export const LEAD_METRICS = {
  received: METRICS.leadReceived,
  duplicate: METRICS.leadDuplicate,
  refused: METRICS.leadRefused,
  delivered: METRICS.leadDelivered,
  rejected: METRICS.leadRejected,
  retried: METRICS.leadRetried,
  dead: METRICS.leadDead,
  parked: METRICS.leadParked,
  upstreamAuthFailure: METRICS.upstreamAuthFailure,
  circuitOpened: METRICS.upstreamCircuitOpened,
  /** The reconciler's gauge: accounts whose circuit is open now (every minute). */
  circuitOpen: METRICS.upstreamCircuitOpen,
  lookupForbidden: METRICS.upstreamLookupForbidden,
  woken: METRICS.leadWoken,
  /** Seconds since a lead going back for a retry was received (a value, not a count). */
  waiting: METRICS.leadWaitingSeconds,
  /** A wrong password at the Basic-auth authorizer (functions/authorizer/handler.ts). */
  authFailure: METRICS.authFailure,
  /** A sign-in answered 429: its user name or address locked by failures. */
  authThrottled: METRICS.authThrottled,
  /** Intake refusals for credentials (401/403): a wrong secret at a platform. */
  unauthentic: METRICS.leadUnauthentic,
} as const;

/** Wrong passwords in one 5-minute period that look like guessing rather than a typo. */
export const AUTH_FAILURE_THRESHOLD = 20;

/** Refusals for credentials in one period that alarm: one stray probe is not worth an e-mail. */
export const REFUSAL_THRESHOLD = 3;
/** How often the quiet-profile watch runs (functions/watch/quiet-profiles.ts agrees). */
export const WATCH_INTERVAL = Duration.minutes(60);

export const DEFAULT_METRICS_NAMESPACE = 'Leads';
export const DEFAULT_SERVICE_NAME = 'leads';
export const DEFAULT_MAX_MESSAGE_AGE = Duration.minutes(15);
/** The period every alarm and graph sums or maximises over. */
export const ALARM_PERIOD = Duration.minutes(5);
/** Sums and maxima over one period: what the alarms and graphs read. */
const SUM = { period: ALARM_PERIOD, statistic: 'Sum' };
const MAX = { period: ALARM_PERIOD, statistic: 'Maximum' };

export interface DeliveryObservabilityProps {
  /** `leads-<stage>-delivery` dashboard. */
  stage: string;
  queue: LeadQueue;
  forwarder: IFunction;
  /** The delivery reconciler (optional: stacks built without it). */
  reconciler?: IFunction;
  intake: IFunction;
  /** The quiet-profile watch (FUNCTIONS.watch): scheduled hourly, publishes to the topic. */
  watch?: NodeFunction;
  /** The operator console's URL, for the watch's messages. */
  consoleUrl?: string;
  /** Functions that publish to the topic themselves (granted sns:Publish and the key). */
  publishers?: readonly LambdaFunction[];
  api: RestApi;
  /** Subscribe this address to the alarm topic (confirmed once by email). */
  alarmEmail?: string;
  /** Backlog alarm: the oldest lead message is older than this. @default 15 minutes */
  maxMessageAge?: Duration;
  /** @default 'Leads' (NodeFunction's POWERTOOLS_METRICS_NAMESPACE) */
  metricsNamespace?: string;
  /** @default 'leads' (NodeFunction's POWERTOOLS_SERVICE_NAME) */
  serviceName?: string;
}

export interface DeliveryAlarms {
  deadLetters: Alarm;
  backlog: Alarm;
  waitingLeads: Alarm;
  upstreamAuth: Alarm;
  upstreamDown: Alarm;
  lookupForbidden: Alarm;
  deadLeads: Alarm;
  forwarderErrors: Alarm;
  reconcilerErrors?: Alarm;
  authFailures: Alarm;
  parkedLeads: Alarm;
  rejectedLeads: Alarm;
  intakeRefusing: Alarm;
  intakeErrors: Alarm;
  watchErrors?: Alarm;
}

export class DeliveryObservability extends Construct {
  readonly key: Key;
  readonly topic: Topic;
  /** The action every alarm takes (also for alarms of other constructs). */
  readonly alarmAction: SnsAction;
  readonly alarms: DeliveryAlarms;
  readonly dashboard: Dashboard;
  /** The quiet-profile watch's hourly schedule (when a watch function is given). */
  readonly watchSchedule?: Schedule;
  private readonly namespace: string;
  private readonly serviceName: string;

  constructor(scope: Construct, id: string, props: DeliveryObservabilityProps) {
    super(scope, id);
    this.namespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    this.serviceName = props.serviceName ?? DEFAULT_SERVICE_NAME;
    const maxAge = props.maxMessageAge ?? DEFAULT_MAX_MESSAGE_AGE;

    this.key = this.alarmTopicKey();
    this.topic = this.alarmTopic(props.stage, props.alarmEmail);
    this.alarmAction = new SnsAction(this.topic);
    this.alarms = this.deliveryAlarms(props, maxAge);
    for (const fn of [...(props.publishers ?? [])]) this.grantPublish(fn);
    if (props.watch) this.watchSchedule = this.scheduleWatch(props.watch, props.consoleUrl);
    this.dashboard = this.deliveryDashboard(props, maxAge);
  }

  /** A custom metric of the functions (Powertools EMF: namespace + `service`). */
  leadMetric(metricName: string, options: { period: Duration; statistic: string; label?: string }) {
    return new Metric({
      namespace: this.namespace,
      metricName,
      dimensionsMap: { service: this.serviceName },
      ...options,
    });
  }

  /** The topic's key: CloudWatch may use it to publish (it cannot use the AWS managed key). */
  private alarmTopicKey(): Key {
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the leads alarm topic; CloudWatch alarms may use it to publish',
      enableKeyRotation: true,
      // It only protects notifications in transit through SNS: nothing to keep after the stack.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        // Only for this account's alarms: CloudWatch acting for another account gets nothing.
        conditions: this.fromThisAccountsAlarms(),
      }),
    );
    // Control Tower's CT.KMS.PR.3: grants of this key only by AWS services for AWS resources,
    // so no principal of the account can hand its use to someone else with a grant.
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'DenyGrantsExceptByAwsServices',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: {
          BoolIfExists: {
            'kms:GrantIsForAWSResource': 'false',
            'aws:PrincipalIsAWSService': 'false',
          },
        },
      }),
    );
    return key;
  }

  /** The confused-deputy guard: a request CloudWatch makes for an alarm of this account. */
  private fromThisAccountsAlarms() {
    const stack = Stack.of(this);
    return {
      ArnLike: {
        'aws:SourceArn': stack.formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: '*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
      StringEquals: { 'aws:SourceAccount': stack.account },
    };
  }

  /** The alarm topic: TLS only, alarms of this account may publish, an email subscribed. */
  private alarmTopic(stage: string, alarmEmail: string | undefined): Topic {
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: `Leads ${stage} alarms`,
      masterKey: this.key,
      enforceSSL: true,
    });
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowAlarmsOfThisAccount',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: this.fromThisAccountsAlarms(),
      }),
    );
    if (alarmEmail) {
      const subscription = topic.addSubscription(new EmailSubscription(alarmEmail));
      Validations.of(subscription).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          'An email subscription of the alarm topic: SNS retries email deliveries itself, and the alarm state and history stay in CloudWatch (and on the delivery dashboard); a dead-letter queue of undelivered alarm emails would be one more queue nobody reads.',
      });
    }
    return topic;
  }

  /** The alarms of the module comment, each notifying the topic. */
  private deliveryAlarms(props: DeliveryObservabilityProps, maxAge: Duration): DeliveryAlarms {
    const { queue, forwarder, intake } = props;
    return {
      deadLetters: this.alarm('DeadLetterAlarm', {
        description:
          'Lead messages reached the dead-letter queue: the forwarder failed on them outright (the ledger unreachable, or a poison message). The reconciler still wakes their leads from the ledger; see the forwarder log (docs/operations.md, Alarms).',
        metric: queue.deadLetterQueue.metricApproximateNumberOfMessagesVisible(MAX),
        threshold: 1,
      }),
      backlog: this.alarm('BacklogAlarm', {
        description: `The oldest lead waiting for delivery is older than ${maxAge.toHumanString()}: the upstream is down or refusing, or delivery is far behind (docs/deploy.md, Alarms).`,
        metric: queue.queue.metricApproximateAgeOfOldestMessage(MAX),
        threshold: maxAge.toSeconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      waitingLeads: this.alarm('WaitingLeadsAlarm', {
        description: `A lead still waiting for delivery (held back by the upstream or the pacer, or retrying after errors) has waited more than ${maxAge.toHumanString()} since it was received (docs/deploy.md, Alarms).`,
        metric: this.leadMetric(LEAD_METRICS.waiting, MAX),
        threshold: maxAge.toSeconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      upstreamAuth: this.alarm('UpstreamAuthAlarm', {
        description:
          'The upstream (or Meta Graph) refused our credentials: deliveries wait until the upstream or profile secret is fixed (docs/deploy.md, Alarms).',
        metric: this.leadMetric(LEAD_METRICS.upstreamAuthFailure, SUM),
        threshold: 1,
      }),
      upstreamDown: this.alarm('UpstreamDownAlarm', {
        description:
          "An upstream account's circuit is open: the upstream stopped answering (refused connections, timeouts, 5xx) and leads wait for a probe, nothing is lost or counted. The alarm lasts while the circuit stays open. Check the upstream; see GET /admin/upstream (docs/operations.md, Alarms).",
        metric: this.leadMetric(LEAD_METRICS.circuitOpen, MAX),
        threshold: 1,
      }),
      lookupForbidden: this.alarm('LookupForbiddenAlarm', {
        description:
          'The upstream key may not look prospects up ("Prospects - Consulta"): a POST that got no answer cannot be checked before it is sent again, so duplicates are possible. Tick the permission in the upstream (docs/operations.md, Exactly once).',
        metric: this.leadMetric(LEAD_METRICS.lookupForbidden, SUM),
        threshold: 1,
      }),
      deadLeads: this.alarm('DeadLeadsAlarm', {
        description:
          'Leads are dead in the ledger: their own failures ran out (maxAttempts) or they waited past the delivery horizon. See GET /admin/leads?status=dead, fix the cause, then POST /admin/replay (docs/operations.md, Alarms).',
        metric: this.leadMetric(LEAD_METRICS.dead, SUM),
        threshold: 1,
      }),
      forwarderErrors: this.alarm('ForwarderErrorsAlarm', {
        description:
          'The forwarder function failed a whole invocation (uncaught error or timeout): see its log (docs/deploy.md, Alarms).',
        metric: forwarder.metricErrors(SUM),
        threshold: 1,
      }),
      authFailures: this.alarm('AuthFailuresAlarm', {
        description: `At least ${AUTH_FAILURE_THRESHOLD} wrong Basic passwords in 5 minutes: someone may be guessing (the gateway answers 429 after a few failures per user name and per address), or a client's password changed without its configuration. See the authorizer's log (SECURITY.md).`,
        metric: this.leadMetric(LEAD_METRICS.authFailure, SUM),
        threshold: AUTH_FAILURE_THRESHOLD,
      }),
      ...(props.reconciler && {
        reconcilerErrors: this.alarm('ReconcilerErrorsAlarm', {
          description:
            'The delivery reconciler failed a run (uncaught error or timeout): leads whose message was lost wait until it runs again; see its log (docs/operations.md, Alarms).',
          metric: props.reconciler.metricErrors(SUM),
          threshold: 1,
        }),
      }),
      parkedLeads: this.alarm('ParkedLeadsAlarm', {
        description:
          'Leads were parked: they lack a field the upstream needs (often a phone or a branch). Nothing is lost: open the operator console (GET /admin/), read what the person typed, complete the lead and resend it (docs/operations.md, The operator console).',
        metric: this.leadMetric(LEAD_METRICS.parked, SUM),
        threshold: 1,
      }),
      rejectedLeads: this.alarm('RejectedLeadsAlarm', {
        description:
          'The upstream rejected leads (its messages are on each lead in the console): correct the field it names and resend (docs/operations.md, The operator console).',
        metric: this.leadMetric(LEAD_METRICS.rejected, SUM),
        threshold: 1,
      }),
      intakeRefusing: this.alarm('IntakeRefusingAlarm', {
        description: `The intake refused at least ${REFUSAL_THRESHOLD} requests for their credentials (401/403) in 5 minutes: a platform may be sending with a wrong or old secret or token, and its leads are not reaching us. The intake log names the profile (lead request refused); compare the secret with the set-up kit (GET /admin/setup).`,
        metric: this.leadMetric(LEAD_METRICS.unauthentic, SUM),
        threshold: REFUSAL_THRESHOLD,
      }),
      intakeErrors: this.alarm('IntakeErrorsAlarm', {
        description:
          'The intake function failed a request (uncaught error or timeout): a platform got a 5xx and will retry or drop the lead; see the intake log (docs/deploy.md, Alarms).',
        metric: intake.metricErrors(SUM),
        threshold: 1,
      }),
      ...(props.watch && {
        watchErrors: this.alarm('WatchErrorsAlarm', {
          description:
            'The quiet-profile watch failed a run: a profile that stopped receiving leads may go unreported; see its log.',
          metric: props.watch.metricErrors(SUM),
          threshold: 1,
        }),
      }),
    };
  }

  /** A function that publishes to the topic itself: sns:Publish, the key, the topic's ARN. */
  private grantPublish(fn: LambdaFunction): void {
    // Not Topic.grantPublish: it grants kms:GenerateDataKey* where one action is enough.
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['sns:Publish'], resources: [this.topic.topicArn] }),
    );
    // Publishing to an encrypted topic: the data key (no wildcard action).
    this.key.grant(fn, 'kms:Decrypt', 'kms:GenerateDataKey');
    fn.addEnvironment(ALERT_TOPIC_ENV, this.topic.topicArn);
  }

  /** The quiet-profile watch, run hourly by EventBridge Scheduler (on its `live` alias). */
  private scheduleWatch(watch: NodeFunction, consoleUrl: string | undefined): Schedule {
    // The console's address for the message (the API's URL: no cycle, the watch is no route).
    if (consoleUrl) watch.addEnvironment(CONSOLE_URL_ENV, consoleUrl);
    const schedule = new Schedule(this, 'WatchSchedule', {
      description: 'Alerts when a profile has received no lead for its quietHours',
      schedule: ScheduleExpression.rate(WATCH_INTERVAL),
      target: new LambdaInvoke(watch.live, {
        role: schedulerRole(
          this,
          'WatchScheduleRole',
          'EventBridge Scheduler invokes the quiet-profile watch',
        ),
        input: ScheduleTargetInput.fromObject({ reason: 'schedule' }),
        maxEventAge: Duration.minutes(15),
        retryAttempts: 2,
      }),
    });
    // A failed run is retried by Lambda (about 1 and 2 minutes later) within 15 minutes.
    scheduledInvokeSettings(watch.live, {
      retryAttempts: 2,
      maxEventAge: Duration.minutes(15),
      dropped:
        "A watch run that failed three times is not worth keeping: the next hourly run reads the ledger afresh and names every profile still quiet; the failure itself raises WatchErrorsAlarm and is in the function's log.",
    });
    Validations.of(watch).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Invoked hourly by EventBridge Scheduler (asynchronously, on its live alias). Its EventInvokeConfig retries a failed run twice within 15 minutes, then drops the event: a run that still fails raises WatchErrorsAlarm and the next run, an hour later, reads the ledger afresh, so there is nothing to keep in a dead-letter queue.',
    });
    return schedule;
  }

  /** `leads-<stage>-delivery`: the alarms, leads in and out, the queue, the functions, the API. */
  private deliveryDashboard(props: DeliveryObservabilityProps, maxAge: Duration): Dashboard {
    return new Dashboard(this, 'Dashboard', {
      dashboardName: `leads-${props.stage}-delivery`,
      defaultInterval: Duration.days(1),
      widgets: [
        [
          new TextWidget({
            markdown: `## Leads ${props.stage}: intake and delivery\nCounts per 5 minutes. Runbook: docs/deploy.md, "Alarms and the dashboard".`,
            width: 24,
            height: 2,
          }),
        ],
        [
          new AlarmStatusWidget({
            title: 'Alarms',
            alarms: Object.values(this.alarms),
            width: 24,
            height: 3,
          }),
        ],
        this.leadGraphs(),
        this.deliveryGraphs(props, maxAge),
        this.apiGraphs(props),
      ],
    });
  }

  /** Leads in (intake, authorizer) and leads out (forwarder, reconciler), per period. */
  private leadGraphs(): GraphWidget[] {
    const lead = (name: string, label: string) =>
      this.leadMetric(name, { ...SUM, label }) as IMetric;
    return [
      new GraphWidget({
        title: 'Leads in',
        left: [
          lead(LEAD_METRICS.received, 'received'),
          lead(LEAD_METRICS.duplicate, 'duplicate'),
          lead(LEAD_METRICS.refused, 'refused'),
          lead(LEAD_METRICS.unauthentic, 'refused for credentials'),
          lead(LEAD_METRICS.parked, 'parked'),
          lead(LEAD_METRICS.authFailure, 'wrong Basic passwords'),
          lead(LEAD_METRICS.authThrottled, 'sign-ins throttled (429)'),
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'Leads out',
        left: [
          lead(LEAD_METRICS.delivered, 'delivered'),
          lead(LEAD_METRICS.rejected, 'rejected'),
          lead(LEAD_METRICS.retried, 'retried'),
          lead(LEAD_METRICS.dead, 'dead'),
          lead(LEAD_METRICS.upstreamAuthFailure, 'upstream auth failures'),
          lead(LEAD_METRICS.circuitOpened, 'circuit opened'),
          this.leadMetric(LEAD_METRICS.circuitOpen, {
            ...MAX,
            label: 'accounts with the circuit open',
          }),
          lead(LEAD_METRICS.woken, 'woken by the reconciler'),
          lead(LEAD_METRICS.lookupForbidden, 'lookups forbidden'),
        ],
        width: 12,
      }),
    ];
  }

  /** The lead queue (and its DLQ, the longest wait) and the forwarder function. */
  private deliveryGraphs(props: DeliveryObservabilityProps, maxAge: Duration): GraphWidget[] {
    const { queue, forwarder } = props;
    return [
      new GraphWidget({
        title: 'Lead queue',
        left: [
          queue.queue.metricApproximateNumberOfMessagesVisible({ ...MAX, label: 'waiting' }),
          queue.queue.metricApproximateNumberOfMessagesNotVisible({
            ...MAX,
            label: 'in flight or delayed',
          }),
          queue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            ...MAX,
            label: 'dead-letter queue',
          }),
        ],
        right: [
          queue.queue.metricApproximateAgeOfOldestMessage({ ...MAX, label: 'oldest (s)' }),
          this.leadMetric(LEAD_METRICS.waiting, {
            ...MAX,
            label: 'longest wait of a retried lead (s)',
          }),
        ],
        leftAnnotations: [{ value: 1, label: 'DLQ alarm', color: '#d62728' }],
        rightAnnotations: [{ value: maxAge.toSeconds(), label: 'backlog and waiting alarms' }],
        width: 12,
      }),
      new GraphWidget({
        title: 'Forwarder',
        left: [
          forwarder.metricDuration({ period: ALARM_PERIOD, statistic: 'Average' }),
          forwarder.metricDuration({ period: ALARM_PERIOD, statistic: 'p99' }),
        ],
        right: [
          forwarder.metricErrors({ ...SUM, label: 'errors' }),
          forwarder.metricThrottles({ ...SUM, label: 'throttles' }),
          forwarder.metric('ConcurrentExecutions', { ...MAX, label: 'concurrency' }),
        ],
        width: 12,
      }),
    ];
  }

  /** The API's requests and errors, and the intake function's errors. */
  private apiGraphs(props: DeliveryObservabilityProps): GraphWidget[] {
    const { api, intake } = props;
    return [
      new GraphWidget({
        title: 'API and intake (the API counts every route)',
        left: [
          api.metricClientError({ ...SUM, label: 'API 4XX' }),
          api.metricServerError({ ...SUM, label: 'API 5XX' }),
          intake.metricErrors({ ...SUM, label: 'intake function errors' }),
        ],
        right: [api.metricCount({ ...SUM, label: 'API requests' })],
        width: 24,
      }),
    ];
  }

  private alarm(
    id: string,
    options: {
      description: string;
      metric: IMetric;
      threshold: number;
      comparisonOperator?: ComparisonOperator;
    },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator:
        options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.alarmAction);
    alarm.addOkAction(this.alarmAction);
    return alarm;
  }
}
