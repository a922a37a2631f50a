/**
 * The local delivery worker on the local queue (dynalite, SQS semantics): it drains a backlog
 * with the real use case and sandbox, delays retries, and on stop hands the message in flight
 * back when it cannot finish in time.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ForwardOutcome } from '../../../functions/delivery/forward/attempt.ts';
import { startLocalWorker } from '../../../functions/delivery/forward/worker-local.ts';
import {
  createLocalLeadQueue,
  LOCAL_QUEUE_TABLE_DEFINITION,
  type LocalLeadQueue,
} from '../../../functions/ledger/lead-queue-local.ts';
import { ensureTable } from '../../../local/dynamodb-local.ts';
import { type DeliveryHarness, formCapture, startDeliveryHarness } from '../harness.ts';

let h: DeliveryHarness;
let queue: LocalLeadQueue;
let queues = 0;

beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(() => h?.close());
beforeEach(async () => {
  await h.reset();
  queues += 1;
  const tableName = `leads-queue-test-${queues}`;
  await ensureTable(h.dynamo.admin, LOCAL_QUEUE_TABLE_DEFINITION, tableName);
  queue = createLocalLeadQueue({ client: h.dynamo.client, tableName, maxReceiveCount: 8 });
});

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A use case that takes `ms` and then answers `outcome`; resolves `started` when called. */
function slowForward(ms: number, outcome: ForwardOutcome = { kind: 'done', reason: 'test' }) {
  let calls = 0;
  let signalStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    signalStarted = resolve;
  });
  return {
    started,
    calls: () => calls,
    forward: async () => {
      calls += 1;
      signalStarted();
      await new Promise((resolve) => setTimeout(resolve, ms));
      return outcome;
    },
  };
}

/** One lead recorded and queued, and a worker started on it with `slow`, which it has called. */
async function workOnOneLead(slow: ReturnType<typeof slowForward>, visibilityMs: number) {
  const lead = await h.record('site', formCapture());
  await queue.send(lead.leadId);
  const worker = startLocalWorker({
    queue,
    deps: h.deps(),
    visibilityMs,
    pollMs: 50,
    forward: slow.forward,
  });
  await slow.started;
  return { lead, worker };
}

describe('startLocalWorker', () => {
  it('delivers a backlog one message at a time and empties the queue', async () => {
    // Prepare
    const leads = [];
    for (let i = 0; i < 5; i += 1) {
      const lead = await h.record('site', formCapture());
      await queue.send(lead.leadId);
      leads.push(lead);
    }
    await queue.send('not-a-lead-id');

    // Act
    const worker = startLocalWorker({ queue, deps: h.deps(), visibilityMs: 60_000, pollMs: 50 });
    await until(async () => (await queue.depth()).queued === 0);
    await worker.stop(5_000);

    // Assess
    for (const lead of leads) {
      expect((await h.ledger.get(lead.leadId))?.status).toBe('delivered');
    }
    expect(await h.prospects()).toHaveLength(5);
    expect(await queue.depth()).toEqual({ queued: 0, dead: 0 });
  });

  it('re-sends a retry as a fresh message of the lead’s chain, hidden for the delay', async () => {
    // Prepare
    const slow = slowForward(0, { kind: 'retry', delayMs: 60_000, reason: 'test', version: 5 });

    // Act
    const { lead, worker } = await workOnOneLead(slow, 1_000);
    // Longer than the visibility timeout: had the delay not been applied, it would be back.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await worker.stop(1_000);

    // Assess: one message, new (first receive), for version 5, visible after 60 s.
    expect(slow.calls()).toBe(1);
    expect(await queue.receive({ max: 10, visibilityMs: 1_000 })).toEqual([]);
    const due = await queue.receive({ max: 10, visibilityMs: 1_000, now: Date.now() + 61_000 });
    expect(due.map((m) => [m.leadId, m.version, m.receiveCount])).toEqual([[lead.leadId, 5, 1]]);
  });

  it('re-sends a waiting lead, so that no wait ever reaches the dead-letter queue', async () => {
    // Prepare: the use case holds the lead back 12 times (more than maxReceiveCount, 8), as a
    // long 429 storm or a refused key would, then delivers it.
    const lead = await h.record('site', formCapture());
    await queue.send(lead.leadId);
    let calls = 0;
    const forward = async (): Promise<ForwardOutcome> => {
      calls += 1;
      return calls <= 12
        ? { kind: 'retry', delayMs: 0, reason: 'rate-limited', version: 0 }
        : { kind: 'done', reason: 'delivered' };
    };

    // Act
    const worker = startLocalWorker({
      queue,
      deps: h.deps(),
      visibilityMs: 60_000,
      pollMs: 20,
      forward,
    });
    await until(async () => calls >= 13 && (await queue.depth()).queued === 0);
    await worker.stop(1_000);

    // Assess
    expect(calls).toBe(13);
    expect(await queue.depth()).toEqual({ queued: 0, dead: 0 });
  });

  it('delays a re-sent lead as asked, at most 900 s like SQS', async () => {
    // Prepare
    const slow = slowForward(0, {
      kind: 'retry',
      delayMs: 3_600_000,
      reason: 'circuit-open',
      version: 0,
    });
    const { lead, worker } = await workOnOneLead(slow, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await worker.stop(1_000);

    // Act: look 899 s and 901 s ahead.
    const early = await queue.receive({ max: 10, visibilityMs: 1_000, now: Date.now() + 899_000 });
    const due = await queue.receive({ max: 10, visibilityMs: 1_000, now: Date.now() + 901_000 });

    // Assess: one message, the new one (received for the first time), due after 900 s.
    expect(slow.calls()).toBe(1);
    expect(early).toEqual([]);
    expect(due.map((m) => [m.leadId, m.receiveCount])).toEqual([[lead.leadId, 1]]);
    expect(await queue.depth()).toMatchObject({ queued: 1, dead: 0 });
  });

  it('lets the message in flight finish when it can within the deadline', async () => {
    // Prepare
    const slow = slowForward(300);
    const { worker } = await workOnOneLead(slow, 60_000);

    // Act
    await worker.stop(5_000);

    // Assess: finished and deleted.
    expect(await queue.depth()).toEqual({ queued: 0, dead: 0 });
  });

  it('hands the message in flight back when the deadline passes first', async () => {
    // Prepare
    const slow = slowForward(3_000);
    const { lead, worker } = await workOnOneLead(slow, 60_000);

    // Act
    const stopping = Date.now();
    await worker.stop(100);
    const tookMs = Date.now() - stopping;

    // Assess: visible again at once, for the next worker.
    expect(tookMs).toBeLessThan(2_000);
    const [again] = await queue.receive({ max: 1, visibilityMs: 60_000 });
    expect(again).toMatchObject({ leadId: lead.leadId, receiveCount: 2 });
    // The abandoned attempt ends later without touching the message it no longer owns.
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    expect((await queue.depth()).queued).toBe(1);
  });
});
