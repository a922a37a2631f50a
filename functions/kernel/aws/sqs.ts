/**
 * SQS for the functions: the four operations the stack uses, over SQS's JSON protocol
 * (`AmazonSQS.<Operation>`, kernel/aws/http.ts). Names and shapes are the API's own.
 */
import { type AwsHttpOptions, createAwsHttp, createJsonProtocol } from './http.ts';

export interface SendMessageInput {
  QueueUrl: string;
  MessageBody: string;
  /** 0-900 seconds. */
  DelaySeconds?: number;
}

export interface ChangeMessageVisibilityInput {
  QueueUrl: string;
  ReceiptHandle: string;
  VisibilityTimeout: number;
}

export interface MessageMoveTask {
  Status?: 'RUNNING' | 'COMPLETED' | 'CANCELLING' | 'CANCELLED' | 'FAILED';
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

export function createSqs(options: AwsHttpOptions = {}): Sqs {
  const http = createAwsHttp('sqs', (region) => `https://sqs.${region}.amazonaws.com`, options);
  const call = createJsonProtocol(http, 'AmazonSQS');
  return {
    sendMessage: (input) => call('SendMessage', input),
    changeMessageVisibility: async (input) => {
      await call('ChangeMessageVisibility', input);
    },
    listMessageMoveTasks: (input) => call('ListMessageMoveTasks', input),
    startMessageMoveTask: (input) => call('StartMessageMoveTask', input),
  };
}
