import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LeadStateError, newLeadId } from '../../functions/domain/lead-lifecycle.ts';
import type { DynamoDb } from '../../functions/kernel/dynamodb-aws.ts';
import { ENV } from '../../functions/kernel/env.ts';
import { subjectKey } from '../../functions/ledger/erasure-dynamodb.ts';
import type { LeadLedger } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import {
  branchNamesKey,
  dynamoBranchNames,
} from '../../functions/upstream/branch-names-dynamodb.ts';
import { circuitKey, createDynamoCircuit } from '../../functions/upstream/circuit-dynamodb.ts';
import { dynamoUpstreamHealth } from '../../functions/upstream/health-dynamodb.ts';
import { PacerWaitError } from '../../functions/upstream/pacer.ts';
import {
  createDynamoPacer,
  pacerKey,
  UPSTREAM_PACER_KEY,
} from '../../functions/upstream/pacer-dynamodb.ts';
import {
  CIRCUIT_ACTIONS,
  INTAKE_KEYED_ACTIONS,
  LEDGER_ACTIONS,
  LEDGER_INDEX_ACTIONS,
  LEDGER_KEYS,
  LeadStore,
  PACER_ACTIONS,
} from '../../infra/constructs/lead-store.ts';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import {
  onlyLogicalId,
  type PolicyStatementJson,
  removeTempOutdirs,
  roleStatements,
  testStack,
} from './helpers.ts';

const ENTRY = 'test/fixtures/functions/hello.ts';

type Grant =
  | 'grantIntake'
  | 'grantForwarder'
  | 'grantAdmin'
  | 'grantPacer'
  | 'grantReconciler'
  | 'grantBranchNames';

/** A stack with the store and one function given `grant`; its template and ids. */
function granted(grant: Grant) {
  const stack = testStack();
  const store = new LeadStore(stack, 'Ledger');
  const fn = new NodeFunction(stack, 'Worker', { entry: ENTRY });
  store[grant](fn);
  const template = Template.fromStack(stack);
  const table = onlyLogicalId(template, 'AWS::DynamoDB::Table');
  const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnRole);
  const statements = roleStatements(template, role);
  return { template, table, statements };
}

/** The statements that mention the table, its indexes or any KMS key. */
function ledgerStatements(statements: PolicyStatementJson[], table: string) {
  return statements.filter(
    (s) =>
      JSON.stringify(s.Resource).includes(`"${table}"`) ||
      s.Action.some((a) => a.startsWith('dynamodb:') || a.startsWith('kms:')),
  );
}

const tableArn = (table: string) => ({ 'Fn::GetAtt': [table, 'Arn'] });
const indexArn = (table: string, index = 'gsi1') => ({
  'Fn::Join': ['', [tableArn(table), `/index/${index}`]],
});

/** IAM's StringLike (`*` any characters, `?` one) as a test. */
function like(pattern: string, value: string): boolean {
  return new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(value);
}

afterAll(removeTempOutdirs);

describe('LeadStore', () => {
  it('is the ledger table: pk, GSI gsi1 (gsi1pk/gsi1sk, all attributes), TTL on expiresAt, on demand', () => {
    // Act
    const template = Template.fromStack(
      (() => {
        const stack = testStack();
        new LeadStore(stack, 'Ledger');
        return stack;
      })(),
    );

    // Assess
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      GlobalSecondaryIndexes: [
        {
          IndexName: 'gsi1',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'gsi2',
          KeySchema: [
            { AttributeName: 'duepk', KeyType: 'HASH' },
            { AttributeName: 'dueAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'gsi1pk', AttributeType: 'S' },
        { AttributeName: 'gsi1sk', AttributeType: 'S' },
      ]),
    });
  });

  it('never loses leads to the stack: PITR, retained on delete and replace, and no deletion protection in the template (a failed first create takes its empty table back; the deploy script protects it)', () => {
    // Prepare
    const stack = testStack();
    new LeadStore(stack, 'Ledger');

    // Act
    const template = Template.fromStack(stack);

    // Assess
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: Match.absent(),
      }),
    });
  });

  it('encrypts with the AWS managed key: no customer key to create or grant', () => {
    // Prepare
    const stack = testStack();
    new LeadStore(stack, 'Ledger');

    // Act
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      // SSE on without a key id is KMS with the AWS managed key aws/dynamodb (off: AWS owned).
      SSESpecification: Match.objectEquals({ SSEEnabled: true }),
    });
    template.resourceCountIs('AWS::KMS::Key', 0);
  });

  it('grantIntake: GetItem on the table; PutItem of leads and dedup items, UpdateItem of subject items, BatchGetItem of tombstones only (no index, scan, delete or KMS), and the table name', () => {
    // Act
    const { template, table, statements } = granted('grantIntake');

    // Assess
    expect(ledgerStatements(statements, table)).toEqual([
      { Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: [tableArn(table)] },
      { Effect: 'Allow', Action: ['dynamodb:PutItem'], Resource: [tableArn(table)] },
      { Effect: 'Allow', Action: ['dynamodb:UpdateItem'], Resource: [tableArn(table)] },
      { Effect: 'Allow', Action: ['dynamodb:BatchGetItem'], Resource: [tableArn(table)] },
    ]);
    const conditions = Object.fromEntries(
      (['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'] as const).map(
        (action) => [
          action,
          JSON.stringify(template.findResources('AWS::IAM::Policy')).match(
            new RegExp(
              `"Action":"${action}","Condition":\\{"ForAllValues:StringLike":\\{"dynamodb:LeadingKeys":(\\[[^\\]]*\\])`,
            ),
          )?.[1],
        ],
      ),
    );
    expect(conditions).toEqual({
      'dynamodb:PutItem': JSON.stringify(['lead#*', 'dedup#*']),
      'dynamodb:UpdateItem': JSON.stringify(['subject#*']),
      // It reads tombstones and cannot write one: no request can undo an erasure.
      'dynamodb:BatchGetItem': JSON.stringify(['erased#*']),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [ENV.ledgerTable]: { Ref: table } }) },
    });
  });

  it('grantForwarder: GetItem and UpdateItem on the table; PutItem on the circuit item only; Query on the due index', () => {
    // Act
    const { template, table, statements } = granted('grantForwarder');

    // Assess: the due index for the leads waiting for a circuit the attempt closed.
    expect(ledgerStatements(statements, table)).toEqual([
      // One statement per action: each has its own LeadingKeys (LEDGER_KEYS).
      { Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: [tableArn(table)] },
      { Effect: 'Allow', Action: ['dynamodb:UpdateItem'], Resource: [tableArn(table)] },
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        Resource: [tableArn(table)],
      },
      {
        Effect: 'Allow',
        Action: ['dynamodb:Query'],
        Resource: [indexArn(table, 'gsi2')],
      },
    ]);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
            // One circuit item per upstream account: `circuit#upstream` (default), `circuit#upstream#<name>`.
            Condition: {
              'ForAllValues:StringLike': {
                'dynamodb:LeadingKeys': ['circuit#upstream', 'circuit#upstream#*'],
              },
            },
          }),
        ]),
      },
    });
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toContain(
      'StringEquals',
    );
  });

  it('grantReconciler: GetItem and UpdateItem on the table, PutItem on the circuit items only, Query on the due and status indexes', () => {
    // Act
    const { template, table, statements } = granted('grantReconciler');

    // Assess: the circuit item to release a settled carrier; the status index for the
    // personal-data retention (old parked, dead, test leads)
    expect(ledgerStatements(statements, table)).toEqual([
      // One statement per action: each has its own LeadingKeys (LEDGER_KEYS).
      { Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: [tableArn(table)] },
      { Effect: 'Allow', Action: ['dynamodb:UpdateItem'], Resource: [tableArn(table)] },
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        Resource: [tableArn(table)],
      },
      {
        Effect: 'Allow',
        Action: ['dynamodb:Query'],
        Resource: [indexArn(table, 'gsi1'), indexArn(table, 'gsi2')],
      },
    ]);
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain('"dynamodb:LeadingKeys":["circuit#upstream","circuit#upstream#*"]');
  });

  it('grantPacer: GetItem and UpdateItem on the pacer item only (LeadingKeys), and the table name', () => {
    // Act
    const { template, table, statements } = granted('grantPacer');

    // Assess
    expect(ledgerStatements(statements, table)).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        Resource: [tableArn(table)],
      },
    ]);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Resource: tableArn(table),
            // One pacer item per upstream account: `pacer#upstream` (default), `pacer#upstream#<name>`.
            Condition: {
              'ForAllValues:StringLike': {
                'dynamodb:LeadingKeys': ['pacer#upstream', 'pacer#upstream#*'],
              },
            },
          }),
        ]),
      },
    });
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toContain(
      'StringEquals',
    );
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [ENV.ledgerTable]: { Ref: table } }) },
    });
  });

  it("grantBranchNames: PutItem of the accounts' learned branch names items only, which the adapter writes", async () => {
    // Prepare
    const { template, table, statements } = granted('grantBranchNames');
    const written: string[] = [];
    const client = {
      put: async (input: { Item: { pk: string } }) => {
        written.push(input.Item.pk);
        return {};
      },
    } as unknown as DynamoDb;

    // Act
    await dynamoBranchNames({ client, tableName: 'T' }).write('south', { 2: 'Unidade Moema' });
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    const found = /"dynamodb:LeadingKeys":(\[[^\]]*\])/.exec(policies);
    const patterns = JSON.parse(found?.[1] ?? '[]') as string[];

    // Assess
    expect(ledgerStatements(statements, table)).toEqual([
      { Effect: 'Allow', Action: ['dynamodb:PutItem'], Resource: [tableArn(table)] },
    ]);
    expect(written).toEqual([branchNamesKey('south')]);
    for (const key of [branchNamesKey('default'), branchNamesKey('south')]) {
      expect(
        patterns.some((p) => like(p, key)),
        key,
      ).toBe(true);
    }
    for (const other of [`lead#${newLeadId(new Date())}`, 'pacer#upstream', 'dedup#site#abc']) {
      expect(
        patterns.some((p) => like(p, other)),
        other,
      ).toBe(false);
    }
  });

  it("every account's pacer and circuit items fall under their grant's LeadingKeys patterns, and nothing else does", () => {
    // Prepare
    // The LeadingKeys of the statement granting `action` (the first one with a condition).
    const leadingKeys = (grant: Grant, action = 'dynamodb:GetItem'): string[] => {
      const { template } = granted(grant);
      const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
        (p) =>
          (
            p as {
              Properties: {
                PolicyDocument: {
                  Statement: Array<{
                    Action: string | string[];
                    Condition?: Record<string, Record<string, string[]>>;
                  }>;
                };
              };
            }
          ).Properties.PolicyDocument.Statement,
      );
      const found = statements.find(
        (s) => [s.Action].flat().includes(action) && s.Condition?.['ForAllValues:StringLike'],
      );
      const keys = found?.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
      if (!keys) throw new Error(`no LeadingKeys condition for ${grant}`);
      return keys;
    };
    const accounts = ['default', 'south', 'gym-2'];

    // Act
    const pacerPatterns = leadingKeys('grantPacer');
    const circuitPatterns = leadingKeys('grantReconciler', 'dynamodb:PutItem');
    const allowedBy = (patterns: string[], key: string) => patterns.some((p) => like(p, key));

    // Assess
    for (const account of accounts) {
      expect(allowedBy(pacerPatterns, pacerKey(account)), pacerKey(account)).toBe(true);
      expect(allowedBy(circuitPatterns, circuitKey(account)), circuitKey(account)).toBe(true);
      expect(allowedBy(pacerPatterns, circuitKey(account))).toBe(false);
      expect(allowedBy(circuitPatterns, pacerKey(account))).toBe(false);
    }
    for (const other of [`lead#${newLeadId(new Date())}`, 'dedup#site#abc', 'status#queued']) {
      expect(allowedBy([...pacerPatterns, ...circuitPatterns], other), other).toBe(false);
    }
  });

  it('grantAdmin: GetItem and UpdateItem on the table, Query on the two indexes only', () => {
    // Act
    const { table, statements } = granted('grantAdmin');

    // Assess
    const ledger = ledgerStatements(statements, table);
    expect(ledger).toHaveLength(3);
    for (const action of ['dynamodb:GetItem', 'dynamodb:UpdateItem']) {
      expect(ledger).toContainEqual({
        Effect: 'Allow',
        Action: [action],
        Resource: [tableArn(table)],
      });
    }
    expect(ledger).toContainEqual({
      Effect: 'Allow',
      Action: ['dynamodb:Query'],
      Resource: [indexArn(table), indexArn(table, 'gsi2')],
    });
  });
});

/**
 * The grants against the code: run the ledger operations of each role (and the pacer's) on a mocked DynamoDB
 * (success and conditional-failure paths) and compare the IAM actions of the calls made with
 * what the role is granted. Equal, not a subset: a grant with an unused action fails too.
 */
type Operation = keyof DynamoDb;
type Answer = { resolves: object } | { rejects: Error };

/**
 * A DynamoDB that records each call and answers what the test told it: per operation, the
 * answer whose `match` (a subset of the input) fits, else the operation's plain answer.
 */
function recordingDynamo() {
  let answers: { op: Operation; match?: Record<string, unknown>; answer: Answer }[] = [];
  let calls: { op: Operation; input: Record<string, unknown> }[] = [];
  const fits = (input: Record<string, unknown>, match: Record<string, unknown>) =>
    Object.entries(match).every(([k, v]) => JSON.stringify(input[k]) === JSON.stringify(v));
  const call = (op: Operation) => async (input: Record<string, unknown>) => {
    calls.push({ op, input });
    const mine = answers.filter((a) => a.op === op);
    const chosen = mine.find((a) => a.match && fits(input, a.match)) ?? mine.find((a) => !a.match);
    if (!chosen) {
      if (op === 'batchGet') return { Responses: {}, UnprocessedKeys: {} };
      return op === 'query' || op === 'scan' ? { Items: [], Count: 0 } : {};
    }
    if ('rejects' in chosen.answer) throw chosen.answer.rejects;
    return chosen.answer.resolves;
  };
  const ops: Operation[] = ['get', 'batchGet', 'put', 'update', 'delete', 'query', 'scan'];
  const client = Object.fromEntries(ops.map((op) => [op, call(op)])) as unknown as DynamoDb;
  return {
    client,
    on(op: Operation, answer: Answer, match?: Record<string, unknown>) {
      answers = answers.filter(
        (a) => !(a.op === op && JSON.stringify(a.match) === JSON.stringify(match)),
      );
      answers.push({ op, answer, ...(match && { match }) });
    },
    calls: () => calls,
    reset() {
      answers = [];
      calls = [];
    },
  };
}

const ACTION: Record<Operation, string> = {
  get: 'GetItem',
  batchGet: 'BatchGetItem',
  put: 'PutItem',
  update: 'UpdateItem',
  delete: 'DeleteItem',
  query: 'Query',
  scan: 'Scan',
};

describe('LeadStore grants match what lead-ledger-dynamodb.ts sends', () => {
  const ddb = recordingDynamo();
  /** Every item the recorded table calls of `keys`' actions touched is one of their keys. */
  const expectCallsWithin = (keys: Record<string, readonly string[]>) => {
    let checked = 0;
    for (const call of ddb.calls()) {
      const patterns = keys[`dynamodb:${ACTION[call.op]}`];
      if (!patterns) continue;
      for (const key of keysOf(call.input)) {
        checked += 1;
        expect(
          patterns.some((pattern) => like(pattern, key)),
          `${ACTION[call.op]} ${key}`,
        ).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(0);
  };
  const NOW = new Date('2025-01-02T03:04:05.000Z');
  const leadId = newLeadId(NOW);
  const ITEM = {
    pk: `lead#${leadId}`,
    kind: 'lead',
    leadId,
    profile: 'site',
    source: 'form',
    status: 'queued',
    dedupKey: 'hash:abc',
    payload: JSON.stringify({
      capture: {
        source: 'form',
        dedupKey: 'hash:abc',
        isTest: false,
        answers: [],
        attribution: {},
      },
    }),
    attempts: 0,
    receivedAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
  };
  const conditionFailed = new ConditionalCheckFailedException({
    message: 'condition',
    $metadata: { httpStatusCode: 400 },
  });

  /** The IAM action of each call made so far; index reads as `<action> on index`. */
  function actionsCalled(): { table: string[]; index: string[] } {
    const table = new Set<string>();
    const index = new Set<string>();
    for (const call of ddb.calls()) {
      const action = `dynamodb:${ACTION[call.op]}`;
      ('IndexName' in call.input ? index : table).add(action);
    }
    return { table: [...table].sort(), index: [...index].sort() };
  }

  function ledger(): LeadLedger {
    return createDynamoLedger({
      client: ddb.client,
      tableName: 'ledger',
      erasureSalt: async () => 'a-test-salt-of-at-least-32-characters',
    });
  }

  /** The partition keys a call names (its Key, its Item, the keys of a batch). */
  function keysOf(input: Record<string, unknown>): string[] {
    const one = (item: unknown) => (item as { pk?: string } | undefined)?.pk;
    const batch = Object.values(
      (input.RequestItems ?? {}) as Record<string, { Keys: { pk: string }[] }>,
    ).flatMap((request) => request.Keys.map((key) => key.pk));
    return [one(input.Key), one(input.Item), ...batch].filter((k): k is string => Boolean(k));
  }

  /** Runs `operation` with writes succeeding, then with every condition failing. */
  async function bothPaths(operation: (l: LeadLedger) => Promise<unknown>): Promise<void> {
    ddb.on('get', { resolves: { Item: ITEM } });
    ddb.on('put', { resolves: {} });
    ddb.on('update', { resolves: { Attributes: ITEM } });
    ddb.on('query', { resolves: { Items: [ITEM], Count: 1 } });
    await operation(ledger());
    ddb.on('put', { rejects: conditionFailed });
    ddb.on('update', { rejects: conditionFailed });
    await operation(ledger()).catch((error: unknown) => {
      if (!(error instanceof LeadStateError)) throw error;
    });
  }

  beforeEach(() => {
    ddb.reset();
  });

  it('intake (record, get): GetItem on the table; PutItem, UpdateItem and BatchGetItem only on the keys their LeadingKeys allow', async () => {
    // Prepare: a capture that names a person, so its subject items are written too.
    const named = {
      ...JSON.parse(ITEM.payload).capture,
      answers: [{ key: 'email', value: 'ana@example.com' }],
    };
    // Adding to a subject item has no condition: it never fails.
    ddb.on('update', { resolves: {} }, { Key: { pk: subjectKey('email:ana@example.com') } });

    // Act
    await bothPaths((l) =>
      l.record({
        profile: 'site',
        source: 'form',
        dedupKey: 'hash:abc',
        capture: named,
        status: 'queued',
        receivedAt: NOW,
      }),
    );
    // A dedup item whose lead was never written (a crashed writer): record() writes it.
    ddb.on('get', { resolves: {} }, { Key: { pk: ITEM.pk } });
    ddb.on('put', { resolves: {} }, { ConditionExpression: 'attribute_not_exists(pk)' });
    await ledger().record({
      profile: 'site',
      source: 'form',
      dedupKey: 'hash:abc',
      capture: JSON.parse(ITEM.payload).capture,
      status: 'queued',
      receivedAt: NOW,
    });
    await bothPaths((l) => l.get(leadId));

    // Assess
    const keyed = INTAKE_KEYED_ACTIONS.flatMap((grant) => grant.actions);
    expect(actionsCalled()).toEqual({
      table: [...LEDGER_ACTIONS.intake, ...keyed].sort(),
      index: [],
    });
    expectCallsWithin(LEDGER_KEYS.intake);
    for (const call of ddb.calls()) {
      const action = `dynamodb:${ACTION[call.op]}`;
      const grant = INTAKE_KEYED_ACTIONS.find((g) =>
        (g.actions as readonly string[]).includes(action),
      );
      if (!grant) continue;
      for (const key of keysOf(call.input)) {
        expect(
          grant.keys.some((pattern) => like(pattern, key)),
          `${action} ${key}`,
        ).toBe(true);
      }
    }
  });

  it('forwarder (get and the delivery transitions): GetItem and UpdateItem', async () => {
    // Act
    await bothPaths((l) => l.get(leadId));
    await bothPaths((l) => l.claim(leadId, 0, 60_000, NOW));
    await bothPaths((l) => l.saveMapping(leadId, 1, { prospect: { name: 'Maria' } as never }, NOW));
    await bothPaths((l) => l.markDelivered(leadId, '42', NOW));
    await bothPaths((l) => l.markRejected(leadId, 1, ['bad phone'], NOW));
    await bothPaths((l) =>
      l.release(
        leadId,
        1,
        { nextAttemptAt: NOW, error: 'HTTP 503', counted: false, failed: true },
        NOW,
      ),
    );
    await bothPaths((l) => l.markDead(leadId, 1, 'HTTP 400', NOW, { counted: true }));
    await bothPaths((l) => l.markParked(leadId, 1, 'no branch', NOW));
    await bothPaths((l) => l.markTest(leadId, 1, 'test lead', NOW));
    // Waiting for the account's circuit, and waking the leads that waited when it closes.
    await bothPaths((l) =>
      l.waitFor(leadId, 1, { circuit: 'default', recheckAt: NOW, note: 'x', now: NOW }),
    );
    await bothPaths((l) => l.listWaiting('default'));
    await bothPaths((l) => l.wake(leadId, 1, { dueAt: NOW, now: NOW, attemptNow: true }));

    // Assess
    expect(actionsCalled()).toEqual({
      table: [...LEDGER_ACTIONS.forwarder].sort(),
      index: [...LEDGER_INDEX_ACTIONS],
    });
    expectCallsWithin(LEDGER_KEYS.forwarder);
  });

  it('circuit (read, open, probe, close): GetItem and PutItem on its item only', async () => {
    // Prepare
    const circuit = createDynamoCircuit({
      client: ddb.client,
      tableName: 'ledger',
    });
    const stored = { pk: circuitKey(), rev: 1, state: 'open', failures: 3, probeAt: 0 };

    // Act
    ddb.on('get', { resolves: { Item: stored } });
    ddb.on('put', { resolves: {} });
    await circuit.read();
    await circuit.gate(1_000);
    await circuit.failed(2_000, { immediate: true, reason: 'unavailable', probe: true });
    await circuit.succeeded(3_000);

    // Assess
    expect(actionsCalled()).toEqual({ table: [...CIRCUIT_ACTIONS].sort(), index: [] });
    const keys = ddb.calls().map((call) => (call.input as { Key?: { pk: string } }).Key);
    const items = ddb.calls().map((call) => (call.input as { Item?: { pk: string } }).Item);
    const touched = new Set([...keys, ...items].filter(Boolean).map((k) => k?.pk));
    expect(touched).toEqual(new Set([circuitKey()]));
  });

  it('reconciler (due leads, wake): GetItem and UpdateItem; Query on the due index', async () => {
    // Act
    await bothPaths((l) => l.listDue(NOW));
    await bothPaths((l) => l.wake(leadId, 1, { dueAt: NOW, now: NOW, onlyIfDue: true }));
    await bothPaths((l) => l.get(leadId));

    // Assess
    expect(actionsCalled()).toEqual({
      table: [...LEDGER_ACTIONS.reconciler].sort(),
      index: [...LEDGER_INDEX_ACTIONS],
    });
    expectCallsWithin(LEDGER_KEYS.reconciler);
  });

  it('pacer (take a slot idle or busy, refuse a far one, pause): GetItem, UpdateItem on its item', async () => {
    // Prepare: a busy schedule far ahead, so every path runs (idle fails, busy fails, read).
    let now = 1_000_000;
    const pacer = createDynamoPacer({
      client: ddb.client,
      tableName: 'ledger',
      maxPerSecond: 5,
      maxPerMinute: 100,
      maxWaitMs: 1_000,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });

    // Act
    ddb.on('update', { resolves: { Attributes: { next: now + 5_000 } } });
    await pacer.acquire();
    ddb.on('update', { rejects: conditionFailed });
    ddb.on('get', { resolves: { Item: { pk: UPSTREAM_PACER_KEY, next: now + 60_000 } } });
    await expect(pacer.acquire()).rejects.toThrow(PacerWaitError);
    pacer.pauseUntil(now + 120_000);
    await pacer.flush();

    // Assess
    expect(actionsCalled()).toEqual({ table: [...PACER_ACTIONS].sort(), index: [] });
    const keys = ddb.calls().map((call) => (call.input as { Key?: unknown }).Key);
    expect(new Set(keys.map((key) => JSON.stringify(key)))).toEqual(
      new Set([JSON.stringify({ pk: UPSTREAM_PACER_KEY })]),
    );
  });

  it('admin (get, list, requeue, wake, correct, erase, backlog, upstream health): GetItem, UpdateItem; Query on the indexes', async () => {
    // Prepare: a parked lead that names a person, as a correction and an erasure find it.
    const parked = {
      ...ITEM,
      status: 'parked',
      payload: JSON.stringify({
        capture: {
          ...JSON.parse(ITEM.payload).capture,
          answers: [{ key: 'email', value: 'ana@example.com' }],
        },
      }),
    };

    // Act
    await bothPaths((l) => l.get(leadId));
    await bothPaths((l) => l.listByStatus('dead'));
    await bothPaths((l) => l.requeue(leadId, NOW));
    await bothPaths((l) => l.wake(leadId, 1, { dueAt: NOW, now: NOW, attemptNow: true }));
    await bothPaths((l) => l.findBySubjects(['email:ana@example.com']));
    ddb.on('get', { resolves: { Item: parked } });
    ddb.on('update', { resolves: { Attributes: parked } });
    await ledger().correct(
      leadId,
      0,
      { correction: { cellphone: '11987654321' }, prospect: { name: 'Ana' } as never, by: 'ops' },
      NOW,
    );
    await ledger().redact(leadId, {
      reason: 'erasure',
      now: NOW,
      subjects: ['email:ana@example.com'],
    });
    await bothPaths((l) => l.countInFlight());
    const health = dynamoUpstreamHealth({
      client: ddb.client,
      tableName: 'ledger',
    });
    await health.circuit();
    await health.pacerNextSlot();

    // Assess
    expect(actionsCalled()).toEqual({
      table: [...LEDGER_ACTIONS.admin].sort(),
      index: [...LEDGER_INDEX_ACTIONS],
    });
    expectCallsWithin(LEDGER_KEYS.admin);
  });
});
