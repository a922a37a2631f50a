/**
 * The reconciler Lambda records every configured account's circuit each minute (the
 * upstream-down alarm's gauge, UpstreamCircuitOpen): the alarm lasts as long as a circuit stays
 * open, where the count of openings (UpstreamCircuitOpened) is emitted once and let the alarm
 * recover while the upstream was still down. AWS wiring, the SDK's DynamoDB document client
 * answered by aws-sdk-client-mock.
 */
import { clearCaches } from '@aws-lambda-powertools/parameters';
import { AppConfigDataClient } from '@aws-sdk/client-appconfigdata';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STORE_ENV, storeAnswers } from '../../helpers/appconfig-store.ts';

const UPSTREAM = { baseUrl: 'https://upstream.example.com', maxPerSecond: 4, maxPerMinute: 36 };
const appConfig = mockClient(AppConfigDataClient);
const ddb = mockClient(DynamoDBDocumentClient);
const saved = { ...process.env };

const context = {
  getRemainingTimeInMillis: () => 55_000,
  functionName: 'leads-dev-reconciler',
  awsRequestId: 'req-1',
} as unknown as Context;

/** The EMF documents written to stdout: metric name → [dimensions, value] per line. */
function emfLines(written: string[]) {
  return written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown> & { account?: string });
}

describe('the reconciler handler: the circuits gauge', () => {
  beforeEach(() => {
    appConfig.reset();
    ddb.reset();
    clearCaches();
    Object.assign(process.env, STORE_ENV, {
      LEDGER_TABLE_NAME: 'leads-dev-ledger',
      LEAD_QUEUE_URL: 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads-dev-leads',
      POWERTOOLS_METRICS_DISABLED: 'false',
    });
  });
  afterEach(() => {
    process.env = { ...saved };
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('records each account open (1) or closed (0), and how many are open, at every run', async () => {
    // Prepare: two accounts; `default`'s circuit is open, `south`'s has no item (closed).
    storeAnswers(appConfig, {
      upstream: UPSTREAM,
      upstreams: { south: UPSTREAM },
      profiles: {},
    });
    ddb.resolves({});
    ddb.on(QueryCommand).resolves({ Items: [], Count: 0 });
    ddb.on(GetCommand).callsFake(async (input: { Key: Record<string, unknown> }) =>
      input.Key.pk === 'circuit#upstream'
        ? {
            Item: {
              pk: 'circuit#upstream',
              state: 'open',
              failures: 3,
              probeAt: Date.now() + 30_000,
              rev: 4,
            },
          }
        : {},
    );
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const { handler } = await import('../../../functions/delivery/reconcile/handler.ts');

    // Act
    await handler({ reason: 'schedule' }, context);

    // Assess
    const gauges = emfLines(written).filter((doc) => 'UpstreamCircuitOpen' in doc);
    const perAccount = Object.fromEntries(
      gauges.filter((doc) => doc.account).map((doc) => [doc.account, doc.UpstreamCircuitOpen]),
    );
    expect(perAccount).toEqual({ default: 1, south: 0 });
    const total = gauges.filter((doc) => !doc.account);
    expect(total.map((doc) => doc.UpstreamCircuitOpen)).toEqual([1]);
    const circuitReads = ddb
      .commandCalls(GetCommand)
      .map((call) => JSON.stringify(call.args[0].input.Key));
    expect(circuitReads).toEqual(
      expect.arrayContaining([
        expect.stringContaining('"circuit#upstream"'),
        expect.stringContaining('"circuit#upstream#south"'),
      ]),
    );
  });
});
