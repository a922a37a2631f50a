/**
 * DynamoDB, ours against the SDK's: for each operation the functions use (GetItem, PutItem,
 * UpdateItem, DeleteItem, Query, Scan, as the adapters call them), the official document client
 * (`DynamoDBDocumentClient` over `DynamoDBClient`, configured as the adapters' clients were) and
 * functions/kernel/aws/dynamodb.ts are sent to the same recording server with the same recorded
 * answers, and must send the same requests (target, headers that matter, JSON body), wait the
 * same between the same attempts, and return the same result or the same error.
 *
 * The answers: a success of each operation with every kind of value, every error the SDK's own
 * typings list for the operation (`@throws` in its dist-types, read at test time, their status
 * from the SDK's error schemas), the errors common to all AWS APIs (AWS's "Common Errors" page)
 * and DynamoDB's own (its error-handling guide), each answered always and then once before a
 * success; dropped and hung connections, Retry-After, a proxy's page, a 501, clock skew.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as SdkDynamo from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDb, type DynamoDb } from '../../functions/kernel/aws/dynamodb.ts';
import { AwsError } from '../../functions/kernel/aws/http.ts';
import {
  DIFF_CREDENTIALS,
  DIFF_REGION,
  httpDate,
  pinRandomAndClock,
  recordSdkWaits,
  runSide,
  type Side,
} from '../helpers/aws-differential.ts';
import {
  type Answer,
  type Reply,
  type ScriptedServer,
  startScriptedServer,
} from '../helpers/scripted-server.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
pinRandomAndClock();

/** Long enough for a loaded machine's answer, short for the hung connection's test. */
const TIMEOUT_MS = 2_000;

/** Both clients for one scenario, fresh (a fresh retry quota and clock offset each). */
async function clients() {
  const base = new SdkDynamo.DynamoDBClient({
    region: DIFF_REGION,
    endpoint: server.endpoint,
    credentials: DIFF_CREDENTIALS,
    // The SDK's requestTimeout only warns unless told to throw (then a TimeoutError, retried).
    requestHandler: { requestTimeout: TIMEOUT_MS, throwOnRequestTimeout: true },
  });
  const doc = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  const sdkWaits = await recordSdkWaits(base);
  const ourWaits: number[] = [];
  const ours = createDynamoDb({
    region: DIFF_REGION,
    endpoint: server.endpoint,
    credentials: DIFF_CREDENTIALS,
    attemptTimeoutMs: TIMEOUT_MS,
    sleep: async (ms) => {
      ourWaits.push(ms);
    },
  });
  return { doc, sdkWaits, ours, ourWaits };
}

// biome-ignore lint/suspicious/noExplicitAny: outputs and inputs of any operation.
type Any = any;

/** The SDK's output without its metadata, as ours is. */
function sdkOutput(value: Any) {
  const { $metadata: _, ...rest } = value;
  return rest;
}

/** The SDK's error with a failed condition's Item unmarshalled, as ours has it. */
function sdkError(error: Any) {
  if (error?.Item) error.Item = unmarshall(error.Item);
  return error;
}

const json = (status: number, body: object, headers: Record<string, string> = {}): Reply => ({
  status,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'REQ1', ...headers },
});

const ITEM = {
  pk: { S: 'lead#1' },
  n: { N: '42.5' },
  ok: { BOOL: true },
  nothing: { NULL: true },
  list: { L: [{ S: 'a' }, { N: '1' }, { M: { b: { BOOL: false } } }] },
  map: { M: { nested: { M: { deep: { S: 'yes' } } } } },
  ids: { SS: ['ld_1', 'ld_2'] },
  nums: { NS: ['1', '2.5'] },
  bytes: { B: 'H4sAAP8=' },
  blobs: { BS: ['AAE=', 'Ag=='] },
};
const KEY = { pk: { S: 'lead#1' } };

/** The operations as the adapters call them, with a recorded success. */
const OPERATIONS: Array<{
  op: string;
  sdk: (input: Any) => Any;
  ours: (db: DynamoDb, input: Any) => Promise<unknown>;
  input: Any;
  success: object;
  /** The SDK's output as ours has it (pages drop ScannedCount). */
  view?: (out: Any) => Any;
}> = [
  {
    op: 'GetItem',
    sdk: (input) => new GetCommand(input),
    ours: (db, input) => db.get(input),
    input: {
      TableName: 'leads',
      Key: { pk: 'lead#1' },
      ConsistentRead: true,
      ProjectionExpression: '#s, receivedAt',
      ExpressionAttributeNames: { '#s': 'status' },
    },
    success: { Item: ITEM },
  },
  {
    op: 'PutItem',
    sdk: (input) => new PutCommand(input),
    ours: (db, input) => db.put(input),
    input: {
      TableName: 'leads',
      Item: {
        pk: 'lead#1',
        text: 'Ana Teste',
        count: 42,
        ok: true,
        nothing: null,
        list: ['a', 1, { b: false }],
        ids: new Set(['ld_1', 'ld_2']),
        nums: new Set([1, 2.5]),
        bytes: new Uint8Array([0x1f, 0x8b, 0, 255]),
        skipped: undefined,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
    success: {},
  },
  {
    op: 'UpdateItem',
    sdk: (input) => new UpdateCommand(input),
    ours: (db, input) => db.update(input),
    input: {
      TableName: 'leads',
      Key: { pk: 'lead#1' },
      UpdateExpression: 'SET #s = :s, attempts = attempts + :one REMOVE lockedUntil',
      ConditionExpression: '#s = :from AND version = :v',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': 'delivered', ':one': 1, ':from': 'queued', ':v': 3 },
      ReturnValues: 'ALL_NEW',
    },
    success: { Attributes: ITEM },
  },
  {
    op: 'DeleteItem',
    sdk: (input) => new DeleteCommand(input),
    ours: (db, input) => db.delete(input),
    input: {
      TableName: 'leads',
      Key: { pk: 'lead#1' },
      ConditionExpression: 'attribute_exists(pk)',
      ReturnValues: 'ALL_OLD',
    },
    success: { Attributes: ITEM },
  },
  {
    op: 'Query',
    sdk: (input) => new QueryCommand(input),
    ours: (db, input) => db.query(input),
    input: {
      TableName: 'leads',
      IndexName: 'byStatus',
      KeyConditionExpression: '#s = :s AND receivedAt < :t',
      FilterExpression: 'attempts < :max',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': 'queued', ':t': '2026-01-02', ':max': 8 },
      ExclusiveStartKey: { pk: 'lead#0', status: 'queued', receivedAt: '2026-01-01' },
      ScanIndexForward: false,
      Limit: 25,
    },
    success: { Items: [ITEM, KEY], Count: 2, ScannedCount: 3, LastEvaluatedKey: KEY },
    view: ({ Items, Count, LastEvaluatedKey }) => ({
      Items,
      Count,
      ...(LastEvaluatedKey && { LastEvaluatedKey }),
    }),
  },
  {
    op: 'Scan',
    sdk: (input) => new ScanCommand(input),
    ours: (db, input) => db.scan(input),
    input: {
      TableName: 'leads',
      FilterExpression: 'kind = :k',
      ExpressionAttributeValues: { ':k': 'lead' },
      Limit: 3,
      ExclusiveStartKey: { pk: 'lead#0' },
    },
    success: { Items: [KEY], Count: 1, ScannedCount: 3 },
    view: ({ Items, Count, LastEvaluatedKey }) => ({
      Items,
      Count,
      ...(LastEvaluatedKey && { LastEvaluatedKey }),
    }),
  },
];

/** Runs one scenario on both clients; returns both runs. */
async function compare(
  operation: (typeof OPERATIONS)[number],
  script: Answer[],
  input: Any = operation.input,
) {
  const { doc, sdkWaits, ours, ourWaits } = await clients();
  const view = operation.view ?? ((out: Any) => out);
  const sdkSide: Side = {
    call: async () => {
      try {
        return view(sdkOutput(await doc.send(operation.sdk(structuredClone(input)))));
      } catch (error) {
        throw sdkError(error);
      }
    },
    waits: sdkWaits,
  };
  const ourSide: Side = {
    call: () => operation.ours(ours, structuredClone(input)),
    waits: ourWaits,
  };
  return {
    sdk: await runSide(server, script, sdkSide),
    ours: await runSide(server, script, ourSide),
  };
}

/** The errors the SDK's typings document for an operation (`@throws {@link X}`). */
function documentedErrors(op: string): string[] {
  const root = dirname(
    createRequire(import.meta.url).resolve('@aws-sdk/client-dynamodb/package.json'),
  );
  const typings = readFileSync(join(root, 'dist-types/commands', `${op}Command.d.ts`), 'utf8');
  return [...typings.matchAll(/@throws \{@link (\w+)\}/g)]
    .map(([, name]) => name as string)
    .filter((name) => name !== 'DynamoDBServiceException');
}

/** The status DynamoDB answers an error with, from the SDK's error schema. */
function statusOf(name: string): number {
  const schema = (SdkDynamo as Any)[`${name}$`];
  const traits = (schema?.[3] ?? {}) as { error?: string; httpError?: number };
  return traits.httpError ?? (traits.error === 'server' ? 500 : 400);
}

/** Errors of every AWS API ("Common Errors") and DynamoDB's own (its error-handling guide). */
const COMMON_ERRORS: Array<[name: string, status: number, namespace: string]> = [
  ['AccessDeniedException', 400, 'com.amazon.coral.service'],
  ['IncompleteSignature', 400, 'com.amazon.coral.service'],
  ['InternalFailure', 500, 'com.amazon.coral.service'],
  ['InvalidAction', 400, 'com.amazon.coral.service'],
  ['InvalidClientTokenId', 403, 'com.amazon.coral.service'],
  ['NotAuthorized', 400, 'com.amazon.coral.service'],
  ['OptInRequired', 403, 'com.amazon.coral.service'],
  ['RequestExpired', 400, 'com.amazon.coral.service'],
  ['ServiceUnavailable', 503, 'com.amazon.coral.service'],
  ['ThrottlingException', 400, 'com.amazon.coral.availability'],
  ['ValidationError', 400, 'com.amazon.coral.validate'],
  ['ValidationException', 400, 'com.amazon.coral.validate'],
  ['UnrecognizedClientException', 400, 'com.amazon.coral.service'],
  ['MissingAuthenticationTokenException', 400, 'com.amazon.coral.service'],
  ['InvalidSignatureException', 400, 'com.amazon.coral.service'],
  ['SerializationException', 400, 'com.amazon.coral.service'],
  ['LimitExceededException', 400, 'com.amazonaws.dynamodb.v20120810'],
];

const errorAnswer = (name: string, status: number, namespace: string, extra: object = {}) =>
  json(status, { __type: `${namespace}#${name}`, message: `${name} happened`, ...extra });

describe.each(OPERATIONS)('$op, ours as the SDK', (operation) => {
  it('sends the same request and reads the same answer', async () => {
    const { sdk, ours } = await compare(operation, [json(200, operation.success)]);
    expect(sdk.outcome.ok).toBe(true);
    expect(sdk.requests[0]?.signatureValid).toBe(true);
    expect(sdk.requests[0]?.headers['x-amz-target']).toBe(`DynamoDB_20120810.${operation.op}`);
    expect(ours).toEqual(sdk);
  });

  it.each(documentedErrors(operation.op))(
    'answers the documented %s alike, always and once before a success',
    async (name) => {
      const extra = name === 'ConditionalCheckFailedException' ? { Item: ITEM } : {};
      const status = statusOf(name);
      const error = errorAnswer(name, status, 'com.amazonaws.dynamodb.v20120810', extra);
      const always = await compare(operation, [error]);
      expect(always.sdk.outcome.ok).toBe(false);
      // 421 included: node:http, as the SDK's handler, does not send it again by itself.
      expect(always.ours).toEqual(always.sdk);
      const once = await compare(operation, [error, json(200, operation.success)]);
      expect(once.ours).toEqual(once.sdk);
    },
  );

  it.each(COMMON_ERRORS)(
    'answers the common %s (%i) alike, always and once before a success',
    async (name, status, namespace) => {
      const always = await compare(operation, [errorAnswer(name, status, namespace)]);
      expect(always.ours).toEqual(always.sdk);
      const once = await compare(operation, [
        errorAnswer(name, status, namespace),
        json(200, operation.success),
      ]);
      expect(once.ours).toEqual(once.sdk);
    },
  );
});

describe('GetItem, the transport and the retry policy alike', () => {
  const [get] = OPERATIONS as [(typeof OPERATIONS)[number]];
  const ok = json(200, get.success);
  const throttled = errorAnswer('ThrottlingException', 400, 'com.amazon.coral.availability');

  it.each<[string, Answer[]]>([
    ['a dropped connection', ['reset', ok]],
    ['dropped connections only', ['reset']],
    ['a connection that hangs', ['hang', ok]],
    ['a 429 without a body', [{ status: 429 }, ok]],
    ['500, 502, 503, 504 then a success', [{ status: 500 }, { status: 502 }, { status: 503 }, ok]],
    ['a 504 without a body, always', [{ status: 504 }]],
    ['a 501 (a server error not retried)', [{ status: 501 }]],
    ['a proxy page on a 502', [{ status: 502, body: '<html>Bad Gateway</html>' }, ok]],
    [
      'an error named only by x-amzn-errortype',
      [json(400, {}, { 'x-amzn-errortype': 'AccessDeniedException:http://x/' })],
    ],
    [
      'Retry-After in seconds',
      [{ ...throttled, headers: { ...throttled.headers, 'retry-after': '3' } }, ok],
    ],
    [
      'Retry-After far away (capped)',
      [{ ...throttled, headers: { ...throttled.headers, 'retry-after': '60' } }, ok],
    ],
    [
      'Retry-After as an HTTP date',
      [{ status: 503, headers: { 'retry-after': httpDate(2_000) } }, ok],
    ],
    ['x-amz-retry-after in ms', [{ status: 500, headers: { 'x-amz-retry-after': '1500' } }, ok]],
    [
      'a Retry-After shorter than the back-off',
      [{ ...throttled, headers: { ...throttled.headers, 'retry-after': '0' } }, ok],
    ],
  ])('handles %s alike', async (_, script) => {
    const { sdk, ours } = await compare(get, script);
    if (!sdk.outcome.ok && !ours.outcome.ok && /reset|hang/.test(String(script[0]))) {
      // The transports name a dropped connection differently (node:http's ECONNRESET, fetch's
      // TypeError): the same attempts and waits are what must match.
      expect({ ...ours, outcome: undefined }).toEqual({ ...sdk, outcome: undefined });
      expect(ours.outcome.error.attempts).toBe(sdk.outcome.error.attempts);
      return;
    }
    expect(ours).toEqual(sdk);
  });

  it('retries a modeled retryable error (ReplicatedWriteConflictException) alike', async () => {
    const [, put] = OPERATIONS as [unknown, (typeof OPERATIONS)[number]];
    const conflict = errorAnswer(
      'ReplicatedWriteConflictException',
      400,
      'com.amazonaws.dynamodb.v20120810',
    );
    const { sdk, ours } = await compare(put, [conflict]);
    expect(sdk.requests.length).toBeGreaterThan(1);
    expect(ours).toEqual(sdk);
  });
});

describe('the retry quota, alike over many calls', () => {
  it('drains on failures, stops retrying when empty, refills on successes', async () => {
    // Prepare: one client each, many calls: 40 that fail (503), 60 that succeed, 10 that fail.
    const [get] = OPERATIONS as [(typeof OPERATIONS)[number]];
    const { doc, sdkWaits, ours, ourWaits } = await clients();
    const plan = [...Array(40).fill(503), ...Array(60).fill(200), ...Array(10).fill(503)];
    const attemptsPerCall = async (call: () => Promise<unknown>) => {
      const counts: number[] = [];
      for (const status of plan) {
        server.script(status === 200 ? json(200, get.success) : { status });
        await call().catch(() => undefined);
        counts.push(server.received.length);
      }
      return counts;
    };

    // Act
    const sdk = await attemptsPerCall(() => doc.send(get.sdk(get.input)));
    const our = await attemptsPerCall(() => ours.get(get.input));

    // Assess: the same attempts call by call; retries stopped somewhere in the first 40.
    expect(our).toEqual(sdk);
    expect(sdk.slice(0, 40)).toContain(1);
    expect(sdk[0]).toBe(4);
    expect(ourWaits).toEqual(sdkWaits);
  });
});

describe('clock skew, corrected alike', () => {
  const [get] = OPERATIONS as [(typeof OPERATIONS)[number]];
  const skewed = (name: string, offsetMs: number, status = 400) => ({
    ...errorAnswer(name, status, 'com.amazon.coral.service'),
    headers: {
      ...errorAnswer(name, status, 'com.amazon.coral.service').headers,
      date: httpDate(offsetMs),
    },
  });

  it.each([
    ['InvalidSignatureException', 10 * 60_000, 2],
    ['InvalidSignatureException', -20 * 60_000, 2],
    ['RequestExpired', 16 * 60_000, 2],
    // Under 4 minutes off: not a skew the SDK corrects by retrying.
    ['InvalidSignatureException', 60_000, 1],
  ])('%s with the server %i ms off', async (name, offsetMs, attempts) => {
    const script: Answer[] = [
      skewed(name, offsetMs),
      { ...json(200, get.success), headers: { date: httpDate(offsetMs) } },
    ];
    const { sdk, ours } = await compare(get, script);
    expect(sdk.requests).toHaveLength(attempts);
    expect(ours).toEqual(sdk);
  });

  it('signs the retry at the server time, as the SDK does', async () => {
    const offsetMs = 10 * 60_000;
    const script: Answer[] = [
      skewed('InvalidSignatureException', offsetMs),
      json(200, get.success),
    ];
    const dates: Record<string, string[]> = {};
    for (const side of ['sdk', 'ours'] as const) {
      const { doc, ours } = await clients();
      server.script(...script);
      if (side === 'sdk') await doc.send(get.sdk(get.input));
      else await ours.get(get.input);
      dates[side] = server.received.map((r) => String(r.headers['x-amz-date']));
    }
    const serverTime = new Date(Math.floor((Date.now() + offsetMs) / 1000) * 1000);
    expect(dates.ours?.[1]).toBe(serverTime.toISOString().replace(/[:-]|\.\d{3}/g, ''));
    expect(dates.ours).toEqual(dates.sdk);
  });
});

it('rejects with AwsError, named as the SDK names the error', async () => {
  const { ours } = await clients();
  server.script(
    errorAnswer('ConditionalCheckFailedException', 400, 'com.amazonaws.dynamodb.v20120810', {
      Item: ITEM,
    }),
  );
  const error = await ours.put({ TableName: 't', Item: { pk: 'x' } }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AwsError);
  expect(error).toMatchObject({
    name: 'ConditionalCheckFailedException',
    details: { Item: { pk: 'lead#1' } },
  });
});
