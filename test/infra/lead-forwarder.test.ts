import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { ENV } from '../../functions/kernel/env.ts';
import { LeadForwarder, type LeadForwarderProps } from '../../infra/constructs/lead-forwarder.ts';
import { LeadQueue } from '../../infra/constructs/lead-queue.ts';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import {
  acknowledgements,
  actionsOn,
  addNagPacks,
  environmentOf,
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
  const forwarder = new LeadForwarder(stack, 'Delivery', { fn, queue, ...options.props });
  const id = (q: typeof queue.queue) => stack.getLogicalId(q.node.defaultChild as CfnQueue);
  return {
    app,
    stack,
    fn,
    forwarder,
    ids: {
      fn: stack.getLogicalId(fn.node.defaultChild as CfnFunction),
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
      FunctionName: { Ref: ids.fn },
      EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      BatchSize: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
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

  it('refuses a function that could outlive the queue visibility timeout', () => {
    // Act / Assess
    expect(() =>
      forwarderStack({ timeout: Duration.seconds(90), consumerTimeout: Duration.seconds(60) }),
    ).toThrow(/consumerTimeout \(60 s\)/);
    expect(() =>
      forwarderStack({ timeout: Duration.seconds(30), consumerTimeout: Duration.seconds(60) }),
    ).not.toThrow();
  });

  it('tells the function MAX_ATTEMPTS: 8 by default, or the given cap', () => {
    // Prepare
    const byDefault = forwarderStack();
    const twelve = forwarderStack({ props: { maxAttempts: 12 } });
    const variables = (f: ReturnType<typeof forwarderStack>) =>
      environmentOf(f.template(), f.ids.fn);

    // Assess
    expect(variables(byDefault)[ENV.maxAttempts]).toBe('8');
    expect(variables(twelve)[ENV.maxAttempts]).toBe('12');
    expect(() => forwarderStack({ props: { maxAttempts: 0 } })).toThrow(/maxAttempts/);
    expect(() => forwarderStack({ props: { maxAttempts: 2.5 } })).toThrow(/maxAttempts/);
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
