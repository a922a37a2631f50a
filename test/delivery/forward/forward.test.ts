/**
 * forwardLead against the real sandbox upstream, a dynalite ledger and the shared DynamoDB pacer:
 * every outcome of the upstream's answer, the Meta Graph completion, and the ambiguous POST
 * resolved by a lookup.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import {
  backoffMs,
  forwardLead,
  isAmbiguousPost,
  leaseMsFor,
  matchesProspect,
} from '../../functions/delivery/forward.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { mapCapture } from '../../functions/sources/registry.ts';
import { createDynamoPacer, PacerWaitError } from '../../functions/upstream/pacer-dynamodb.ts';
import { prospectBody, UpstreamError } from '../../functions/upstream/upstream-client.ts';
import { type DeliveryHarness, formCapture, offsetClock, startDeliveryHarness } from './harness.ts';

const POSTS = 'POST /api/v1/prospects';
const LOOKUPS = 'GET /api/v1/prospects';
const FIVE_MINUTES = 5 * 60_000;

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

describe('forwardLead: delivery', () => {
  it('posts the mapped prospect and marks the lead delivered with its id', async () => {
    // Prepare
    const capture = formCapture();
    const lead = await h.record('site', capture);

    // Act
    const outcome = await forwardLead(lead.leadId, h.deps());

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'delivered' });
    const [created] = await h.prospects();
    const expected = mapCapture(capture, profile('site')).prospect;
    expect(created?.body).toEqual(JSON.parse(JSON.stringify(prospectBody(expected))));
    expect(await h.ledger.get(lead.leadId)).toMatchObject({
      status: 'delivered',
      idProspect: created?.idProspect,
      attempts: 0,
    });
    expect(h.recorded.metrics).toEqual(['LeadDelivered']);
    expect(h.recorded.events).toEqual([
      {
        leadId: lead.leadId,
        profile: 'site',
        attempt: 1,
        outcome: 'done',
        reason: 'delivered',
        status: 'delivered',
      },
    ]);
  });

  it('never posts a delivered lead again', async () => {
    // Prepare
    const lead = await h.record('site', formCapture());
    const deps = h.deps();

    // Act
    const first = await forwardLead(lead.leadId, deps);
    const second = await forwardLead(lead.leadId, deps);

    // Assess
    expect(first.reason).toBe('delivered');
    expect(second).toEqual({ kind: 'done', reason: 'already-delivered' });
    expect(await h.calls(POSTS)).toEqual({ '200': 1 });
    expect(await h.prospects()).toHaveLength(1);
  });

  it('answers done for an unknown lead and retry while another attempt holds the lease', async () => {
    // Prepare
    const lead = await h.record('site', formCapture());
    await h.ledger.claim(lead.leadId, 20_000, new Date());

    // Act
    const unknown = await forwardLead('ld_0000000000AAAAAAAAAAAA', h.deps());
    const held = await forwardLead(lead.leadId, h.deps());

    // Assess
    expect(unknown).toEqual({ kind: 'done', reason: 'unknown-lead' });
    expect(held).toMatchObject({ kind: 'retry', reason: 'lease-held', counted: false });
    expect(held.delayMs).toBeGreaterThan(15_000);
    expect(held.delayMs).toBeLessThanOrEqual(21_000);
    expect(await h.calls(POSTS)).toEqual({});
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
    const outcome = await forwardLead(lead.leadId, h.deps());
    const again = await forwardLead(lead.leadId, h.deps());

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

  it('says on every retry how long the lead has waited since it was received', async () => {
    // Prepare: a lead received 20 minutes before this attempt, the upstream refusing the key.
    const lead = await h.record('site', formCapture());

    // Act
    const outcome = await forwardLead(
      lead.leadId,
      h.deps({ password: 'wrong' }),
      offsetClock(20 * 60_000),
    );

    // Assess: what the LeadWaitingSeconds metric (and its alarm) is fed with.
    expect(outcome).toMatchObject({ kind: 'retry', counted: false });
    expect(h.recorded.events[0]?.waitingSeconds).toBeGreaterThanOrEqual(1_200);
    expect(h.recorded.events[0]?.waitingSeconds).toBeLessThan(1_210);
  });

  it('keeps the lead on 401, pauses every instance and retries once the pause is over', async () => {
    // Prepare
    const lead = await h.record('site', formCapture());
    let refreshed = 0;
    const start = Date.now();

    // Act
    const outcome = await forwardLead(
      lead.leadId,
      h.deps({ password: 'wrong', onUnauthorized: () => (refreshed += 1) }),
    );

    // Assess: kept (queued, attempt not counted), paused, counted, told to come back later.
    expect(outcome).toMatchObject({ kind: 'retry', reason: 'unauthorized', counted: false });
    expect(outcome.delayMs).toBeGreaterThanOrEqual(FIVE_MINUTES);
    expect(outcome.delayMs).toBeLessThan(FIVE_MINUTES + 10_000);
    const kept = await h.ledger.get(lead.leadId);
    expect(kept).toMatchObject({ status: 'queued', attempts: 0 });
    expect(kept?.lastError).toMatch(/401/);
    expect(h.recorded.metrics).toEqual(['UpstreamAuthFailure', 'LeadRetried']);
    expect(refreshed).toBe(1);
    const other = createDynamoPacer({
      client: h.dynamo.client,
      tableName: h.table,
      maxPerSecond: 50,
      maxPerMinute: 3_000,
      maxWaitMs: 1_000,
    });
    const refused = await other.acquire().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PacerWaitError);
    expect((refused as PacerWaitError).waitMs).toBeGreaterThan(
      FIVE_MINUTES - (Date.now() - start) - 1_000,
    );
    // A second attempt within the pause does not reach the upstream at all.
    const during = await forwardLead(lead.leadId, h.deps());
    expect(during).toMatchObject({ kind: 'retry', reason: 'pacer-busy', counted: false });
    expect(await h.calls(POSTS)).toEqual({ '401': 1 });

    // Act: later, with the key fixed.
    const later = FIVE_MINUTES + 1_000;
    const retried = await forwardLead(lead.leadId, h.deps({ offsetMs: later }), offsetClock(later));

    // Assess
    expect(retried).toEqual({ kind: 'done', reason: 'delivered' });
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'delivered', attempts: 0 });
    expect(await h.calls(POSTS)).toEqual({ '401': 1, '200': 1 });
  });

  it('retries a 429 after its Retry-After, without counting an attempt', async () => {
    // Prepare: one request per minute, used up by somebody else.
    await h.setFaults({ perSecond: 100, perMinute: 1 });
    const auth = `Basic ${Buffer.from('demo:demo').toString('base64')}`;
    await fetch(`${h.sandbox.url}/api/v1/receivables/debtors?take=1`, {
      headers: { authorization: auth },
    });
    const lead = await h.record('site', formCapture());

    // Act
    const outcome = await forwardLead(lead.leadId, h.deps());

    // Assess
    expect(outcome).toMatchObject({ kind: 'retry', reason: 'rate-limited', counted: false });
    expect(outcome.delayMs).toBeGreaterThanOrEqual(55_000);
    expect(outcome.delayMs).toBeLessThanOrEqual(61_000);
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(h.recorded.metrics).toEqual(['LeadRetried']);
    // The client paused the shared pacer until Retry-After.
    const item = await DynamoDBDocumentClient.from(h.dynamo.client).send(
      new GetCommand({ TableName: h.table, Key: { pk: 'pacer#upstream' } }),
    );
    expect(item.Item?.next).toBeGreaterThan(Date.now() + 50_000);

    // Act: once the window has passed.
    await h.setFaults({});
    await fetch(`${h.sandbox.url}/_sandbox/rate-limit`, { method: 'DELETE' });
    const later = 61_000;
    const retried = await forwardLead(lead.leadId, h.deps({ offsetMs: later }), offsetClock(later));

    // Assess
    expect(retried).toEqual({ kind: 'done', reason: 'delivered' });
  });
});

describe('forwardLead: the upstream fails', () => {
  it('backs off after a 5xx, looks up before posting again, then delivers once', async () => {
    // Prepare
    await h.setFaults({ errorRate: 1, errorStatus: 503 });
    const lead = await h.record('site', formCapture());

    // Act
    const first = await forwardLead(lead.leadId, h.deps());
    await h.setFaults({});
    const second = await forwardLead(lead.leadId, h.deps());

    // Assess: full jitter with random() = 0.5 over base 2 s → 1 s.
    expect(first).toEqual({
      kind: 'retry',
      delayMs: 1_000,
      reason: 'ambiguous-post',
      counted: true,
    });
    expect(second).toEqual({ kind: 'done', reason: 'delivered' });
    expect(await h.calls(POSTS)).toEqual({ '503': 1, '200': 1 });
    expect(await h.calls(LOOKUPS)).toEqual({ '200': 1 });
    expect(await h.prospects()).toHaveLength(1);
    const stored = await h.ledger.get(lead.leadId);
    expect(stored).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(stored?.ambiguousSince).toEqual(expect.any(String));
    expect(h.recorded.metrics).toEqual(['LeadRetried', 'LeadDelivered']);
    expect(h.recorded.events[1]).toMatchObject({ attempt: 2, note: 'lookup-no-match' });
  });

  it('marks the lead dead after maxAttempts counted failures', async () => {
    // Prepare: 404 (the endpoint is missing) is unavailable but not ambiguous, so every attempt
    // posts again and counts. (After an ambiguous 5xx the retries look up first, and a failed
    // lookup is not counted: see the next tests.)
    await h.setFaults({ errorRate: 1, errorStatus: 404 });
    const lead = await h.record('site', formCapture());
    const deps = h.deps({ options: { maxAttempts: 3 } });

    // Act
    const outcomes = [];
    for (let i = 0; i < 3; i += 1) outcomes.push(await forwardLead(lead.leadId, deps));
    const after = await forwardLead(lead.leadId, deps);

    // Assess: delays grow (random 0.5 over 2 s, 4 s), then dead.
    expect(outcomes.map((o) => [o.kind, o.delayMs])).toEqual([
      ['retry', 1_000],
      ['retry', 2_000],
      ['done', undefined],
    ]);
    expect(outcomes[2]?.reason).toBe('dead-after-3-attempts');
    expect(after).toEqual({ kind: 'done', reason: 'already-dead' });
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'dead', attempts: 3 });
    expect(h.recorded.metrics).toEqual(['LeadRetried', 'LeadRetried', 'LeadDead']);
  });

  it('does not count a failed lookup after an ambiguous POST against the lead', async () => {
    // Prepare: every answer is a 502, so the POST is ambiguous and each lookup fails too.
    await h.setFaults({ errorRate: 1, errorStatus: 502 });
    const lead = await h.record('site', formCapture());
    const deps = h.deps({ options: { maxAttempts: 2 } });

    // Act
    const outcomes = [];
    for (let i = 0; i < 4; i += 1) outcomes.push(await forwardLead(lead.leadId, deps));

    // Assess: one counted POST, then uncounted lookups; never dead, never posted twice.
    expect(outcomes.map((o) => o.kind)).toEqual(['retry', 'retry', 'retry', 'retry']);
    expect(outcomes.slice(1).map((o) => o.reason)).toEqual([
      'lookup-unavailable',
      'lookup-unavailable',
      'lookup-unavailable',
    ]);
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'queued', attempts: 1 });
    await h.setFaults({});
    expect(await forwardLead(lead.leadId, deps)).toMatchObject({ kind: 'done' });
    expect(await h.prospects()).toHaveLength(1);
  });

  it('after a timeout finds the prospect the upstream created and delivers it exactly once', async () => {
    // Prepare: the sandbox creates the prospect on arrival and answers after 1.5 s.
    await h.setFaults({ latencyMs: 1_500 });
    const lead = await h.record('site', formCapture());

    // Act
    const first = await forwardLead(lead.leadId, h.deps({ timeoutMs: 400 }));
    await h.setFaults({});
    const second = await forwardLead(lead.leadId, h.deps());

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
    expect(await h.calls(LOOKUPS)).toEqual({ '200': 1 });
    expect(h.recorded.events[1]).toMatchObject({ note: 'found-by-lookup' });
  });

  it('looks up first when a previous attempt was cut off while sending', async () => {
    // Prepare: an attempt claimed the lead 2 minutes ago, posted, and died before recording it.
    const capture = formCapture();
    const lead = await h.record('site', capture);
    await h.ledger.claim(lead.leadId, 60_000, new Date(Date.now() - 120_000));
    const auth = `Basic ${Buffer.from('demo:demo').toString('base64')}`;
    const body = mapCapture(capture, profile('site')).prospect;
    const posted = await fetch(`${h.sandbox.url}/api/v1/prospects`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(prospectBody(body)),
    });
    const { idProspect } = (await posted.json()) as { idProspect: number };

    // Act
    const outcome = await forwardLead(lead.leadId, h.deps());

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'delivered-by-lookup' });
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'delivered', idProspect });
    expect(await h.calls(POSTS)).toEqual({ '200': 1 });
  });

  it('posts anyway when the key may not look prospects up (at-least-once)', async () => {
    // Prepare: the first POST times out; then the lookup is refused with 403.
    await h.setFaults({ latencyMs: 1_500 });
    const lead = await h.record('site', formCapture());
    await forwardLead(lead.leadId, h.deps({ timeoutMs: 400 }));
    await h.setFaults({});
    const forbidLookups: typeof fetch = async (input, init) => {
      if (init?.method === 'GET' && new URL(String(input)).pathname === '/api/v1/prospects') {
        return new Response('', { status: 403 });
      }
      return fetch(input, init);
    };

    // Act
    const outcome = await forwardLead(lead.leadId, h.deps({ fetch: forbidLookups }));

    // Assess
    expect(outcome).toEqual({ kind: 'done', reason: 'delivered' });
    expect(h.recorded.events[1]).toMatchObject({ note: 'lookup-unauthorized-posted-anyway' });
    expect(await h.prospects()).toHaveLength(2);
  });
});

describe('forwardLead: leads that cannot be sent as they are', () => {
  it('parks a lead missing required fields and maps it again with the current profile', async () => {
    // Prepare: the profile has no idBranch default yet.
    h.config.profiles.site = { source: 'form', token: 'demo-form-token' };
    const lead = await h.record('site', formCapture());

    // Act
    const parked = await forwardLead(lead.leadId, h.deps());
    h.config.profiles.site = {
      source: 'form',
      token: 'demo-form-token',
      defaults: { idBranch: 7 },
    };
    await h.ledger.requeue(lead.leadId, new Date());
    const replayed = await forwardLead(lead.leadId, h.deps());

    // Assess
    expect(parked).toEqual({ kind: 'done', reason: 'missing-fields' });
    expect(replayed).toEqual({ kind: 'done', reason: 'delivered' });
    expect(h.recorded.metrics).toEqual(['LeadParked', 'LeadDelivered']);
    const [created] = await h.prospects();
    expect(created?.body).toMatchObject({ idBranch: 7 });
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
    expect(await forwardLead(lead.leadId, h.deps())).toEqual({
      kind: 'done',
      reason: 'missing-fields',
    });
    expect((await h.ledger.get(lead.leadId))?.reason).toBe('required fields missing: cellphone');
    expect(await h.calls(POSTS)).toEqual({});
  });

  it('completes a pending Meta lead from the sandbox Graph and delivers it', async () => {
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
    const capture: LeadCapture = {
      source: 'meta',
      dedupKey: 'meta:9444444444444449',
      isTest: false,
      externalId: '9444444444444449',
      answers: [],
      attribution: { page_id: '153125381133' },
      dateOrder: 'MDY',
      pending: { kind: 'meta-graph', leadgenId: '9444444444444449' },
    };
    const lead = await h.record('meta', capture);

    // Act
    const outcome = await forwardLead(lead.leadId, h.deps());

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
  });

  it('parks a Meta lead Graph does not know', async () => {
    const lead = await h.record('meta', {
      source: 'meta',
      dedupKey: 'meta:1234',
      isTest: false,
      answers: [],
      attribution: {},
      pending: { kind: 'meta-graph', leadgenId: '1234' },
    });
    const outcome = await forwardLead(lead.leadId, h.deps());
    expect(outcome).toEqual({ kind: 'done', reason: 'graph-rejected' });
    const parked = await h.ledger.get(lead.leadId);
    expect(parked?.status).toBe('parked');
    expect(parked?.reason).toMatch(/^Meta Graph: /);
    expect(h.recorded.events[0]).toMatchObject({ errorKind: 'graph-rejected' });
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

  it('tells an ambiguous POST from one that never reached the upstream', () => {
    const refused = new UpstreamError('unavailable', 'x', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    expect(isAmbiguousPost(new UpstreamError('unavailable', 'timed out'))).toBe(true);
    expect(isAmbiguousPost(new UpstreamError('unavailable', '502', { status: 502 }))).toBe(true);
    expect(isAmbiguousPost(new UpstreamError('unavailable', '404', { status: 404 }))).toBe(false);
    expect(isAmbiguousPost(new TypeError('fetch failed', { cause: refused }) as never)).toBe(false);
    expect(isAmbiguousPost(refused)).toBe(false);
    expect(isAmbiguousPost(new UpstreamError('rate-limited', '429'))).toBe(false);
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
