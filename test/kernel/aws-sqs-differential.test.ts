/**
 * SQS, ours against the SDK's: for each operation the functions use (SendMessage,
 * ChangeMessageVisibility, ListMessageMoveTasks, StartMessageMoveTask), the official client
 * (@aws-sdk/client-sqs) and functions/kernel/aws/sqs.ts are sent to the same recording server
 * with the same recorded answers, and must send the same requests (target, the query-mode
 * header, JSON body), wait the same between the same attempts, and return the same result or
 * the same error: every error the SDK's typings list for the operation (its Query API code and
 * status from the SDK's error schemas, as SQS sends them), SQS's common errors, a body whose MD5
 * is not the one sent.
 *
 * Then the SQS fake of the other tests (test/helpers/sqs-server.ts) is checked with the official
 * client: what the fake answers, the SDK takes as it takes SQS's answers, and ours the same way.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as SdkSqs from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSqs, SQS_QUERY_ERRORS, type Sqs } from '../../functions/kernel/aws/sqs.ts';
import {
  DIFF_CREDENTIALS,
  DIFF_REGION,
  type Outcome,
  outcomeOf,
  pinRandomAndClock,
  recordSdkWaits,
  runSide,
} from '../helpers/aws-differential.ts';
import {
  type Answer,
  type Reply,
  type ScriptedServer,
  startScriptedServer,
} from '../helpers/scripted-server.ts';
import {
  SQS_TEST_CREDENTIALS,
  SQS_TEST_REGION,
  sqsError,
  startSqsServer,
  type TestSqsServer,
} from '../helpers/sqs-server.ts';

// biome-ignore lint/suspicious/noExplicitAny: inputs and outputs of any operation.
type Any = any;

const QUEUE_URL = 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads-dev-delivery';
const DLQ_ARN = 'arn:aws:sqs:sa-east-1:123456789012:leads-dev-dlq';
const QUEUE_ARN = 'arn:aws:sqs:sa-east-1:123456789012:leads-dev-delivery';
const BODY = '{"leadId":"ld_1","nome":"Ana Tésté"}';
/** MD5 of the body, as SQS answers it. */
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
pinRandomAndClock();

const OPERATIONS: Array<{
  op: string;
  sdk: (input: Any) => Any;
  ours: (sqs: Sqs, input: Any) => Promise<unknown>;
  input: Any;
  success: object | undefined;
}> = [
  {
    op: 'SendMessage',
    sdk: (input) => new SdkSqs.SendMessageCommand(input),
    ours: (sqs, input) => sqs.sendMessage(input),
    input: { QueueUrl: QUEUE_URL, MessageBody: BODY, DelaySeconds: 30 },
    success: { MessageId: 'msg-1', MD5OfMessageBody: md5(BODY) },
  },
  {
    op: 'ChangeMessageVisibility',
    sdk: (input) => new SdkSqs.ChangeMessageVisibilityCommand(input),
    ours: (sqs, input) => sqs.changeMessageVisibility(input),
    input: {
      QueueUrl: QUEUE_URL,
      ReceiptHandle: 'AQEB+receipt/handle==',
      VisibilityTimeout: 43_200,
    },
    success: undefined,
  },
  {
    op: 'ListMessageMoveTasks',
    sdk: (input) => new SdkSqs.ListMessageMoveTasksCommand(input),
    ours: (sqs, input) => sqs.listMessageMoveTasks(input),
    input: { SourceArn: DLQ_ARN, MaxResults: 1 },
    success: {
      Results: [
        {
          Status: 'RUNNING',
          TaskHandle: 'handle-0',
          SourceArn: DLQ_ARN,
          ApproximateNumberOfMessagesMoved: 4,
          ApproximateNumberOfMessagesToMove: 10,
          StartedTimestamp: 1_785_000_000_000,
        },
      ],
    },
  },
  {
    op: 'StartMessageMoveTask',
    sdk: (input) => new SdkSqs.StartMessageMoveTaskCommand(input),
    ours: (sqs, input) => sqs.startMessageMoveTask(input),
    input: { SourceArn: DLQ_ARN, DestinationArn: QUEUE_ARN, MaxNumberOfMessagesPerSecond: 50 },
    success: { TaskHandle: 'handle-1' },
  },
];
type Operation = (typeof OPERATIONS)[number];

/** The SDK's output as ours is: without `$metadata`; ChangeMessageVisibility has none. */
function sdkOutput(op: string, out: Any) {
  const { $metadata: _, ...rest } = out;
  return op === 'ChangeMessageVisibility' ? undefined : rest;
}

async function compare(operation: Operation, script: Answer[], endpoint = server.endpoint) {
  const options = { region: DIFF_REGION, endpoint, credentials: DIFF_CREDENTIALS };
  const sdkClient = new SdkSqs.SQSClient(options);
  const sdkWaits = await recordSdkWaits(sdkClient);
  const ourWaits: number[] = [];
  const ours = createSqs({ ...options, sleep: async (ms) => void ourWaits.push(ms) });
  const input = operation.input;
  return {
    sdk: await runSide(server, script, {
      call: async () =>
        sdkOutput(operation.op, await sdkClient.send(operation.sdk(structuredClone(input)))),
      waits: sdkWaits,
    }),
    ours: await runSide(server, script, {
      call: () => operation.ours(ours, structuredClone(input)),
      waits: ourWaits,
    }),
  };
}

const json = (status: number, body?: object, headers: Record<string, string> = {}): Reply => ({
  status,
  ...(body !== undefined && { body: JSON.stringify(body) }),
  headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'REQ1', ...headers },
});

/** The SDK's schema of an SQS error: its Query API code and HTTP status. */
function modeled(name: string): { queryCode: string; status: number } {
  const schema = (SdkSqs as Any)[`${name}$`];
  const traits = (schema?.[3] ?? {}) as { awsQueryError?: [string, number]; httpError?: number };
  return {
    queryCode: traits.awsQueryError?.[0] ?? name,
    status: traits.httpError ?? traits.awsQueryError?.[1] ?? 400,
  };
}

/** The errors the SDK's typings document for an operation (`@throws {@link X}`). */
function documentedErrors(op: string): string[] {
  const root = dirname(createRequire(import.meta.url).resolve('@aws-sdk/client-sqs/package.json'));
  const typings = readFileSync(join(root, 'dist-types/commands', `${op}Command.d.ts`), 'utf8');
  return [...typings.matchAll(/@throws \{@link (\w+)\}/g)]
    .map(([, name]) => name as string)
    .filter((name) => name !== 'SQSServiceException');
}

/** An error as SQS answers it: `__type`, message, and `x-amzn-query-error: <code>;<fault>`. */
function sqsAnswer(name: string, queryCode: string, status: number): Answer {
  const fault = status >= 500 ? 'Receiver' : 'Sender';
  return json(
    status,
    { __type: `com.amazonaws.sqs#${name}`, message: `${name} happened` },
    { 'x-amzn-query-error': `${queryCode};${fault}` },
  );
}

/** SQS's common errors (its API reference's "Common Errors"), as Query codes and statuses. */
const COMMON_ERRORS: Array<[name: string, status: number]> = [
  ['AccessDenied', 403],
  ['AccessDeniedException', 400],
  ['IncompleteSignature', 400],
  ['InternalFailure', 500],
  ['InternalError', 500],
  ['InvalidAction', 400],
  ['InvalidClientTokenId', 403],
  ['InvalidParameterValue', 400],
  ['MissingParameter', 400],
  ['NotAuthorized', 400],
  ['OptInRequired', 403],
  ['RequestExpired', 400],
  ['ServiceUnavailable', 503],
  ['ThrottlingException', 400],
  ['ValidationError', 400],
];

describe.each(OPERATIONS)('$op, ours as the SDK', (operation) => {
  const success = () => json(200, operation.success);

  it('sends the same request and reads the same answer', async () => {
    const { sdk, ours } = await compare(operation, [success()]);
    expect(sdk.outcome.ok).toBe(true);
    expect(sdk.requests[0]?.headers).toMatchObject({
      'x-amz-target': `AmazonSQS.${operation.op}`,
      'x-amzn-query-mode': 'true',
    });
    expect(ours).toEqual(sdk);
  });

  it.each(documentedErrors(operation.op))(
    'answers the documented %s alike, always and once before a success',
    async (name) => {
      const { queryCode, status } = modeled(name);
      const always = await compare(operation, [sqsAnswer(name, queryCode, status)]);
      expect(always.sdk.outcome).toMatchObject({ ok: false, error: { name } });
      expect(always.ours).toEqual(always.sdk);
      const once = await compare(operation, [sqsAnswer(name, queryCode, status), success()]);
      expect(once.ours).toEqual(once.sdk);
    },
  );

  it.each(COMMON_ERRORS)(
    'answers the common %s (%i) alike, always and once before a success',
    async (name, status) => {
      const always = await compare(operation, [sqsAnswer(name, name, status)]);
      expect(always.ours).toEqual(always.sdk);
      const once = await compare(operation, [sqsAnswer(name, name, status), success()]);
      expect(once.ours).toEqual(once.sdk);
    },
  );

  it('answers an error without the query header alike (named by __type)', async () => {
    const error = json(400, { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'gone' });
    const { sdk, ours } = await compare(operation, [error]);
    expect(sdk.outcome).toMatchObject({ ok: false, error: { name: 'QueueDoesNotExist' } });
    expect(ours).toEqual(sdk);
  });
});

describe('SendMessage, the body checked as the SDK checks it', () => {
  const [send] = OPERATIONS as [Operation];

  it.each([
    ['an MD5 that is not of the body', { MessageId: 'm', MD5OfMessageBody: '0'.repeat(32) }],
    ['no MD5 at all', { MessageId: 'm' }],
  ])('fails alike on %s', async (_, body) => {
    const { sdk, ours } = await compare(send, [json(200, body)]);
    expect(sdk.outcome).toMatchObject({ ok: false, error: { message: 'InvalidChecksumError' } });
    expect(ours).toEqual(sdk);
  });

  it('checks an empty and a multi-byte body alike', async () => {
    for (const MessageBody of ['', 'ção 🚀']) {
      const operation = { ...send, input: { QueueUrl: QUEUE_URL, MessageBody } };
      const answer = json(200, { MessageId: 'm', MD5OfMessageBody: md5(MessageBody) });
      const { sdk, ours } = await compare(operation, [answer]);
      expect(sdk.outcome.ok).toBe(true);
      expect(ours).toEqual(sdk);
    }
  });
});

it("names every modeled SQS error from its Query code as the SDK's model does", () => {
  const fromModel: Record<string, string> = {};
  for (const [key, schema] of Object.entries(SdkSqs)) {
    if (!key.endsWith('$') || !Array.isArray(schema) || schema[0] !== -3) continue;
    const name = schema[2] as string;
    const code = (schema[3] as { awsQueryError?: [string] }).awsQueryError?.[0];
    if (code && code !== name) fromModel[code] = name;
  }
  expect(SQS_QUERY_ERRORS).toEqual(fromModel);
});

describe('the SQS fake (test/helpers/sqs-server.ts), read by the official client', () => {
  let fake: TestSqsServer;
  beforeAll(async () => {
    fake = await startSqsServer();
  });
  afterAll(() => fake?.close());
  beforeEach(() => fake.reset());

  const sdkClient = (secretAccessKey = SQS_TEST_CREDENTIALS.secretAccessKey) =>
    new SdkSqs.SQSClient({
      region: SQS_TEST_REGION,
      endpoint: fake.endpoint,
      credentials: { ...SQS_TEST_CREDENTIALS, secretAccessKey },
    });

  /** An outcome with the fake's fresh request id made comparable (a UUID each answer). */
  const sameId = (outcome: Outcome): Outcome => {
    if (outcome.ok) return outcome;
    expect(outcome.error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    return { ok: false, error: { ...outcome.error, requestId: 'uuid' } };
  };

  /** The same call through the SDK and through ours, against the fake. */
  async function both(operation: Operation, setUp: () => void = () => {}) {
    const client = sdkClient();
    const sdkWaits = await recordSdkWaits(client);
    setUp();
    const sdk = sameId(
      await outcomeOf(async () =>
        sdkOutput(operation.op, await client.send(operation.sdk(structuredClone(operation.input)))),
      ),
    );
    const sdkRequests = fake.requests.map((r) => [r.operation, r.input]);
    fake.reset();
    setUp();
    const ourWaits: number[] = [];
    const ours = sameId(
      await outcomeOf(() =>
        operation.ours(
          fake.client({ sleep: async (ms) => void ourWaits.push(ms) }),
          structuredClone(operation.input),
        ),
      ),
    );
    const ourRequests = fake.requests.map((r) => [r.operation, r.input]);
    return {
      sdk: { outcome: sdk, requests: sdkRequests, waits: [...sdkWaits] },
      ours: { outcome: ours, requests: ourRequests, waits: ourWaits },
    };
  }

  it.each(OPERATIONS)(
    'accepts the SDK’s $op and answers it as SQS (the SDK takes it)',
    async (operation) => {
      const { sdk, ours } = await both(operation);
      expect(sdk.outcome.ok).toBe(true);
      expect(sdk.requests).toEqual([[operation.op, operation.input]]);
      if (operation.op === 'SendMessage') {
        expect((sdk.outcome as { value: { MessageId: string } }).value.MessageId).toMatch(
          /^[0-9a-f-]{36}$/,
        );
        return; // a fresh MessageId each time
      }
      expect(ours).toEqual(sdk);
    },
  );

  it.each(
    OPERATIONS.flatMap((operation) =>
      documentedErrors(operation.op).map((name) => [operation.op, name, operation] as const),
    ),
  )(
    '%s: its sqsError(%s) is the error the SDK names so, retried alike',
    async (_, name, operation) => {
      const { status } = modeled(name);
      const { sdk, ours } = await both(operation, () =>
        fake.on(operation.op, sqsError(name, 'no', status)),
      );
      expect(sdk.outcome).toMatchObject({ ok: false, error: { name, status } });
      expect(ours).toEqual(sdk);
    },
  );

  it('refuses what SQS refuses: a request signed with another secret', async () => {
    const outcome = await outcomeOf(() =>
      sdkClient('not-the-secret').send(
        new SdkSqs.SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: 'x' }),
      ),
    );
    expect(outcome).toMatchObject({
      ok: false,
      error: { name: 'InvalidSignatureException', status: 403 },
    });
    expect(fake.requests).toHaveLength(0);
  });
});
