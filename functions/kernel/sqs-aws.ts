/**
 * SQS for the functions: the four operations the stack uses, through the SDK's `SQSClient`
 * (`@aws-sdk/client-sqs`: its JSON protocol, its queue-URL endpoints, its check of the MD5 SQS
 * returns for a sent body). Names and shapes are the API's own. One client per function instance
 * (the wirings make it once), its SDK module loaded at its first call, the SDK's standard retry mode (3 attempts) and a 3 s deadline per
 * attempt (sdk-aws.ts). Tested with aws-sdk-client-mock (test/kernel/sqs-aws.test.ts).
 */
import { type AwsClientOptions, sdkClientConfig } from './sdk-aws.ts';

export interface SendMessageInput {
  QueueUrl: string;
  MessageBody: string;
  /** 0-900 seconds. */
  DelaySeconds?: number;
  /**
   * On a standard queue, the message's tenant: SQS fair queues keep one tenant's backlog from
   * raising the others' dwell time (up to 128 characters).
   */
  MessageGroupId?: string;
}

export interface ChangeMessageVisibilityInput {
  QueueUrl: string;
  ReceiptHandle: string;
  VisibilityTimeout: number;
}

export interface MessageMoveTask {
  Status?: string;
  TaskHandle?: string;
  SourceArn?: string;
  DestinationArn?: string;
  ApproximateNumberOfMessagesMoved?: number;
  ApproximateNumberOfMessagesToMove?: number;
  FailureReason?: string;
  StartedTimestamp?: number;
}

export interface Sqs {
  sendMessage(input: SendMessageInput): Promise<{ MessageId?: string }>;
  changeMessageVisibility(input: ChangeMessageVisibilityInput): Promise<void>;
  listMessageMoveTasks(input: {
    SourceArn: string;
    MaxResults?: number;
  }): Promise<{ Results?: MessageMoveTask[] }>;
  startMessageMoveTask(input: {
    SourceArn: string;
    DestinationArn?: string;
    MaxNumberOfMessagesPerSecond?: number;
  }): Promise<{ TaskHandle?: string }>;
}

async function loadSdk(options: AwsClientOptions) {
  const sdk = await import('@aws-sdk/client-sqs');
  return { client: new sdk.SQSClient(sdkClientConfig(options)), sdk };
}

export function createSqs(options: AwsClientOptions = {}): Sqs {
  let loaded: ReturnType<typeof loadSdk> | undefined;
  const sqs = () => {
    loaded ??= loadSdk(options);
    return loaded;
  };
  return {
    async sendMessage(input) {
      const { client, sdk } = await sqs();
      const { MessageId } = await client.send(new sdk.SendMessageCommand(input));
      return MessageId === undefined ? {} : { MessageId };
    },
    async changeMessageVisibility(input) {
      const { client, sdk } = await sqs();
      await client.send(new sdk.ChangeMessageVisibilityCommand(input));
    },
    async listMessageMoveTasks(input) {
      const { client, sdk } = await sqs();
      const { Results } = await client.send(new sdk.ListMessageMoveTasksCommand(input));
      return Results === undefined ? {} : { Results };
    },
    async startMessageMoveTask(input) {
      const { client, sdk } = await sqs();
      const { TaskHandle } = await client.send(new sdk.StartMessageMoveTaskCommand(input));
      return TaskHandle === undefined ? {} : { TaskHandle };
    },
  };
}
