import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { LeadForwarder, type LeadForwarderProps } from '../../infra/constructs/lead-forwarder.ts';
import { LeadQueue } from '../../infra/constructs/lead-queue.ts';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import {
  acknowledgements,
  actionsOn,
  addNagPacks,
  liveAliasOf,
  removeTempOutdirs,
  roleStatements,
  synthViolations,
  testApp,
  testStack,
} from './helpers.ts';

const ENTRY = 'test/fixtures/functions/hello.ts';

interface Options {
  timeout?: Duration;
  reserved?: number;
  consumerTimeout?: Duration;
  props?: Partial<Omit<LeadForwarderProps, 'fn' | 'queue'>>;
  nag?: boolean;
}

function forwarderStack(options: Options = {}) {
  const app = testApp();
  if (options.nag) addNagPacks(app);
  const stack = testStack(app);
  const queue = new LeadQueue(stack, 'LeadQueue', {
    consumerTimeout: options.consumerTimeout ?? Duration.seconds(60),
  });
  const fn = new NodeFunction(stack, 'Forwarder', {
    entry: ENTRY,
    timeout: options.timeout ?? Duration.seconds(60),
    ...(options.reserved !== 0 && { reservedConcurrentExecutions: options.reserved ?? 2 }),
  });
  const reconciler = new NodeFunction(stack, 'Reconciler', {
    entry: ENTRY,
    timeout: Duration.seconds(60),
  });
  const forwarder = new LeadForwarder(stack, 'Delivery', {
    fn,
    queue,
    reconciler,
    ...options.props,
  });
  const id = (q: typeof queue.queue) => stack.getLogicalId(q.node.defaultChild as CfnQueue);
  return {
    app,
    stack,
    fn,
    forwarder,
    ids: {
      fn: stack.getLogicalId(fn.node.defaultChild as CfnFunction),
      reconciler: stack.getLogicalId(reconciler.node.defaultChild as CfnFunction),
      role: stack.getLogicalId(fn.role?.node.defaultChild as CfnRole),
      queue: id(queue.queue),
      dlq: id(queue.deadLetterQueue),
    },
    template: () => Template.fromStack(stack),
  };
}

afterAll(removeTempOutdirs);

describe('LeadForwarder', () => {
  it('consumes the lead queue in batches of 5, reporting failed items, at most 2 batches at once', () => {
    // Prepare
    const { ids, template } = forwarderStack();

    // Act
    const t = template();

    // Assess
    t.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      BatchSize: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    // The released version consumes the queue: the `live` alias, never $LATEST.
    const [mapping] = Object.values(t.findResources('AWS::Lambda::EventSourceMapping'));
    const target = JSON.stringify(mapping?.Properties.FunctionName);
    expect(target).toContain(`"${liveAliasOf(t, ids.fn)}"`);
    expect(target).toContain(':live');
  });

  it('keeps the function at reserved concurrency 2, no less than the event source may run', () => {
    // Prepare
    const { ids, template } = forwarderStack();

    // Act
    const fn = template().findResources('AWS::Lambda::Function')[ids.fn] as {
      Properties: { ReservedConcurrentExecutions?: number };
    };

    // Assess
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(2);
    expect(() => forwarderStack({ reserved: 1 })).toThrow(/reserved concurrency \(1\)/);
    expect(() => forwarderStack({ reserved: 0 })).toThrow(/reserved concurrency \(unset\)/);
    expect(() => forwarderStack({ reserved: 5, props: { maxConcurrency: 6 } })).toThrow(
      /maxConcurrency \(6\)/,
    );
  });

  it('without reservations (reserved: false), MaximumConcurrency alone caps the function; a stray reservation is refused', () => {
    // Prepare
    const { ids, template } = forwarderStack({ reserved: 0, props: { reserved: false } });

    // Act
    const t = template();
    const fn = t.findResources('AWS::Lambda::Function')[ids.fn] as {
      Properties: { ReservedConcurrentExecutions?: number };
    };

    // Assess
    expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    expect(() => forwarderStack({ reserved: 2, props: { reserved: false } })).toThrow(
      /reserved is false, but the function reserves concurrency \(2\)/,
    );
  });

  it('refuses a function that could outlive the queue visibility timeout', () => {
    // Act / Assess
    expect(() =>
      forwarderStack({ timeout: Duration.seconds(90), consumerTimeout: Duration.seconds(60) }),
    ).toThrow(/consumerTimeout \(60 s\)/);
    expect(() =>
      forwarderStack({ timeout: Duration.seconds(30), consumerTimeout: Duration.seconds(60) }),
    ).not.toThrow();
  });

  it("invokes the reconciler's live alias every minute through a role that may invoke only it, for this account's schedules only", () => {
    // Prepare
    const { ids, template } = forwarderStack();

    // Act
    const t = template();
    const schedules = t.findResources('AWS::Scheduler::Schedule');
    const [schedule] = Object.values(schedules) as {
      Properties: { ScheduleExpression: string; Target: { Arn: unknown; RoleArn: unknown } };
    }[];
    if (!schedule) throw new Error('no schedule');
    const roleArn = schedule.Properties.Target.RoleArn as { 'Fn::GetAtt': string[] };
    const roleId = roleArn['Fn::GetAtt'][0] as string;

    // Assess
    expect(Object.keys(schedules)).toHaveLength(1);
    expect(schedule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    const alias = liveAliasOf(t, ids.reconciler);
    expect(schedule.Properties.Target.Arn).toEqual({ Ref: alias });
    const statements = roleStatements(t, roleId);
    expect(statements.flatMap((st) => [st.Action].flat())).toEqual(['lambda:InvokeFunction']);
    expect(actionsOn(statements, alias)).toEqual(['lambda:InvokeFunction']);
    expect(actionsOn(statements, ids.reconciler)).toEqual([]);
    expect(actionsOn(statements, ids.fn)).toEqual([]);
    // The confused-deputy guard: Scheduler may assume it for this account's schedules only.
    const role = t.findResources('AWS::IAM::Role')[roleId] as {
      Properties: { AssumeRolePolicyDocument: { Statement: Array<{ Condition: unknown }> } };
    };
    expect(role.Properties.AssumeRolePolicyDocument.Statement[0]?.Condition).toEqual({
      StringEquals: {
        'aws:SourceAccount': { Ref: 'AWS::AccountId' },
        'aws:SourceArn': {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':scheduler:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':schedule-group/default',
            ],
          ],
        },
      },
    });
  });

  it("retries no failed reconciler run (the next tick redoes it): the alias's async settings say so", () => {
    // Prepare
    const { ids, template } = forwarderStack();

    // Act
    const t = template();

    // Assess: Lambda's default would retry twice over up to 6 hours.
    t.resourceCountIs('AWS::Lambda::EventInvokeConfig', 1);
    t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids.reconciler },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
    const [config] = Object.values(t.findResources('AWS::Lambda::EventInvokeConfig'));
    expect(JSON.stringify(config?.Properties.Qualifier)).toContain(liveAliasOf(t, ids.reconciler));
  });

  it('lets the event source consume the lead queue only, never the DLQ', () => {
    // Prepare
    const { ids, template } = forwarderStack();

    // Act
    const statements = roleStatements(template(), ids.role);

    // Assess
    expect(actionsOn(statements, ids.queue)).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ]);
    expect(actionsOn(statements, ids.dlq)).toEqual([]);
  });

  it('passes cdk-nag; acknowledges only what an SQS-invoked function cannot have', () => {
    // Prepare
    const { app } = forwarderStack({ nag: true });

    // Act
    const found = synthViolations(app);

    // Assess
    expect(found).toEqual([]);
    const acks = acknowledgements(app).filter((a) => a.path === 'test/Forwarder');
    expect(acks.map((a) => a.id).sort()).toEqual([
      'Serverless-LambdaDLQ',
      'Serverless-LambdaEventSourceMappingDestination',
    ]);
    for (const ack of acks) expect(ack.reason).toMatch(/dead-letter queue/);
    const reconcilerAcks = acknowledgements(app).filter((a) => a.path === 'test/Reconciler');
    expect(reconcilerAcks.map((a) => a.id)).toEqual(['Serverless-LambdaDLQ']);
    expect(reconcilerAcks[0]?.reason).toMatch(/Scheduler/);
  });

  it('leaves the mapping enabled, with no filter criteria that could drop leads', () => {
    // Prepare
    const { template } = forwarderStack();

    // Assess
    template().hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FilterCriteria: Match.absent(),
      Enabled: Match.absent(),
    });
  });
});
