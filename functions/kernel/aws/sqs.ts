/**
 * SQS for the functions: the four operations the stack uses, over SQS's JSON protocol
 * (`AmazonSQS.<Operation>`, kernel/aws/json-protocol.ts), query compatible as the SDK speaks it.
 * Names and shapes are the API's own. As the SDK's client (@aws-sdk/client-sqs), a request
 * about a queue goes to its queue URL's host (its `useQueueUrlAsEndpoint`) unless `endpoint` is
 * given, and SendMessage checks the MD5 of the body SQS says it received (`InvalidChecksumError`
 * when it differs). Checked side by side with the SDK in test/kernel/aws-sqs-differential.test.ts.
 */
import { createHash } from 'node:crypto';
import { serviceEndpoint } from './endpoints.ts';
import { type AwsHttpOptions, createAwsHttp } from './http.ts';
import { createJsonProtocol } from './json-protocol.ts';

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

/**
 * The Query API codes (`x-amzn-query-error`) whose modeled SQS error has another name, from the
 * SDK's model (the `awsQueryError` trait); a code not here is the error's name.
 */
export const SQS_QUERY_ERRORS: Readonly<Record<string, string>> = {
  'AWS.SimpleQueueService.BatchEntryIdsNotDistinct': 'BatchEntryIdsNotDistinct',
  'AWS.SimpleQueueService.BatchRequestTooLong': 'BatchRequestTooLong',
  'AWS.SimpleQueueService.EmptyBatchRequest': 'EmptyBatchRequest',
  'AWS.SimpleQueueService.InvalidBatchEntryId': 'InvalidBatchEntryId',
  'AWS.SimpleQueueService.MessageNotInflight': 'MessageNotInflight',
  'AWS.SimpleQueueService.NonExistentQueue': 'QueueDoesNotExist',
  'AWS.SimpleQueueService.PurgeQueueInProgress': 'PurgeQueueInProgress',
  'AWS.SimpleQueueService.QueueDeletedRecently': 'QueueDeletedRecently',
  'AWS.SimpleQueueService.TooManyEntriesInBatchRequest': 'TooManyEntriesInBatchRequest',
  'AWS.SimpleQueueService.UnsupportedOperation': 'UnsupportedOperation',
  'KMS.AccessDeniedException': 'KmsAccessDenied',
  'KMS.DisabledException': 'KmsDisabled',
  'KMS.InvalidKeyUsageException': 'KmsInvalidKeyUsage',
  'KMS.InvalidStateException': 'KmsInvalidState',
  'KMS.NotFoundException': 'KmsNotFound',
  'KMS.OptInRequired': 'KmsOptInRequired',
  'KMS.ThrottlingException': 'KmsThrottled',
  QueueAlreadyExists: 'QueueNameExists',
};

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export function createSqs(options: AwsHttpOptions = {}): Sqs {
  const http = createAwsHttp('sqs', (settings) => serviceEndpoint('sqs', settings), options);
  const call = createJsonProtocol(http, {
    targetPrefix: 'AmazonSQS',
    queryErrors: SQS_QUERY_ERRORS,
  });
  /** The queue URL's origin, where the SDK sends a request about that queue. */
  const queueOrigin = (queueUrl: string) => {
    if (http.custom) return undefined;
    try {
      return new URL(queueUrl).origin;
    } catch {
      return undefined;
    }
  };
  return {
    async sendMessage(input) {
      const out = await call<{ MessageId?: string; MD5OfMessageBody?: string }>(
        'SendMessage',
        input,
        queueOrigin(input.QueueUrl),
      );
      if (out.MD5OfMessageBody !== md5(input.MessageBody || '')) {
        throw new Error('InvalidChecksumError');
      }
      return out;
    },
    changeMessageVisibility: async (input) => {
      await call('ChangeMessageVisibility', input, queueOrigin(input.QueueUrl));
    },
    listMessageMoveTasks: (input) => call('ListMessageMoveTasks', input),
    startMessageMoveTask: (input) => call('StartMessageMoveTask', input),
  };
}
