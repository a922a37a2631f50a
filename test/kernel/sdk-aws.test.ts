/**
 * The SDK settings the functions' AWS clients are made with (functions/kernel/sdk-aws.ts), on a
 * scripted HTTP server: what the delivery promise relies on when AWS misbehaves. A hung attempt
 * fails at its deadline and is tried again (DynamoDB 4 attempts, SQS 3), a 5xx is retried and a
 * failed condition is not, the failed condition's item comes back as plain values, and a client
 * made without an endpoint goes where `AWS_ENDPOINT_URL_<SERVICE>` / `AWS_ENDPOINT_URL` say.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDynamoDb, isConditionFailed } from '../../functions/kernel/dynamodb-aws.ts';
import { createSqs } from '../../functions/kernel/sqs-aws.ts';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.ts';

const CREDENTIALS = { accessKeyId: 'AKIDSDKTEST', secretAccessKey: 'sdk-test-secret' };
const JSON_10 = { 'content-type': 'application/x-amz-json-1.0' };
const QUEUE_URL = 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => server.script({ status: 200, body: '{}', headers: JSON_10 }));

const dynamo = (options: { attemptTimeoutMs?: number } = {}) =>
  createDynamoDb({
    endpoint: server.endpoint,
    region: 'sa-east-1',
    credentials: CREDENTIALS,
    ...options,
  });

describe('the functions AWS clients on the SDK', () => {
  it('abandons a hung DynamoDB attempt at its deadline and tries 4 times in all', async () => {
    // Prepare
    server.script('hang');

    // Act
    const error = await dynamo({ attemptTimeoutMs: 150 })
      .get({ TableName: 'leads', Key: { pk: 'x' } })
      .catch((e: unknown) => e);

    // Assess
    expect(error).toMatchObject({ name: 'TimeoutError', $metadata: { attempts: 4 } });
    expect(server.received).toHaveLength(4);
  });

  it('tries a DynamoDB 500 again and answers with the attempt that worked', async () => {
    // Prepare
    server.script(
      { status: 500, body: '{"__type":"InternalServerError","message":"boom"}', headers: JSON_10 },
      { status: 200, body: '{"Item":{"pk":{"S":"x"},"n":{"N":"7"}}}', headers: JSON_10 },
    );

    // Act
    const out = await dynamo().get({ TableName: 'leads', Key: { pk: 'x' } });

    // Assess
    expect(out).toEqual({ Item: { pk: 'x', n: 7 } });
    expect(server.received).toHaveLength(2);
  });

  it('does not retry a failed condition, and hands its item over as plain values', async () => {
    // Prepare
    const failed = {
      __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
      message: 'The conditional request failed',
      Item: { pk: { S: 'lead#1' }, version: { N: '3' }, tags: { SS: ['a'] } },
    };
    server.script({ status: 400, body: JSON.stringify(failed), headers: JSON_10 });

    // Act
    const error = await dynamo()
      .update({
        TableName: 'leads',
        Key: { pk: 'lead#1' },
        UpdateExpression: 'SET version = :next',
        ConditionExpression: 'version = :seen',
        ExpressionAttributeValues: { ':next': 3, ':seen': 2, ':unused': undefined },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      })
      .catch((e: unknown) => e);

    // Assess: one attempt; the item as the adapters read items; undefined values left out.
    expect(isConditionFailed(error)).toBe(true);
    expect(error).toMatchObject({
      $metadata: { httpStatusCode: 400, attempts: 1 },
      Item: { pk: 'lead#1', version: 3, tags: new Set(['a']) },
    });
    expect(server.received).toHaveLength(1);
    const sent = JSON.parse(server.received[0]?.body.toString('utf8') ?? '{}');
    expect(sent.ExpressionAttributeValues).toEqual({ ':next': { N: '3' }, ':seen': { N: '2' } });
    expect(server.received[0]?.headers['x-amz-target']).toBe('DynamoDB_20120810.UpdateItem');
    expect(server.received[0]?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDSDKTEST\/\d{8}\/sa-east-1\/dynamodb\/aws4_request/,
    );
  });

  it('gives SQS 3 attempts, and keeps the connection alive between them', async () => {
    // Prepare
    server.script({
      status: 503,
      body: '{"__type":"com.amazonaws.sqs#ServiceUnavailable","message":"busy"}',
      headers: JSON_10,
    });
    const sqs = createSqs({
      endpoint: server.endpoint,
      region: 'sa-east-1',
      credentials: CREDENTIALS,
    });

    // Act
    const error = await sqs
      .changeMessageVisibility({ QueueUrl: QUEUE_URL, ReceiptHandle: 'r', VisibilityTimeout: 5 })
      .catch((e: unknown) => e);

    // Assess
    expect(error).toMatchObject({ $metadata: { httpStatusCode: 503, attempts: 3 } });
    expect(server.received.map((r) => r.headers['x-amz-target'])).toEqual(
      Array(3).fill('AmazonSQS.ChangeMessageVisibility'),
    );
    expect(server.received.map((r) => r.headers.connection)).toEqual(Array(3).fill('keep-alive'));
  });

  it.each([['AWS_ENDPOINT_URL_DYNAMODB'], ['AWS_ENDPOINT_URL']])(
    'sends a client made without an endpoint where %s says',
    async (variable) => {
      // Prepare
      vi.stubEnv(variable, server.endpoint);
      vi.stubEnv('AWS_REGION', 'sa-east-1');
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDFROMENV');
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'from-env');
      server.script({ status: 200, body: '{"Item":{"pk":{"S":"here"}}}', headers: JSON_10 });

      // Act
      const out = await createDynamoDb().get({ TableName: 'leads', Key: { pk: 'here' } });

      // Assess: answered by the server, signed by the default chain (the environment here).
      expect(out).toEqual({ Item: { pk: 'here' } });
      expect(server.received[0]?.headers.authorization).toMatch(
        /Credential=AKIDFROMENV\/\d{8}\/sa-east-1\/dynamodb\//,
      );
      vi.unstubAllEnvs();
    },
  );
});
