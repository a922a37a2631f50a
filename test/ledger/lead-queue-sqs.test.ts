import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { newLeadId } from '../../functions/domain/lead-lifecycle.ts';
import { parseLeadMessage, queueDelaySeconds } from '../../functions/ledger/lead-queue.ts';
import { createSqsLeadQueue } from '../../functions/ledger/lead-queue-sqs.ts';

const QUEUE_URL = 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads-dev-delivery';
const sqs = mockClient(SQSClient);

describe('createSqsLeadQueue', () => {
  beforeEach(() => {
    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
  });

  it('sends a body with only the lead id', async () => {
    // Prepare
    const queue = createSqsLeadQueue({ client: new SQSClient({}), queueUrl: QUEUE_URL });
    const leadId = newLeadId();

    // Act
    await queue.send(leadId);

    // Assess
    const calls = sqs.commandCalls(SendMessageCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({
      QueueUrl: QUEUE_URL,
      MessageBody: JSON.stringify({ leadId }),
    });
    expect(parseLeadMessage(calls[0]?.args[0].input.MessageBody ?? '')).toEqual({ leadId });
  });

  it('delays in whole seconds, capped at SQS maximum of 900', async () => {
    // Prepare
    const queue = createSqsLeadQueue({ client: new SQSClient({}), queueUrl: QUEUE_URL });

    // Act
    await queue.send(newLeadId(), { delaySeconds: 1.2 });
    await queue.send(newLeadId(), { delaySeconds: 3600 });
    await queue.send(newLeadId(), { delaySeconds: 0 });

    // Assess
    const delays = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input.DelaySeconds);
    expect(delays).toEqual([2, 900, undefined]);
    expect(queueDelaySeconds(-5)).toBe(0);
  });

  it('passes SQS failures to the caller', async () => {
    // Prepare
    sqs.on(SendMessageCommand).rejects(new Error('AccessDenied'));
    const queue = createSqsLeadQueue({ client: new SQSClient({}), queueUrl: QUEUE_URL });

    // Act / Assess
    await expect(queue.send(newLeadId())).rejects.toThrow('AccessDenied');
  });

  it('refuses ids that are not lead ids and FIFO queues', async () => {
    // Prepare
    const queue = createSqsLeadQueue({ client: new SQSClient({}), queueUrl: QUEUE_URL });

    // Act / Assess
    await expect(queue.send('maria@example.com')).rejects.toBeInstanceOf(TypeError);
    expect(() =>
      createSqsLeadQueue({ client: new SQSClient({}), queueUrl: `${QUEUE_URL}.fifo` }),
    ).toThrow(TypeError);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
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
