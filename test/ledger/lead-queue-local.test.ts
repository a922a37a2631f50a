import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLocalLeadQueue,
  LOCAL_QUEUE_TABLE_DEFINITION,
  type LocalLeadQueue,
} from '../../functions/ledger/lead-queue-local.ts';
import { ensureTable } from '../../local/dynamodb-local.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';

let dynamo: TestDynamo;
let tables = 0;
beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo?.close());

async function freshQueue(maxReceiveCount = 3): Promise<LocalLeadQueue> {
  tables += 1;
  const tableName = `queue-test-${tables}`;
  await ensureTable(dynamo.admin, LOCAL_QUEUE_TABLE_DEFINITION, tableName);
  return createLocalLeadQueue({ client: dynamo.client, tableName, maxReceiveCount });
}

const visibilityMs = 30_000;

describe('local lead queue (SQS semantics on the local DynamoDB)', () => {
  it('hands a message to one receiver and hides it until the visibility timeout', async () => {
    const queue = await freshQueue();
    await queue.send('ld_a');
    const now = Date.now();
    const first = await queue.receive({ max: 10, visibilityMs, now });
    expect(first.map((m) => m.leadId)).toEqual(['ld_a']);
    expect(first[0]?.receiveCount).toBe(1);
    expect(await queue.receive({ max: 10, visibilityMs, now: now + 1 })).toEqual([]);
    const again = await queue.receive({ max: 10, visibilityMs, now: now + visibilityMs + 1 });
    expect(again.map((m) => m.receiveCount)).toEqual([2]);
  });

  it('deletes only with the current receipt', async () => {
    const queue = await freshQueue();
    await queue.send('ld_b');
    const now = Date.now();
    const [stale] = await queue.receive({ max: 1, visibilityMs, now });
    const [current] = await queue.receive({ max: 1, visibilityMs, now: now + visibilityMs + 1 });
    expect(await queue.delete(stale?.receiptHandle ?? '')).toBe(false);
    expect(await queue.delete(current?.receiptHandle ?? '')).toBe(true);
    expect(await queue.depth()).toMatchObject({ queued: 0, dead: 0 });
  });

  it('never gives one message to two concurrent receivers', async () => {
    const queue = await freshQueue();
    for (const id of ['ld_1', 'ld_2', 'ld_3', 'ld_4', 'ld_5']) await queue.send(id);
    const batches = await Promise.all(
      Array.from({ length: 6 }, () => queue.receive({ max: 5, visibilityMs })),
    );
    const received = batches.flat().map((m) => m.leadId);
    expect(received.sort()).toEqual(['ld_1', 'ld_2', 'ld_3', 'ld_4', 'ld_5']);
  });

  it('ends a waiting receive as soon as a message is sent or handed back (long polling)', async () => {
    // Prepare: a queue whose scans say when they are done, so the receive is seen waiting.
    tables += 1;
    const tableName = `queue-test-${tables}`;
    await ensureTable(dynamo.admin, LOCAL_QUEUE_TABLE_DEFINITION, tableName);
    let scanned: () => void = () => {};
    const client = {
      ...dynamo.client,
      scan: async (input: Parameters<typeof dynamo.client.scan>[0]) => {
        const out = await dynamo.client.scan(input);
        scanned();
        return out;
      },
    };
    const queue = createLocalLeadQueue({ client, tableName, maxReceiveCount: 3 });
    const emptied = () => new Promise<void>((resolve) => (scanned = resolve));

    // Act: a receive that would wait ten minutes finds the queue empty; then a lead is sent.
    let found = emptied();
    const waiting = queue.receive({ max: 1, visibilityMs, waitMs: 600_000 });
    await found;
    await queue.send('ld_long_poll');
    const [message] = await waiting;

    // Act: the message handed back at once (visibility 0) ends the next wait too.
    found = emptied();
    const again = queue.receive({ max: 1, visibilityMs, waitMs: 600_000 });
    await found;
    await queue.changeVisibility(message?.receiptHandle ?? '', 0);

    // Assess: both receives ended with the message, long before their waits.
    expect(message?.leadId).toBe('ld_long_poll');
    expect((await again).map((m) => [m.leadId, m.receiveCount])).toEqual([['ld_long_poll', 2]]);
  });

  it('respects a send delay and an early change of visibility', async () => {
    const queue = await freshQueue();
    await queue.send('ld_late', { delaySeconds: 60 });
    expect(await queue.receive({ max: 1, visibilityMs })).toEqual([]);
    expect(await queue.receive({ max: 1, visibilityMs, now: Date.now() + 61_000 })).toHaveLength(1);

    await queue.send('ld_back');
    const [message] = await queue.receive({ max: 1, visibilityMs });
    expect(await queue.changeVisibility(message?.receiptHandle ?? '', 0)).toBe(true);
    expect((await queue.receive({ max: 1, visibilityMs })).map((m) => m.leadId)).toEqual([
      'ld_back',
    ]);
  });

  it("hands a tenant's fresh message out before another tenant's backlog", async () => {
    // Prepare: account `flood` has 20 messages, sent first; then `quiet` sends one.
    const queue = await freshQueue();
    for (let i = 0; i < 20; i += 1) await queue.send(`ld_flood${i}`, { group: 'flood' });
    await queue.send('ld_quiet', { group: 'quiet' });

    // Act: two receivers take one message each, as two busy workers would.
    const now = Date.now() + 1;
    const [first] = await queue.receive({ max: 1, visibilityMs, now });
    const [second] = await queue.receive({ max: 1, visibilityMs, now });

    // Assess: the flood's oldest went first; with one of the flood's in flight, the quiet
    // tenant's message is next, not the flood's second.
    expect([first?.leadId, second?.leadId]).toEqual(['ld_flood0', 'ld_quiet']);
    expect(second?.group).toBe('quiet');
  });

  it('takes turns between tenants within one receive, each tenant oldest first', async () => {
    // Prepare
    const queue = await freshQueue();
    for (const [leadId, group] of [
      ['ld_a1', 'a'],
      ['ld_a2', 'a'],
      ['ld_a3', 'a'],
      ['ld_b1', 'b'],
      ['ld_c1', 'c'],
      ['ld_b2', 'b'],
    ] as const) {
      await queue.send(leadId, { group });
    }

    // Act
    const batch = await queue.receive({ max: 6, visibilityMs, now: Date.now() + 1 });

    // Assess
    expect(batch.map((m) => m.leadId)).toEqual([
      'ld_a1',
      'ld_b1',
      'ld_c1',
      'ld_a2',
      'ld_b2',
      'ld_a3',
    ]);
  });

  it('refuses a group SQS would refuse', async () => {
    const queue = await freshQueue();
    await expect(queue.send('ld_x', { group: '' })).rejects.toBeInstanceOf(TypeError);
    await expect(queue.send('ld_x', { group: 'conta sul' })).rejects.toBeInstanceOf(TypeError);
  });

  it('moves a message received too often to the dead-letter queue, and redrives it', async () => {
    const queue = await freshQueue(2);
    await queue.send('ld_poison');
    let now = Date.now();
    for (let i = 0; i < 2; i += 1) {
      expect(await queue.receive({ max: 1, visibilityMs, now })).toHaveLength(1);
      now += visibilityMs + 1;
    }
    expect(await queue.receive({ max: 1, visibilityMs, now })).toEqual([]);
    expect(await queue.depth()).toMatchObject({ queued: 0, dead: 1 });

    expect(await queue.redrive(now)).toBe(1);
    const [redriven] = await queue.receive({ max: 1, visibilityMs, now: now + 1 });
    expect(redriven).toMatchObject({ leadId: 'ld_poison', receiveCount: 1 });
  });
});
