import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newLeadId } from '../../functions/domain/lead-lifecycle.ts';
import { parseLeadMessage, queueDelaySeconds } from '../../functions/ledger/lead-queue.ts';
import { createSqsLeadQueue } from '../../functions/ledger/lead-queue-sqs.ts';
import { sqsError, startSqsMock, type TestSqs } from '../helpers/sqs-mock.ts';

const QUEUE_URL = 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads-dev-delivery';

/** The SDK's SQS client, answered by aws-sdk-client-mock: what the queue gives the SDK to send. */
let sqs: TestSqs;
beforeAll(async () => {
  sqs = await startSqsMock();
});
afterAll(() => sqs?.close());

describe('createSqsLeadQueue', () => {
  beforeEach(() => {
    sqs.reset();
  });

  it('sends a body with only the lead id', async () => {
    // Prepare
    const queue = createSqsLeadQueue({ client: sqs.client(), queueUrl: QUEUE_URL });
    const leadId = newLeadId();

    // Act
    await queue.send(leadId);

    // Assess
    const calls = sqs.calls('SendMessage');
    expect(calls).toEqual([{ QueueUrl: QUEUE_URL, MessageBody: JSON.stringify({ leadId }) }]);
    expect(parseLeadMessage(String(calls[0]?.MessageBody))).toEqual({ leadId });
  });

  it('delays in whole seconds, capped at SQS maximum of 900', async () => {
    // Prepare
    const queue = createSqsLeadQueue({ client: sqs.client(), queueUrl: QUEUE_URL });

    // Act
    await queue.send(newLeadId(), { delaySeconds: 1.2 });
    await queue.send(newLeadId(), { delaySeconds: 3600 });
    await queue.send(newLeadId(), { delaySeconds: 0 });

    // Assess
    const delays = sqs.calls('SendMessage').map((input) => input.DelaySeconds);
    expect(delays).toEqual([2, 900, undefined]);
    expect(queueDelaySeconds(-5)).toBe(0);
  });

  it("names the lead's account as the message group: the fair queue's tenant", async () => {
    // Prepare
    const queue = createSqsLeadQueue({ client: sqs.client(), queueUrl: QUEUE_URL });
    const leadId = newLeadId();

    // Act
    await queue.send(leadId, { version: 2, group: 'south' });

    // Assess
    expect(sqs.calls('SendMessage')).toEqual([
      {
        QueueUrl: QUEUE_URL,
        MessageBody: JSON.stringify({ leadId, v: 2 }),
        MessageGroupId: 'south',
      },
    ]);
    await expect(queue.send(leadId, { group: 'x'.repeat(129) })).rejects.toBeInstanceOf(TypeError);
  });

  it('passes SQS failures to the caller', async () => {
    // Prepare
    sqs.on('SendMessage', sqsError('QueueDoesNotExist', 'The specified queue does not exist.'));
    const queue = createSqsLeadQueue({ client: sqs.client(), queueUrl: QUEUE_URL });

    // Act / Assess
    await expect(queue.send(newLeadId())).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
      message: 'The specified queue does not exist.',
    });
  });

  it('refuses ids that are not lead ids and FIFO queues', async () => {
    // Prepare
    const queue = createSqsLeadQueue({ client: sqs.client(), queueUrl: QUEUE_URL });

    // Act / Assess
    await expect(queue.send('maria@example.com')).rejects.toBeInstanceOf(TypeError);
    expect(() =>
      createSqsLeadQueue({ client: sqs.client(), queueUrl: `${QUEUE_URL}.fifo` }),
    ).toThrow(TypeError);
    expect(() => createSqsLeadQueue({ client: sqs.client(), queueUrl: '' })).toThrow(TypeError);
    expect(sqs.requests).toHaveLength(0);
  });
});

describe('parseLeadMessage', () => {
  it('reads lead messages and nothing else', () => {
    const leadId = newLeadId();
    expect(parseLeadMessage(JSON.stringify({ leadId }))).toEqual({ leadId });
    expect(parseLeadMessage('{"leadId":"x"}')).toBeUndefined();
    expect(parseLeadMessage('not json')).toBeUndefined();
    expect(parseLeadMessage('null')).toBeUndefined();
  });
});
