/**
 * A local server that answers like SQS's JSON protocol (`POST /`, `X-Amz-Target:
 * AmazonSQS.<Operation>`, `application/x-amz-json-1.0`), for the tests of kernel/aws/sqs.ts and
 * of the adapters built on it. It records every request (operation, JSON input, headers),
 * refuses what SQS would refuse (an unsigned or wrongly signed request, an unknown target, a body
 * that is not JSON) with SQS's JSON errors, and answers each operation as SQS does unless a test
 * says otherwise with `on`. The official SQS client is run against it
 * (test/kernel/aws-sqs-differential.test.ts): what it answers is what the SDK takes from SQS.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AwsCredentials, AwsHttpOptions } from '../../functions/kernel/aws/http.ts';
import { createSqs, SQS_QUERY_ERRORS, type Sqs } from '../../functions/kernel/aws/sqs.ts';
import { checkSignature } from './sigv4.ts';

export const SQS_TEST_CREDENTIALS: AwsCredentials = {
  accessKeyId: 'AKIDSQSTEST',
  secretAccessKey: 'sqs-test-secret',
};
export const SQS_TEST_REGION = 'sa-east-1';

export interface SqsRequest {
  operation: string;
  input: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/** What the server answers: a status and JSON body, or a dropped connection. */
export type SqsAnswer =
  | { status?: number; body?: unknown; headers?: Record<string, string> }
  | 'reset'
  | ((input: Record<string, unknown>) => SqsAnswer);

/** The Query API code SQS sends with an error (`QueueDoesNotExist` is `...NonExistentQueue`). */
const QUERY_CODES = new Map(Object.entries(SQS_QUERY_ERRORS).map(([code, name]) => [name, code]));

/**
 * An SQS error answer: `{"__type":"com.amazonaws.sqs#<code>","message":...}` with the Query
 * API's code and fault in `x-amzn-query-error`, as SQS sends them (the SDK reads that header
 * first: test/kernel/aws-sqs-differential.test.ts runs the SDK's client against this server).
 */
export function sqsError(code: string, message: string, status = 400): SqsAnswer {
  const fault = status >= 500 ? 'Receiver' : 'Sender';
  return {
    status,
    body: { __type: `com.amazonaws.sqs#${code}`, message },
    headers: { 'x-amzn-query-error': `${QUERY_CODES.get(code) ?? code};${fault}` },
  };
}

const DEFAULTS: Record<string, SqsAnswer> = {
  SendMessage: (input) => ({
    body: {
      MessageId: randomUUID(),
      MD5OfMessageBody: createHash('md5')
        .update(String(input.MessageBody ?? ''))
        .digest('hex'),
    },
  }),
  // SQS answers ChangeMessageVisibility with an empty body.
  ChangeMessageVisibility: { body: undefined },
  ListMessageMoveTasks: { body: { Results: [] } },
  StartMessageMoveTask: { body: { TaskHandle: 'default-task-handle' } },
};

export interface TestSqsServer {
  readonly endpoint: string;
  /** Every request that reached the server, in order. */
  readonly requests: SqsRequest[];
  /** The inputs of one operation's requests. */
  calls(operation: string): Record<string, unknown>[];
  /**
   * How the server answers an operation from now on: each answer once, in order, the last one
   * for every request after it.
   */
  on(operation: string, ...answers: SqsAnswer[]): void;
  /** A client for this server (no waits between attempts). */
  client(options?: Partial<AwsHttpOptions>): Sqs;
  /** Forgets the requests and the answers set with `on`. */
  reset(): void;
  close(): Promise<void>;
}

export async function startSqsServer(): Promise<TestSqsServer> {
  const requests: SqsRequest[] = [];
  const answers = new Map<string, SqsAnswer[]>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const send = (answer: SqsAnswer, input: Record<string, unknown>): void => {
        if (answer === 'reset') {
          req.socket.destroy();
          return;
        }
        if (typeof answer === 'function') {
          send(answer(input), input);
          return;
        }
        const headers = {
          'x-amzn-requestid': randomUUID(),
          ...(answer.body !== undefined && { 'content-type': 'application/x-amz-json-1.0' }),
          ...answer.headers,
        };
        res.writeHead(answer.status ?? 200, headers);
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      };
      const coral = (code: string, message: string, status = 400) =>
        send({ status, body: { __type: `com.amazon.coral.service#${code}`, message } }, {});

      const signature = checkSignature(
        { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body },
        SQS_TEST_CREDENTIALS.secretAccessKey,
      );
      if (!signature.ok) return coral('InvalidSignatureException', signature.reason, 403);
      if (signature.parts.service !== 'sqs' || signature.parts.region !== SQS_TEST_REGION) {
        return coral('InvalidSignatureException', `credential scope ${signature.parts.scope}`, 403);
      }
      const target = req.headers['x-amz-target'];
      const operation =
        typeof target === 'string' && target.startsWith('AmazonSQS.')
          ? target.slice('AmazonSQS.'.length)
          : undefined;
      if (req.method !== 'POST' || req.url !== '/' || !operation || !(operation in DEFAULTS)) {
        return coral('UnknownOperationException', `no operation for ${String(target)}`);
      }
      if (req.headers['content-type'] !== 'application/x-amz-json-1.0') {
        return coral('UnknownOperationException', 'content-type is not JSON 1.0');
      }
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        return coral('SerializationException', 'the body is not JSON');
      }
      requests.push({ operation, input, headers: req.headers });
      const queued = answers.get(operation);
      const answer =
        queued && queued.length > 1 ? queued.shift() : (queued?.[0] ?? DEFAULTS[operation]);
      send(answer ?? { status: 500 }, input);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;

  return {
    endpoint,
    requests,
    calls: (operation) => requests.filter((r) => r.operation === operation).map((r) => r.input),
    on: (operation, ...list) => {
      answers.set(operation, list);
    },
    client: (options = {}) =>
      createSqs({
        endpoint,
        region: SQS_TEST_REGION,
        credentials: SQS_TEST_CREDENTIALS,
        sleep: async () => {},
        ...options,
      }),
    reset: () => {
      requests.length = 0;
      answers.clear();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
