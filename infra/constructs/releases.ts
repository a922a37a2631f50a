/**
 * How a release reaches the functions, and how it goes back by itself (docs/deploy.md,
 * "Releases: canary and rollback").
 *
 * Every function is published as a version behind its `live` alias (NodeFunction), and every
 * invoker invokes the alias. A deploy moves the aliases:
 * - the intake and the authorizer (what platforms and people reach) by canary, through CodeDeploy:
 *   10 % of their requests go to the new version for 5 minutes, then all of them
 *   (Canary10Percent5Minutes);
 * - the workers (forwarder, reconciler, refresher, watch, admin, report, API description,
 *   configuration validator) all at once: CloudFormation points their alias at the new version.
 *   The forwarder's moves before the canaries start (their aliases depend on it), so that the
 *   canary's 5 minutes watch the new forwarder too (its errors are a rollback alarm). (Not every
 *   worker can go first: the watch's settings name the API's URL, which depends on the
 *   authorizer's alias.)
 *
 * The rollback alarms: the intake's 5xx, the intake's and the authorizer's errors, the
 * forwarder's errors, and lead messages reaching the dead-letter queue during the release (the
 * DLQ's count grew within a period: an alarm of its own, because the operators' DLQ alarm stays
 * in ALARM until someone redrives, which would stop every release). When one goes into ALARM
 * during a canary, CodeDeploy moves the alias back to the previous version and fails; the
 * alias's update then fails in CloudFormation, which rolls the whole stack back, workers' aliases
 * included. A deploy that starts while one of them is already in ALARM is rolled back at once:
 * `-c rollbackAlarms=off` deploys without them (a fix for what makes them fire).
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IAlarm,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import {
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
} from 'aws-cdk-lib/aws-codedeploy';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnAlias } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ACCEPTED_CONTROLS, acknowledgeControls } from './control-tower.ts';
import type { NodeFunction } from './node-function.ts';

/** The context key that turns alarm-driven rollback off for one deploy (`-c rollbackAlarms=off`). */
export const ROLLBACK_ALARMS_CONTEXT = 'rollbackAlarms';

export interface ReleasesProps {
  /** `leads-<stage>`: the CodeDeploy application's name. */
  stage: string;
  /** Shifted by canary: the intake and the authorizer. */
  canary: Record<string, NodeFunction>;
  /** Moved all at once, before the canaries start (workers whose alarms roll a release back). */
  first: readonly NodeFunction[];
  /** Alarms that roll a release back (the DLQ's growth is added here). */
  rollbackAlarms: readonly IAlarm[];
  /** The lead queue's dead-letter queue: messages reaching it during a release roll it back. */
  deadLetterQueue: IQueue;
  /** Skip the alarm check for this deploy (ROLLBACK_ALARMS_CONTEXT). @default false */
  ignoreAlarms?: boolean;
}

export class Releases extends Construct {
  readonly application: LambdaApplication;
  readonly groups: Record<string, LambdaDeploymentGroup>;
  /** Lead messages reached the dead-letter queue within a period (rollback only, no e-mail). */
  readonly deadLettersGrew: Alarm;
  readonly rollbackAlarms: readonly IAlarm[];

  constructor(scope: Construct, id: string, props: ReleasesProps) {
    super(scope, id);
    this.deadLettersGrew = new Alarm(this, 'ReleaseDeadLettersAlarm', {
      alarmDescription:
        "Lead messages reached the dead-letter queue within the last 5 minutes: a release in progress rolls back (the operators' DeadLetterAlarm says the same by e-mail).",
      metric: new MathExpression({
        expression: 'DIFF(dlq)',
        usingMetrics: {
          dlq: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(5),
            statistic: 'Maximum',
          }),
        },
        period: Duration.minutes(5),
        label: 'messages added to the dead-letter queue',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    acknowledgeControls(this.deadLettersGrew, ACCEPTED_CONTROLS.rollbackOnlyAlarm);
    this.rollbackAlarms = [...props.rollbackAlarms, this.deadLettersGrew];
    this.application = new LambdaApplication(this, 'Application', {
      applicationName: `leads-${props.stage}`,
    });
    // One service role for both canaries, CodeDeploy acting for this account only.
    const role = new Role(this, 'DeployRole', {
      description: 'CodeDeploy shifts the canary aliases of this stack',
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSCodeDeployRoleForLambdaLimited'),
      ],
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "CodeDeploy's service role for Lambda deployments: the AWS managed policy documented for it (update this stack's aliases, read the rollback alarms, invoke no hook), kept current by AWS as CodeDeploy changes.",
    });
    this.groups = {};
    for (const [name, fn] of Object.entries(props.canary)) {
      // The canary starts once these workers run the release.
      const alias = fn.live.node.defaultChild as CfnAlias;
      for (const worker of props.first) {
        alias.node.addDependency(worker.live.node.defaultChild as CfnAlias);
      }
      const group = new LambdaDeploymentGroup(this, `${fn.node.id}Deployment`, {
        application: this.application,
        role,
        alias: fn.live,
        deploymentConfig: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
        alarms: [...this.rollbackAlarms],
        ignoreAlarmConfiguration: props.ignoreAlarms ?? false,
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
      this.groups[name] = group;
    }
  }
}
