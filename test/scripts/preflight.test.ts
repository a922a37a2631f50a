/**
 * `npm run deploy`'s preflight (scripts/preflight.ts) against mocked account answers
 * (aws-sdk-client-mock): the Lambda concurrency quota against what the template reserves, the
 * CDK bootstrap, the region and the account, and what it tells the user to ask AWS for.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  LambdaClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-lambda';
import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  CONCURRENCY_QUOTA_CODE,
  concurrencyProblem,
  reservationsOf,
  type StackTemplate,
} from '../../infra/concurrency-quota.ts';
import { bootstrapRequirement, type PreflightClients, preflight } from '../../scripts/preflight.ts';

/** A template as the stack synthesizes it: two reserving functions and the bootstrap rule. */
function template(forwarderReserved = 2): StackTemplate {
  return {
    Parameters: { BootstrapVersion: { Default: '/cdk-bootstrap/hnb659fds/version' } },
    Rules: {
      CheckBootstrapVersion: {
        Assertions: [
          {
            Assert: {
              'Fn::Not': [
                { 'Fn::Contains': [['1', '2', '3', '4', '5'], { Ref: 'BootstrapVersion' }] },
              ],
            },
          },
        ],
      },
    },
    Resources: {
      Forwarder: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          FunctionName: 'leads-prod-forwarder',
          ReservedConcurrentExecutions: forwarderReserved,
        },
      },
      Refresher: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          FunctionName: 'leads-prod-report-refresher',
          ReservedConcurrentExecutions: 2,
        },
      },
      Intake: { Type: 'AWS::Lambda::Function', Properties: { FunctionName: 'leads-prod-intake' } },
    },
  };
}

const lambda = mockClient(LambdaClient);
const ssm = mockClient(SSMClient);
const cloudFormation = mockClient(CloudFormationClient);
const sts = mockClient(STSClient);
const clients: PreflightClients = {
  lambda: new LambdaClient({ region: 'sa-east-1' }),
  ssm: new SSMClient({ region: 'sa-east-1' }),
  cloudFormation: new CloudFormationClient({ region: 'sa-east-1' }),
  sts: new STSClient({ region: 'sa-east-1' }),
};

/** An account with this quota, nothing of the stack deployed yet, bootstrapped (version 28). */
function account(limit: number, unreserved = limit) {
  lambda.on(GetAccountSettingsCommand).resolves({
    AccountLimit: { ConcurrentExecutions: limit, UnreservedConcurrentExecutions: unreserved },
  });
  lambda
    .on(GetFunctionConcurrencyCommand)
    .rejects(new ResourceNotFoundException({ message: 'Function not found', $metadata: {} }));
  ssm.on(GetParameterCommand).resolves({ Parameter: { Value: '28' } });
  cloudFormation
    .on(DescribeStacksCommand)
    .resolves({ Stacks: [{ StackName: 'CDKToolkit', StackStatus: 'UPDATE_COMPLETE' } as never] });
  sts.on(GetCallerIdentityCommand).resolves({ Account: '123456789012' });
}

beforeEach(() => {
  for (const mock of [lambda, ssm, cloudFormation, sts]) mock.reset();
});

describe('the preflight of npm run deploy', () => {
  it('passes an account with the usual quota, saying what it found', async () => {
    // Prepare
    account(1000);

    // Act
    const result = await preflight({ template: template(), region: 'sa-east-1', clients });

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.facts).toEqual([
      'Region: sa-east-1',
      'Account: 123456789012',
      "Lambda concurrency: quota 1000, 996 unreserved after this stack's 4 reserved (at least 100 must stay)",
      'CDK bootstrap: version 28 (6 or later needed)',
    ]);
  });

  it("passes a new account's quota of 10 when the stack reserves nothing (reserveConcurrency off)", async () => {
    // Prepare
    account(10);
    const unreserved = template();
    for (const resource of Object.values(unreserved.Resources ?? {})) {
      delete resource.Properties?.ReservedConcurrentExecutions;
    }

    // Act
    const result = await preflight({ template: unreserved, region: 'sa-east-1', clients });

    // Assess: nothing to take from the pool, so nothing Lambda could refuse.
    expect(result.problems).toEqual([]);
    expect(result.facts).toContain(
      "Lambda concurrency: quota 10, 10 unreserved; this stack reserves nothing (reserveConcurrency off): its event sources' MaximumConcurrency caps the forwarder and the refresher (every function shares those 10: ask for 1000, quota code L-B99A9384, docs/deploy.md)",
    );
    expect(lambda.commandCalls(GetFunctionConcurrencyCommand)).toHaveLength(0);
  });

  it("refuses a new account's quota of 10 before anything is created, and says what to ask AWS for", async () => {
    // Prepare
    account(10);

    // Act
    const { problems } = await preflight({ template: template(), region: 'sa-east-1', clients });

    // Assess: 4 reserved + 100 unreserved need a quota of 104; ask for AWS's usual 1000.
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('it needs a quota of at least 104');
    expect(problems[0]).toContain('leads-prod-forwarder 2, leads-prod-report-refresher 2');
    expect(problems[0]).toContain(
      `Service Quotas console → AWS services → AWS Lambda → "Concurrent executions" (quota code ${CONCURRENCY_QUOTA_CODE})`,
    );
    expect(problems[0]).toContain(
      'aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 1000 --region sa-east-1',
    );
    expect(problems[0]).toContain('"reserveConcurrency": false');
  });

  it('reads what the stack reserves from the template: a larger reservation needs a larger quota', async () => {
    // Prepare: 120 is enough for 4 reserved, not for 30.
    account(120);

    // Act
    const small = await preflight({ template: template(2), region: 'sa-east-1', clients });
    const large = await preflight({ template: template(28), region: 'sa-east-1', clients });

    // Assess
    expect(small.problems).toEqual([]);
    expect(large.problems.join('\n')).toContain('this stack reserves 30');
    expect(large.problems.join('\n')).toContain('at least 130');
  });

  it('gives back what the deployed stack already reserves before counting an update', async () => {
    // Prepare: quota 104, the stack's 4 already reserved, 100 left unreserved.
    account(104, 100);
    lambda.on(GetFunctionConcurrencyCommand).resolves({ ReservedConcurrentExecutions: 2 });

    // Act
    const result = await preflight({ template: template(), region: 'sa-east-1', clients });

    // Assess
    expect(result.problems).toEqual([]);
    expect(
      lambda.commandCalls(GetFunctionConcurrencyCommand).map((c) => c.args[0].input.FunctionName),
    ).toEqual(['leads-prod-forwarder', 'leads-prod-report-refresher']);
  });

  it('refuses an account and region that were never bootstrapped, naming the command', async () => {
    // Prepare
    account(1000);
    ssm
      .on(GetParameterCommand)
      .rejects(new ParameterNotFound({ message: 'not found', $metadata: {} }));
    cloudFormation
      .on(DescribeStacksCommand)
      .rejects(new Error('Stack with id CDKToolkit does not exist'));

    // Act
    const { problems } = await preflight({ template: template(), region: 'sa-east-1', clients });

    // Assess
    expect(problems).toEqual([
      'CDK bootstrap: sa-east-1 is not bootstrapped for this account (no /cdk-bootstrap/hnb659fds/version parameter): run npm run bootstrap -- aws://123456789012/sa-east-1 once (docs/deploy.md).',
    ]);
  });

  it('refuses a bootstrap older than the template needs, and a toolkit stack left failed', async () => {
    // Prepare
    account(1000);
    ssm.on(GetParameterCommand).resolves({ Parameter: { Value: '5' } });
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [{ StackName: 'CDKToolkit', StackStatus: 'UPDATE_ROLLBACK_FAILED' } as never],
    });

    // Act
    const { problems } = await preflight({ template: template(), region: 'sa-east-1', clients });

    // Assess
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('version 5 in sa-east-1, this template needs 6 or later');
    expect(problems[1]).toContain('the CDKToolkit stack is UPDATE_ROLLBACK_FAILED');
  });

  it("refuses credentials of another account than the configuration's", async () => {
    // Prepare
    account(1000);

    // Act
    const { problems } = await preflight({
      template: template(),
      region: 'sa-east-1',
      account: '210987654321',
      clients,
    });

    // Assess
    expect(problems).toEqual([
      "Account: the credentials are account 123456789012's, the deploy configuration pins 210987654321: use that account's credentials (or profile).",
    ]);
    expect(lambda.commandCalls(GetAccountSettingsCommand)).toHaveLength(0);
  });

  it('refuses to guess a region when neither the configuration nor the environment gives one', async () => {
    // Prepare
    const saved = { ...process.env };
    for (const key of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE']) delete process.env[key];
    process.env.AWS_CONFIG_FILE = '/nonexistent/config';

    // Act
    const { problems } = await preflight({ template: template(), clients }).finally(() => {
      process.env = saved;
    });

    // Assess
    expect(problems[0]).toMatch(/^Region: none given/);
  });
});

describe('what the preflight reads from the template', () => {
  it('sums ReservedConcurrentExecutions by function name, and the bootstrap version it needs', () => {
    // Act / Assess
    expect(reservationsOf(template(5))).toEqual([
      { functionName: 'leads-prod-forwarder', reserved: 5 },
      { functionName: 'leads-prod-report-refresher', reserved: 2 },
    ]);
    expect(bootstrapRequirement(template())).toEqual({
      parameter: '/cdk-bootstrap/hnb659fds/version',
      minVersion: 6,
    });
  });

  it('keeps 100 unreserved: 104 is just enough for 4 reserved, 103 is not', () => {
    // Prepare
    const facts = (limit: number) => ({
      region: 'us-east-1',
      limit,
      unreserved: limit,
      reservedNow: 0,
      reservations: reservationsOf(template()),
    });

    // Act / Assess
    expect(concurrencyProblem(facts(104))).toBeUndefined();
    expect(concurrencyProblem(facts(103))).toContain('at least 104');
  });
});
