/**
 * The seed's `POST /api/v1/prospects` through the local gateway: the same Lambda handler as on
 * AWS, the ledger on the local DynamoDB. Basic auth with the `prospects:write` role; the body is
 * a Prospect, validated field by field; the answer is 202 queued until the delivery worker
 * exists (then 200 `{idProspect}` when it delivers in time).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicHeader } from '../helpers/abuse-kit.ts';
import {
  DEMO_CLIENTS,
  loadLeadFixture,
  prospectWithoutLastName,
} from '../helpers/lead-fixtures.ts';
import {
  basicChallengeOf,
  expectParked,
  expectQueuedAnswer,
  expectSameLead,
  leadIdOf,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';

const PATH = '/api/v1/prospects';

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig({ native: { source: 'prospect', defaults: { visit: 4 } } }, DEMO_CLIENTS),
  );
});
afterAll(() => rt?.stop());

describe('POST /api/v1/prospects', () => {
  it('accepts a Prospect with 202 queued and keeps it field by field', async () => {
    const response = await rt.send(PATH, loadLeadFixture('prospect', 'valid'));
    const lead = await expectQueuedAnswer(rt, response, 202);
    expect(lead).toMatchObject({ profile: 'native', source: 'prospect', status: 'queued' });
    expect(lead?.prospect).toMatchObject({
      name: 'Rafael',
      lastName: 'Souza Pereira',
      email: 'rafael.pereira@exemplo.com',
      ddi: '55',
      cellphone: '11987654321',
      cpf: '04715829649',
      birthday: '1988-02-14T00:00:00Z',
      gender: 'M',
      // The client's own values win over the profile's defaults; defaults fill the rest.
      idBranch: 3,
      marketingType: 'Indicação',
      visit: 4,
      interests: [1, 4],
      validateCpfDuplication: true,
    });
    expect(lead?.prospect?.notes).toContain('Indicado pelo aluno Paulo (matrícula 4521).');
  });

  it('answers 401 with a Basic challenge without credentials or with a wrong password, and stores nothing', async () => {
    const before = await rt.countLeads();
    const fixture = loadLeadFixture('prospect', 'valid');
    const { Authorization: _drop, ...unauthenticated } = fixture.headers;

    const none = await rt.send(PATH, { ...fixture, headers: unauthenticated });
    expect(none.status).toBe(401);
    expect(basicChallengeOf(none)).toMatch(/^Basic realm=/);
    expect(await none.json()).toMatchObject({ error: { code: expect.any(String) } });

    const wrong = await rt.send(PATH, fixture, {
      headers: { Authorization: basicHeader('ops', 'not-the-password') },
    });
    expect(wrong.status).toBe(401);
    expect(basicChallengeOf(wrong)).toMatch(/^Basic realm=/);
    expect(await rt.countLeads()).toBe(before);
  });

  it('answers 403 to a client without the prospects:write role, and stores nothing', async () => {
    const before = await rt.countLeads();
    const response = await rt.send(PATH, loadLeadFixture('prospect', 'valid'), {
      headers: { Authorization: basicHeader('reporter', 'demo-reporter-password') },
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: expect.any(String) } });
    expect(await rt.countLeads()).toBe(before);
  });

  it('answers a retry with the same Idempotency-Key with the same lead', async () => {
    const fixture = loadLeadFixture('prospect', 'idempotent');
    const first = await rt.send(PATH, fixture);
    expect(first.status).toBe(202);
    const leadId = await leadIdOf(first);
    const before = await rt.countLeads();

    await expectSameLead(await rt.send(PATH, fixture), 202, leadId);
    expect(await rt.countLeads()).toBe(before);
    expect((await rt.leads('native')).filter((l) => l.leadId === leadId)).toHaveLength(1);
  });

  it('answers a retry without a key (same Prospect, reformatted) with the same lead', async () => {
    const first = await leadIdOf(await rt.send(PATH, loadLeadFixture('prospect', 'valid')));
    const before = await rt.countLeads();
    const retry = await rt.send(PATH, loadLeadFixture('prospect', 'redelivery'));
    await expectSameLead(retry, 202, first);
    expect(await rt.countLeads()).toBe(before);
  });

  it('refuses wrongly typed fields with 400 naming each of them, and stores nothing', async () => {
    const before = await rt.countLeads();
    const response = await rt.send(PATH, loadLeadFixture('prospect', 'invalid-fields'));
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      error: { code: string; message: string; details: { field: string; message: string }[] };
    };
    expect(body.error.code).toBe('invalid_body');
    expect(body.error.message).toMatch(/name/);
    expect(body.error.message).toMatch(/idBranch/);
    expect(body.error.message).toMatch(/interests/);
    // The contract's error shape: one detail per bad field, never the values sent.
    expect(body.error.details).toEqual([
      { field: 'name', message: 'deve ser um texto, não um número inteiro' },
      { field: 'idBranch', message: 'deve ser um número, não um texto' },
      { field: 'interests.1', message: 'deve ser um número, não um texto' },
    ]);
    expect(JSON.stringify(body)).not.toMatch(/12345|três|musculação/);
    expect(await rt.countLeads()).toBe(before);
  });

  it('refuses a body that is not JSON with 400, and stores nothing', async () => {
    const before = await rt.countLeads();
    const response = await rt.send(PATH, loadLeadFixture('prospect', 'malformed'));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'invalid_body', message: 'o corpo não é um JSON válido' },
    });
    expect(await rt.countLeads()).toBe(before);
  });

  it('accepts a Prospect without lastName with 202 and parks it, saying lastName is missing', async () => {
    const response = await rt.send(PATH, prospectWithoutLastName('sem.sobrenome@exemplo.com'));
    const parked = { profile: 'native', reason: 'falta o campo obrigatório sobrenome' };
    const lead = await expectParked(rt, response, parked, 202);
    expect(lead?.prospect).toMatchObject({ name: 'Rafael', email: 'sem.sobrenome@exemplo.com' });
  });
});
