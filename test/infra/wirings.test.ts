/**
 * Each function's AWS wiring fed the environment the stack really gives that function: it starts
 * (every variable it reads is set), fails naming the variable when one is missing, and points
 * each adapter at the resource the stack meant (the redrive moves from the dead-letter queue to
 * the lead queue, the refresher paces on the ledger table).
 */
import { clearCaches } from '@aws-lambda-powertools/parameters';
import {
  ListMessageMoveTasksCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { awsAdminDeps } from '../../functions/admin/wiring-aws.ts';
import { awsDeliveryDeps } from '../../functions/delivery/forward/wiring-aws.ts';
import { awsIntakeDeps } from '../../functions/intake/wiring-aws.ts';
import { ENV } from '../../functions/kernel/env.ts';
import { awsRefreshDeps } from '../../functions/report/refresh/wiring-aws.ts';
import { awsReportDeps } from '../../functions/report/serve/wiring-aws.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import { deployConfig, environmentOf, removeTempOutdirs, testApp } from './helpers.ts';

/**
 * A template value as the function would see it at run time: CloudFormation references become
 * strings naming what they reference (`ref:LedgerTable…`, an SQS ARN ending in the queue's
 * logical id), so a test can tell which resource a variable points at.
 */
const sqsArn = (logicalId: string) => `arn:aws:sqs:sa-east-1:123456789012:${logicalId}`;

function runtimeValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const ref = (value as { Ref?: string }).Ref;
    if (ref) return `ref:${ref}`;
    const getAtt = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
    if (getAtt?.[1] === 'Arn') return sqsArn(getAtt[0]);
  }
  return JSON.stringify(value);
}

// Built when the file loads: the test cases below are listed from it.
const stack = new LeadsStack(testApp(), 'leads-test', { config: deployConfig() });
const template = Template.fromStack(stack);
afterAll(() => removeTempOutdirs());

function idOf(name: string): string {
  const fn = name === 'refresher' ? stack.report.refresher : stack.functions.get(name);
  if (!fn) throw new Error(`no function ${name}`);
  return stack.getLogicalId(fn.node.defaultChild as CfnElement);
}

/** The variables the stack sets for function `name`, as strings. */
function environment(name: string): NodeJS.ProcessEnv {
  const variables = environmentOf(template, idOf(name));
  return {
    AWS_REGION: 'sa-east-1',
    ...Object.fromEntries(Object.entries(variables).map(([key, v]) => [key, runtimeValue(v)])),
  };
}

const WIRINGS: Record<string, (env: NodeJS.ProcessEnv) => unknown> = {
  intake: (env) => awsIntakeDeps(env),
  forwarder: (env) => awsDeliveryDeps(env),
  admin: (env) => awsAdminDeps(env),
  report: (env) => awsReportDeps(env),
  refresher: (env) => awsRefreshDeps({}, env),
};

describe('the AWS wirings over the environment the stack sets', () => {
  it.each(Object.keys(WIRINGS))('%s starts with the variables it is given', (name) => {
    expect(() => WIRINGS[name]?.(environment(name))).not.toThrow();
  });

  it.each(
    Object.keys(WIRINGS).flatMap((name) =>
      Object.values(ENV)
        .filter((variable) => {
          // The variables this wiring cannot start without: those whose absence it refuses.
          const env = environment(name);
          if (env[variable] === undefined) return false;
          delete env[variable];
          try {
            WIRINGS[name]?.(env);
            return false;
          } catch {
            return true;
          }
        })
        .map((variable) => [name, variable] as const),
    ),
  )('%s names %s when it is missing', (name, variable) => {
    const env = environment(name);
    delete env[variable];
    expect(() => WIRINGS[name]?.(env)).toThrow(variable);
  });

  it('reads the ledger table and the lead queue in every function that records or sends leads', () => {
    for (const name of ['intake', 'forwarder', 'admin']) {
      const env = environment(name);
      expect(env[ENV.ledgerTable], name).toMatch(/^ref:.*Ledger/);
      expect(env[ENV.leadQueueUrl], name).toMatch(/^ref:.*LeadQueue/);
    }
  });

  describe('admin', () => {
    beforeEach(() => {
      clearCaches();
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDTEST');
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test-secret');
      vi.stubEnv('AWS_REGION', 'sa-east-1');
    });
    afterEach(() => {
      vi.unstubAllGlobals();
      vi.unstubAllEnvs();
    });

    it('redrives from the dead-letter queue to the lead queue the stack named', async () => {
      // Prepare
      const env = environment('admin');
      const sqs = mockClient(SQSClient);
      sqs.on(ListMessageMoveTasksCommand).resolves({ Results: [] });
      sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'h' });
      const queueId = stack.getLogicalId(stack.queue.queue.node.defaultChild as CfnElement);
      const dlqId = stack.getLogicalId(stack.queue.deadLetterQueue.node.defaultChild as CfnElement);

      // Act
      await awsAdminDeps(env).redrive.redrive();

      // Assess
      const started = sqs.commandCalls(StartMessageMoveTaskCommand);
      sqs.restore();
      expect(started).toHaveLength(1);
      expect(started[0]?.args[0].input).toEqual({
        SourceArn: sqsArn(dlqId),
        DestinationArn: sqsArn(queueId),
      });
    });
  });
});
