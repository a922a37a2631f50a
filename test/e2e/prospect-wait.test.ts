/**
 * The Prospect API's bounded wait for delivery (functions/intake/intake.ts):
 * `POST /api/v1/prospects` answers 200 `{"idProspect"}` when the lead is delivered within the
 * wait, 400 `rejected_upstream` when the upstream refuses it, else 202 queued (and the lead is
 * still delivered later). Webhook sources never wait.
 *
 * First against the use case with a ledger (dynalite) on virtual time: its sleeps move its clock
 * instead of waiting, and a stand-in worker settles the lead during a given sleep, so the waits
 * are exact on any machine; then through the local runtime with its delivery worker and the
 * sandbox upstream.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalConfigSource, parseConfig } from '../../functions/config/config-local.ts';
import { handleIntake } from '../../functions/intake/intake.ts';
import type { IntakeDeps, IntakeInvocation } from '../../functions/intake/intake-deps.ts';
import type { LeadLedger } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';
import {
  DEMO_SECRETS,
  type LeadFixture,
  leadRequest,
  loadLeadFixture,
} from '../helpers/lead-fixtures.ts';
import {
  startTestRuntime,
  TEST_UPSTREAM,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';

const PATH = '/api/v1/prospects';

/** A fixture Prospect with its own e-mail (and no CPF unless given), so the upstream takes it. */
function prospectFixture(
  tag: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): LeadFixture {
  const fixture = loadLeadFixture('prospect', 'valid');
  const { cpf: _cpf, validateCpfDuplication: _v, ...prospect } = JSON.parse(fixture.body);
  return {
    ...fixture,
    headers: { ...fixture.headers, ...headers },
    body: JSON.stringify({ ...prospect, email: `${tag}.${Date.now()}@exemplo.com`, ...extra }),
  };
}

// ---------------------------------------------------------------------------------------------
// The use case, with a stand-in worker on the ledger

describe('the bounded wait (use case)', () => {
  const config = createLocalConfigSource(
    parseConfig(
      testConfig(
        {
          native: { source: 'prospect' },
          site: { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } },
        },
        [{ username: 'ops', password: 'demo-ops-password', roles: ['prospects:write'] }],
      ),
    ),
  );

  let dynamo: TestDynamo;
  let ledger: LeadLedger;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo?.close());
  beforeEach(async () => {
    ledger = createDynamoLedger({
      erasureSalt: TEST_ERASURE_SALT,
      client: dynamo.client,
      tableName: await dynamo.createLedgerTable(),
    });
  });

  type Outcome = { delivered: number } | { rejected: string[] } | 'never';
  let sleeps: number[];

  /**
   * Deps on virtual time: each sleep of the use case moves its clock by the time asked, and a
   * stand-in worker settles the queued lead with `outcome` during the `settleOnSleep`-th sleep.
   */
  function deps(outcome: Outcome, settleOnSleep = 1, over: Partial<IntakeDeps> = {}): IntakeDeps {
    sleeps = [];
    let clock = Date.now();
    let queued: string | undefined;
    return {
      config,
      ledger,
      queue: {
        async send(leadId) {
          queued = leadId;
        },
      },
      now: () => new Date(clock),
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
        if (outcome === 'never' || !queued || sleeps.length !== settleOnSleep) return;
        const now = new Date(clock);
        const lead = await ledger.get(queued);
        const claimed = await ledger.claim(queued, lead?.version ?? 0, 30_000, now);
        if (!claimed) return;
        if ('delivered' in outcome) await ledger.markDelivered(queued, outcome.delivered, now);
        else await ledger.markRejected(queued, claimed.version, outcome.rejected, now);
      },
      ...over,
    };
  }

  const post = (
    d: IntakeDeps,
    fixture: LeadFixture = prospectFixture('wait'),
    invocation?: IntakeInvocation,
  ) =>
    handleIntake(
      'native',
      leadRequest('prospect', 'valid', {
        body: fixture.body,
        headers: fixture.headers,
        receivedAt: new Date(),
      }),
      d,
      invocation,
    );

  it('answers 200 {idProspect} when the lead is delivered within the wait', async () => {
    const response = await post(deps({ delivered: 777 }, 2));
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ idProspect: 777 });
    // Polled from 200 ms with backoff: answered at the first poll after the delivery.
    expect(sleeps).toEqual([200, 300]);
  });

  it('answers 400 rejected_upstream with the upstream messages when it refuses the lead', async () => {
    const response = await post(deps({ rejected: ['CPF inválido.', 'E-mail já cadastrado.'] }));
    expect(response.statusCode).toBe(400);
    const body = JSON.parse(response.body);
    expect(body).toEqual({
      error: {
        code: 'rejected_upstream',
        message: 'o sistema da academia recusou o Prospect: CPF inválido.; E-mail já cadastrado.',
        details: ['CPF inválido.', 'E-mail já cadastrado.'],
      },
      leadId: expect.stringMatching(/^ld_/),
    });
    expect((await ledger.get(body.leadId))?.status).toBe('rejected');
  });

  it('answers 202 queued when the wait ends first, and the lead stays queued for later', async () => {
    const response = await post(deps('never', 0, { prospectWait: { budgetMs: 700 } }));
    expect(response.statusCode).toBe(202);
    const body = JSON.parse(response.body);
    expect(body).toEqual({ leadId: expect.stringMatching(/^ld_/), status: 'queued' });
    // Backing off: 200, 300, then the rest of the budget, and not a moment more.
    expect(sleeps).toEqual([200, 300, 200]);
    expect((await ledger.get(body.leadId))?.status).toBe('queued');
  });

  it('ends the wait before the function times out', async () => {
    const response = await post(deps('never'), prospectFixture('deadline'), {
      remainingMs: () => 2000, // 1.5 s are kept back: 0.5 s of waiting
    });
    expect(response.statusCode).toBe(202);
    expect(sleeps).toEqual([200, 300]);
  });

  it('answers a duplicate (Idempotency-Key) of a delivered lead with 200 at once', async () => {
    const keyed = prospectFixture('keyed', {}, { 'Idempotency-Key': 'order-8841' });
    expect((await post(deps({ delivered: 9001 }), keyed)).statusCode).toBe(200);

    const again = await post(deps('never'), keyed);
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ idProspect: 9001 });
    expect(sleeps).toEqual([]); // no wait at all
  });

  it('answers a parked Prospect with 202 parked and its reason, without waiting', async () => {
    const fixture = prospectFixture('parked');
    const { lastName: _none, ...prospect } = JSON.parse(fixture.body);
    const response = await post(deps({ delivered: 1 }), {
      ...fixture,
      body: JSON.stringify(prospect),
    });
    expect(response.statusCode).toBe(202);
    expect(JSON.parse(response.body)).toEqual({
      leadId: expect.stringMatching(/^ld_/),
      status: 'parked',
      reason: 'falta o campo obrigatório sobrenome',
    });
    expect(sleeps).toEqual([]);
  });

  it('answers 202 queued when the ledger cannot be read during the wait', async () => {
    const d = deps('never');
    const broken: LeadLedger = {
      ...ledger,
      get: async () => {
        throw new Error('ECONNRESET');
      },
    };
    const response = await post({ ...d, ledger: broken });
    expect(response.statusCode).toBe(202);
    expect(JSON.parse(response.body)).toMatchObject({ status: 'queued' });
  });

  it('never waits for a webhook source: a form answers at once', async () => {
    const d = deps({ delivered: 5 });
    const response = await handleIntake(
      'site',
      leadRequest('form', 'valid-urlencoded', { receivedAt: new Date() }),
      d,
    );
    expect(response.statusCode).toBe(202);
    expect(sleeps).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the local runtime

describe('the bounded wait through the local runtime', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime(
      {
        upstream: { ...TEST_UPSTREAM, timeoutMs: 20_000 },
        clients: [
          { username: 'ops', password: 'demo-ops-password', roles: ['prospects:write'] },
          { username: 'partner', password: 'demo-partner-password', roles: ['prospects:write'] },
        ],
        profiles: { native: { source: 'prospect' } },
      },
      { worker: true },
    );
  });
  afterAll(() => rt?.stop());

  const faults = (body: Record<string, unknown>) =>
    fetch(new URL('/_sandbox/faults', rt.sandboxUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('answers 200 {idProspect} when the worker delivers in time', async () => {
    const response = await rt.send(PATH, prospectFixture('e2e-200'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { idProspect: number };
    expect(body).toEqual({ idProspect: expect.any(Number) });

    const created = (await (await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl))).json()) as {
      idProspect: number;
      body: { email: string };
    }[];
    expect(created.find((p) => p.idProspect === body.idProspect)?.body.email).toMatch(/^e2e-200/);
  });

  it('answers a retry with the same Idempotency-Key of a delivered Prospect with its idProspect', async () => {
    const keyed = prospectFixture('e2e-keyed', {}, { 'Idempotency-Key': `e2e-${Date.now()}` });
    const first = await rt.send(PATH, keyed);
    expect(first.status).toBe(200);
    const { idProspect } = (await first.json()) as { idProspect: number };
    const again = await rt.send(PATH, keyed);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ idProspect });
  });

  it("keeps one client's Idempotency-Key apart from another's: two clients, one key, two prospects", async () => {
    // Prepare
    const key = { 'Idempotency-Key': `shared-${Date.now()}` };
    const fromOps = prospectFixture('key-ops', {}, key);
    const fromPartner = prospectFixture(
      'key-partner',
      {},
      {
        ...key,
        Authorization: `Basic ${Buffer.from('partner:demo-partner-password').toString('base64')}`,
      },
    );

    // Act
    const ops = await rt.send(PATH, fromOps);
    const partner = await rt.send(PATH, fromPartner);

    // Assess
    expect(ops.status).toBe(200);
    expect(partner.status).toBe(200);
    const opsId = ((await ops.json()) as { idProspect: number }).idProspect;
    const partnerId = ((await partner.json()) as { idProspect: number }).idProspect;
    expect(partnerId).not.toBe(opsId);
    const created = (await (await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl))).json()) as {
      idProspect: number;
      body: { email: string };
    }[];
    expect(created.find((p) => p.idProspect === opsId)?.body.email).toMatch(/^key-ops/);
    expect(created.find((p) => p.idProspect === partnerId)?.body.email).toMatch(/^key-partner/);
  });

  it('answers 422 idempotency_key_reused when a client reuses its key for another body, and stores nothing', async () => {
    // Prepare
    const key = { 'Idempotency-Key': `reused-${Date.now()}` };
    const first = await rt.send(PATH, prospectFixture('reuse-first', {}, key));
    expect(first.status).toBe(200);
    const { idProspect } = (await first.json()) as { idProspect: number };
    const before = await rt.countLeads();

    // Act
    const other = await rt.send(PATH, prospectFixture('reuse-other', {}, key));

    // Assess
    expect(other.status).toBe(422);
    const body = (await other.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('idempotency_key_reused');
    expect(body.error.message).toMatch(/Idempotency-Key já foi usada .*para outro Prospect/);
    expect(JSON.stringify(body)).not.toContain(String(idProspect));
    expect(await rt.countLeads()).toBe(before);
  });

  it('answers 400 rejected_upstream with the upstream messages when it refuses the Prospect', async () => {
    // The sandbox refuses a CPF it already holds when validateCpfDuplication is set.
    const cpf = { cpf: '52998224725', validateCpfDuplication: true };
    expect((await rt.send(PATH, prospectFixture('cpf-first', cpf))).status).toBe(200);
    const response = await rt.send(PATH, prospectFixture('cpf-again', cpf));
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      error: { code: string; details: string[] };
      leadId: string;
    };
    expect(body.error.code).toBe('rejected_upstream');
    expect(body.error.details.length).toBeGreaterThan(0);
    expect(await rt.ledger.get(body.leadId)).toMatchObject({ status: 'rejected' });
  });

  it('answers 202 queued when the upstream is slower than the wait, and delivers the lead later', {
    timeout: 90_000,
  }, async () => {
    // Above the 8 s wait, below the upstream client's timeout.
    expect((await faults({ latencyMs: 10_000 })).status).toBeLessThan(300);
    try {
      const started = Date.now();
      const response = await rt.send(PATH, prospectFixture('slow'));
      expect(response.status).toBe(202);
      const { leadId, status } = (await response.json()) as { leadId: string; status: string };
      expect(status).toBe('queued');
      expect(Date.now() - started).toBeGreaterThanOrEqual(7000);

      let lead = await rt.ledger.get(leadId);
      for (let i = 0; i < 100 && lead?.status !== 'delivered'; i++) {
        await delay(250);
        lead = await rt.ledger.get(leadId);
      }
      expect(lead).toMatchObject({ status: 'delivered', idProspect: expect.any(Number) });
    } finally {
      await faults({});
    }
  });
});
