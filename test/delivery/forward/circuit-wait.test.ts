/**
 * Waiting for an account's circuit costs nothing (functions/delivery/waiting.ts): while the
 * upstream refuses connections, one lead carries the probe and every other waits in the ledger
 * with no message; the probe that closes the circuit wakes them, once each. Attempts are counted
 * as the queue would run them: each message is one attempt, however many minutes pass.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ForwardOutcome } from '../../../functions/delivery/forward/attempt.ts';
import { reconcile } from '../../../functions/delivery/reconcile/reconcile.ts';
import type { LeadRecord } from '../../../functions/ledger/lead-ledger.ts';
import type { LeadQueueSendOptions } from '../../../functions/ledger/lead-queue.ts';
import { createDynamoCircuit } from '../../../functions/upstream/circuit-dynamodb.ts';
import { freePort } from '../../helpers/gateway-process.ts';
import { type DeliveryHarness, formCapture, startDeliveryHarness } from '../harness.ts';

let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
}, 60_000);
afterAll(() => h?.close());
beforeEach(() => h.reset());

const LEADS = 10;

describe('leads waiting for an open circuit', () => {
  it('hold one message between them, and each is woken once when the probe succeeds', async () => {
    // Prepare: nothing listens where the upstream should be; ten leads, each with its message.
    const sandboxUrl = h.config.upstream.baseUrl;
    h.config.upstream = { ...h.config.upstream, baseUrl: `http://127.0.0.1:${await freePort()}` };
    const sent: { leadId: string; options: LeadQueueSendOptions }[] = [];
    const queue = {
      send: async (leadId: string, options: LeadQueueSendOptions = {}) => {
        sent.push({ leadId, options });
      },
    };
    const leads: LeadRecord[] = [];
    for (let i = 0; i < LEADS; i += 1) leads.push(await h.record('site', formCapture()));

    // Act: every message runs once (the first opens the circuit); then, for several probe
    // intervals, whatever message is still going round runs when it is due, and the reconciler
    // runs each time, as it does every minute.
    const first: ForwardOutcome[] = [];
    for (const lead of leads) first.push(await h.step(lead.leadId, { queue }));
    let inFlight = first.flatMap((outcome, i) =>
      outcome.kind === 'retry' ? [leads[i]?.leadId ?? ''] : [],
    );
    const attemptsPerRound: number[] = [];
    for (let round = 0; round < 6; round += 1) {
      const next: string[] = [];
      for (const leadId of inFlight) {
        const outcome = await h.step(leadId, { queue });
        if (outcome.kind === 'retry') next.push(leadId);
      }
      attemptsPerRound.push(inFlight.length);
      const woken = await reconcile({
        ledger: h.ledger,
        queue,
        circuitOf: () => createDynamoCircuit({ client: h.dynamo.client, tableName: h.table }),
        accountOf: async () => 'default',
        now: () => new Date(Date.now() + h.offsetMs),
      });
      expect(woken.woken).toBe(0);
      inFlight = next;
    }
    const waiting = await Promise.all(leads.map((lead) => h.ledger.get(lead.leadId)));

    // Act: the upstream is back; the carrier's message runs and its probe closes the circuit.
    h.config.upstream = { ...h.config.upstream, baseUrl: sandboxUrl };
    const carrier = inFlight[0] ?? '';
    const probe = await h.step(carrier, { queue });
    const wakeUps = sent.filter((s) => s.leadId !== carrier);
    for (const wake of wakeUps) await h.step(wake.leadId, { queue });

    // Assess: during the outage one message went round (the probe's carrier's), the others
    // waited in the ledger, visibly, uncounted and with nothing due soon.
    expect(first.map((o) => o.kind)).toEqual(['retry', ...leads.slice(1).map(() => 'done')]);
    expect(attemptsPerRound).toEqual([1, 1, 1, 1, 1, 1]);
    expect(carrier).toBe(leads[0]?.leadId);
    const others = waiting.filter((lead) => lead?.leadId !== carrier);
    for (const lead of others) {
      expect(lead).toMatchObject({ status: 'queued', attempts: 0 });
      expect(lead?.lastError).toMatch(/aguardando a conta 'default'/);
    }
    // After: every lead delivered once; each waiting lead got exactly one wake-up.
    expect(probe).toEqual({ kind: 'done', reason: 'delivered' });
    expect(wakeUps.map((s) => s.leadId).sort()).toEqual(
      leads
        .map((l) => l.leadId)
        .filter((id) => id !== carrier)
        .sort(),
    );
    expect(new Set(wakeUps.map((s) => s.options.group))).toEqual(new Set(['default']));
    const after = await Promise.all(leads.map((lead) => h.ledger.get(lead.leadId)));
    expect(after.map((lead) => lead?.status)).toEqual(leads.map(() => 'delivered'));
    expect(after.map((lead) => lead?.attempts)).toEqual(leads.map(() => 0));
    expect((await h.prospects()).length).toBe(LEADS);
  });
});

describe('a lead whose profile is no longer configured', () => {
  it('waits for it, visibly and uncounted, and is delivered once it is back', async () => {
    // Prepare: a lead accepted for `site`; then `site` is removed from the configuration.
    const lead = await h.record('site', formCapture());
    const site = h.config.profiles.site;
    delete h.config.profiles.site;

    // Act
    const waiting = await h.step(lead.leadId);
    const stored = await h.ledger.get(lead.leadId);
    if (site) h.config.profiles.site = site;
    const back = await h.step(lead.leadId);

    // Assess: never parked; it said why it waited, in Portuguese, and came back a minute later.
    expect(waiting).toMatchObject({ kind: 'retry', reason: 'no-profile', delayMs: 60_000 });
    expect(stored).toMatchObject({ status: 'queued', attempts: 0 });
    expect(stored?.lastError).toMatch(/o perfil 'site' não está configurado/);
    expect(back).toEqual({ kind: 'done', reason: 'delivered' });
    expect((await h.prospects()).length).toBe(1);
  });
});
