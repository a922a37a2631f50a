/**
 * The admin routes through the local gateway: the same Lambda handler as on AWS, the ledger and
 * the queue on the local DynamoDB. Basic auth with the `admin` role; a posted lead's status;
 * the retry of a parked lead; listing and replay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localServices } from '../../functions/kernel/local-services.ts';
import { createLocalLeadQueue } from '../../functions/ledger/lead-queue-local.ts';
import { basicHeader } from '../helpers/abuse-kit.ts';
import {
  DEMO_CLIENTS,
  DEMO_SECRETS,
  loadLeadFixture,
  prospectWithoutLastName,
} from '../helpers/lead-fixtures.ts';
import {
  basicChallengeOf,
  expectErrorCode,
  leadIdOf,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';

// The prospect fixtures' Authorization header is ops:demo-ops-password.
const OPS = basicHeader('ops', 'demo-ops-password');

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig(
      {
        site: { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } },
        native: { source: 'prospect' },
      },
      DEMO_CLIENTS,
    ),
  );
  // ops signs in once: the gateway remembers a right password for a few minutes, so the lock
  // that the wrong-password checks below put on the user name `ops` (429 for a while) does not
  // stop the signed-in operator.
  const signIn = await fetch(new URL('/admin/upstream', rt.url), {
    headers: { authorization: OPS },
  });
  expect(signIn.status).toBe(200);
});
afterAll(() => rt?.stop());

function admin(path: string, init: { method?: string; authorization?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.authorization !== undefined) headers.authorization = init.authorization;
  return fetch(new URL(path, rt.url), { method: init.method ?? 'GET', headers });
}

async function postFormLead(): Promise<string> {
  const response = await rt.send('/leads/site', loadLeadFixture('form', 'valid-urlencoded'));
  expect(response.status).toBe(202);
  return leadIdOf(response);
}

/** A Prospect without lastName: accepted and parked by the intake. */
async function postParkedProspect(): Promise<string> {
  const response = await rt.send(
    '/api/v1/prospects',
    prospectWithoutLastName(`parked.${Date.now()}@exemplo.com`),
  );
  expect(response.status).toBe(202);
  const body = (await response.json()) as { leadId: string; status: string };
  expect(body.status).toBe('parked');
  return body.leadId;
}

describe('admin routes: auth', () => {
  it('answer 401 with a Basic challenge without credentials or with a wrong password', async () => {
    const leadId = await postFormLead();
    for (const [path, method] of [
      [`/admin/leads/${leadId}`, 'GET'],
      ['/admin/leads?status=queued', 'GET'],
      [`/admin/leads/${leadId}/retry`, 'POST'],
      ['/admin/replay', 'POST'],
      ['/admin/upstream', 'GET'],
    ] as const) {
      for (const authorization of [undefined, basicHeader('ops', 'wrong')]) {
        const response = await admin(path, {
          method,
          ...(authorization !== undefined && { authorization }),
        });
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(basicChallengeOf(response)).toMatch(/^Basic realm=/);
        expect(await response.json()).toMatchObject({ error: { code: 'unauthorized' } });
      }
    }
  });

  it('say an error in Portuguese unless the client asks for English, the code the same', async () => {
    const ask = (language?: string) =>
      fetch(new URL('/admin/leads?status=nope', rt.url), {
        headers: { authorization: OPS, ...(language && { 'accept-language': language }) },
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as { error: { code: string; message: string } },
      }));

    const [plain, fromConsole, english] = await Promise.all([
      ask(),
      ask('pt-BR,pt;q=0.9,en-US;q=0.8'),
      ask('en-US,en;q=0.9'),
    ]);

    for (const answer of [plain, fromConsole, english]) {
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_status');
    }
    expect(plain.body.error.message).toMatch(/^status deve ser um de: queued, /);
    expect(fromConsole.body.error.message).toBe(plain.body.error.message);
    expect(english.body.error.message).toMatch(/^status must be one of: queued, /);
  });

  it('answer 403 to a client without the admin role', async () => {
    const leadId = await postFormLead();
    const response = await admin(`/admin/leads/${leadId}`, {
      authorization: basicHeader('reporter', 'demo-reporter-password'),
    });
    await expectErrorCode(response, 403, 'forbidden');
  });
});

describe('GET /admin/upstream', () => {
  it('answers the circuit, the pacer and the backlog', async () => {
    await postFormLead();
    const response = await admin('/admin/upstream', { authorization: OPS });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { circuit: { state: string }; backlog: number };
    expect(body.circuit.state).toBe('closed');
    expect(body.backlog).toBeGreaterThanOrEqual(1);
  });
});

describe('GET /admin/leads/{leadId}', () => {
  it('shows the status of a posted lead in the contract shape, with what was sent', async () => {
    const leadId = await postFormLead();
    const response = await admin(`/admin/leads/${leadId}`, { authorization: OPS });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { contact, submitted, prospect, correctable, ...body } =
      (await response.json()) as Record<string, unknown>;
    expect(submitted).toMatchObject({ answers: expect.any(Array), test: false });
    expect(prospect).toMatchObject({ idBranch: expect.any(Number) });
    expect(contact).toEqual(expect.any(Object));
    expect(correctable).toBe(false);
    expect(body).toEqual({
      leadId,
      profile: 'site',
      status: 'queued',
      attempts: 0,
      tries: 0,
      receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      timeZone: 'America/Sao_Paulo',
      receivedAtLocal: expect.stringMatching(/^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d$/),
      nextAttemptAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      upstream: { circuit: { state: 'closed', failures: 0 } },
    });
  });

  it('answers 404 for an unknown lead and 400 for a malformed id', async () => {
    const unknown = await admin('/admin/leads/ld_0000000000000000000000', { authorization: OPS });
    await expectErrorCode(unknown, 404, 'lead_not_found');
    const malformed = await admin('/admin/leads/12345', { authorization: OPS });
    await expectErrorCode(malformed, 400, 'invalid_lead_id');
  });
});

describe('POST /admin/leads/{leadId}/retry', () => {
  it('retries a parked lead: 202 queued, the lead is queued and a message is on the queue', async () => {
    const leadId = await postParkedProspect();
    const parked = await admin(`/admin/leads/${leadId}`, { authorization: OPS });
    expect(await parked.json()).toMatchObject({
      status: 'parked',
      reason: 'falta o campo obrigatório sobrenome',
    });
    const listed = await admin('/admin/leads?status=parked', { authorization: OPS });
    const { leads } = (await listed.json()) as { leads: { leadId: string }[] };
    expect(leads.map((l) => l.leadId)).toContain(leadId);

    const retried = await admin(`/admin/leads/${leadId}/retry`, {
      method: 'POST',
      authorization: OPS,
    });
    expect(retried.status).toBe(202);
    expect(await retried.json()).toEqual({ leadId, status: 'queued' });

    const after = await admin(`/admin/leads/${leadId}`, { authorization: OPS });
    expect(await after.json()).toMatchObject({ leadId, status: 'queued', attempts: 0 });
    const services = localServices();
    const queue = createLocalLeadQueue({
      client: services.dynamo,
      tableName: services.queueTable,
      maxReceiveCount: services.maxReceiveCount,
    });
    const messages = await queue.receive({ max: 1000, visibilityMs: 1 });
    expect(messages.map((m) => m.leadId)).toContain(leadId);

    // Retrying it again wakes the same delivery chain: one more message for the same version.
    const again = await admin(`/admin/leads/${leadId}/retry`, {
      method: 'POST',
      authorization: OPS,
    });
    expect(again.status).toBe(202);
    const versions = new Set(
      (await queue.receive({ max: 1000, visibilityMs: 1, now: Date.now() + 10 }))
        .filter((m) => m.leadId === leadId)
        .map((m) => m.version),
    );
    expect(versions.size).toBe(1);
  });
});

describe('GET /admin/leads?status= and POST /admin/replay', () => {
  it('refuses an unknown status with 400 listing the valid ones', async () => {
    const response = await admin('/admin/leads?status=lost', { authorization: OPS });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; details: string[] } };
    expect(body.error.code).toBe('invalid_status');
    expect(body.error.details).toEqual([
      'queued',
      'delivered',
      'rejected',
      'dead',
      'test',
      'parked',
    ]);
  });

  it('replays the dead leads and redrives the local dead-letter queue', async () => {
    const leadId = await postFormLead();
    const lead = await rt.ledger.get(leadId);
    await rt.ledger.markDead(leadId, lead?.version ?? 0, 'upstream 500', new Date());
    const response = await admin('/admin/replay', { method: 'POST', authorization: OPS });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({
      requeued: 1,
      skipped: 0,
      more: false,
      redrive: { status: 'moved', moved: expect.any(Number) },
    });
    expect((await rt.ledger.get(leadId))?.status).toBe('queued');
    const second = await admin('/admin/replay', { method: 'POST', authorization: OPS });
    expect(await second.json()).toMatchObject({ requeued: 0 });
  });
});
