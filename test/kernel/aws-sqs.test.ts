/**
 * The signed-fetch SQS client (functions/kernel/aws/sqs.ts) against a local server answering
 * like SQS's JSON protocol: what goes on the wire for each operation, what comes back, and SQS's
 * errors as AwsError.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AwsError } from '../../functions/kernel/aws/http.ts';
import {
  SQS_TEST_REGION,
  sqsError,
  startSqsServer,
  type TestSqsServer,
} from '../helpers/sqs-server.ts';

const QUEUE_URL = 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads-dev-delivery';
const DLQ_ARN = 'arn:aws:sqs:sa-east-1:123456789012:leads-dev-dlq';
const QUEUE_ARN = 'arn:aws:sqs:sa-east-1:123456789012:leads-dev-delivery';
/** A redrive in progress, as ListMessageMoveTasks lists it. */
const RUNNING_TASK = {
  Status: 'RUNNING',
  TaskHandle: 'handle-0',
  SourceArn: DLQ_ARN,
  ApproximateNumberOfMessagesMoved: 4,
  ApproximateNumberOfMessagesToMove: 10,
  StartedTimestamp: 1_785_000_000_000,
};

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

let sqs: TestSqsServer;
beforeAll(async () => {
  sqs = await startSqsServer();
});
afterAll(() => sqs?.close());
beforeEach(() => sqs.reset());

describe('signed-fetch SQS client', () => {
  it('sends SendMessage as SQS JSON 1.0, signed for sqs in the region, and reads the id', async () => {
    // Act
    const out = await sqs.client().sendMessage({
      QueueUrl: QUEUE_URL,
      MessageBody: '{"leadId":"x"}',
      DelaySeconds: 30,
    });

    // Assess
    expect(out.MessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sqs.requests).toHaveLength(1);
    const [request] = sqs.requests;
    expect(request?.operation).toBe('SendMessage');
    expect(request?.headers['x-amz-target']).toBe('AmazonSQS.SendMessage');
    expect(request?.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(request?.headers.authorization).toContain(`/${SQS_TEST_REGION}/sqs/aws4_request`);
    expect(request?.input).toEqual({
      QueueUrl: QUEUE_URL,
      MessageBody: '{"leadId":"x"}',
      DelaySeconds: 30,
    });
  });

  it('sends ChangeMessageVisibility and takes its empty answer', async () => {
    // Act
    const out = await sqs.client().changeMessageVisibility({
      QueueUrl: QUEUE_URL,
      ReceiptHandle: 'AQEB+receipt/handle==',
      VisibilityTimeout: 43_200,
    });

    // Assess
    expect(out).toBeUndefined();
    expect(sqs.requests.map((r) => r.headers['x-amz-target'])).toEqual([
      'AmazonSQS.ChangeMessageVisibility',
    ]);
    expect(sqs.calls('ChangeMessageVisibility')).toEqual([
      { QueueUrl: QUEUE_URL, ReceiptHandle: 'AQEB+receipt/handle==', VisibilityTimeout: 43_200 },
    ]);
  });

  it('lists and starts message move tasks', async () => {
    // Prepare
    sqs.on('ListMessageMoveTasks', { body: { Results: [RUNNING_TASK] } });
    sqs.on('StartMessageMoveTask', { body: { TaskHandle: 'handle-1' } });
    const client = sqs.client();

    // Act
    const listed = await client.listMessageMoveTasks({ SourceArn: DLQ_ARN, MaxResults: 1 });
    const started = await client.startMessageMoveTask({
      SourceArn: DLQ_ARN,
      DestinationArn: QUEUE_ARN,
      MaxNumberOfMessagesPerSecond: 50,
    });

    // Assess
    expect(listed.Results).toEqual([RUNNING_TASK]);
    expect(started).toEqual({ TaskHandle: 'handle-1' });
    expect(sqs.requests.map((r) => [r.headers['x-amz-target'], r.input])).toEqual([
      ['AmazonSQS.ListMessageMoveTasks', { SourceArn: DLQ_ARN, MaxResults: 1 }],
      [
        'AmazonSQS.StartMessageMoveTask',
        { SourceArn: DLQ_ARN, DestinationArn: QUEUE_ARN, MaxNumberOfMessagesPerSecond: 50 },
      ],
    ]);
  });

  it("rejects with SQS's error code and message, once, for a queue that does not exist", async () => {
    // Prepare
    sqs.on('SendMessage', sqsError('QueueDoesNotExist', 'The specified queue does not exist.'));

    // Act
    const error = await sqs
      .client()
      .sendMessage({ QueueUrl: `${QUEUE_URL}-gone`, MessageBody: 'x' })
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(AwsError);
    expect(error).toMatchObject({
      name: 'QueueDoesNotExist',
      message: 'The specified queue does not exist.',
      status: 400,
      $metadata: { httpStatusCode: 400 },
    });
    expect((error as AwsError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sqs.requests).toHaveLength(1);
  });

  it('tries a throttled or failing SQS again', async () => {
    // Prepare
    sqs.on(
      'SendMessage',
      sqsError('RequestThrottled', 'slow down'),
      { status: 500, body: { __type: 'com.amazonaws.sqs#InternalError' } },
      (input) => ({
        body: { MessageId: 'third', MD5OfMessageBody: md5(String(input.MessageBody)) },
      }),
    );

    // Act
    const out = await sqs.client().sendMessage({ QueueUrl: QUEUE_URL, MessageBody: 'x' });

    // Assess
    expect(out.MessageId).toBe('third');
    expect(sqs.calls('SendMessage')).toHaveLength(3);
  });

  it('is refused by SQS when signed with another secret', async () => {
    const client = sqs.client({
      credentials: { accessKeyId: 'AKIDSQSTEST', secretAccessKey: 'not-the-secret' },
    });
    await expect(
      client.sendMessage({ QueueUrl: QUEUE_URL, MessageBody: 'x' }),
    ).rejects.toMatchObject({ name: 'InvalidSignatureException', status: 403 });
    expect(sqs.requests).toHaveLength(0);
  });
});
