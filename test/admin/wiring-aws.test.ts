/** The admin function's AWS wiring: the variables it reads, and the redrive it builds from them. */
import {
  ListMessageMoveTasksCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_ENV, awsAdminDeps } from '../../functions/admin/wiring-aws.ts';

const ENV = {
  LEDGER_TABLE_NAME: 'leads-dev-ledger',
  LEAD_QUEUE_URL: 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads-dev-queue',
  LEAD_QUEUE_ARN: 'arn:aws:sqs:sa-east-1:123456789012:leads-dev-queue',
  LEAD_DLQ_ARN: 'arn:aws:sqs:sa-east-1:123456789012:leads-dev-dlq',
};
const sqs = mockClient(SQSClient);
const saved = { ...process.env };

describe('awsAdminDeps', () => {
  beforeEach(() => {
    sqs.reset();
    Object.assign(process.env, ENV, { AWS_REGION: 'sa-east-1' });
  });
  afterEach(() => {
    process.env = { ...saved };
  });

  it('names the variables the stack sets', () => {
    expect(Object.values(ADMIN_ENV).sort()).toEqual(Object.keys(ENV).sort());
  });

  it('redrives from LEAD_DLQ_ARN to LEAD_QUEUE_ARN', async () => {
    sqs.on(ListMessageMoveTasksCommand).resolves({ Results: [] });
    sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'h' });
    await awsAdminDeps().redrive.redrive();
    expect(sqs.commandCalls(StartMessageMoveTaskCommand)[0]?.args[0].input).toEqual({
      SourceArn: ENV.LEAD_DLQ_ARN,
      DestinationArn: ENV.LEAD_QUEUE_ARN,
    });
  });

  it.each(Object.keys(ENV))('fails fast, naming %s, when it is missing', (name) => {
    delete process.env[name];
    expect(() => awsAdminDeps()).toThrow(name);
  });
});
