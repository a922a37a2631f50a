/**
 * The signed-fetch transport (functions/kernel/aws/http.ts) against a local node:http server:
 * what AWS sees of a request (a SigV4 signature it would accept, scoped to the service and the
 * region, the session token, the payload's hash), how an attempt ends (answered, dropped, timed
 * out, unsignable) and what the caller gets (the AwsError, its attempts and waits). Which
 * failures are retried, how long it waits and the retry quota are the SDK's: aws-retry-sdk.test.ts
 * and the differential tests (aws-*-differential.test.ts) check them against the installed SDK.
 */

import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type AwsCredentials,
  AwsError,
  type AwsHttpOptions,
  createAwsHttp,
} from '../../functions/kernel/aws/http.ts';
import { createJsonProtocol, parseJsonError } from '../../functions/kernel/aws/json-protocol.ts';
import { retrySettings } from '../../functions/kernel/aws/retry.ts';
import {
  type Answer,
  type Received,
  type ScriptedServer,
  startScriptedServer,
} from '../helpers/scripted-server.ts';
import { checkSignature } from '../helpers/sigv4.ts';

const CREDENTIALS: AwsCredentials = {
  accessKeyId: 'AKIDHTTPTEST',
  secretAccessKey: 'http-test-secret',
};

let server: ScriptedServer;
let endpoint: string;
let received: Received[];

beforeAll(async () => {
  server = await startScriptedServer();
  endpoint = server.endpoint;
  received = server.received;
});
afterAll(() => server.close());
afterEach(() => {
  server.script();
  vi.unstubAllEnvs();
});

const json = (status: number, body: object, headers: Record<string, string> = {}): Answer => ({
  status,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/x-amz-json-1.0', ...headers },
});

/** SQS's default attempts (the SDK's standard mode; DynamoDB has its own). */
const ATTEMPTS = retrySettings('sqs').maxAttempts;

function client(options: AwsHttpOptions = {}) {
  const waits: number[] = [];
  const http = createAwsHttp('sqs', () => 'https://unused.example', {
    endpoint,
    region: 'eu-west-1',
    credentials: CREDENTIALS,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
  return { http, call: createJsonProtocol(http, { targetPrefix: 'AmazonSQS' }), waits };
}

/** The error a call rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<AwsError> {
  const error = await promise.then(
    () => {
      throw new Error('the call should have failed');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AwsError);
  return error as AwsError;
}

describe('a signed request', () => {
  it('carries a SigV4 signature AWS would accept, scoped to the service and the region', async () => {
    // Prepare
    server.script(json(200, { ok: true }));
    const { call } = client();

    // Act
    const answer = await call('GetItem', { TableName: 't', Key: { pk: { S: 'a' } } });

    // Assess
    expect(answer).toEqual({ ok: true });
    expect(received).toHaveLength(1);
    const request = received[0] as Received;
    const today = new Date().toISOString().slice(0, 10).replace(/-/g, '');
    expect(request.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=AKIDHTTPTEST/(${today}|\\d{8})/eu-west-1/sqs/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$`,
      ),
    );
    // The payload's hash, sent as the SDK sends it.
    expect(request.headers['x-amz-content-sha256']).toBe(
      createHash('sha256').update(request.body).digest('hex'),
    );
    expect(request.headers['x-amz-security-token']).toBeUndefined();
    expect(checkSignature(request, CREDENTIALS.secretAccessKey)).toMatchObject({ ok: true });
    // The check refuses a signature made with another secret: it can tell.
    expect(checkSignature(request, 'another-secret')).toMatchObject({ ok: false });
    expect(request).toMatchObject({ method: 'POST', url: '/' });
    expect(request.headers['x-amz-target']).toBe('AmazonSQS.GetItem');
    expect(JSON.parse(request.body.toString('utf8'))).toEqual({
      TableName: 't',
      Key: { pk: { S: 'a' } },
    });
  });

  it('sends and signs the session token when there is one', async () => {
    // Prepare
    const { call } = client({ credentials: { ...CREDENTIALS, sessionToken: 'session/token+1=' } });

    // Act
    await call('ListTables', {});

    // Assess
    const request = received[0] as Received;
    expect(request.headers['x-amz-security-token']).toBe('session/token+1=');
    const check = checkSignature(request, CREDENTIALS.secretAccessKey);
    expect(check.ok && check.parts.signedHeaders).toContain('x-amz-security-token');
  });

  it("takes the environment's credentials at each request", async () => {
    // Prepare
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDFIRST');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'first-secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'first-token');
    const http = createAwsHttp('sqs', () => endpoint, { region: 'us-east-2' });
    const call = createJsonProtocol(http, { targetPrefix: 'AmazonSQS' });

    // Act: a second request after the credentials rotate.
    await call('SendMessage', {});
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDSECOND');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'second-secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'second-token');
    await call('SendMessage', {});

    // Assess
    const [first, second] = received as [Received, Received];
    expect(first.headers.authorization).toContain('Credential=AKIDFIRST/');
    expect(first.headers.authorization).toContain('/us-east-2/sqs/aws4_request');
    expect(first.headers['x-amz-security-token']).toBe('first-token');
    expect(checkSignature(first, 'first-secret').ok).toBe(true);
    expect(second.headers.authorization).toContain('Credential=AKIDSECOND/');
    expect(second.headers['x-amz-security-token']).toBe('second-token');
    expect(checkSignature(second, 'second-secret').ok).toBe(true);
  });

  it('says so at the first request when there are no credentials or no region (constructing never throws)', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKID');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    vi.stubEnv('AWS_REGION', '');
    vi.stubEnv('AWS_DEFAULT_REGION', '');
    const noRegion = createJsonProtocol(
      createAwsHttp('sqs', () => endpoint),
      {
        targetPrefix: 'AmazonSQS',
      },
    );
    await expect(noRegion('SendMessage', {})).rejects.toThrow('AWS_REGION is not set');
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    const call = createJsonProtocol(
      createAwsHttp('sqs', () => endpoint, { region: 'us-east-1' }),
      {
        targetPrefix: 'AmazonSQS',
      },
    );
    return expect(call('SendMessage', {})).rejects.toThrow(/AWS credentials are not set/);
  });
});

describe('attempts', () => {
  it.each([
    ['500', json(500, { __type: 'InternalServerError', message: 'boom' }), 'InternalServerError'],
    ['503 without a body', { status: 503 } as Answer, 'Unknown'],
    ['429', json(429, { __type: 'TooManyRequestsException' }), 'TooManyRequestsException'],
    [
      '400 ThrottlingException',
      json(400, { __type: 'com.amazon.coral.availability#ThrottlingException', message: 'slow' }),
      'ThrottlingException',
    ],
  ])(
    'tries a %s up to the attempts, then rejects with its AwsError and what it took',
    async (_, answer, name) => {
      // Prepare
      server.script(answer);
      const { call, waits } = client();

      // Act
      const error = await failure(call('PutItem', {}));

      // Assess
      expect(received).toHaveLength(ATTEMPTS);
      expect(error.name).toBe(name);
      expect(error.status).toBe(typeof answer === 'string' ? 0 : answer.status);
      expect(error.$metadata).toMatchObject({
        httpStatusCode: error.status,
        attempts: ATTEMPTS,
        totalRetryDelay: waits.reduce((a, b) => a + b, 0),
      });
      expect(waits).toHaveLength(ATTEMPTS - 1);
    },
  );

  it('answers with the attempt that succeeds', async () => {
    // Prepare
    server.script(json(503, {}), json(400, { __type: 'ThrottlingException' }), json(200, { n: 3 }));
    const { call } = client();

    // Act / Assess
    expect(await call('GetItem', {})).toEqual({ n: 3 });
    expect(received).toHaveLength(3);
  });

  it('tries again after a connection reset', async () => {
    // Prepare
    server.script('reset', json(200, { after: 'reset' }));
    const { call, waits } = client();

    // Act / Assess
    expect(await call('GetItem', {})).toEqual({ after: 'reset' });
    expect(received).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it("rejects with the connection's error, with its attempts, when every attempt's connection is reset", async () => {
    server.script('reset');
    const { call } = client();
    const error = await call('GetItem', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNRESET' });
    expect(error).toMatchObject({ $metadata: { attempts: ATTEMPTS } });
    expect(received).toHaveLength(ATTEMPTS);
  });

  it('abandons an attempt that gets no answer in attemptTimeoutMs and tries again', async () => {
    // Prepare: the first connection hangs, the second answers (well within a second, even on
    // a loaded machine).
    server.script('hang', json(200, { after: 'hang' }));
    const { call, waits } = client({ attemptTimeoutMs: 1_000 });

    // Act / Assess
    expect(await call('GetItem', {})).toEqual({ after: 'hang' });
    expect(received).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it('rejects with a TimeoutError when every attempt hangs', async () => {
    server.script('hang');
    const { call } = client({ attemptTimeoutMs: 100 });
    await expect(call('GetItem', {})).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(received).toHaveLength(ATTEMPTS);
  });

  it('does not retry a request it cannot sign (the same every time)', async () => {
    const waits: number[] = [];
    const http = createAwsHttp('dynamodb', () => 'unused', {
      endpoint: 'not a url',
      region: 'eu-west-1',
      credentials: CREDENTIALS,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const call = createJsonProtocol(http, { targetPrefix: 'DynamoDB_20120810' });
    await expect(call('GetItem', {})).rejects.toThrow();
    expect(waits).toEqual([]);
    expect(received).toHaveLength(0);
  });

  it.each([
    ['ConditionalCheckFailedException', 'com.amazonaws.dynamodb.v20120810#'],
    ['ValidationException', 'com.amazon.coral.validate#'],
  ])('sends a 400 %s once', async (name, namespace) => {
    // Prepare
    server.script(json(400, { __type: `${namespace}${name}`, message: 'no' }));
    const { call, waits } = client();

    // Act
    const error = await failure(call('PutItem', {}));

    // Assess
    expect(received).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(error).toMatchObject({ name, message: 'no', status: 400, $metadata: { attempts: 1 } });
  });

  it('makes as many attempts as maxAttempts says', async () => {
    server.script(json(500, {}));
    const { call } = client({ maxAttempts: 5 });
    await failure(call('GetItem', {}));
    expect(received).toHaveLength(5);
    server.script(json(500, {}));
    await failure(client({ maxAttempts: 1 }).call('GetItem', {}));
    expect(received).toHaveLength(1);
  });

  it('does not follow a redirect: it is the answer', async () => {
    server.script({ status: 307, headers: { location: `${endpoint}/elsewhere` } });
    const error = await failure(client().call('GetItem', {}));
    expect(error).toMatchObject({ status: 307 });
    expect(received.map((r) => r.url)).toEqual(['/']);
  });
});

describe('errors', () => {
  const parse = (status: number, body: string, headers: Record<string, string> = {}) =>
    parseJsonError(new Response(body, { status, headers }));

  it('names the error after __type, with or without its namespace', async () => {
    expect((await parse(400, '{"__type":"com.amazonaws.sqs#QueueDoesNotExist"}')).name).toBe(
      'QueueDoesNotExist',
    );
    expect((await parse(400, '{"__type":"ValidationException"}')).name).toBe('ValidationException');
    expect(
      (await parse(400, '{"__type":"com.amazon.coral.validate#ValidationException:http://x/"}'))
        .name,
    ).toBe('ValidationException');
    expect(
      (await parse(400, '{}', { 'x-amzn-errortype': 'AccessDeniedException:http://x/' })).name,
    ).toBe('AccessDeniedException');
  });

  it('takes the message from message or Message, and keeps the other fields', async () => {
    const lower = await parse(400, '{"__type":"A","message":"lower case"}');
    const upper = await parse(400, '{"__type":"B","Message":"upper case","Item":{"v":{"N":"1"}}}', {
      'x-amzn-requestid': 'req-1',
    });
    expect(lower.message).toBe('lower case');
    expect(upper).toMatchObject({
      name: 'B',
      message: 'upper case',
      requestId: 'req-1',
      details: { Item: { v: { N: '1' } } },
      $metadata: { httpStatusCode: 400, requestId: 'req-1' },
    });
    // Without a message, the SDK's words for it.
    expect((await parse(400, '{"__type":"C"}')).message).toBe('UnknownError');
  });

  it('names a body that is not JSON as the SDK does (its parser failed), an empty one Unknown', async () => {
    // Prepare: a proxy's HTML page, through the whole client.
    server.script({
      status: 403,
      body: '<html>Forbidden</html>',
      headers: { 'content-type': 'text/html' },
    });
    const { call } = client();

    // Act
    const error = await failure(call('GetItem', {}));

    // Assess
    expect(error).toMatchObject({ name: 'SyntaxError', status: 403 });
    expect(received).toHaveLength(1);
    expect((await parse(502, 'Bad Gateway')).name).toBe('SyntaxError');
    expect(await parse(400, '[1,2]')).toMatchObject({ name: 'Unknown', message: 'UnknownError' });
    expect(await parse(503, '')).toMatchObject({ name: 'Unknown', status: 503 });
  });
});
