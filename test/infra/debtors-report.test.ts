import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardNames } from '../../functions/config/secret-shards.ts';
import { ENV } from '../../functions/kernel/env.ts';
import { REFRESH_LEASE_KEY } from '../../functions/report/refresh/lease-dynamodb.ts';
import { UPSTREAM_PACER_KEY } from '../../functions/upstream/pacer-dynamodb.ts';
import { DebtorsReport } from '../../infra/constructs/debtors-report.ts';
import { LEASE_ACTIONS, LeadStore, PACER_ACTIONS } from '../../infra/constructs/lead-store.ts';
import { LeadsSecrets } from '../../infra/constructs/leads-secrets.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import {
  APPCONFIG_READ_ACTIONS,
  acknowledgements,
  addNagPacks,
  appConfigStatements,
  configurationArn,
  deployConfig,
  environmentOf,
  liveAliasOf,
  type PolicyStatementJson,
  removeTempOutdirs,
  roleStatements,
  routesOf,
  secretNamesGranted,
  synthViolations,
  testApp,
  testStack,
} from './helpers.ts';

afterAll(removeTempOutdirs);

interface Ids {
  table: string;
  bucket: string;
  queue: string;
  dlq: string;
  refresher: string;
  refresherRole: string;
  report: string;
  reportRole: string;
}

/**
 * The statements whose resources mention `text`, as `action → resources` strings; report
 * objects by key (`/debtors/current.json` for the account `default`,
 * `/debtors/accounts/<any>/current.json`, written with a `*`, for the others).
 */
function grantsOn(statements: PolicyStatementJson[], text: string): string[] {
  return statements
    .filter((s) => JSON.stringify(s.Resource).includes(text))
    .flatMap((s) =>
      s.Action.map((action) => {
        const keys = s.Resource.map(
          (r) => /\/debtors\/(accounts\/\*\/)?[a-z]+\.json/.exec(JSON.stringify(r))?.[0],
        )
          .filter(Boolean)
          .sort()
          .join(',');
        return keys ? `${action} ${keys}` : action;
      }),
    )
    .sort();
}

function allActions(statements: PolicyStatementJson[]): string[] {
  return [...new Set(statements.flatMap((s) => s.Action))].sort();
}

describe('DebtorsReport in the stack', () => {
  let stack: LeadsStack;
  let template: Template;
  let ids: Ids;
  let refresherStatements: PolicyStatementJson[];
  let reportStatements: PolicyStatementJson[];

  beforeAll(() => {
    stack = new LeadsStack(testApp(), 'leads-test', {
      config: deployConfig({ report: { branches: [1, 2, 3], refreshSeconds: 900 } }),
    });
    template = Template.fromStack(stack);
    const report = stack.functions.get('report');
    if (!report) throw new Error('no report function');
    const id = (construct: { node: { defaultChild?: unknown } }) =>
      stack.getLogicalId(construct.node.defaultChild as CfnBucket);
    ids = {
      table: stack.getLogicalId(stack.store.table.node.defaultChild as CfnTable),
      bucket: id(stack.report.bucket),
      queue: stack.getLogicalId(stack.report.queue.node.defaultChild as CfnQueue),
      dlq: stack.getLogicalId(stack.report.deadLetterQueue.node.defaultChild as CfnQueue),
      refresher: stack.getLogicalId(stack.report.refresher.node.defaultChild as CfnFunction),
      refresherRole: stack.getLogicalId(stack.report.refresher.role?.node.defaultChild as CfnRole),
      report: stack.getLogicalId(report.node.defaultChild as CfnFunction),
      reportRole: stack.getLogicalId(report.role?.node.defaultChild as CfnRole),
    };
    refresherStatements = roleStatements(template, ids.refresherRole);
    reportStatements = roleStatements(template, ids.reportRole);
  });

  describe('the store', () => {
    it('is an S3 bucket: SSE-KMS with a bucket key, access-logged, versioned, public access blocked, retained (except after a failed first create)', () => {
      const buckets = template.findResources('AWS::S3::Bucket');
      const logs = Object.keys(buckets).find((id) => id !== ids.bucket);
      expect(buckets[ids.bucket]).toMatchObject({
        DeletionPolicy: 'RetainExceptOnCreate',
        UpdateReplacePolicy: 'Retain',
        Properties: {
          BucketEncryption: {
            ServerSideEncryptionConfiguration: [
              {
                ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' },
                BucketKeyEnabled: true,
              },
            ],
          },
          LoggingConfiguration: { DestinationBucketName: { Ref: logs } },
          VersioningConfiguration: { Status: 'Enabled' },
          PublicAccessBlockConfiguration: {
            BlockPublicAcls: true,
            BlockPublicPolicy: true,
            IgnorePublicAcls: true,
            RestrictPublicBuckets: true,
          },
          OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        },
      });
      // The logs' bucket: SSE-S3 (S3 delivers access logs to no SSE-KMS bucket), 30 days.
      expect(buckets[logs as string]).toMatchObject({
        Properties: {
          BucketEncryption: {
            ServerSideEncryptionConfiguration: [
              { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
            ],
          },
          LifecycleConfiguration: { Rules: [{ ExpirationInDays: 30, Status: 'Enabled' }] },
        },
      });
    });

    it('refuses requests without TLS', () => {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: ids.bucket },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });

    it('keeps the ten newest earlier versions, expires older ones after a week', () => {
      template.hasResourceProperties('AWS::S3::Bucket', {
        LifecycleConfiguration: {
          Rules: Match.arrayWith([
            Match.objectLike({
              Status: 'Enabled',
              NoncurrentVersionExpiration: { NoncurrentDays: 7, NewerNoncurrentVersions: 10 },
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
            }),
            Match.objectLike({ Status: 'Enabled', ExpiredObjectDeleteMarker: true }),
          ]),
        },
      });
    });
  });

  describe('the refresher', () => {
    it('reserves nothing by default (reserveConcurrency: test/infra/reserve-concurrency.test.ts), 1 GB, a 300 s timeout', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: 'leads-prod-report-refresher',
        ReservedConcurrentExecutions: Match.absent(),
        MemorySize: 1024,
        Timeout: 300,
        // It sends continuations and deferred requests to its own queue on purpose.
        RecursiveLoop: 'Allow',
      });
    });

    it('consumes the refresh queue through its live alias, one message at a time, at most 2 at once (never throttled)', () => {
      // Act
      const mappings = Object.values(
        template.findResources('AWS::Lambda::EventSourceMapping', {
          Properties: { EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
        }),
      ) as Array<{ Properties: Record<string, unknown> }>;

      // Assess: MaximumConcurrency 2 (the reservation, when on, is the same: no throttle).
      expect(mappings).toHaveLength(1);
      expect(mappings[0]?.Properties).toMatchObject({
        BatchSize: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 2 },
      });
      const target = JSON.stringify(mappings[0]?.Properties.FunctionName);
      expect(target).toContain(liveAliasOf(template, ids.refresher));
      expect(target).toContain(':live');
    });

    it('has a refresh queue with a dead-letter queue and a visibility of 6 × its timeout', () => {
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        VisibilityTimeout: 1800,
        MessageRetentionPeriod: 86_400,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [ids.dlq, 'Arn'] },
          maxReceiveCount: 5,
        },
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: ids.queue }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });

    it('gets the bucket name and the queue URL', () => {
      expect(environmentOf(template, ids.refresher)).toMatchObject({
        [ENV.reportBucket]: { Ref: ids.bucket },
        [ENV.reportRefreshQueueUrl]: { Ref: ids.queue },
        [ENV.ledgerTable]: { Ref: ids.table },
        LEADS_SECRETS_PREFIX: 'leads/prod',
      });
    });

    it("paces on delivery's pacer items and records learned branch names: those items of the ledger only", () => {
      // Act: the statements as written, conditions included (roleStatements drops them).
      const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
        Properties: {
          Roles: unknown[];
          PolicyDocument: { Statement: Array<{ Resource: unknown; [key: string]: unknown }> };
        };
      }>;
      const onTable = policies
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${ids.refresherRole}"`))
        .flatMap((p) => p.Properties.PolicyDocument.Statement)
        .filter((s) => JSON.stringify(s.Resource).includes(`"${ids.table}"`));

      // Assess
      expect(onTable).toEqual([
        {
          Effect: 'Allow',
          Action: [...PACER_ACTIONS],
          Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
          // One pacer item per account: `pacer#upstream` (default), `pacer#upstream#<name>`.
          Condition: {
            'ForAllValues:StringLike': {
              'dynamodb:LeadingKeys': [UPSTREAM_PACER_KEY, `${UPSTREAM_PACER_KEY}#*`],
            },
          },
        },
        {
          Effect: 'Allow',
          Action: 'dynamodb:PutItem',
          Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
          // One item of learned branch names per account: `branches#<account>`.
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['branches#*'] },
          },
        },
        {
          // The refresh lease (one refresh at a time): that one item.
          Effect: 'Allow',
          Action: [...LEASE_ACTIONS],
          Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [REFRESH_LEASE_KEY] },
          },
        },
      ]);
    });

    it("reads and writes only each account's three report keys and deletes only the checkpoints", () => {
      expect(grantsOn(refresherStatements, ids.bucket)).toEqual([
        's3:DeleteObject /debtors/accounts/*/checkpoint.json,/debtors/checkpoint.json',
        's3:GetObject /debtors/accounts/*/checkpoint.json,/debtors/accounts/*/current.json,/debtors/accounts/*/status.json,/debtors/checkpoint.json,/debtors/current.json,/debtors/status.json',
        's3:ListBucket',
        's3:PutObject /debtors/accounts/*/checkpoint.json,/debtors/accounts/*/current.json,/debtors/accounts/*/status.json,/debtors/checkpoint.json,/debtors/current.json,/debtors/status.json',
      ]);
    });

    it("sends to and consumes the refresh queue, reads only the accounts' upstream secrets", () => {
      expect(grantsOn(refresherStatements, ids.queue)).toEqual([
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ]);
      // The accounts' shards, each by its ARN; no clients, no profile's keys.
      expect(secretNamesGranted(refresherStatements, undefined, template)).toEqual(
        shardNames('leads/prod', 'accounts'),
      );
      expect(grantsOn(refresherStatements, ids.dlq)).toEqual([]);
    });

    it('is granted nothing else: its whole action list', () => {
      expect(allActions(refresherStatements)).toEqual([
        'appconfig:GetLatestConfiguration',
        'appconfig:StartConfigurationSession',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:DeleteObject',
        's3:GetObject',
        's3:ListBucket',
        's3:PutObject',
        'secretsmanager:GetSecretValue',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
      // It reads the accounts and their report settings from the configuration store.
      expect(appConfigStatements(refresherStatements)).toEqual([
        { Effect: 'Allow', Action: APPCONFIG_READ_ACTIONS, Resource: [configurationArn(template)] },
      ]);
    });
  });

  describe('the schedule', () => {
    it('ticks every minute whatever refreshSeconds (900 here): the refresher refreshes the accounts due', () => {
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'rate(1 minute)',
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: {
          Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
          Input: JSON.stringify({ kind: 'refresh', reason: 'schedule' }),
          // A tick not delivered within a minute is dropped: the next one replaces it.
          RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 3 },
        },
      });
    });

    it('has a role that may only send to the refresh queue', () => {
      const schedule = Object.values(template.findResources('AWS::Scheduler::Schedule'))[0] as {
        Properties: { Target: { RoleArn: { 'Fn::GetAtt': [string, string] } } };
      };
      const roleId = schedule.Properties.Target.RoleArn['Fn::GetAtt'][0];
      const statements = roleStatements(template, roleId);
      expect(statements).toEqual([
        {
          Effect: 'Allow',
          Action: ['sqs:SendMessage'],
          Resource: [{ 'Fn::GetAtt': [ids.queue, 'Arn'] }],
        },
      ]);
    });
  });

  describe('the alarms', () => {
    it('alarms on a failed refresh (≥ 1 in either of the last two intervals)', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'Leads',
        MetricName: 'ReportRefreshFailed',
        Dimensions: [{ Name: 'service', Value: 'leads' }],
        Statistic: 'Sum',
        Period: 900,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 2,
        DatapointsToAlarm: 1,
        TreatMissingData: 'notBreaching',
      });
    });

    it("alarms on an account's report older than 2 × its refreshSeconds (ReportAgeRatio > 2), and on no data at all", () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'Leads',
        MetricName: 'ReportAgeRatio',
        Dimensions: [{ Name: 'service', Value: 'leads' }],
        Statistic: 'Maximum',
        // Five ticks of the schedule, whatever refreshSeconds.
        Period: 300,
        Threshold: 2,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'breaching',
      });
    });

    it('alarms on dead-lettered refresh requests and on refresher errors', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.dlq, 'QueueName'] } }],
        Threshold: 1,
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.refresher } }],
        Threshold: 1,
      });
      // Its own four (the stack's delivery alarms are tested in delivery-observability.test.ts).
      const own = Object.keys(template.findResources('AWS::CloudWatch::Alarm')).filter((id) =>
        id.startsWith('DebtorsReport'),
      );
      expect(own).toHaveLength(4);
    });
  });

  describe('the report function', () => {
    it('serves the seed list, the reports and the admin refresh', () => {
      expect(routesOf(template, ids.report)).toEqual([
        'GET /api/v1/receivables/debtors',
        'GET /reports/assets/{file}',
        'GET /reports/debtors',
        'GET /reports/debtors.csv',
        'GET /reports/debtors.html',
        'POST /admin/reports/debtors/refresh',
      ]);
    });

    it('gets the bucket name and the refresh queue URL', () => {
      expect(environmentOf(template, ids.report)).toMatchObject({
        [ENV.reportBucket]: { Ref: ids.bucket },
        [ENV.reportRefreshQueueUrl]: { Ref: ids.queue },
      });
    });

    it("only reads each account's snapshot and status, only sends to the refresh queue", () => {
      expect(grantsOn(reportStatements, ids.bucket)).toEqual([
        's3:GetObject /debtors/accounts/*/current.json,/debtors/accounts/*/status.json,/debtors/current.json,/debtors/status.json',
        's3:ListBucket',
      ]);
      expect(grantsOn(reportStatements, ids.queue)).toEqual(['sqs:SendMessage']);
      // The clients secret only: no upstream credentials.
      expect(secretNamesGranted(reportStatements, undefined, template)).toEqual([
        'leads/prod/clients',
      ]);
    });

    it('is granted nothing else: its whole action list', () => {
      expect(allActions(reportStatements)).toEqual([
        'appconfig:GetLatestConfiguration',
        'appconfig:StartConfigurationSession',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:GetObject',
        's3:ListBucket',
        'secretsmanager:GetSecretValue',
        'sqs:SendMessage',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
      expect(appConfigStatements(reportStatements)).toEqual([
        { Effect: 'Allow', Action: APPCONFIG_READ_ACTIONS, Resource: [configurationArn(template)] },
      ]);
    });
  });

  it('outputs the bucket name and the refresh queue URL', () => {
    template.hasOutput('ReportBucketName', { Value: { Ref: ids.bucket } });
    template.hasOutput('ReportRefreshQueueUrl', { Value: { Ref: ids.queue } });
  });
});

describe('DebtorsReport alone', () => {
  function build(refreshSeconds: number) {
    const app = testApp({ builtinCloudFormationValidation: true });
    addNagPacks(app);
    const stack = testStack(app);
    const config = deployConfig();
    const secrets = new LeadsSecrets(stack, 'Secrets', { prefix: config.secretsPrefix });
    const ledger = new LeadStore(stack, 'Ledger');
    const report = new DebtorsReport(stack, 'Report', {
      stage: 'test',
      refreshSeconds,
      secrets,
      ledger,
    });
    return { app, stack, report };
  }

  it('passes cdk-nag, each acknowledgement with its reason on the narrowest construct', () => {
    // Prepare
    const { app, stack, report } = build(900);

    // Act
    const found = synthViolations(app);

    // Assess
    expect(found).toEqual([]);
    const acks = acknowledgements(app).filter((a) => a.path.startsWith('test/Report'));
    const bucket = stack.getLogicalId(report.bucket.node.defaultChild as CfnBucket);
    const policy = 'test/Report/RefresherRole/DefaultPolicy';
    expect(acks.map((a) => `${a.path} ${a.id}`).sort()).toEqual([
      'test/Report/AccessLogs AwsSolutions-S1',
      'test/Report/RefreshDeadLetterQueue Serverless-SQSRedrivePolicy',
      'test/Report/Refresher Serverless-LambdaDLQ',
      'test/Report/Refresher Serverless-LambdaEventSourceMappingDestination',
      // X-Ray, then each wildcard of the accounts' report objects (their secrets: by ARN).
      `${policy} AwsSolutions-IAM5[Resource::*]`,
      `${policy} AwsSolutions-IAM5[Resource::<${bucket}.Arn>/debtors/accounts/*/checkpoint.json]`,
      `${policy} AwsSolutions-IAM5[Resource::<${bucket}.Arn>/debtors/accounts/*/current.json]`,
      `${policy} AwsSolutions-IAM5[Resource::<${bucket}.Arn>/debtors/accounts/*/status.json]`,
    ]);
    for (const ack of acks) expect(ack.reason.length).toBeGreaterThanOrEqual(40);
  });

  it('ticks every minute and alarms on the age ratio whatever refreshSeconds; sizes the failure alarm from it', () => {
    for (const refreshSeconds of [90, 3600]) {
      // Act
      const template = Template.fromStack(build(refreshSeconds).stack);

      // Assess: accounts and their refreshSeconds change without a deploy, so the schedule and
      // the stale alarm do not depend on the deploy configuration's refreshSeconds.
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'rate(1 minute)',
        Target: Match.objectLike({
          RetryPolicy: Match.objectLike({ MaximumEventAgeInSeconds: 60 }),
        }),
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ReportAgeRatio',
        Period: 300,
        Threshold: 2,
      });
      // The failure alarm's period: refreshSeconds rounded up to whole minutes.
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ReportRefreshFailed',
        Period: refreshSeconds === 90 ? 120 : 3600,
      });
      expect(JSON.stringify(template.toJSON())).not.toContain('ReportAgeSeconds');
    }
  });

  it('refuses a refresh interval under a minute', () => {
    expect(() => build(30)).toThrow(/at least 60/);
  });
});
