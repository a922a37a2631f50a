/**
 * The forwarder Lambda handler: Powertools' partial batch response over a dynalite ledger and the
 * sandbox upstream, with SQS (ChangeMessageVisibility, SendMessage) the SDK's client answered by
 * aws-sdk-client-mock (test/helpers/sqs-mock.ts).
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ForwardDeps } from '../../../functions/delivery/forward/attempt.ts';
import {
  createDeliveryHandler,
  MAX_VISIBILITY_SECONDS,
  visibilitySeconds,
} from '../../../functions/delivery/forward/handler.ts';
import { encodeLeadMessage } from '../../../functions/ledger/lead-queue.ts';
import { createSqsLeadQueue } from '../../../functions/ledger/lead-queue-sqs.ts';
import { createLambdaContext } from '../../../local/lambda-context.ts';
import { sqsError, startSqsMock, type TestSqs } from '../../helpers/sqs-mock.ts';
import { type DeliveryHarness, formCapture, startDeliveryHarness } from '../harness.ts';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/leads-test-queue';

let h: DeliveryHarness;
let sqs: TestSqs;
beforeAll(async () => {
  h = await startDeliveryHarness();
  sqs = await startSqsMock();
});
afterAll(async () => {
  await sqs?.close();
  await h?.close();
});
beforeEach(async () => {
  sqs.reset();
  await h.reset();
});

let sequence = 0;
function record(body: string): SQSRecord {
  sequence += 1;
  return {
    messageId: `msg-${sequence}`,
    receiptHandle: `receipt-${sequence}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDATEST',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:leads-test-queue',
    awsRegion: 'us-east-1',
  };
}

function handlerWith(forward: ForwardDeps = h.deps()) {
  const client = sqs.client();
  return createDeliveryHandler({
    forward,
    sqs: client,
    queueUrl: QUEUE_URL,
    queue: createSqsLeadQueue({ client, queueUrl: QUEUE_URL }),
  });
}

const context = (timeoutMs = 60_000) =>
  createLambdaContext({ functionName: 'forwarder', timeoutMs });

function visibilityCalls() {
  return sqs.calls('ChangeMessageVisibility');
}

function sendCalls() {
  return sqs.calls('SendMessage');
}

describe('delivery handler', () => {
  it('re-sends a waiting lead for its chain, and acknowledges the final and poison records', async () => {
    // Prepare: one deliverable lead, one poison message, one lead another attempt is sending,
    // one already delivered.
    const deliverable = await h.record('site', formCapture());
    const recorded = await h.record('site', formCapture());
    const busy = await h.ledger.claim(recorded.leadId, recorded.version, 30_000, new Date());
    const done = await h.record('site', formCapture());
    const claimed = await h.ledger.claim(done.leadId, done.version, 30_000, new Date());
    await h.ledger.markDelivered(done.leadId, 4242, new Date());
    if (!busy || !claimed) throw new Error('the claims should have succeeded');
    const records = [
      record(encodeLeadMessage(deliverable.leadId, deliverable.version)),
      record('{"not":"a lead"}'),
      record(encodeLeadMessage(busy.leadId, busy.version)),
      record(encodeLeadMessage(done.leadId, claimed.version)),
    ];

    // Act
    const response = await handlerWith()({ Records: records } as SQSEvent, context());

    // Assess: the busy lead comes back as a new message of its chain once the other attempt's
    // lease is over, so waiting on it costs its message no receive.
    expect(response).toEqual({ batchItemFailures: [] });
    expect(visibilityCalls()).toEqual([]);
    expect(sendCalls()).toEqual([
      {
        QueueUrl: QUEUE_URL,
        MessageBody: encodeLeadMessage(busy.leadId, busy.version),
        DelaySeconds: expect.any(Number),
        // The lead's tenant on the fair queue: its account.
        MessageGroupId: 'default',
      },
    ]);
    const seconds = Number(sendCalls()[0]?.DelaySeconds ?? 0);
    expect(seconds).toBeGreaterThanOrEqual(25);
    expect(seconds).toBeLessThanOrEqual(32);
    expect((await h.ledger.get(deliverable.leadId))?.status).toBe('delivered');
    expect(await h.prospects()).toHaveLength(1);
  });

  it('acknowledges a message of an old chain without touching the lead', async () => {
    // Prepare: the lead moved on (an attempt claimed it, version 1, and released it) and an old
    // message (version 0) comes back.
    const lead = await h.record('site', formCapture());
    const claimed = await h.ledger.claim(lead.leadId, lead.version, 30_000, new Date());
    const release = { error: 'HTTP 503', counted: false, failed: true };
    const later = new Date(Date.now() + 60_000);
    await h.ledger.release(
      lead.leadId,
      claimed?.version ?? 1,
      { ...release, nextAttemptAt: later },
      new Date(),
    );
    const records = [record(encodeLeadMessage(lead.leadId, lead.version))];

    // Act
    const response = await handlerWith()({ Records: records } as SQSEvent, context());

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(sendCalls()).toEqual([]);
    expect(visibilityCalls()).toEqual([]);
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'queued', version: 1 });
    expect(await h.calls('POST /api/v1/prospects')).toEqual({});
  });

  it('waits after a failed POST on a fresh message of the lead’s new chain, uncounted', async () => {
    // Prepare: the upstream answers 503 (says nothing about the lead).
    await h.setFaults({ postStatus: 503 });
    const lead = await h.record('site', formCapture());
    const records = [record(encodeLeadMessage(lead.leadId, lead.version))];

    // Act
    const response = await handlerWith()({ Records: records } as SQSEvent, context());

    // Assess
    const stored = await h.ledger.get(lead.leadId);
    expect(response).toEqual({ batchItemFailures: [] });
    expect(visibilityCalls()).toEqual([]);
    expect(sendCalls()).toEqual([
      {
        QueueUrl: QUEUE_URL,
        MessageBody: encodeLeadMessage(lead.leadId, stored?.version),
        DelaySeconds: expect.any(Number),
        MessageGroupId: 'default',
      },
    ]);
    expect(stored?.version).toBeGreaterThan(lead.version);
    expect(stored).toMatchObject({ status: 'queued', attempts: 0 });
  });

  it('holds every lead back while a refused key keeps the circuit open', async () => {
    // Prepare: the upstream refuses the key.
    const leads = [await h.record('site', formCapture()), await h.record('site', formCapture())];
    const records = leads.map((lead) => record(encodeLeadMessage(lead.leadId, lead.version)));

    // Act
    const response = await handlerWith(h.deps({ password: 'wrong' }))(
      { Records: records } as SQSEvent,
      context(),
    );

    // Assess: the first gets the 401 and opens the circuit, and comes back for the probe as a
    // new message; the second does not reach the upstream and waits in the ledger with no
    // message until the circuit closes; both uncounted.
    expect(response).toEqual({ batchItemFailures: [] });
    expect(sendCalls()).toHaveLength(1);
    expect(sendCalls()[0]?.MessageBody).toBe(encodeLeadMessage(leads[0]?.leadId ?? '', 1));
    for (const call of sendCalls()) expect(Number(call.DelaySeconds ?? 0)).toBeLessThanOrEqual(2);
    expect(visibilityCalls()).toEqual([]);
    for (const lead of leads) {
      expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'queued', attempts: 0 });
    }
    expect(await h.calls('POST /api/v1/prospects')).toEqual({ '401': 1 });
  });

  it('falls back to delaying the record itself when the lead cannot be re-sent', async () => {
    // Prepare
    sqs.on('SendMessage', sqsError('AccessDenied', 'Access to the resource is denied.', 403));
    const lead = await h.record('site', formCapture());
    const busy = await h.ledger.claim(lead.leadId, lead.version, 30_000, new Date());
    const records = [record(encodeLeadMessage(lead.leadId, busy?.version))];

    // Act
    const response = await handlerWith()({ Records: records } as SQSEvent, context());

    // Assess: the message is not lost; it comes back through its own visibility.
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]?.messageId }] });
    expect(sendCalls()).toHaveLength(1);
    expect(visibilityCalls()).toEqual([
      {
        QueueUrl: QUEUE_URL,
        ReceiptHandle: records[0]?.receiptHandle,
        VisibilityTimeout: expect.any(Number),
      },
    ]);
  });

  it('does not start a lead that no longer fits in the invocation', async () => {
    // Prepare: 10 s left, less than one attempt's lease.
    const lead = await h.record('site', formCapture());
    const records = [record(encodeLeadMessage(lead.leadId, lead.version))];

    // Act
    const response = await handlerWith()({ Records: records } as SQSEvent, context(10_000));

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[0]?.messageId }]);
    expect(visibilityCalls()).toEqual([
      { QueueUrl: QUEUE_URL, ReceiptHandle: records[0]?.receiptHandle, VisibilityTimeout: 5 },
    ]);
    expect((await h.ledger.get(lead.leadId))?.status).toBe('queued');
  });

  it('fails a record whose attempt threw, leaving its visibility to the queue', async () => {
    // Prepare: the ledger is unreachable for claims.
    const lead = await h.record('site', formCapture());
    const deps = h.deps();
    const broken: ForwardDeps = {
      ...deps,
      ledger: { ...deps.ledger, claim: async () => Promise.reject(new Error('dynamo down')) },
    };
    const records = [record(encodeLeadMessage(lead.leadId, lead.version))];

    // Act
    const response = await handlerWith(broken)({ Records: records } as SQSEvent, context());

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[0]?.messageId }]);
    expect(visibilityCalls()).toEqual([]);
  });

  it('still fails the record when neither the re-send nor ChangeMessageVisibility works', async () => {
    sqs.on(
      'ChangeMessageVisibility',
      sqsError('ReceiptHandleIsInvalid', 'The receipt handle is invalid.'),
    );
    sqs.on('SendMessage', sqsError('AccessDenied', 'Access to the resource is denied.', 403));
    await h.setFaults({ postStatus: 503 });
    const lead = await h.record('site', formCapture());
    const records = [record(encodeLeadMessage(lead.leadId, lead.version))];

    const response = await handlerWith()({ Records: records } as SQSEvent, context());

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[0]?.messageId }]);
    expect(sendCalls()).toHaveLength(1);
    expect(visibilityCalls()).toEqual([
      {
        QueueUrl: QUEUE_URL,
        ReceiptHandle: records[0]?.receiptHandle,
        VisibilityTimeout: expect.any(Number),
      },
    ]);
  });

  it('asks once per instance whether the key may look prospects up', async () => {
    // Prepare
    const handler = handlerWith();
    const leads = [await h.record('site', formCapture()), await h.record('site', formCapture())];

    // Act: two batches on the same instance.
    for (const lead of leads) {
      const records = [record(encodeLeadMessage(lead.leadId, lead.version))];
      await handler({ Records: records } as SQSEvent, context());
    }

    // Assess: one lookup (the check), two deliveries.
    expect(await h.calls('GET /api/v1/prospects')).toEqual({ '200': 1 });
    expect(await h.calls('POST /api/v1/prospects')).toEqual({ '200': 2 });
  });

  it('turns delays into visibility seconds within SQS limits', () => {
    expect(visibilitySeconds(0)).toBe(0);
    expect(visibilitySeconds(1)).toBe(1);
    expect(visibilitySeconds(1_500)).toBe(2);
    expect(visibilitySeconds(-5)).toBe(0);
    expect(visibilitySeconds(24 * 3_600_000)).toBe(MAX_VISIBILITY_SECONDS);
    expect(visibilitySeconds(Number.POSITIVE_INFINITY)).toBe(MAX_VISIBILITY_SECONDS);
  });
});
