/**
 * The accounts bench (bench/accounts*.ts) counts what it says: the sandbox's records turned into
 * times to upstream, drains, 429s and duplicates; the DynamoDB requests told apart into ledger
 * reads and writes and the local queue's SQS operations; the cost scaled to 10,000 leads; and a
 * tiny real run (two accounts on one sandbox) delivers every lead once and fills the table.
 * Times are printed by the bench, never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { scenarios } from '../../bench/accounts.ts';
import { countDynamo, emptyCounts } from '../../bench/accounts-meter.ts';
import {
  costPer10k,
  markdownTable,
  type PostedLead,
  type Scenario,
  summarize,
} from '../../bench/accounts-report.ts';
import { runScenario } from '../../bench/accounts-run.ts';
import type { RequestRecord } from '../../sandbox/stats.ts';

const SCENARIO: Scenario = {
  label: '1 flood + 2 trickle',
  accounts: 3,
  floodAccounts: 1,
  floodLeads: 2,
  trickleLeads: 1,
  perSecond: 2,
};

const lead = (email: string, account: number, trickle: boolean, sentAt: number): PostedLead => ({
  email,
  account,
  trickle,
  sentAt,
  roundTripMs: 10,
});
const post = (email: string, at: number, status = 200): RequestRecord => ({
  at,
  method: 'POST',
  route: 'POST /api/v1/prospects',
  status,
  email,
});

describe('the accounts bench report', () => {
  it('measures trickles from their POST to their first creation, and counts 429s and duplicates', () => {
    const posted = [
      lead('f0@x.br', 0, false, 1_000),
      lead('f1@x.br', 0, false, 1_000),
      lead('t1@x.br', 1, true, 2_000),
      lead('t2@x.br', 2, true, 2_000),
    ];
    const records = [
      post('f0@x.br', 1_500),
      post('t1@x.br', 2_500, 429),
      post('t1@x.br', 3_000),
      post('f1@x.br', 3_500),
      post('t2@x.br', 6_000),
      post('t2@x.br', 6_500), // a second creation: a duplicate
    ];
    const result = summarize(SCENARIO, posted, records, emptyCounts());

    expect(result).toMatchObject({
      posted: 4,
      delivered: 4,
      trickleP50S: 1,
      trickleP99S: 4,
      floodDrainS: 2.5,
      drainS: 5,
      maxFloorS: 1,
      sumFloorS: 2,
      http429: 1,
      duplicates: 1,
    });
    const table = markdownTable([result]).split('\n');
    expect(table).toHaveLength(3);
    expect(table[2]).toBe(
      '| 1 flood + 2 trickle | 3 | 4 | 4 | 1 s | 4 s | 2.5 s | 5 s | 1 s | 2 s | 5× | 1 | 1 |',
    );
  });

  it('tells ledger reads and writes from the queue operations, and times receive → settle', () => {
    const counts = emptyCounts();
    const received = new Map<string, number>();
    const queue = 'leads-queue';
    const id = { Key: { id: { S: 'm1' } } };
    countDynamo(counts, received, queue, 'GetItem', { TableName: 'leads-ledger' }, true, 0);
    countDynamo(
      counts,
      received,
      queue,
      'PutItem',
      { TableName: 'leads-ledger', Item: { a: { S: 'x' } } },
      false,
      0,
    );
    countDynamo(
      counts,
      received,
      queue,
      'TransactWriteItems',
      { TransactItems: [{}, {}] },
      true,
      0,
    );
    countDynamo(counts, received, queue, 'PutItem', { TableName: queue }, true, 0);
    countDynamo(counts, received, queue, 'Scan', { TableName: queue }, true, 0);
    countDynamo(
      counts,
      received,
      queue,
      'UpdateItem',
      {
        TableName: queue,
        ...id,
        UpdateExpression: 'SET visibleAt = :hidden, receiveCount = receiveCount + :one',
      },
      true,
      100,
    );
    countDynamo(
      counts,
      received,
      queue,
      'UpdateItem',
      { TableName: queue, ...id, UpdateExpression: 'SET visibleAt = :visibleAt' },
      false,
      200,
    );
    countDynamo(counts, received, queue, 'DeleteItem', { TableName: queue, ...id }, true, 350);

    expect(counts).toMatchObject({
      dynamoReads: 1,
      dynamoWrites: 3, // a failed conditional write is billed too
      dynamoTransactWrites: 2,
      dynamoPuts: 1,
      sqsSends: 1,
      sqsReceives: 1,
      sqsDeletes: 1,
      sqsVisibilityChanges: 0, // the failed one changed nothing
      forwarderBusyMs: 250,
      forwarderSettled: 1,
    });
  });

  it('scales the counted requests to 10,000 leads', () => {
    const counts = {
      ...emptyCounts(),
      dynamoReads: 8,
      dynamoWrites: 10,
      sqsSends: 2,
      sqsReceives: 2,
      sqsDeletes: 2,
    };
    const cost = costPer10k([{ counts, intakeMs: 0, posted: 2 }]);
    const per10k = Object.fromEntries(
      cost.lines.map((l) => [`${l.service}: ${l.what.split(' (')[0]}`, l.per10k]),
    );

    expect(cost.leads).toBe(2);
    expect(per10k).toMatchObject({
      'DynamoDB: write request units': 50_000,
      'DynamoDB: read request units': 40_000,
      'SQS: send + receive + delete + change-visibility requests': 30_000,
      'Lambda: invocations': 20_000,
      'API Gateway: REST API requests': 10_000,
    });
    expect(cost.totalUsd).toBeGreaterThan(0);
  });

  it('runs 1, 5, 20 and 50 accounts and 6 × 30 at once by default', () => {
    expect(
      scenarios({}).map((s) => [s.accounts, s.floodAccounts, s.floodLeads, s.trickleLeads]),
    ).toEqual([
      [1, 1, 50, 3],
      [5, 1, 50, 3],
      [20, 1, 50, 3],
      [50, 1, 50, 3],
      [6, 6, 30, 0],
    ]);
  });
});

describe('a tiny accounts run', () => {
  it('delivers every lead of two accounts on one sandbox once, and counts what it asked of AWS', {
    timeout: 120_000,
  }, async () => {
    const result = await runScenario({
      ...SCENARIO,
      accounts: 2,
      floodLeads: 3,
      trickleLeads: 2,
      perSecond: 5,
    });

    expect(result).toMatchObject({ posted: 5, delivered: 5, duplicates: 0, http429: 0 });
    expect(result.counts.sqsSends).toBeGreaterThanOrEqual(5);
    expect(result.counts.sqsDeletes).toBeGreaterThanOrEqual(5);
    expect(result.counts.dynamoWrites).toBeGreaterThanOrEqual(5);
    expect(markdownTable([result]).split('\n')).toHaveLength(3);
  });
});
