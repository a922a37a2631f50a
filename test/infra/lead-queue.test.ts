import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { ENV } from '../../functions/kernel/env.ts';
import {
  LeadQueue,
  type LeadQueueProps,
  REDRIVE_SOURCE_ACTIONS,
} from '../../infra/constructs/lead-queue.ts';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import {
  acknowledgements,
  addNagPacks,
  environmentOf,
  removeTempOutdirs,
  roleStatements,
  synthViolations,
  testApp,
  testStack,
} from './helpers.ts';

const ENTRY = 'test/fixtures/functions/hello.ts';
const DAY_SECONDS = 86_400;

function queueStack(props?: LeadQueueProps) {
  const stack = testStack();
  const leads = new LeadQueue(stack, 'LeadQueue', props);
  const id = (queue: typeof leads.queue) => stack.getLogicalId(queue.node.defaultChild as CfnQueue);
  return {
    stack,
    leads,
    queueId: id(leads.queue),
    dlqId: id(leads.deadLetterQueue),
    template: () => Template.fromStack(stack),
  };
}

type QueueResource = { Properties: Record<string, unknown> };

afterAll(removeTempOutdirs);

describe('LeadQueue', () => {
  it('moves a message to the DLQ after 8 receives by default', () => {
    // Prepare
    const { queueId, dlqId, template } = queueStack();

    // Act
    const queue = template().findResources('AWS::SQS::Queue')[queueId] as QueueResource;

    // Assess
    expect(queue.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: 8,
    });
  });

  it('takes another maxReceiveCount and refuses one SQS would not', () => {
    // Prepare
    const { queueId, template } = queueStack({ maxReceiveCount: 20 });

    // Act
    const queue = template().findResources('AWS::SQS::Queue')[queueId] as QueueResource;

    // Assess
    expect(queue.Properties.RedrivePolicy).toMatchObject({ maxReceiveCount: 20 });
    expect(() => queueStack({ maxReceiveCount: 0 })).toThrow(/maxReceiveCount/);
    expect(() => queueStack({ maxReceiveCount: 1001 })).toThrow(/maxReceiveCount/);
    expect(() => queueStack({ maxReceiveCount: 2.5 })).toThrow(/maxReceiveCount/);
  });

  it('keeps messages 4 days in the queue and 14 in the DLQ (enqueue time carries over)', () => {
    // Prepare
    const { queueId, dlqId, template } = queueStack();

    // Act
    const queues = template().findResources('AWS::SQS::Queue');

    // Assess
    expect((queues[queueId] as QueueResource).Properties.MessageRetentionPeriod).toBe(
      4 * DAY_SECONDS,
    );
    expect((queues[dlqId] as QueueResource).Properties.MessageRetentionPeriod).toBe(
      14 * DAY_SECONDS,
    );
    expect((queues[dlqId] as QueueResource).Properties.RedrivePolicy).toBeUndefined();
  });

  it('sets the visibility timeout to 6 × the consumer timeout (default 30 s)', () => {
    // Prepare
    const byDefault = queueStack();
    const slow = queueStack({ consumerTimeout: Duration.minutes(2) });

    // Act
    const visibility = (q: ReturnType<typeof queueStack>) =>
      (q.template().findResources('AWS::SQS::Queue')[q.queueId] as QueueResource).Properties
        .VisibilityTimeout;

    // Assess
    expect(visibility(byDefault)).toBe(180);
    expect(byDefault.leads.consumerTimeout.toSeconds()).toBe(30);
    expect(visibility(slow)).toBe(720);
    expect(() => queueStack({ consumerTimeout: Duration.minutes(16) })).toThrow(/900 s/);
    expect(() => queueStack({ consumerTimeout: Duration.millis(500) })).toThrow(/whole number/);
  });

  it('encrypts both queues with SQS-managed keys: no KMS key', () => {
    // Prepare
    const { template } = queueStack();

    // Act
    const queues = Object.values(template().findResources('AWS::SQS::Queue')) as QueueResource[];

    // Assess
    expect(queues).toHaveLength(2);
    for (const queue of queues) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      expect(queue.Properties.KmsMasterKeyId).toBeUndefined();
    }
    template().resourceCountIs('AWS::KMS::Key', 0);
  });

  it('refuses requests without TLS on both queues', () => {
    // Prepare
    const { queueId, dlqId, template } = queueStack();

    // Act
    const t = template();

    // Assess
    for (const id of [queueId, dlqId]) {
      t.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              Effect: 'Deny',
              Principal: { AWS: '*' },
              Resource: { 'Fn::GetAtt': [id, 'Arn'] },
            },
          ]),
        },
      });
    }
  });

  it('grantSend: sqs:SendMessage on the queue only, and LEAD_QUEUE_URL', () => {
    // Prepare
    const { stack, leads, queueId, dlqId, template } = queueStack();
    const fn = new NodeFunction(stack, 'Worker', { entry: ENTRY });

    // Act
    leads.grantSend(fn);
    const t = template();

    // Assess
    const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnRole);
    const statements = roleStatements(t, role).filter((s) =>
      s.Action.some((a) => a.startsWith('sqs:') || a.startsWith('kms:')),
    );
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['sqs:SendMessage'],
        Resource: [{ 'Fn::GetAtt': [queueId, 'Arn'] }],
      },
    ]);
    expect(JSON.stringify(roleStatements(t, role))).not.toContain(dlqId);
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [ENV.leadQueueUrl]: { Ref: queueId } }) },
    });
  });

  it('passes cdk-nag; only the DLQ acknowledges having no redrive policy of its own', () => {
    // Prepare
    const app = testApp();
    addNagPacks(app);
    new LeadQueue(testStack(app), 'LeadQueue');

    // Act
    const found = synthViolations(app);

    // Assess
    expect(found).toEqual([]);
    expect(acknowledgements(app)).toEqual([
      {
        path: 'test/LeadQueue/DeadLetterQueue',
        id: 'Serverless-SQSRedrivePolicy',
        reason: expect.stringContaining('dead-letter queue of the lead queue'),
      },
    ]);
  });
});

describe('LeadQueue delivery and redrive grants', () => {
  function granted(grant: (leads: LeadQueue, fn: NodeFunction) => void) {
    const { stack, leads, queueId, dlqId, template } = queueStack();
    const fn = new NodeFunction(stack, 'Worker', { entry: ENTRY });
    grant(leads, fn);
    const t = template();
    const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnRole);
    const sqs = roleStatements(t, role).filter((s) => s.Action.some((a) => a.startsWith('sqs:')));
    const variables = environmentOf(t, stack.getLogicalId(fn.node.defaultChild as CfnFunction));
    return { sqs, variables, queueId, dlqId };
  }

  it('grantChangeVisibility: sqs:ChangeMessageVisibility on the queue only, and LEAD_QUEUE_URL', () => {
    // Act
    const { sqs, variables, queueId } = granted((leads, fn) => leads.grantChangeVisibility(fn));

    // Assess
    expect(sqs).toEqual([
      {
        Effect: 'Allow',
        Action: ['sqs:ChangeMessageVisibility'],
        Resource: [{ 'Fn::GetAtt': [queueId, 'Arn'] }],
      },
    ]);
    expect(variables).toMatchObject({ [ENV.leadQueueUrl]: { Ref: queueId } });
  });

  it('grantRedrive: the move task and what it needs on the DLQ, SendMessage on the queue, both ARNs', () => {
    // Act
    const { sqs, variables, queueId, dlqId } = granted((leads, fn) => leads.grantRedrive(fn));

    // Assess
    expect(sqs).toEqual([
      {
        Effect: 'Allow',
        Action: [...REDRIVE_SOURCE_ACTIONS],
        Resource: [{ 'Fn::GetAtt': [dlqId, 'Arn'] }],
      },
      {
        Effect: 'Allow',
        Action: ['sqs:SendMessage'],
        Resource: [{ 'Fn::GetAtt': [queueId, 'Arn'] }],
      },
    ]);
    expect(REDRIVE_SOURCE_ACTIONS).toEqual([
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:ListMessageMoveTasks',
      'sqs:ReceiveMessage',
      'sqs:StartMessageMoveTask',
    ]);
    expect(variables).toMatchObject({
      [ENV.leadQueueArn]: { 'Fn::GetAtt': [queueId, 'Arn'] },
      [ENV.leadDlqArn]: { 'Fn::GetAtt': [dlqId, 'Arn'] },
    });
  });
});
