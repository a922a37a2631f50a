import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnTopic } from 'aws-cdk-lib/aws-sns';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DeliveryObservability,
  type DeliveryObservabilityProps,
  LEAD_METRICS,
  REFUSAL_THRESHOLD,
} from '../../infra/constructs/delivery-observability.ts';
import { LeadQueue } from '../../infra/constructs/lead-queue.ts';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import {
  acknowledgements,
  addNagPacks,
  environmentOf,
  onlyLogicalId,
  removeTempOutdirs,
  synthViolations,
  testApp,
  testStack,
} from './helpers.ts';

const ENTRY = 'test/fixtures/functions/hello.ts';

type Extra = Partial<Omit<DeliveryObservabilityProps, 'queue' | 'forwarder' | 'intake' | 'api'>>;

function observedStack(extra: Extra = {}, nag = false, withReconciler = false, withWatch = false) {
  const app = testApp();
  if (nag) addNagPacks(app);
  const stack = testStack(app);
  const queue = new LeadQueue(stack, 'LeadQueue', { consumerTimeout: Duration.seconds(60) });
  const forwarder = new NodeFunction(stack, 'Forwarder', { entry: ENTRY });
  const intake = new NodeFunction(stack, 'Intake', { entry: ENTRY });
  const watch = withWatch ? new NodeFunction(stack, 'Watch', { entry: ENTRY }) : undefined;
  const api = new RestApi(stack, 'Api', { deploy: false });
  api.root.addMethod('GET');
  const observability = new DeliveryObservability(stack, 'Observability', {
    stage: 'prod',
    queue,
    forwarder,
    intake,
    api,
    ...(withReconciler && {
      reconciler: new NodeFunction(stack, 'Reconciler', { entry: ENTRY }),
    }),
    ...(watch && { watch, publishers: [watch] }),
    ...extra,
  });
  const id = (q: typeof queue.queue) => stack.getLogicalId(q.node.defaultChild as CfnQueue);
  return {
    app,
    stack,
    observability,
    ids: {
      queue: id(queue.queue),
      dlq: id(queue.deadLetterQueue),
      forwarder: stack.getLogicalId(forwarder.node.defaultChild as CfnFunction),
      intake: stack.getLogicalId(intake.node.defaultChild as CfnFunction),
      topic: stack.getLogicalId(observability.topic.node.defaultChild as CfnTopic),
    },
    template: () => Template.fromStack(stack),
  };
}

interface AlarmProps {
  MetricName: string;
  Namespace: string;
  Dimensions?: Array<{ Name: string; Value: unknown }>;
  Statistic: string;
  Period: number;
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  TreatMissingData: string;
  AlarmActions: unknown[];
  OKActions: unknown[];
}

function alarmsByMetric(template: Template): Record<string, AlarmProps> {
  const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Array<{
    Properties: AlarmProps;
  }>;
  return Object.fromEntries(alarms.map((a) => [a.Properties.MetricName, a.Properties]));
}

afterAll(removeTempOutdirs);

describe('DeliveryObservability', () => {
  const built = observedStack();
  const template = built.template();
  const alarms = alarmsByMetric(template);
  const { ids } = built;

  it('has exactly the thirteen alarms: delivery, sign-in guessing, leads a person must fix, and the intake', () => {
    // Assess: Errors twice (the forwarder and the intake).
    template.resourceCountIs('AWS::CloudWatch::Alarm', 13);
    expect(Object.keys(alarms).sort()).toEqual(
      [
        'ApproximateAgeOfOldestMessage',
        'ApproximateNumberOfMessagesVisible',
        'Errors',
        LEAD_METRICS.dead,
        LEAD_METRICS.waiting,
        LEAD_METRICS.upstreamAuthFailure,
        LEAD_METRICS.circuitOpen,
        LEAD_METRICS.lookupForbidden,
        LEAD_METRICS.parked,
        LEAD_METRICS.rejected,
        LEAD_METRICS.unauthentic,
        LEAD_METRICS.authFailure,
      ].sort(),
    );
  });

  it('alarms on one parked or rejected lead, and on a few refusals for credentials', () => {
    for (const metric of [LEAD_METRICS.parked, LEAD_METRICS.rejected]) {
      expect(alarms[metric], metric).toMatchObject({ Statistic: 'Sum', Threshold: 1 });
    }
    expect(alarms[LEAD_METRICS.unauthentic]).toMatchObject({
      Namespace: 'Leads',
      Statistic: 'Sum',
      Threshold: REFUSAL_THRESHOLD,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('runs the quiet-profile watch every hour and lets it publish to the topic only', () => {
    // Prepare
    const withWatch = observedStack({}, false, false, true);
    const nagged = observedStack({}, true, false, true);
    const watched = withWatch.template();
    // Assess
    watched.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 hour)',
    });
    const policies = Object.values(watched.findResources('AWS::IAM::Policy')) as Array<{
      Properties: {
        PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] };
      };
    }>;
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
    const publish = statements.filter((st) => [st.Action].flat().includes('sns:Publish'));
    expect(publish).toEqual([expect.objectContaining({ Resource: { Ref: withWatch.ids.topic } })]);
    const kms = statements.filter((st) => [st.Action].flat().some((a) => a.startsWith('kms:')));
    expect(kms.flatMap((st) => [st.Action].flat()).sort()).toEqual([
      'kms:Decrypt',
      'kms:GenerateDataKey',
    ]);
    expect(withWatch.observability.alarms.watchErrors).toBeDefined();
    const ours = synthViolations(nagged.app).filter((v) =>
      v.paths.some((p) => p.startsWith('test/Observability') || p.startsWith('test/Watch')),
    );
    expect(ours).toEqual([]);
  });

  it('alarms on repeated wrong Basic passwords (someone guessing), not on one typo', () => {
    expect(alarms[LEAD_METRICS.authFailure]).toMatchObject({
      Statistic: 'Sum',
      Threshold: 20,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms the first time the key may not look prospects up', () => {
    expect(alarms[LEAD_METRICS.lookupForbidden]).toMatchObject({
      Namespace: 'Leads',
      Dimensions: [{ Name: 'service', Value: 'leads' }],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it("stays in alarm while an upstream circuit is open: the reconciler's per-minute gauge, not the opening", () => {
    // Assess: a gauge (how many accounts' circuits are open now) rather than a count of
    // openings, which is emitted once and left the alarm to recover while the upstream was down.
    expect(alarms[LEAD_METRICS.circuitOpened]).toBeUndefined();
    expect(alarms[LEAD_METRICS.circuitOpen]).toMatchObject({
      Namespace: 'Leads',
      Dimensions: [{ Name: 'service', Value: 'leads' }],
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
    });
  });

  it('alarms on the reconciler’s errors when it is given one', () => {
    // Prepare
    const withReconciler = observedStack({}, false, true);

    // Assess
    withReconciler.template().resourceCountIs('AWS::CloudWatch::Alarm', 14);
    expect(withReconciler.observability.alarms.reconcilerErrors).toBeDefined();
  });

  it('alarms when a held-back lead has waited longer than the same age since it was received', () => {
    // Prepare: held-back leads are re-sent as new messages, whose age starts again.
    const tighter = alarmsByMetric(
      observedStack({ maxMessageAge: Duration.minutes(5) }).template(),
    );

    // Assess
    expect(alarms[LEAD_METRICS.waiting]).toMatchObject({
      Namespace: 'Leads',
      Dimensions: [{ Name: 'service', Value: 'leads' }],
      Statistic: 'Maximum',
      Threshold: 900,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(tighter[LEAD_METRICS.waiting]?.Threshold).toBe(300);
  });

  it('alarms on one message in the dead-letter queue', () => {
    // Assess
    expect(alarms.ApproximateNumberOfMessagesVisible).toMatchObject({
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.dlq, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
    });
  });

  it('alarms when the oldest lead message is older than 15 minutes, or the given age', () => {
    // Prepare
    const tighter = alarmsByMetric(
      observedStack({ maxMessageAge: Duration.minutes(5) }).template(),
    );

    // Assess
    expect(alarms.ApproximateAgeOfOldestMessage).toMatchObject({
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 900,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(tighter.ApproximateAgeOfOldestMessage?.Threshold).toBe(300);
  });

  it('alarms on one upstream auth failure and one dead lead, in the functions own namespace', () => {
    // Prepare
    const { POWERTOOLS_METRICS_NAMESPACE, POWERTOOLS_SERVICE_NAME } = environmentOf(
      template,
      ids.forwarder,
    );

    // Assess: Powertools EMF publishes with the namespace and a `service` dimension.
    for (const name of [LEAD_METRICS.upstreamAuthFailure, LEAD_METRICS.dead]) {
      expect(alarms[name], name).toMatchObject({
        Namespace: POWERTOOLS_METRICS_NAMESPACE,
        Dimensions: [{ Name: 'service', Value: POWERTOOLS_SERVICE_NAME }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
    expect(POWERTOOLS_METRICS_NAMESPACE).toBe('Leads');
    expect(POWERTOOLS_SERVICE_NAME).toBe('leads');
  });

  it('alarms on one forwarder error and one intake error', () => {
    // Assess
    const errors = (
      Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Array<{
        Properties: AlarmProps;
      }>
    )
      .map((a) => a.Properties)
      .filter((a) => a.MetricName === 'Errors');
    expect(errors.map((a) => a.Dimensions?.[0]?.Value)).toEqual(
      expect.arrayContaining([{ Ref: ids.forwarder }, { Ref: ids.intake }]),
    );
    for (const alarm of errors) {
      expect(alarm).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 1 });
    }
  });

  it('treats no data as fine and notifies the topic on alarm and on recovery', () => {
    // Assess
    for (const [name, alarm] of Object.entries(alarms)) {
      expect(alarm.TreatMissingData, name).toBe('notBreaching');
      expect(alarm.AlarmActions, name).toEqual([{ Ref: ids.topic }]);
      expect(alarm.OKActions, name).toEqual([{ Ref: ids.topic }]);
    }
  });

  it("encrypts the topic with a rotating key CloudWatch may use for this account's alarms only", () => {
    // Prepare
    const key = onlyLogicalId(template, 'AWS::KMS::Key');

    // Assess
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [key, 'Arn'] },
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            // The confused-deputy guard: CloudWatch acting for this account's alarms.
            Condition: {
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': [
                    '',
                    [
                      'arn:',
                      { Ref: 'AWS::Partition' },
                      ':cloudwatch:',
                      { Ref: 'AWS::Region' },
                      ':',
                      { Ref: 'AWS::AccountId' },
                      ':alarm:*',
                    ],
                  ],
                },
              },
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            },
          }),
        ]),
      },
    });
  });

  it('lets only this account alarms publish, and only over TLS', () => {
    // Assess
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: ids.topic }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: {
              ArnLike: { 'aws:SourceArn': Match.anyValue() },
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            },
          }),
        ]),
      },
    });
  });

  it('subscribes the alarm email when one is configured, and nothing otherwise', () => {
    // Prepare
    const withEmail = observedStack({ alarmEmail: 'ops@example.com' }).template();

    // Assess
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    withEmail.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('draws a dashboard of leads, queue, dead letters, forwarder and intake', () => {
    // Prepare
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0] as {
      Properties: { DashboardName: string; DashboardBody: unknown };
    };
    const body = JSON.stringify(dashboard.Properties.DashboardBody);

    // Assess
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    expect(dashboard.Properties.DashboardName).toBe('leads-prod-delivery');
    for (const metric of [
      ...Object.values(LEAD_METRICS),
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesNotVisible',
      'ApproximateAgeOfOldestMessage',
      'Duration',
      'Errors',
      'Throttles',
      '4XXError',
      '5XXError',
    ]) {
      expect(body, metric).toContain(`\\"${metric}\\"`);
    }
  });

  it('passes cdk-nag, with or without an email subscription', () => {
    // Prepare
    const plain = observedStack({}, true);
    const withEmail = observedStack({ alarmEmail: 'ops@example.com' }, true);

    const ours = (app: typeof plain.app) =>
      synthViolations(app).filter((v) => v.paths.some((p) => p.startsWith('test/Observability')));

    // Act / Assess (the bare API and functions around it are not under test)
    expect(ours(plain.app)).toEqual([]);
    expect(ours(withEmail.app)).toEqual([]);
    const acks = (app: typeof plain.app) =>
      acknowledgements(app).filter((a) => a.path.startsWith('test/Observability'));
    expect(acks(plain.app)).toEqual([]);
    expect(acks(withEmail.app)).toEqual([
      {
        path: 'test/Observability/AlarmTopic/ops@example.com',
        id: 'Serverless-SNSRedrivePolicy',
        reason: expect.stringContaining('email subscription'),
      },
    ]);
  });
});
