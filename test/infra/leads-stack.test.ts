import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnSecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { CfnTopic } from 'aws-cdk-lib/aws-sns';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardNames } from '../../functions/config/secret-shards.ts';
import { ROUTES } from '../../functions/kernel/routes.ts';
import { LEDGER_KEYS } from '../../infra/constructs/lead-store.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import {
  APPCONFIG_READ_ACTIONS,
  actionsOn,
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
  testApp,
} from './helpers.ts';

interface Ids {
  table: string;
  queue: string;
  dlq: string;
  intake: string;
  intakeRole: string;
}

/**
 * Per DynamoDB action, the `dynamodb:LeadingKeys` patterns the role's statements restrict it to
 * (the statements with such a condition only).
 */
function leadingKeysOf(template: Template, roleLogicalId: string): Record<string, unknown> {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
    Properties: {
      Roles: unknown[];
      PolicyDocument: {
        Statement: Array<{
          Action: string | string[];
          Condition?: { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } };
        }>;
      };
    };
  }>;
  // Every statement's keys for an action, in order (an action may be granted on several).
  const keyed: Record<string, string[]> = {};
  for (const policy of policies) {
    if (!JSON.stringify(policy.Properties.Roles).includes(`"${roleLogicalId}"`)) continue;
    for (const statement of policy.Properties.PolicyDocument.Statement) {
      const keys = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
      if (!keys) continue;
      for (const action of [statement.Action].flat()) {
        keyed[action] = [...(keyed[action] ?? []), ...keys];
      }
    }
  }
  return Object.fromEntries(Object.entries(keyed).sort(([a], [b]) => a.localeCompare(b)));
}

const PROFILE_SHARD_NAMES = shardNames('leads/prod', 'profiles');
const ACCOUNT_SHARD_NAMES = shardNames('leads/prod', 'accounts');

describe('LeadsStack', () => {
  let stack: LeadsStack;
  let template: Template;
  let ids: Ids;
  let intakeStatements: PolicyStatementJson[];

  beforeAll(() => {
    stack = new LeadsStack(testApp(), 'leads-test', { config: deployConfig() });
    template = Template.fromStack(stack);
    const intake = stack.functions.get('intake');
    if (!intake) throw new Error('no intake function');
    ids = {
      table: stack.getLogicalId(stack.store.table.node.defaultChild as CfnTable),
      queue: stack.getLogicalId(stack.queue.queue.node.defaultChild as CfnQueue),
      dlq: stack.getLogicalId(stack.queue.deadLetterQueue.node.defaultChild as CfnQueue),
      intake: stack.getLogicalId(intake.node.defaultChild as CfnFunction),
      intakeRole: stack.getLogicalId(intake.role?.node.defaultChild as CfnRole),
    };
    intakeStatements = roleStatements(template, ids.intakeRole);
  });

  afterAll(removeTempOutdirs);

  it('creates one ledger table and the lead queue with its DLQ', () => {
    // Assess
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    // The lead queue and its DLQ, and the debtors report's refresh queue and its DLQ.
    template.resourceCountIs('AWS::SQS::Queue', 4);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [ids.dlq, 'Arn'] },
        maxReceiveCount: 8,
      },
    });
  });

  it('puts the intake function behind its four routes', () => {
    // Assess
    expect(routesOf(template, ids.intake)).toEqual([
      'GET /leads/{profile}',
      'OPTIONS /leads/{profile}',
      'POST /api/v1/prospects',
      'POST /leads/{profile}',
    ]);
  });

  it('gives the intake the table name and the queue URL', () => {
    // Act
    const variables = environmentOf(template, ids.intake);

    // Assess
    expect(variables).toMatchObject({
      LEDGER_TABLE_NAME: { Ref: ids.table },
      LEAD_QUEUE_URL: { Ref: ids.queue },
    });
  });

  it('lets the intake only GetItem the table, PutItem leads and dedup items, UpdateItem subject items, BatchGetItem tombstones, and only SendMessage on the queue', () => {
    // Assess
    const ledger = intakeStatements.filter((s) => JSON.stringify(s).includes(`"${ids.table}"`));
    const onTable = (action: string) => ({
      Effect: 'Allow',
      Action: [action],
      Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }],
    });
    expect(ledger).toEqual([
      onTable('dynamodb:GetItem'),
      onTable('dynamodb:PutItem'),
      onTable('dynamodb:UpdateItem'),
      onTable('dynamodb:BatchGetItem'),
      // The token-guessing counters (intake/token-guessing.ts): the `authfail#` items only.
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }],
      },
    ]);
    // Each read, write and the batch read only on their own items (LeadingKeys,
    // lead-store.test.ts).
    expect(leadingKeysOf(template, ids.intakeRole)).toEqual({
      'dynamodb:BatchGetItem': ['erased#*'],
      'dynamodb:GetItem': [...LEDGER_KEYS.intake['dynamodb:GetItem'], 'authfail#*'],
      'dynamodb:PutItem': ['lead#*', 'dedup#*'],
      'dynamodb:UpdateItem': ['subject#*', 'authfail#*'],
    });
    expect(actionsOn(intakeStatements, ids.queue)).toEqual(['sqs:SendMessage']);
    expect(actionsOn(intakeStatements, ids.dlq)).toEqual([]);
  });

  it('grants the intake nothing else: its whole action list', () => {
    // Act
    const actions = [...new Set(intakeStatements.flatMap((s) => s.Action))].sort();

    // Assess
    expect(intakeStatements.every((s) => s.Effect === 'Allow')).toBe(true);
    expect(actions).toEqual([
      'appconfig:GetLatestConfiguration',
      'appconfig:StartConfigurationSession',
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:GetSecretValue',
      'sqs:SendMessage',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
    // The settings: this one configuration, nothing else of AppConfig.
    expect(appConfigStatements(intakeStatements)).toEqual([
      { Effect: 'Allow', Action: APPCONFIG_READ_ACTIONS, Resource: [configurationArn(template)] },
    ]);
    // Secrets: the API clients, the profiles' shards (every profile's keys, whatever their
    // number), and the erasure tombstones' salt; each by its ARN.
    expect(secretNamesGranted(intakeStatements, undefined, template)).toEqual(
      ['leads/prod/clients', 'leads/prod/erasure-salt', ...PROFILE_SHARD_NAMES].sort(),
    );
  });

  it("lets only the intake and the admin API read the erasure salt, and no function read it by the secret's id", () => {
    // Act
    const readers = [...stack.functions.entries(), ['refresher', stack.report.refresher] as const]
      .filter(([, fn]) => {
        const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnRole);
        return secretNamesGranted(roleStatements(template, role), undefined, template).includes(
          'leads/prod/erasure-salt',
        );
      })
      .map(([name]) => name);

    // Assess
    expect(readers.sort()).toEqual(['admin', 'intake']);
    // Granted by its own ARN, in the two policies only.
    const salt = stack.getLogicalId(stack.secrets.erasureSalt.node.defaultChild as CfnSecret);
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    expect(policies.filter((p) => JSON.stringify(p).includes(`"${salt}"`))).toHaveLength(2);
  });

  it('outputs the table name, the queue URL and the DLQ URL', () => {
    // Assess
    template.hasOutput('LedgerTableName', { Value: { Ref: ids.table } });
    template.hasOutput('LeadQueueUrl', { Value: { Ref: ids.queue } });
    template.hasOutput('LeadDeadLetterQueueUrl', { Value: { Ref: ids.dlq } });
  });
});

describe('LeadsStack: delivery and admin', () => {
  let stack: LeadsStack;
  let template: Template;
  let ids: Ids & {
    forwarder: string;
    forwarderRole: string;
    admin: string;
    adminRole: string;
    reconciler: string;
    reconcilerRole: string;
  };
  let forwarderStatements: PolicyStatementJson[];
  let adminStatements: PolicyStatementJson[];

  const variablesOf = (fnId: string) => environmentOf(template, fnId);
  const allActions = (statements: PolicyStatementJson[]) =>
    [...new Set(statements.flatMap((s) => s.Action))].sort();

  beforeAll(() => {
    stack = new LeadsStack(testApp(), 'leads-test', { config: deployConfig() });
    template = Template.fromStack(stack);
    const fn = (name: string) => {
      const found = stack.functions.get(name);
      if (!found) throw new Error(`no ${name} function`);
      return {
        id: stack.getLogicalId(found.node.defaultChild as CfnFunction),
        role: stack.getLogicalId(found.role?.node.defaultChild as CfnRole),
      };
    };
    ids = {
      table: stack.getLogicalId(stack.store.table.node.defaultChild as CfnTable),
      queue: stack.getLogicalId(stack.queue.queue.node.defaultChild as CfnQueue),
      dlq: stack.getLogicalId(stack.queue.deadLetterQueue.node.defaultChild as CfnQueue),
      intake: fn('intake').id,
      intakeRole: fn('intake').role,
      forwarder: fn('forwarder').id,
      forwarderRole: fn('forwarder').role,
      admin: fn('admin').id,
      adminRole: fn('admin').role,
      reconciler: fn('reconciler').id,
      reconcilerRole: fn('reconciler').role,
    };
    forwarderStatements = roleStatements(template, ids.forwarderRole);
    adminStatements = roleStatements(template, ids.adminRole);
  });

  describe('the forwarder', () => {
    it('consumes the lead queue through its live alias: batches of 5, partial batch responses, MaximumConcurrency 2', () => {
      const mappings = template.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
      });
      const [mapping] = Object.values(mappings);
      expect(Object.keys(mappings)).toHaveLength(1);
      expect(JSON.stringify(mapping?.Properties.FunctionName)).toContain(
        `"${liveAliasOf(template, ids.forwarder)}"`,
      );
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
        BatchSize: 5,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 2 },
      });
    });

    it('runs 60 s, reserving nothing by default (test/infra/reserve-concurrency.test.ts); the queue hides a message 6 × 60 s', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: 'leads-prod-forwarder',
        Timeout: 60,
        MemorySize: 512,
        ReservedConcurrentExecutions: Match.absent(),
      });
      const queue = template.findResources('AWS::SQS::Queue')[ids.queue] as {
        Properties: { VisibilityTimeout: number; RedrivePolicy: unknown };
      };
      expect(queue.Properties.VisibilityTimeout).toBe(360);
      expect(queue.Properties.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [ids.dlq, 'Arn'] },
        maxReceiveCount: 8,
      });
    });

    it('is behind no route', () => {
      expect(routesOf(template, ids.forwarder)).toEqual([]);
    });

    it('gets the table name and the queue URL (the delivery policy comes with the settings)', () => {
      expect(variablesOf(ids.forwarder)).toMatchObject({
        LEDGER_TABLE_NAME: { Ref: ids.table },
        LEAD_QUEUE_URL: { Ref: ids.queue },
      });
      expect(variablesOf(ids.forwarder)).not.toHaveProperty('MAX_ATTEMPTS');
    });

    it('may GetItem/UpdateItem the table (PutItem its circuit item, Query its due index), consume and re-send to the queue, and nothing on the DLQ', () => {
      expect(actionsOn(forwarderStatements, ids.table)).toEqual([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ]);
      const puts = forwarderStatements.filter((st) => st.Action.includes('dynamodb:PutItem'));
      expect(puts).toHaveLength(1);
      expect(actionsOn(forwarderStatements, ids.queue)).toEqual([
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ]);
      expect(actionsOn(forwarderStatements, ids.dlq)).toEqual([]);
    });

    it('is granted nothing else: its whole action list', () => {
      expect(forwarderStatements.every((s) => s.Effect === 'Allow')).toBe(true);
      expect(allActions(forwarderStatements)).toEqual([
        'appconfig:GetLatestConfiguration',
        'appconfig:StartConfigurationSession',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
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
      expect(appConfigStatements(forwarderStatements)).toEqual([
        { Effect: 'Allow', Action: APPCONFIG_READ_ACTIONS, Resource: [configurationArn(template)] },
      ]);
    });

    it("reads every account's upstream secret and the profile secrets, not the API clients", () => {
      // Every shard of both kinds, each by its ARN: accounts and profiles added with
      // `npm run config -- push` land in them, so no name pattern is needed.
      expect(secretNamesGranted(forwarderStatements, undefined, template)).toEqual(
        [...ACCOUNT_SHARD_NAMES, ...PROFILE_SHARD_NAMES].sort(),
      );
      // Values only: no function reads a secret's metadata (DescribeSecret).
      expect(secretNamesGranted(forwarderStatements, 'secretsmanager:DescribeSecret')).toEqual([]);
      // No grant names a secret the stack created by its logical id (the clients' least of all).
      const clients = stack.getLogicalId(stack.secrets.clients.node.defaultChild as CfnSecret);
      expect(actionsOn(forwarderStatements, clients)).toEqual([]);
    });
  });

  describe('the reconciler', () => {
    it('is behind no route, and is invoked every minute by its schedule', () => {
      expect(routesOf(template, ids.reconciler)).toEqual([]);
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'rate(1 minute)',
        Target: Match.objectLike({ Arn: { Ref: liveAliasOf(template, ids.reconciler) } }),
      });
    });

    it('gets the table name and the queue URL', () => {
      expect(variablesOf(ids.reconciler)).toMatchObject({
        LEDGER_TABLE_NAME: { Ref: ids.table },
        LEAD_QUEUE_URL: { Ref: ids.queue },
      });
    });

    it('is granted nothing else: reads, wakes and redacts leads, queries the due and status indexes, sends messages, releases a circuit carrier', () => {
      const statements = roleStatements(template, ids.reconcilerRole);
      expect(allActions(statements)).toEqual([
        'appconfig:GetLatestConfiguration',
        'appconfig:StartConfigurationSession',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'sqs:SendMessage',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
      const query = statements.filter((st) => st.Action.includes('dynamodb:Query'));
      expect(JSON.stringify(query.map((st) => st.Resource))).toContain('/index/gsi2');
      // the status index: the personal-data retention's old parked, dead and test leads
      expect(JSON.stringify(query.map((st) => st.Resource))).toContain('/index/gsi1');
      expect(actionsOn(statements, ids.dlq)).toEqual([]);
      expect(appConfigStatements(statements)).toEqual([
        { Effect: 'Allow', Action: APPCONFIG_READ_ACTIONS, Resource: [configurationArn(template)] },
      ]);
      expect(secretNamesGranted(statements)).toEqual([]);
    });
  });

  describe('the admin function', () => {
    it('serves the admin routes and the operator console', () => {
      expect(routesOf(template, ids.admin)).toEqual([
        'GET /admin',
        'GET /admin/assets/{file}',
        'GET /admin/leads',
        'GET /admin/leads.csv',
        'GET /admin/leads/{leadId}',
        'GET /admin/setup',
        'GET /admin/upstream',
        'PATCH /admin/leads/{leadId}',
        'POST /admin/backfill/{profile}',
        'POST /admin/erasure',
        'POST /admin/leads/{leadId}/retry',
        'POST /admin/preview/{profile}',
        'POST /admin/replay',
        'POST /admin/setup/{profile}/reveal',
        'POST /admin/setup/{profile}/rotate',
        'POST /admin/test-lead/{profile}',
      ]);
    });

    it('gets the table name, the queue URL and both queue ARNs', () => {
      expect(variablesOf(ids.admin)).toMatchObject({
        LEDGER_TABLE_NAME: { Ref: ids.table },
        LEAD_QUEUE_URL: { Ref: ids.queue },
        LEAD_QUEUE_ARN: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
        LEAD_DLQ_ARN: { 'Fn::GetAtt': [ids.dlq, 'Arn'] },
      });
    });

    it('may start and list message move tasks on the DLQ only, and only send to the queue', () => {
      const moveTasks = adminStatements.filter((s) =>
        s.Action.some((a) => a.endsWith('MessageMoveTask') || a.endsWith('MessageMoveTasks')),
      );
      expect(moveTasks).toEqual([
        {
          Effect: 'Allow',
          Action: [
            'sqs:DeleteMessage',
            'sqs:GetQueueAttributes',
            'sqs:ListMessageMoveTasks',
            'sqs:ReceiveMessage',
            'sqs:StartMessageMoveTask',
          ],
          Resource: [{ 'Fn::GetAtt': [ids.dlq, 'Arn'] }],
        },
      ]);
      expect(actionsOn(adminStatements, ids.queue)).toEqual(['sqs:SendMessage']);
    });

    it("may GetItem/UpdateItem the table (an erasure's tombstones too), PutItem and BatchGetItem as the intake does (a backfill records leads), and Query only the status and due indexes", () => {
      for (const action of ['dynamodb:GetItem', 'dynamodb:UpdateItem']) {
        expect(adminStatements).toContainEqual({
          Effect: 'Allow',
          Action: [action],
          Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }],
        });
      }
      // Every item kind by its key: the admin's own (LEDGER_KEYS.admin) and the intake's.
      const keys = leadingKeysOf(template, ids.adminRole) as Record<string, string[]>;
      expect(
        Object.fromEntries(Object.entries(keys).map(([a, k]) => [a, [...new Set(k)].sort()])),
      ).toEqual({
        'dynamodb:BatchGetItem': ['erased#*'],
        'dynamodb:GetItem': [
          ...new Set([
            ...LEDGER_KEYS.admin['dynamodb:GetItem'],
            ...LEDGER_KEYS.intake['dynamodb:GetItem'],
          ]),
        ].sort(),
        'dynamodb:PutItem': ['dedup#*', 'lead#*'],
        'dynamodb:UpdateItem': [...LEDGER_KEYS.admin['dynamodb:UpdateItem']].sort(),
      });
      const query = adminStatements.filter((s) => s.Action.includes('dynamodb:Query'));
      expect(query).toHaveLength(1);
      expect(JSON.stringify(query[0]?.Resource)).toContain('/index/gsi1');
      expect(JSON.stringify(query[0]?.Resource)).toContain('/index/gsi2');
      expect(query[0]?.Resource).toHaveLength(2);
    });

    it('is granted nothing else: its whole action list', () => {
      expect(allActions(adminStatements)).toEqual([
        'appconfig:GetLatestConfiguration',
        'appconfig:StartConfigurationSession',
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'secretsmanager:GetSecretValue',
        'secretsmanager:PutSecretValue',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ListMessageMoveTasks',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
        'sqs:StartMessageMoveTask',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
      expect(appConfigStatements(adminStatements)).toEqual([
        { Effect: 'Allow', Action: APPCONFIG_READ_ACTIONS, Resource: [configurationArn(template)] },
      ]);
      expect(secretNamesGranted(adminStatements, undefined, template)).toEqual(
        [
          'leads/prod/clients',
          // an erasure leaves salted tombstones; a backfill checks them
          'leads/prod/erasure-salt',
          // a backfill lists a platform's leads with the profile's token; the kit reveals
          ...PROFILE_SHARD_NAMES,
        ].sort(),
      );
    });
  });

  describe('the Basic-auth authorizer', () => {
    /** `METHOD /path` of the API methods with the given authorization type. */
    const methodsWith = (authorizationType: string) => {
      const resources = template.findResources('AWS::ApiGateway::Resource') as Record<
        string,
        { Properties: { PathPart: string; ParentId: { Ref?: string } } }
      >;
      const pathOf = (id: string | undefined): string => {
        const resource = id === undefined ? undefined : resources[id];
        if (!resource) return '';
        return `${pathOf(resource.Properties.ParentId.Ref)}/${resource.Properties.PathPart}`;
      };
      const methods = Object.values(template.findResources('AWS::ApiGateway::Method')) as Array<{
        Properties: { HttpMethod: string; ResourceId: { Ref?: string }; AuthorizationType: string };
      }>;
      return methods
        .filter((m) => m.Properties.AuthorizationType === authorizationType)
        .map((m) => `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId.Ref) || '/'}`)
        .sort();
    };

    it('guards exactly the Basic-auth routes: prospects, debtors, reports and admin', () => {
      expect(methodsWith('CUSTOM')).toEqual([
        'GET /admin',
        'GET /admin/assets/{file}',
        'GET /admin/leads',
        'GET /admin/leads.csv',
        'GET /admin/leads/{leadId}',
        'GET /admin/setup',
        'GET /admin/upstream',
        'GET /api/v1/receivables/debtors',
        'GET /reports/assets/{file}',
        'GET /reports/debtors',
        'GET /reports/debtors.csv',
        'GET /reports/debtors.html',
        'PATCH /admin/leads/{leadId}',
        'POST /admin/backfill/{profile}',
        'POST /admin/erasure',
        'POST /admin/leads/{leadId}/retry',
        'POST /admin/preview/{profile}',
        'POST /admin/replay',
        'POST /admin/reports/debtors/refresh',
        'POST /admin/setup/{profile}/reveal',
        'POST /admin/setup/{profile}/rotate',
        'POST /admin/test-lead/{profile}',
        'POST /api/v1/prospects',
      ]);
      // Webhook senders authenticate with signatures, keys or tokens; /health and the API's
      // description are open.
      expect(methodsWith('NONE')).toEqual([
        'GET /health',
        'GET /leads/{profile}',
        'GET /openapi.json',
        'OPTIONS /leads/{profile}',
        'POST /leads/{profile}',
      ]);
      expect(ROUTES.filter((r) => r.auth === 'basic').length).toBe(23);
    });

    it("is the authorizer function's live alias, on the Authorization header, its decisions never cached", () => {
      const fn = stack.functions.get('authorizer');
      if (!fn) throw new Error('no authorizer function');
      const fnId = stack.getLogicalId(fn.node.defaultChild as CfnFunction);
      const authorizer = Object.values(
        template.findResources('AWS::ApiGateway::Authorizer'),
      )[0] as {
        Properties: Record<string, unknown>;
      };
      expect(authorizer.Properties).toMatchObject({
        Type: 'REQUEST',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: 0,
      });
      expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(
        `"${liveAliasOf(template, fnId)}"`,
      );
      expect(routesOf(template, fnId)).toEqual([]);
    });

    it('reads only the API clients secret and the failed-sign-in items, and is granted nothing else', () => {
      const fn = stack.functions.get('authorizer');
      const role = stack.getLogicalId(fn?.role?.node.defaultChild as CfnRole);
      const statements = roleStatements(template, role);
      expect(secretNamesGranted(statements, undefined, template)).toEqual(['leads/prod/clients']);
      expect(secretNamesGranted(statements, 'secretsmanager:DescribeSecret')).toEqual([]);
      // No settings either: the authorizer reads only the clients secret.
      expect(appConfigStatements(statements)).toEqual([]);
      // the throttle items only: GetItem, UpdateItem on keys starting `authfail#` (no deletes)
      const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
        JSON.stringify(p).includes(`"${role}"`),
      );
      const table = policies
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>)
        .filter((st) => [st.Action].flat().includes('dynamodb:UpdateItem'));
      expect(table).toHaveLength(1);
      expect(table[0]?.Condition).toEqual({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['authfail#*'] },
      });
      expect(allActions(statements)).toEqual([
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'secretsmanager:GetSecretValue',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
    });
  });

  it('keeps the intake send-only on SQS with the admin and forwarder added', () => {
    const intake = roleStatements(template, ids.intakeRole);
    expect(actionsOn(intake, ids.queue)).toEqual(['sqs:SendMessage']);
    expect(actionsOn(intake, ids.dlq)).toEqual([]);
  });

  it('watches delivery, the API, the functions and the ledger: every alarm notifies the alarm topic, but the release-only one', () => {
    const topic = stack.getLogicalId(stack.observability.topic.node.defaultChild as CfnTopic);
    const alarms = template.findResources('AWS::CloudWatch::Alarm') as Record<
      string,
      { Properties: { AlarmActions?: unknown[] } }
    >;
    const releaseOnly = stack.getLogicalId(
      stack.releases.deadLettersGrew.node.defaultChild as CfnTopic,
    );
    // Delivery 9, sign-in guessing, parked, rejected, intake refusing, intake errors, watch
    // errors; the report 4; API 5XX, intake 5XX, authorizer, admin and report errors, intake
    // throttles, ledger throttling; forwarder throttles, OpenAPI and settings-validator errors,
    // WAF blocks; and the release's dead-letter growth (rollback only).
    expect(Object.keys(alarms)).toHaveLength(31);
    for (const [id, alarm] of Object.entries(alarms)) {
      if (id === releaseOnly) expect(alarm.Properties.AlarmActions).toBeUndefined();
      else expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic }]);
    }
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topic } });
  });

  it('subscribes alarmEmail from the deploy config', () => {
    const withEmail = new LeadsStack(testApp(), 'leads-test', {
      config: deployConfig({ alarmEmail: 'ops@example.com' }),
    });
    Template.fromStack(withEmail).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });
});
