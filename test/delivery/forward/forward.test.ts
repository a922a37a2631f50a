/**
 * forwardLead against the real sandbox upstream, a dynalite ledger and the shared DynamoDB pacer
 * and circuit: every outcome of the upstream's answer, the circuit that keeps an outage from
 * touching any lead, failures counted only when they are the lead's own, the delivery chain
 * that a stale message cannot touch, the Meta Graph completion, and the ambiguous POST resolved
 * by a lookup. `h.step` plays the queue: each attempt runs when the lead's chain is due.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Profile } from '../../../functions/config/config-schema.ts';
import {
  checkLookupPermission,
  classifyUnavailable,
  isAmbiguousPost,
  matchesProspect,
} from '../../../functions/delivery/forward/ambiguity.ts';
import { backoffMs, leaseMsFor } from '../../../functions/delivery/forward/attempt.ts';
import { forwardLead } from '../../../functions/delivery/forward/forward.ts';
import type { LeadCapture } from '../../../functions/domain/lead.ts';
import { createUpstreamClient } from '../../../functions/upstream/upstream-client.ts';
import { UpstreamError } from '../../../functions/upstream/upstream-errors.ts';
import { prospectBody } from '../../../functions/upstream/upstream-prospects.ts';
import { freePort } from '../../helpers/gateway-process.ts';
import { mapCapture } from '../../helpers/map-capture.ts';
import {
  type DeliveryHarness,
  formCapture,
  offsetClock,
  startDeliveryHarness,
} from '../harness.ts';

const POSTS = 'POST /api/v1/prospects';
const LOOKUPS = 'GET /api/v1/prospects';

let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(() => h?.close());
beforeEach(() => h.reset());

function profile(name: string): Profile {
  const found = h.config.profiles[name];
  if (!found) throw new Error(`no profile ${name}`);
  return found;
}

/** A fetch that answers `status` to POSTs of the prospect with this email, and passes the rest. */
function failingFor(email: string, status: number): typeof fetch {
  return async (input, init) => {
    if (init?.method === 'POST' && String(init.body ?? '').includes(email)) {
      return new Response('', { status });
    }
    return fetch(input, init);
  };
}

describe('forwardLead: delivery', () => {
  it('posts the mapped prospect and marks the lead delivered with its id', async () => {
    // Prepare
    const capture = formCapture();
    const lead = await h.record('site', capture);

    // Act
    const outcome = await forwardLead({ leadId: lead.leadId, version: 0 }, h.deps());

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'delivered' });
    const [created] = await h.prospects();
    const expected = mapCapture(capture, profile('site')).prospect;
    expect(created?.body).toEqual(JSON.parse(JSON.stringify(prospectBody(expected))));
    expect(await h.ledger.get(lead.leadId)).toMatchObject({
      status: 'delivered',
      idProspect: created?.idProspect,
      attempts: 0,
      tries: 1,
    });
    expect(h.recorded.metrics).toEqual(['LeadDelivered']);
    expect(h.recorded.events).toEqual([
      {
        leadId: lead.leadId,
        profile: 'site',
        attempt: 1,
        counted: 0,
        outcome: 'done',
        reason: 'delivered',
        status: 'delivered',
      },
    ]);
  });

  it('never posts a delivered lead again, whatever message comes', async () => {
    // Prepare
    const lead = await h.record('site', formCapture());
    const deps = h.deps();

    // Act
    const first = await forwardLead({ leadId: lead.leadId, version: 0 }, deps);
    const sameMessage = await forwardLead({ leadId: lead.leadId, version: 0 }, deps);
    const newerMessage = await forwardLead({ leadId: lead.leadId, version: 1 }, deps);
    const legacyMessage = await forwardLead({ leadId: lead.leadId }, deps);

    // Assess
    expect(first.reason).toBe('delivered');
    for (const again of [sameMessage, newerMessage, legacyMessage]) {
      expect(again).toEqual({ kind: 'done', reason: 'already-delivered' });
    }
    expect(await h.calls(POSTS)).toEqual({ '200': 1 });
  });

  it('ignores a message of another chain: a redelivered lead never starts a second chain', async () => {
    // Prepare: the lead failed once (its chain moved to version 1 and waits for its next try).
    const lead = await h.record('site', formCapture());
    await h.setFaults({ postStatus: 503 });
    const failed = await h.step(lead.leadId);
    await h.setFaults({});

    // Act: the intake's first message (version 0) is redelivered, ten times.
    const stale = await Promise.all(
      Array.from({ length: 10 }, () => forwardLead({ leadId: lead.leadId, version: 0 }, h.deps())),
    );

    // Assess
    expect(failed).toMatchObject({ kind: 'retry', version: 1 });
    for (const outcome of stale) expect(outcome).toEqual({ kind: 'done', reason: 'stale-message' });
    expect(await h.calls(POSTS)).toEqual({ '503': 1 });
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'queued', version: 1 });
  });

  it('carries the chain on with the message of an attempt that died holding the lead', async () => {
    // Prepare: the message (version 0) started an attempt that claimed the lead (version 1)
    // and died; the message comes back (handed back, or after its visibility timeout).
    const lead = await h.record('site', formCapture());
    await h.ledger.claim(lead.leadId, lead.version, 1_000, new Date());

    // Act: it comes back once the lease is over and a POST it may have sent has settled (20 s).
    const message = { leadId: lead.leadId, version: lead.version };
    const later = 25_000;
    const outcome = await forwardLead(message, h.deps({ offsetMs: later }), offsetClock(later));
    const again = await forwardLead(message, h.deps({ offsetMs: later }), offsetClock(later));

    // Assess: the lead is delivered (after a lookup: the dead attempt may have posted).
    expect(outcome).toEqual({ kind: 'done', reason: 'delivered' });
    expect(again).toEqual({ kind: 'done', reason: 'already-delivered' });
    expect(await h.calls(POSTS)).toEqual({ '200': 1 });
    expect(await h.calls(LOOKUPS)).toEqual({ '200': 1 });
  });

  it('answers done for an unknown lead and waits while another attempt holds the lease', async () => {
    // Prepare
    const lead = await h.record('site', formCapture());
    const claimed = await h.ledger.claim(lead.leadId, 0, 20_000, new Date());

    // Act
    const unknown = await forwardLead({ leadId: 'ld_0000000000AAAAAAAAAAAA' }, h.deps());
    const held = await forwardLead({ leadId: lead.leadId, version: claimed?.version }, h.deps());

    // Assess
    expect(unknown).toEqual({ kind: 'done', reason: 'unknown-lead' });
    expect(held).toMatchObject({ kind: 'retry', reason: 'lease-held', version: 1 });
    expect(held.delayMs).toBeGreaterThan(15_000);
    expect(held.delayMs).toBeLessThanOrEqual(21_000);
    expect(await h.calls(POSTS)).toEqual({});
  });

  it('waits, touching nothing, when a message comes before the lead is due', async () => {
    // Prepare: a lead whose next attempt is ten minutes away (SQS delays at most 15).
    const lead = await h.record('site', formCapture());
    await h.ledger.claim(lead.leadId, 0, 20_000, new Date());
    const released = await h.ledger.release(
      lead.leadId,
      1,
      { nextAttemptAt: new Date(Date.now() + 600_000), error: 'x', counted: false, failed: false },
      new Date(),
    );

    // Act
    const early = await forwardLead({ leadId: lead.leadId, version: 1 }, h.deps());

    // Assess
    expect(early).toMatchObject({ kind: 'retry', reason: 'not-due-yet', version: 1 });
    expect(early.delayMs).toBeGreaterThan(590_000);
    expect(await h.ledger.get(lead.leadId)).toEqual(released);
  });
});

describe('forwardLead: the upstream refuses', () => {
  it('marks a 400 rejected with the upstream messages and never retries it', async () => {
    // Prepare: the Prospect API passes the prospect through; this CPF fails its check digits.
    const capture: LeadCapture = {
      source: 'prospect',
      dedupKey: 'key:reject-1',
      isTest: false,
      answers: [],
      attribution: {},
      prospect: {
        name: 'Maria',
        lastName: 'Souza',
        email: 'maria.rejected@example.com',
        idBranch: 1,
        cellphone: '11987654321',
        cpf: '12345678900',
      },
    };
    const lead = await h.record('native', capture);

    // Act
    const outcome = await h.step(lead.leadId);
    const again = await h.step(lead.leadId);

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'rejected' });
    expect(again).toEqual({ kind: 'done', reason: 'already-rejected' });
    const stored = await h.ledger.get(lead.leadId);
    expect(stored?.status).toBe('rejected');
    expect(stored?.messages).toEqual(["O campo 'cpf' deve ser um CPF válido (11 dígitos)."]);
    expect(h.recorded.metrics).toEqual(['LeadRejected']);
    expect(h.recorded.events[0]).toMatchObject({ errorKind: 'rejected', errorStatus: 400 });
    expect(await h.calls(POSTS)).toEqual({ '400': 1 });
  });

  it('on a 401 opens the circuit at once, keeps every lead uncounted, and the probe closes it', async () => {
    // Prepare
    const first = await h.record('site', formCapture());
    const second = await h.record('site', formCapture());
    let refreshed = 0;

    // Act: the key is refused.
    const refused = await h.step(first.leadId, {
      password: 'wrong',
      onUnauthorized: () => (refreshed += 1),
    });
    // Another lead, while the circuit is open: it does not reach the upstream.
    const waiting = await h.step(second.leadId, { password: 'wrong' });
    // The key is fixed; the first lead is due again when the probe may go.
    const probe = await h.step(first.leadId);
    const after = await h.step(second.leadId);

    // Assess
    expect(refused).toMatchObject({ kind: 'retry', reason: 'unauthorized', version: 1 });
    expect(refused.delayMs).toBe(1_000);
    // It waits in the ledger with no message: the first lead carries the probe.
    expect(waiting).toEqual({ kind: 'done', reason: 'circuit-wait' });
    expect((await h.ledger.get(second.leadId))?.lastError).toMatch(/aguardando a conta/);
    expect(probe).toEqual({ kind: 'done', reason: 'delivered' });
    expect(after).toEqual({ kind: 'done', reason: 'delivered' });
    expect(refreshed).toBe(1);
    expect(await h.calls(POSTS)).toEqual({ '401': 1, '200': 2 });
    expect(await h.ledger.get(first.leadId)).toMatchObject({ status: 'delivered', attempts: 0 });
    expect(h.recorded.metrics).toEqual([
      'UpstreamAuthFailure',
      'UpstreamCircuitOpened',
      'LeadRetried',
      'UpstreamCircuitClosed',
      'LeadDelivered',
      'LeadDelivered',
    ]);
    expect(h.recorded.events[2]).toMatchObject({ note: 'probe' });
  });

  it('says on every retry how long the lead has waited since it was received', async () => {
    // Prepare: a lead received 20 minutes before this attempt, the upstream refusing the key.
    const lead = await h.record('site', formCapture());

    // Act
    const outcome = await h.step(lead.leadId, { password: 'wrong', offsetMs: 20 * 60_000 });

    // Assess: what the LeadWaitingSeconds metric (and its alarm) is fed with.
    expect(outcome).toMatchObject({ kind: 'retry' });
    expect(h.recorded.events[0]?.waitingSeconds).toBeGreaterThanOrEqual(1_200);
    expect(h.recorded.events[0]?.waitingSeconds).toBeLessThan(1_210);
  });

  it('waits exactly Retry-After after a 429, in its place, without counting', async () => {
    // Prepare: one request per minute, used up by somebody else.
    await h.setFaults({ perSecond: 100, perMinute: 1 });
    const auth = `Basic ${Buffer.from('demo:demo').toString('base64')}`;
    await fetch(`${h.sandbox.url}/api/v1/receivables/debtors?take=1`, {
      headers: { authorization: auth },
    });
    const lead = await h.record('site', formCapture());

    // Act
    const outcome = await h.step(lead.leadId);

    // Assess
    expect(outcome).toMatchObject({ kind: 'retry', reason: 'rate-limited', version: 1 });
    expect(outcome.delayMs).toBeGreaterThanOrEqual(55_000);
    expect(outcome.delayMs).toBeLessThanOrEqual(60_000);
    const waiting = await h.ledger.get(lead.leadId);
    expect(waiting).toMatchObject({ status: 'queued', attempts: 0 });
    expect(waiting?.lastFailureAt).toBeUndefined();
    // The client paused the shared pacer until Retry-After, for everyone.
    const item = await h.dynamo.client.get({ TableName: h.table, Key: { pk: 'pacer#upstream' } });
    expect(item.Item?.next).toBeGreaterThan(Date.now() + 50_000);

    // Act: once the window has passed.
    await h.setFaults({});
    await fetch(`${h.sandbox.url}/_sandbox/rate-limit`, { method: 'DELETE' });
    const retried = await h.step(lead.leadId);

    // Assess
    expect(retried).toEqual({ kind: 'done', reason: 'delivered' });
  });
});

describe('forwardLead: the upstream fails', () => {
  it('never counts an outage against a lead: refused connections open the circuit at once', async () => {
    // Prepare: nothing listens where the upstream should be.
    h.config.upstream = { ...h.config.upstream, baseUrl: `http://127.0.0.1:${await freePort()}` };
    const lead = await h.record('site', formCapture());
    const deps = { options: { maxAttempts: 1 } };

    // Act: ten attempts, each when the circuit's next probe is due.
    const outcomes = [];
    for (let i = 0; i < 10; i += 1) outcomes.push(await h.step(lead.leadId, deps));
    h.config.upstream = { ...h.config.upstream, baseUrl: h.sandbox.url };
    const restored = await h.step(lead.leadId, deps);

    // Assess: never counted, never dead; the probe interval doubles up to its cap.
    expect(outcomes.every((o) => o.kind === 'retry')).toBe(true);
    expect(outcomes.map((o) => o.delayMs)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 20_000, 20_000, 20_000, 20_000, 20_000,
    ]);
    expect(restored).toEqual({ kind: 'done', reason: 'delivered' });
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'delivered', attempts: 0 });
    expect(await h.calls(LOOKUPS)).toEqual({});
  });

  it('opens the circuit after consecutive 503s; a 503 is not ambiguous, so no lookup follows', async () => {
    // Prepare
    await h.setFaults({ postStatus: 503 });
    const leads = await Promise.all([1, 2, 3].map(() => h.record('site', formCapture())));

    // Act
    const failures = [];
    for (const lead of leads) failures.push(await h.step(lead.leadId));
    await h.setFaults({});
    // Each lead is stepped when due until it settles: those due before the probe wait for it
    // (one carrying the probe with a message, the others in the ledger until it closes).
    const delivered = [];
    for (const lead of leads) {
      let outcome = await h.step(lead.leadId);
      const waits = (o: typeof outcome) => o.kind === 'retry' || o.reason === 'circuit-wait';
      for (let i = 0; i < 5 && waits(outcome); i += 1) {
        expect(['circuit-open', 'circuit-wait']).toContain(outcome.reason);
        outcome = await h.step(lead.leadId, { later: outcome.kind === 'done' ? 1_000 : 0 });
      }
      delivered.push(outcome);
    }

    // Assess: backoff (random 0.5 over 2 s) twice, then the circuit opens for the probe.
    expect(failures.map((o) => [o.reason, o.delayMs])).toEqual([
      ['unavailable', 1_000],
      ['unavailable', 1_000],
      ['unavailable', 1_000],
    ]);
    expect(h.recorded.metrics).toContain('UpstreamCircuitOpened');
    expect(delivered.every((o) => o.kind === 'done' && o.reason === 'delivered')).toBe(true);
    expect(await h.calls(POSTS)).toEqual({ '503': 3, '200': 3 });
    expect(await h.calls(LOOKUPS)).toEqual({});
    for (const lead of leads) {
      expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'delivered', attempts: 0 });
    }
  });

  it("counts a failure only when the upstream served other leads since the lead's last one", async () => {
    // Prepare: the upstream answers 500 to this one lead's POSTs and serves everyone else.
    const poison = formCapture();
    const email = poison.answers.find((a) => a.key === 'email')?.value as string;
    const lead = await h.record('site', poison);
    const deps = { fetch: failingFor(email, 500), options: { maxAttempts: 2 } };

    // Act: fail, another lead is delivered, fail (counted), another, fail (counted: dead).
    const outcomes = [];
    outcomes.push(await h.step(lead.leadId, deps));
    for (let round = 0; round < 2; round += 1) {
      const other = await h.record('site', formCapture());
      expect(await h.step(other.leadId, deps)).toMatchObject({ reason: 'delivered' });
      outcomes.push(await h.step(lead.leadId, deps));
    }

    // Assess
    expect(outcomes.map((o) => o.reason)).toEqual([
      'ambiguous-post',
      'ambiguous-post',
      'dead-after-2-failures',
    ]);
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'dead', attempts: 2 });
    expect(h.recorded.metrics.filter((m) => m === 'LeadDead')).toHaveLength(1);
  });

  it('resolves an ambiguous 500 with a lookup seconds later, then posts once more', async () => {
    // Prepare: the sandbox answers 500 to the POST without creating anything.
    await h.setFaults({ postStatus: 500 });
    const lead = await h.record('site', formCapture());

    // Act
    const first = await h.step(lead.leadId);
    await h.setFaults({});
    const second = await h.step(lead.leadId);

    // Assess: the lookup comes after lookupDelayMs (2 s), not a fixed half minute.
    expect(first).toMatchObject({ kind: 'retry', reason: 'ambiguous-post', delayMs: 2_000 });
    expect(second).toEqual({ kind: 'done', reason: 'delivered' });
    expect(await h.calls(POSTS)).toEqual({ '500': 1, '200': 1 });
    expect(await h.calls(LOOKUPS)).toEqual({ '200': 1 });
    expect(await h.prospects()).toHaveLength(1);
    expect(h.recorded.events[1]).toMatchObject({ attempt: 2, note: 'lookup-no-match' });
  });

  it('after a timeout finds the prospect the upstream created and delivers it exactly once', async () => {
    // Prepare: the sandbox creates the prospect on arrival and answers after 1.5 s.
    await h.setFaults({ latencyMs: 1_500 });
    const lead = await h.record('site', formCapture());

    // Act
    const first = await h.step(lead.leadId, { timeoutMs: 400 });
    await h.setFaults({});
    const second = await h.step(lead.leadId);

    // Assess
    expect(first).toMatchObject({ kind: 'retry', reason: 'ambiguous-post' });
    expect(second).toEqual({ kind: 'done', reason: 'delivered-by-lookup' });
    const created = await h.prospects();
    expect(created).toHaveLength(1);
    expect(await h.ledger.get(lead.leadId)).toMatchObject({
      status: 'delivered',
      idProspect: created[0]?.idProspect,
    });
    expect(await h.calls(POSTS)).toEqual({ '200': 1 });
    expect(h.recorded.events[1]).toMatchObject({ note: 'found-by-lookup' });
  });

  it('after a timeout with nothing found, looks again when it must have landed, then posts', async () => {
    // Prepare: the POST times out without reaching the upstream's store (an outage that drops it).
    await h.setFaults({ outage: true });
    const lead = await h.record('site', formCapture());
    const options = { options: { settleMs: 20_000 } };

    // Act
    const first = await h.step(lead.leadId, options);
    await h.setFaults({});
    const settling = await h.step(lead.leadId, options);
    const posted = await h.step(lead.leadId, options);

    // Assess
    expect(first).toMatchObject({ kind: 'retry', reason: 'ambiguous-post', delayMs: 2_000 });
    expect(settling).toMatchObject({ kind: 'retry', reason: 'lookup-settling' });
    expect(settling.delayMs).toBeGreaterThan(15_000);
    expect(posted).toEqual({ kind: 'done', reason: 'delivered' });
    expect(await h.calls(LOOKUPS)).toEqual({ '200': 2 });
    expect(await h.prospects()).toHaveLength(1);
  });

  it('looks up first when a previous attempt was cut off while sending', async () => {
    // Prepare: an attempt claimed the lead, posted, and died before recording it.
    const capture = formCapture();
    const lead = await h.record('site', capture);
    expect(await h.ledger.claim(lead.leadId, lead.version, 1_000, new Date())).toBeDefined();
    const auth = `Basic ${Buffer.from('demo:demo').toString('base64')}`;
    const body = mapCapture(capture, profile('site')).prospect;
    const posted = await fetch(`${h.sandbox.url}/api/v1/prospects`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(prospectBody(body)),
    });
    const { idProspect } = (await posted.json()) as { idProspect: number };

    // Act
    const outcome = await h.step(lead.leadId);

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'delivered-by-lookup' });
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'delivered', idProspect });
    expect(await h.calls(POSTS)).toEqual({ '200': 1 });
  });

  it('posts again when the key may not look prospects up, and says so', async () => {
    // Prepare: the first POST times out; then lookups are refused with 403.
    await h.setFaults({ latencyMs: 1_500 });
    const lead = await h.record('site', formCapture());
    await h.step(lead.leadId, { timeoutMs: 400 });
    await h.setFaults({ lookupForbidden: true });

    // Act
    const outcome = await h.step(lead.leadId);

    // Assess: at-least-once (the default): delivered, twice upstream, and it was made visible.
    expect(outcome).toEqual({ kind: 'done', reason: 'delivered' });
    expect(h.recorded.events[1]).toMatchObject({ note: 'lookup-unauthorized-posted-anyway' });
    expect(h.recorded.metrics).toContain('UpstreamLookupForbidden');
    expect(h.recorded.notices).toContainEqual(
      expect.objectContaining({ kind: 'lookupSkipped', outcome: 'posted-again' }),
    );
    expect(await h.prospects()).toHaveLength(2);
  });

  it('parks an ambiguous lead for a person when the profile says ambiguous: park', async () => {
    // Prepare
    h.config.profiles.site = { ...profile('site'), ambiguous: 'park' } as Profile;
    await h.setFaults({ latencyMs: 1_500 });
    const lead = await h.record('site', formCapture());
    await h.step(lead.leadId, { timeoutMs: 400 });
    await h.setFaults({ lookupForbidden: true });

    // Act
    const outcome = await h.step(lead.leadId);

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'ambiguous-parked' });
    const parked = await h.ledger.get(lead.leadId);
    expect(parked?.status).toBe('parked');
    expect(parked?.reason).toMatch(/may already have this prospect/);
    expect(await h.prospects()).toHaveLength(1);
  });

  it('marks a lead dead once it has waited past the delivery horizon', async () => {
    // Prepare
    h.config.profiles.site = profile('site');
    const lead = await h.record('site', formCapture());

    // Act
    const outcome = await h.step(lead.leadId, {
      options: { horizonMs: 60_000 },
      offsetMs: 61_000,
    });

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'dead-past-horizon' });
    const dead = await h.ledger.get(lead.leadId);
    expect(dead?.status).toBe('dead');
    expect(dead?.lastError).toMatch(/delivery horizon/);
    expect(await h.calls(POSTS)).toEqual({});
  });
});

describe('forwardLead: leads that cannot be sent as they are', () => {
  it('parks a lead missing required fields and maps it again with the current profile', async () => {
    // Prepare: the profile has no idBranch default yet.
    h.config.profiles.site = { source: 'form', token: 'demo-form-token' };
    const lead = await h.record('site', formCapture());

    // Act
    const parked = await h.step(lead.leadId);
    h.config.profiles.site = {
      source: 'form',
      token: 'demo-form-token',
      defaults: { idBranch: 7 },
    };
    await h.ledger.requeue(lead.leadId, new Date());
    const replayed = await h.step(lead.leadId);

    // Assess
    expect(parked).toEqual({ kind: 'done', reason: 'missing-fields' });
    expect(replayed).toEqual({ kind: 'done', reason: 'delivered' });
    expect(h.recorded.metrics).toEqual(['LeadParked', 'LeadDelivered']);
    const [created] = await h.prospects();
    expect(created?.body).toMatchObject({ idBranch: 7 });
    expect((await h.ledger.get(lead.leadId))?.prospect).toMatchObject({ idBranch: 7 });
  });

  it('parks a lead whose phone is missing, naming the field', async () => {
    const lead = await h.record(
      'site',
      formCapture({
        answers: [
          { key: 'name', value: 'Ana Lima' },
          { key: 'email', value: 'a@b.co' },
        ],
      }),
    );
    expect(await h.step(lead.leadId)).toEqual({ kind: 'done', reason: 'missing-fields' });
    expect((await h.ledger.get(lead.leadId))?.reason).toBe('falta o campo obrigatório celular');
    expect(await h.calls(POSTS)).toEqual({});
  });

  it("delivers an operator's correction: the mapping never overwrites it, the profile does the rest", async () => {
    // Prepare: parked for its phone; an operator types it (with a wrong-looking idBranch too,
    // which the profile's later default must not replace).
    const lead = await h.record(
      'site',
      formCapture({
        answers: [
          { key: 'name', value: 'Ana Lima' },
          { key: 'email', value: 'ana.lima@example.com' },
        ],
      }),
    );
    await h.step(lead.leadId);
    const parked = await h.ledger.get(lead.leadId);
    await h.ledger.correct(
      lead.leadId,
      parked?.version ?? -1,
      {
        correction: { ddi: '55', cellphone: '21998765432', idBranch: 9 },
        prospect: { ...parked?.prospect },
        by: 'ops',
      },
      new Date(),
    );
    h.config.profiles.site = {
      ...profile('site'),
      defaults: { idBranch: 4, marketingType: 'Site novo' },
    } as Profile;

    // Act
    await h.ledger.requeue(lead.leadId, new Date());
    const outcome = await h.step(lead.leadId);

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'delivered' });
    const [created] = await h.prospects();
    expect(created?.body).toMatchObject({
      email: 'ana.lima@example.com',
      ddi: '55',
      cellphone: '21998765432',
      idBranch: 9,
      marketingType: 'Site novo',
    });
    expect((created?.body as { notes?: string } | undefined)?.notes).toContain(
      'Corrigido por um operador: DDI, celular e unidade.',
    );
    expect((await h.ledger.get(lead.leadId))?.correction).toMatchObject({ idBranch: 9 });
  });

  it('completes a pending Meta lead from the sandbox Graph, keeps its answers and delivers it', async () => {
    // Prepare
    await h.registerMetaLead({
      id: '9444444444444449',
      form_id: '9234567890123457',
      created_time: '2025-05-02T13:10:07+0000',
      field_data: [
        { name: 'full_name', values: ['Maria Souza'] },
        { name: 'email', values: ['maria.meta@example.com'] },
        { name: 'phone_number', values: ['+5511987654321'] },
      ],
    });
    const lead = await h.record('meta', metaCapture('9444444444444449'));

    // Act
    const outcome = await h.step(lead.leadId);

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'delivered' });
    const [created] = await h.prospects();
    expect(created?.body).toMatchObject({
      name: 'Maria',
      lastName: 'Souza',
      email: 'maria.meta@example.com',
      ddi: '55',
      cellphone: '11987654321',
      idBranch: 2,
    });
    const stored = await h.ledger.get(lead.leadId);
    expect(stored?.capture.pending).toBeUndefined();
    expect(stored?.capture.answers).toContainEqual(
      expect.objectContaining({ key: 'email', value: 'maria.meta@example.com' }),
    );
    expect(stored?.prospect).toMatchObject({ email: 'maria.meta@example.com' });
  });

  it("keeps a Meta Testing Tool lead as test, with the tool's answers", async () => {
    // Prepare
    await h.registerMetaLead({
      id: '9444444444444450',
      form_id: '9234567890123457',
      field_data: [
        { name: 'full_name', values: ['<test lead: dummy data for full_name>'] },
        { name: 'email', values: ['test@fb.com'] },
        { name: 'phone_number', values: ['<test lead: dummy data for phone_number>'] },
      ],
    });
    const lead = await h.record('meta', metaCapture('9444444444444450'));

    // Act
    const outcome = await h.step(lead.leadId);

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'test-lead' });
    const stored = await h.ledger.get(lead.leadId);
    expect(stored?.status).toBe('test');
    expect(stored?.capture.isTest).toBe(true);
    expect(h.recorded.metrics).toEqual(['LeadTest']);
    expect(await h.calls(POSTS)).toEqual({});
  });

  it('parks a Meta lead Graph does not know', async () => {
    const lead = await h.record('meta', metaCapture('1234'));
    const outcome = await h.step(lead.leadId);
    expect(outcome).toEqual({ kind: 'done', reason: 'graph-rejected' });
    const parked = await h.ledger.get(lead.leadId);
    expect(parked?.status).toBe('parked');
    expect(parked?.reason).toMatch(/^Meta Graph: /);
    expect(h.recorded.events[0]).toMatchObject({ errorKind: 'graph-rejected' });
  });
});

function metaCapture(leadgenId: string): LeadCapture {
  return {
    source: 'meta',
    dedupKey: `meta:${leadgenId}`,
    isTest: false,
    externalId: leadgenId,
    answers: [],
    attribution: { page_id: '153125381133' },
    dateOrder: 'MDY',
    pending: { kind: 'meta-graph', leadgenId },
  };
}

describe('checkLookupPermission', () => {
  it('tells whether the upstream key may look prospects up', async () => {
    // Prepare
    const client = createUpstreamClient({
      baseUrl: h.sandbox.url,
      username: 'demo',
      password: 'demo',
    });

    // Act
    const permitted = await checkLookupPermission(client);
    await h.setFaults({ lookupForbidden: true });
    const forbidden = await checkLookupPermission(client);
    await h.setFaults({ outage: true });
    const unknown = await checkLookupPermission(client);

    // Assess
    expect([permitted, forbidden, unknown]).toEqual(['permitted', 'forbidden', 'unknown']);
  });
});

describe('forward helpers', () => {
  it('backs off with full jitter, doubling from 2 s up to 15 min', () => {
    const base = 2_000;
    const cap = 15 * 60_000;
    expect(backoffMs(1, () => 0.999, base, cap)).toBe(1_998);
    expect(backoffMs(4, () => 0.5, base, cap)).toBe(8_000);
    expect(backoffMs(20, () => 0.5, base, cap)).toBe(cap / 2);
    expect(backoffMs(3, () => 0, base, cap)).toBe(0);
  });

  it('tells an ambiguous POST from one that never reached the upstream or was refused whole', () => {
    const refused = new UpstreamError('unavailable', 'x', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    expect(isAmbiguousPost(new UpstreamError('unavailable', 'timed out'))).toBe(true);
    expect(isAmbiguousPost(new UpstreamError('unavailable', '502', { status: 502 }))).toBe(true);
    expect(isAmbiguousPost(new UpstreamError('unavailable', '500', { status: 500 }))).toBe(true);
    expect(isAmbiguousPost(new UpstreamError('unavailable', '503', { status: 503 }))).toBe(false);
    expect(isAmbiguousPost(new UpstreamError('unavailable', '404', { status: 404 }))).toBe(false);
    expect(isAmbiguousPost(refused)).toBe(false);
    expect(isAmbiguousPost(new UpstreamError('rate-limited', '429'))).toBe(false);
    expect(classifyUnavailable(refused)).toEqual({
      neverSent: true,
      ambiguous: false,
      settle: false,
    });
    expect(classifyUnavailable(new UpstreamError('unavailable', 'timed out'))).toEqual({
      neverSent: false,
      ambiguous: true,
      settle: true,
    });
    expect(
      classifyUnavailable(new UpstreamError('unavailable', 'no id', { status: 200 })).ambiguous,
    ).toBe(true);
  });

  it('matches a found prospect on email and cellphone only', () => {
    const prospect = { email: 'Maria@Example.com', cellphone: '11987654321' };
    expect(
      matchesProspect(
        { idProspect: 1, email: 'maria@example.com', cellphone: '5511987654321' },
        prospect,
      ),
    ).toBe(true);
    expect(
      matchesProspect(
        { idProspect: 1, email: 'maria@example.com', cellphone: '11900000000' },
        prospect,
      ),
    ).toBe(false);
    expect(matchesProspect({ idProspect: 1, cellphone: '11987654321' }, prospect)).toBe(false);
  });

  it('sizes the lease above every wait of one attempt', () => {
    expect(leaseMsFor(10_000)).toBe(10_000 + 2 * (10_000 + 5_000) + 5_000);
    expect(leaseMsFor(10_000, { leaseMs: 1_234 })).toBe(1_234);
  });
});
