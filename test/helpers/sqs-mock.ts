/**
 * The functions' SQS client (functions/kernel/sqs-aws.ts, the SDK's SQSClient) with its commands
 * answered by aws-sdk-client-mock, for the tests of the adapters built on it: every command is
 * recorded (operation and input, as the adapter gave them to the SDK) and answered as SQS
 * answers it unless a test says otherwise with `on`. The mock replaces the client's `send`, so
 * no request leaves the process and the SDK's retries do not run (they are the SDK's own:
 * test/kernel/sdk-aws.test.ts checks how the clients are configured).
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  ListMessageMoveTasksCommand,
  SendMessageCommand,
  SQSClient,
  SQSServiceException,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { createSqs, type Sqs } from '../../functions/kernel/sqs-aws.ts';

export interface SqsRequest {
  operation: string;
  input: Record<string, unknown>;
}

/** What a command is answered with: its output, an SDK error, or either made from the input. */
export type SqsAnswer =
  | { body?: unknown }
  | SQSServiceException
  | ((input: Record<string, unknown>) => SqsAnswer);

/** An SQS error as the SDK throws it (`name` is the modeled error's, `QueueDoesNotExist`...). */
export function sqsError(code: string, message: string, status = 400): SQSServiceException {
  return new SQSServiceException({
    name: code,
    message,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status, requestId: randomUUID() },
  });
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
  ChangeMessageVisibility: { body: {} },
  ListMessageMoveTasks: { body: { Results: [] } },
  StartMessageMoveTask: { body: { TaskHandle: 'default-task-handle' } },
};

const COMMANDS = {
  SendMessage: SendMessageCommand,
  ChangeMessageVisibility: ChangeMessageVisibilityCommand,
  ListMessageMoveTasks: ListMessageMoveTasksCommand,
  StartMessageMoveTask: StartMessageMoveTaskCommand,
} as const;

export interface TestSqs {
  /** Every command sent, in order. */
  readonly requests: SqsRequest[];
  /** The inputs of one operation's commands. */
  calls(operation: string): Record<string, unknown>[];
  /**
   * How an operation is answered from now on: each answer once, in order, the last one for
   * every command after it.
   */
  on(operation: keyof typeof COMMANDS, ...answers: SqsAnswer[]): void;
  /** The functions' SQS client (its SQSClient mocked). */
  client(): Sqs;
  /** Forgets the commands and the answers set with `on`. */
  reset(): void;
  close(): Promise<void>;
}

function settle(answer: SqsAnswer, input: Record<string, unknown>): unknown {
  if (typeof answer === 'function') return settle(answer(input), input);
  if (answer instanceof Error) throw answer;
  return answer.body ?? {};
}

export async function startSqsMock(): Promise<TestSqs> {
  const requests: SqsRequest[] = [];
  const answers = new Map<string, SqsAnswer[]>();
  const mock = mockClient(SQSClient);
  for (const [operation, command] of Object.entries(COMMANDS)) {
    mock.on(command as typeof SendMessageCommand).callsFake(async (sent: object) => {
      const input = { ...sent } as Record<string, unknown>;
      requests.push({ operation, input });
      const queued = answers.get(operation);
      const answer =
        queued && queued.length > 1 ? queued.shift() : (queued?.[0] ?? DEFAULTS[operation]);
      return settle(answer ?? {}, input);
    });
  }
  return {
    requests,
    calls: (operation) => requests.filter((r) => r.operation === operation).map((r) => r.input),
    on: (operation, ...list) => {
      answers.set(operation, list);
    },
    client: () =>
      createSqs({
        region: 'sa-east-1',
        credentials: { accessKeyId: 'AKIDSQSTEST', secretAccessKey: 'sqs-test-secret' },
      }),
    reset: () => {
      requests.length = 0;
      answers.clear();
    },
    close: async () => {
      mock.restore();
    },
  };
}
