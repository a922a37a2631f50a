/**
 * The reconciler on a real ledger (dynalite) and the local lead queue (SQS semantics): it finds
 * the leads nothing is working on through the due index and wakes each once, for its chain.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ReconcileDeps,
  type ReconcileResult,
  reconcile,
} from '../../../functions/delivery/reconcile/reconcile.ts';
import { PROFILE_WAIT } from '../../../functions/delivery/waiting.ts';
import type { LeadLedger, LeadRecord } from '../../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../../functions/ledger/lead-ledger-dynamodb.ts';
import {
  createLocalLeadQueue,
  LOCAL_QUEUE_TABLE_DEFINITION,
  type LocalLeadQueue,
} from '../../../functions/ledger/lead-queue-local.ts';
import { type Circuit, createMemoryCircuit } from '../../../functions/upstream/circuit.ts';
import { ensureTable } from '../../../local/dynamodb-local.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../../helpers/dynalite.ts';
import { formCapture } from '../harness.ts';

const GRACE_MS = 60_000;
const T0 = Date.parse('2026-05-04T10:00:00.000Z');

let dynamo: TestDynamo;
let ledger: LeadLedger;
let queue: LocalLeadQueue;
let circuit: Circuit;
let tables = 0;
let woken: { leadId: string; status: string; version: number; delayMs: number }[];

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo?.close());
beforeEach(async () => {
  tables += 1;
  const tableName = await dynamo.createLedgerTable();
  ledger = createDynamoLedger({
    erasureSalt: TEST_ERASURE_SALT,
    client: dynamo.client,
    tableName,
    wakeGraceMs: GRACE_MS,
  });
  const queueTable = `reconcile-queue-${tables}`;
  await ensureTable(dynamo.admin, LOCAL_QUEUE_TABLE_DEFINITION, queueTable);
  queue = createLocalLeadQueue({
    client: dynamo.client,
    tableName: queueTable,
    maxReceiveCount: 8,
  });
  circuit = createMemoryCircuit();
  woken = [];
});

/** A lead recorded at `at` (epoch ms) with no message sent, as after a crash. */
async function recorded(at = T0): Promise<LeadRecord> {
  const capture = formCapture();
  const { lead } = await ledger.record({
    profile: 'site',
    source: 'form',
    dedupKey: capture.dedupKey,
    capture,
    status: 'queued',
    receivedAt: new Date(at),
  });
  return lead;
}

function run(atMs: number, over: Partial<ReconcileDeps> = {}): Promise<ReconcileResult> {
  return reconcile({
    ledger,
    queue,
    circuitOf: () => circuit,
    accountOf: async () => 'default',
    options: { wakeGraceMs: GRACE_MS },
    events: { woke: (event) => woken.push(event), finished: () => {} },
    now: () => new Date(atMs),
    ...over,
  });
}

/** The messages visible at `atMs`, as [leadId, version]. */
async function messagesAt(atMs: number): Promise<[string, number | undefined][]> {
  const messages = await queue.receive({ max: 100, visibilityMs: 1, now: atMs });
  return messages.map((m) => [m.leadId, m.version]);
}

describe('reconcile', () => {
  it('leaves a lead alone while someone may still pick it up (its grace)', async () => {
    await recorded();

    const result = await run(T0 + GRACE_MS - 1_000);

    expect(result).toEqual({ due: 0, woken: 0, skipped: 0, more: false });
    expect(await messagesAt(Date.now() + 1_000)).toEqual([]);
  });

  it('wakes a queued lead nobody sent a message for, once, for its chain', async () => {
    const lead = await recorded();

    const first = await run(T0 + GRACE_MS + 1_000);
    const again = await run(T0 + GRACE_MS + 2_000);

    expect(first).toEqual({ due: 1, woken: 1, skipped: 0, more: false });
    expect(again).toEqual({ due: 0, woken: 0, skipped: 0, more: false });
    expect(await messagesAt(Date.now() + 1_000)).toEqual([[lead.leadId, lead.version]]);
    expect(woken).toEqual([
      { leadId: lead.leadId, status: 'queued', version: lead.version, delayMs: 0 },
    ]);
    // Noted in the ledger: the next look is a grace period on.
    const after = await ledger.get(lead.leadId);
    expect(Date.parse(after?.dueAt ?? '')).toBe(T0 + 2 * GRACE_MS + 1_000);
  });

  it("sends the wake-up in the lead's account's group, the recorded account first", async () => {
    // Prepare: one lead that recorded its account, one from before leads recorded theirs.
    const capture = formCapture();
    const { lead: south } = await ledger.record({
      profile: 'site',
      account: 'south',
      source: 'form',
      dedupKey: capture.dedupKey,
      capture,
      status: 'queued',
      receivedAt: new Date(T0),
    });
    const old = await recorded();

    // Act
    await run(T0 + GRACE_MS + 1_000, { accountOf: async () => 'north' });

    // Assess
    const messages = await queue.receive({ max: 10, visibilityMs: 1, now: Date.now() + 1_000 });
    const groups = Object.fromEntries(messages.map((m) => [m.leadId, m.group]));
    expect(groups).toEqual({ [south.leadId]: 'south', [old.leadId]: 'north' });
  });

  it('wakes it again when the woken message was lost too', async () => {
    const lead = await recorded();
    await run(T0 + GRACE_MS + 1_000);
    await queue.receive({ max: 100, visibilityMs: 3_600_000 });

    const later = await run(T0 + 2 * GRACE_MS + 2_000);

    expect(later.woken).toBe(1);
    expect(woken.map((w) => w.leadId)).toEqual([lead.leadId, lead.leadId]);
  });

  it('wakes a lead whose attempt died holding it, once the lease is over', async () => {
    const lead = await recorded();
    const leaseMs = 30_000;
    const claimed = await ledger.claim(lead.leadId, lead.version, leaseMs, new Date(T0));

    const during = await run(T0 + leaseMs - 1);
    const after = await run(T0 + leaseMs + GRACE_MS + 1);

    expect(during.woken).toBe(0);
    expect(after.woken).toBe(1);
    expect(woken[0]).toMatchObject({ status: 'sending', version: claimed?.version });
  });

  it('sends the wake-up for the circuit’s next probe while the upstream is down', async () => {
    const lead = await recorded();
    const now = T0 + GRACE_MS + 1_000;
    await circuit.failed(now, { immediate: true, reason: 'ECONNREFUSED', probe: false });

    await run(now);

    expect(woken).toEqual([
      { leadId: lead.leadId, status: 'queued', version: lead.version, delayMs: 1_000 },
    ]);
  });

  it("keeps an open circuit's probe carried: a carrier settled another way is released and one waiting lead woken", async () => {
    // Prepare: the circuit open; lead C carries its probe, then is delivered another way (a
    // lookup found its prospect); two leads wait for the circuit with no message.
    await circuit.failed(T0, { immediate: true, reason: 'ECONNREFUSED', probe: false });
    const carrier = await recorded(T0);
    const first = await recorded(T0 + 1);
    const second = await recorded(T0 + 2);
    expect(await circuit.carry(T0, carrier.leadId, T0 + 120_000)).toBe(true);
    await ledger.claim(carrier.leadId, carrier.version, 30_000, new Date(T0));
    await ledger.markDelivered(carrier.leadId, 4242, new Date(T0));
    for (const lead of [first, second]) {
      const wait = { circuit: 'default', recheckAt: new Date(T0 + 600_000), note: 'aguardando' };
      await ledger.waitFor(lead.leadId, lead.version, { ...wait, now: new Date(T0) });
    }

    // Act
    const result = await run(T0 + 1_000, { accounts: async () => ['default'] });

    // Assess: released; one waiting lead has a message, to take the probe or carry it; the
    // other still waits with none (one a run: an outage's messages stay flat).
    expect((await circuit.read()).carrier).toBeUndefined();
    expect(result.woken).toBe(1);
    const messaged = (await messagesAt(Date.now() + 1_000)).map(([leadId]) => leadId);
    const stillWaiting = (await ledger.listWaiting('default')).leads.map((l) => l.leadId);
    expect(messaged).toHaveLength(1);
    expect([...messaged, ...stillWaiting].sort()).toEqual([first.leadId, second.leadId].sort());
  });

  it('wakes the leads waiting for a profile the settings have again, and only those', async () => {
    // Prepare: two leads of `site` met the gap while it was out of the settings; one of `gone`.
    const back = [await recorded(T0), await recorded(T0 + 1)];
    const capture = formCapture();
    const { lead: gone } = await ledger.record({
      profile: 'gone',
      source: 'form',
      dedupKey: capture.dedupKey,
      capture,
      status: 'queued',
      receivedAt: new Date(T0),
    });
    for (const lead of [...back, gone]) {
      const wait = { circuit: PROFILE_WAIT, recheckAt: new Date(T0 + 300_000), note: 'aguarda' };
      await ledger.waitFor(lead.leadId, lead.version, { ...wait, now: new Date(T0) });
    }

    // Act: a run before `site` is back, then one after (the settings' new version).
    const before = await run(T0 + 1_000, { profileNames: async () => ['other'] });
    const after = await run(T0 + 2_000, { profileNames: async () => ['site', 'other'] });

    // Assess: woken at once (a message each, their recheck minutes away), `gone` still waits.
    expect(before.woken).toBe(0);
    expect(after.woken).toBe(2);
    const messaged = (await messagesAt(Date.now() + 1_000)).map(([leadId]) => leadId);
    expect(messaged.sort()).toEqual(back.map((lead) => lead.leadId).sort());
    const stillWaiting = (await ledger.listWaiting(PROFILE_WAIT)).leads.map((l) => l.leadId);
    expect(stillWaiting).toEqual([gone.leadId]);
  });

  it("leaves an open circuit's live carrier alone (it holds the probe's message)", async () => {
    await circuit.failed(T0, { immediate: true, reason: 'ECONNREFUSED', probe: false });
    const carrier = await recorded(T0);
    const waiting = await recorded(T0 + 1);
    expect(await circuit.carry(T0, carrier.leadId, T0 + 120_000)).toBe(true);
    const wait = { circuit: 'default', recheckAt: new Date(T0 + 600_000), note: 'aguardando' };
    await ledger.waitFor(waiting.leadId, waiting.version, { ...wait, now: new Date(T0) });

    const result = await run(T0 + 1_000, { accounts: async () => ['default'] });

    expect(result.woken).toBe(0);
    expect((await circuit.read()).carrier).toBe(carrier.leadId);
    expect((await ledger.listWaiting('default')).leads.map((l) => l.leadId)).toEqual([
      waiting.leadId,
    ]);
  });

  it('never lists a settled lead', async () => {
    const lead = await recorded();
    const claimed = await ledger.claim(lead.leadId, lead.version, 30_000, new Date(T0));
    await ledger.markParked(lead.leadId, claimed?.version ?? 0, 'no branch', new Date(T0));

    expect((await run(T0 + 10 * GRACE_MS)).due).toBe(0);
  });

  it('wakes each lead once when two reconcilers run at the same time', async () => {
    const leads = await Promise.all(Array.from({ length: 6 }, (_, i) => recorded(T0 + i)));
    const now = T0 + GRACE_MS + 1_000;

    const [a, b] = await Promise.all([run(now), run(now)]);

    expect((a?.woken ?? 0) + (b?.woken ?? 0)).toBe(6);
    expect(new Set(woken.map((w) => w.leadId))).toEqual(new Set(leads.map((l) => l.leadId)));
    expect(woken).toHaveLength(6);
  });

  it('stops with more: true at maxLeads, and the next run wakes the rest', async () => {
    await Promise.all(Array.from({ length: 5 }, (_, i) => recorded(T0 + i)));
    const now = T0 + GRACE_MS + 1_000;

    const first = await run(now, {
      options: { wakeGraceMs: GRACE_MS, maxLeads: 3, pageSize: 2 },
    });
    const second = await run(now + 1);

    expect(first).toMatchObject({ woken: 3, more: true });
    expect(second).toMatchObject({ woken: 2, more: false });
  });
});
