/**
 * The dead-letter redrive adapters: SQS StartMessageMoveTask (with the one-task-at-a-time rule)
 * and the local queue's redrive.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalDlqRedrive } from '../../functions/admin/dlq-redrive-local.ts';
import { createSqsDlqRedrive } from '../../functions/admin/dlq-redrive-sqs.ts';
import { newLeadId } from '../../functions/domain/lead-lifecycle.ts';
import {
  createLocalLeadQueue,
  LOCAL_QUEUE_TABLE_DEFINITION,
} from '../../functions/ledger/lead-queue-local.ts';
import { ensureTable } from '../../local/dynamodb-local.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';
import { sqsError, startSqsMock, type TestSqs } from '../helpers/sqs-mock.ts';

const DLQ_ARN = 'arn:aws:sqs:sa-east-1:123456789012:leads-dev-LeadQueueDeadLetterQueue-abc';
const QUEUE_ARN = 'arn:aws:sqs:sa-east-1:123456789012:leads-dev-LeadQueueQueue-def';

describe('createSqsDlqRedrive', () => {
  /** The SDK's SQS client, answered by aws-sdk-client-mock. */
  let sqs: TestSqs;
  beforeAll(async () => {
    sqs = await startSqsMock();
  });
  afterAll(() => sqs?.close());
  beforeEach(() => {
    sqs.reset();
  });

  const redrive = (maxPerSecond?: number) =>
    createSqsDlqRedrive({
      client: sqs.client(),
      deadLetterQueueArn: DLQ_ARN,
      queueArn: QUEUE_ARN,
      ...(maxPerSecond !== undefined && { maxPerSecond }),
    });

  it('starts a move task from the DLQ to the lead queue when none runs', async () => {
    // Prepare
    sqs.on('ListMessageMoveTasks', {
      body: {
        Results: [{ Status: 'COMPLETED', SourceArn: DLQ_ARN, ApproximateNumberOfMessagesMoved: 3 }],
      },
    });
    sqs.on('StartMessageMoveTask', { body: { TaskHandle: 'handle-1' } });

    // Act
    const result = await redrive(50).redrive();

    // Assess
    expect(result).toEqual({ status: 'started', taskHandle: 'handle-1' });
    expect(sqs.requests.map((r) => [r.operation, r.input])).toEqual([
      ['ListMessageMoveTasks', { SourceArn: DLQ_ARN, MaxResults: 1 }],
      [
        'StartMessageMoveTask',
        { SourceArn: DLQ_ARN, DestinationArn: QUEUE_ARN, MaxNumberOfMessagesPerSecond: 50 },
      ],
    ]);
  });

  it('starts one when the DLQ never had a task, without a rate unless given', async () => {
    sqs.on('ListMessageMoveTasks', { body: {} });
    sqs.on('StartMessageMoveTask', { body: { TaskHandle: 'handle-2' } });
    expect(await redrive().redrive()).toEqual({ status: 'started', taskHandle: 'handle-2' });
    expect(sqs.calls('StartMessageMoveTask')).toEqual([
      { SourceArn: DLQ_ARN, DestinationArn: QUEUE_ARN },
    ]);
  });

  it('reports a running task instead of starting a second one', async () => {
    sqs.on('ListMessageMoveTasks', {
      body: {
        Results: [
          {
            Status: 'RUNNING',
            TaskHandle: 'handle-0',
            ApproximateNumberOfMessagesMoved: 4,
            ApproximateNumberOfMessagesToMove: 10,
          },
        ],
      },
    });
    expect(await redrive().redrive()).toEqual({
      status: 'running',
      taskHandle: 'handle-0',
      moved: 4,
      toMove: 10,
    });
    expect(sqs.calls('StartMessageMoveTask')).toHaveLength(0);
  });

  it('reports the task that won a race to start', async () => {
    sqs.on(
      'ListMessageMoveTasks',
      { body: { Results: [] } },
      { body: { Results: [{ Status: 'RUNNING', TaskHandle: 'theirs' }] } },
    );
    sqs.on(
      'StartMessageMoveTask',
      sqsError('UnsupportedOperation', 'There is already a task running'),
    );
    expect(await redrive().redrive()).toEqual({ status: 'running', taskHandle: 'theirs' });
    expect(sqs.requests.map((r) => r.operation)).toEqual([
      'ListMessageMoveTasks',
      'StartMessageMoveTask',
      'ListMessageMoveTasks',
    ]);
  });

  it('throws a start failure that is not a race', async () => {
    sqs.on('ListMessageMoveTasks', { body: { Results: [] } });
    sqs.on(
      'StartMessageMoveTask',
      sqsError('AccessDenied', 'Access to the resource is denied.', 403),
    );
    await expect(redrive().redrive()).rejects.toMatchObject({
      name: 'AccessDenied',
      message: 'Access to the resource is denied.',
    });
  });

  it('refuses what is not an SQS ARN and a bad rate', () => {
    const client = sqs.client();
    expect(() =>
      createSqsDlqRedrive({ client, deadLetterQueueArn: 'https://sqs/x', queueArn: QUEUE_ARN }),
    ).toThrow(/deadLetterQueueArn/);
    expect(() =>
      createSqsDlqRedrive({ client, deadLetterQueueArn: DLQ_ARN, queueArn: '' }),
    ).toThrow(/queueArn/);
    expect(() =>
      createSqsDlqRedrive({
        client,
        deadLetterQueueArn: DLQ_ARN,
        queueArn: QUEUE_ARN,
        maxPerSecond: 0,
      }),
    ).toThrow(RangeError);
  });
});

describe('createLocalDlqRedrive', () => {
  let dynamo: TestDynamo;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo?.close());

  it('moves every dead-letter message back, receive counts reset', async () => {
    await ensureTable(dynamo.admin, LOCAL_QUEUE_TABLE_DEFINITION, 'redrive-queue');
    const queue = createLocalLeadQueue({
      client: dynamo.client,
      tableName: 'redrive-queue',
      maxReceiveCount: 1,
    });
    const leadIds = [newLeadId(), newLeadId()];
    for (const id of leadIds) await queue.send(id);
    const now = Date.now();
    await queue.receive({ max: 10, visibilityMs: 1, now });
    await queue.receive({ max: 10, visibilityMs: 1, now: now + 10 });
    expect(await queue.depth()).toMatchObject({ queued: 0, dead: 2 });

    const redrive = createLocalDlqRedrive(queue);
    expect(await redrive.redrive()).toEqual({ status: 'moved', moved: 2 });
    expect(await redrive.redrive()).toEqual({ status: 'moved', moved: 0 });
    const received = await queue.receive({ max: 10, visibilityMs: 60_000 });
    expect(received.map((m) => m.leadId).sort()).toEqual([...leadIds].sort());
    expect(received.every((m) => m.receiveCount === 1)).toBe(true);
  });
});
