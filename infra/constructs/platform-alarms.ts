/**
 * The alarms beside delivery's (delivery-observability.ts): the API, the functions in front of
 * people and the ledger table. Each notifies the alarm topic when it goes into ALARM and when it
 * recovers, and shows on the delivery dashboard in a row of its own.
 *
 * - API 5XX: the stage answered ≥ 1 5xx in 5 minutes, on any route (API Gateway's 5XXError, the
 *   stage's basic metric: a function that failed or timed out, an integration error);
 * - intake 5XX: the intake's routes (the route table's `fn: 'intake'`) answered ≥ 1 5xx: read
 *   from the stage's access log by a metric filter, since per-route metrics cost a detailed
 *   metric per method. A platform that gets a 5xx retries for a while or drops the lead; a
 *   landing-page form loses it at once. A release rolls back on it (releases.ts);
 * - authorizer, admin and report errors: the function threw or timed out (Lambda Errors ≥ 1);
 *   an authorizer error answers every Basic route with a 500;
 * - intake throttles: Lambda refused to run the intake (Throttles ≥ 1): the account's concurrency
 *   ran out, and the platforms got 429s or 5xx;
 * - ledger throttling: DynamoDB throttled ≥ 1 request of the ledger table (ThrottledRequests of
 *   the operations the functions send): on-demand tables throttle on a sudden jump far above the
 *   previous peak, or at the account's table quota.
 * - forwarder throttles, OpenAPI and settings-validator errors (≥ 1), and the web ACL's blocked
 *   requests (≥ WAF_BLOCKS_THRESHOLD in 5 minutes), when the stack has them.
 * Missing data is "not breaching": no traffic is no problem.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  type Dashboard,
  type IAlarmAction,
  type IMetric,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ROUTES } from '../../functions/kernel/routes.ts';

/** Where the access-log metric filter counts the intake's 5xx answers. */
export const API_METRICS_NAMESPACE = 'Leads/Api';
export const INTAKE_SERVER_ERRORS = 'IntakeServerErrors';

/** The DynamoDB operations the functions send to the ledger table (lead-store.ts's grants). */
const LEDGER_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.QUERY,
  Operation.BATCH_GET_ITEM,
];

const PERIOD = Duration.minutes(5);
const SUM = { period: PERIOD, statistic: 'Sum' };

export interface PlatformAlarmsProps {
  api: RestApi;
  /** The stage's access log group (JSON lines with `status` and `resourcePath`). */
  accessLogs: ILogGroup;
  intake: IFunction;
  authorizer: IFunction;
  admin: IFunction;
  report: IFunction;
  /** The lead queue's consumer: its throttles alarm (it reserves what its event source uses). */
  forwarder?: IFunction;
  /** The API description's function and AppConfig's settings validator: their errors alarm. */
  openapi?: IFunction;
  configValidator?: IFunction;
  /** The stack's own web ACL (`api.waf`): its blocked requests alarm. */
  webAclName?: string;
  table: Table;
  alarmAction: IAlarmAction;
  /** Shows the alarms on this dashboard, in a row of their own. */
  dashboard?: Dashboard;
}

export interface PlatformAlarmSet {
  apiServerErrors: Alarm;
  intakeServerErrors: Alarm;
  authorizerErrors: Alarm;
  adminErrors: Alarm;
  reportErrors: Alarm;
  intakeThrottles: Alarm;
  ledgerThrottles: Alarm;
  forwarderThrottles?: Alarm;
  openapiErrors?: Alarm;
  configValidatorErrors?: Alarm;
  wafBlocks?: Alarm;
}

/** Blocked requests in 5 minutes that make the WAF alarm: a flood or a scan, not one client. */
export const WAF_BLOCKS_THRESHOLD = 100;

/** The access-log filter of 5xx answers on the intake's routes (from the route table). */
export function intakeServerErrorPattern(): string {
  const paths = [...new Set(ROUTES.filter((r) => r.fn === 'intake').map((r) => r.path))];
  const onPath = paths.map((path) => `$.resourcePath = "${path}"`).join(' || ');
  return `{ ($.status = "5*") && (${onPath}) }`;
}

export class PlatformAlarms extends Construct {
  readonly alarms: PlatformAlarmSet;
  /** The intake's 5xx answers per period (the access-log metric filter). */
  readonly intakeServerErrors: Metric;

  constructor(scope: Construct, id: string, props: PlatformAlarmsProps) {
    super(scope, id);
    new MetricFilter(this, 'IntakeServerErrorsFilter', {
      logGroup: props.accessLogs,
      metricNamespace: API_METRICS_NAMESPACE,
      metricName: INTAKE_SERVER_ERRORS,
      filterPattern: FilterPattern.literal(intakeServerErrorPattern()),
      metricValue: '1',
    });
    this.intakeServerErrors = new Metric({
      namespace: API_METRICS_NAMESPACE,
      metricName: INTAKE_SERVER_ERRORS,
      ...SUM,
    });
    const alarm = (alarmId: string, description: string, metric: IMetric) =>
      this.alarm(alarmId, description, metric, props.alarmAction);
    this.alarms = {
      apiServerErrors: alarm(
        'ApiServerErrorsAlarm',
        'The API answered 5xx (any route): a function failed or timed out, or an integration failed. The access log (errorMessage, resourcePath) says where; the function alarms say which (docs/operations.md, Alarms).',
        props.api.metricServerError(SUM),
      ),
      intakeServerErrors: alarm(
        'IntakeServerErrorsAlarm',
        "The lead intake's routes answered 5xx: platforms retry for a while or drop the lead, and a landing-page form loses it at once. See the intake log and the API access log; a release in progress rolls back by itself (docs/deploy.md, Releases).",
        this.intakeServerErrors,
      ),
      authorizerErrors: alarm(
        'AuthorizerErrorsAlarm',
        'The Basic-auth authorizer failed (uncaught error or timeout): every Basic route (console, reports, prospects API) answers 500 meanwhile. See its log (docs/operations.md, Alarms).',
        props.authorizer.metricErrors(SUM),
      ),
      adminErrors: alarm(
        'AdminErrorsAlarm',
        'The admin function failed a request (uncaught error or timeout): the console or an admin route answered 5xx. See its log (docs/operations.md, Alarms).',
        props.admin.metricErrors(SUM),
      ),
      reportErrors: alarm(
        'ReportErrorsAlarm',
        'The debtors report function failed a request (uncaught error or timeout). See its log (docs/report.md, Alarms).',
        props.report.metricErrors(SUM),
      ),
      intakeThrottles: alarm(
        'IntakeThrottlesAlarm',
        "Lambda throttled the intake: the account's concurrency ran out (other functions, or a flood), and lead requests were refused. Check the account's concurrency (npm run deploy's preflight says what it has) and what else runs (docs/deploy.md, Before the first deploy).",
        props.intake.metricThrottles(SUM),
      ),
      ledgerThrottles: alarm(
        'LedgerThrottlesAlarm',
        'DynamoDB throttled requests to the ledger table: a sudden jump far above its previous peak, or the account table quota. Requests are retried by the clients; leads wait or the intake answers 5xx if it persists (docs/operations.md, Alarms).',
        props.table.metricThrottledRequestsForOperations({ operations: LEDGER_OPERATIONS, ...SUM }),
      ),
      ...this.optionalAlarms(props),
    };
    props.dashboard?.addWidgets(
      new AlarmStatusWidget({
        title: 'API, functions and ledger',
        alarms: Object.values(this.alarms),
        width: 24,
        height: 3,
      }),
    );
  }

  /** The alarms of the functions and web ACL a stack may leave out (props). */
  private optionalAlarms(props: PlatformAlarmsProps): Partial<PlatformAlarmSet> {
    const { alarmAction: action } = props;
    return {
      ...(props.forwarder && {
        forwarderThrottles: this.alarm(
          'ForwarderThrottlesAlarm',
          "Lambda throttled the forwarder: its event source's MaximumConcurrency exceeds what it reserves, or the account's unreserved pool ran out (reservations off). Throttled batches return to the queue and cost a receive each: leads reach the dead-letter queue sooner (docs/deploy.md, Before the first deploy).",
          props.forwarder.metricThrottles(SUM),
          action,
        ),
      }),
      ...(props.openapi && {
        openapiErrors: this.alarm(
          'OpenapiErrorsAlarm',
          'The API description function failed (GET /openapi.json answered 5xx): integrators cannot read the contract meanwhile. See its log.',
          props.openapi.metricErrors(SUM),
          action,
        ),
      }),
      ...(props.configValidator && {
        configValidatorErrors: this.alarm(
          'ConfigValidatorErrorsAlarm',
          "AppConfig's settings validator failed (not a refused version: an error or timeout): no settings version can be deployed until it works (npm run config -- push fails). See its log.",
          props.configValidator.metricErrors(SUM),
          action,
        ),
      }),
      ...(props.webAclName && {
        wafBlocks: this.alarm(
          'WafBlocksAlarm',
          `The web ACL blocked ${WAF_BLOCKS_THRESHOLD} or more requests in 5 minutes: a flood or a scan, or a platform sending more than the rate rule allows (its leads are refused with 429). The WAF console's sampled requests show who.`,
          new Metric({
            namespace: 'AWS/WAFV2',
            metricName: 'BlockedRequests',
            dimensionsMap: {
              WebACL: props.webAclName,
              Region: Stack.of(this).region,
              Rule: 'ALL',
            },
            ...SUM,
          }),
          action,
          WAF_BLOCKS_THRESHOLD,
        ),
      }),
    };
  }

  private alarm(
    id: string,
    description: string,
    metric: IMetric,
    action: IAlarmAction,
    threshold = 1,
  ): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    return alarm;
  }
}
