/**
 * RD Station Marketing webhooks through the local gateway: the same Lambda handler as on AWS,
 * the ledger on the local DynamoDB. The current `WEBHOOK.CONVERTED` event and the legacy
 * `{"leads": [...]}` payload (several leads in one request); RD signs nothing, so the profile
 * token travels in the URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';
import { PLATFORM_SECRETS, platformBody } from '../helpers/platform-fixtures.ts';

const URL_WITH_TOKEN = `/leads/rd?token=${PLATFORM_SECRETS.rdstation}`;
const JSON_HEADERS = { 'content-type': 'application/json' };

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [],
    profiles: {
      rd: {
        source: 'rdstation',
        token: PLATFORM_SECRETS.rdstation,
        defaults: { idBranch: 1 },
        // The conversion identifier is the form id: one conversion, one branch.
        forms: { 'aula-experimental': { idBranch: 7, currentStep: 'Aula experimental' } },
      },
    },
  });
});
afterAll(() => rt?.stop());

interface Accepted {
  leadId?: string;
  leadIds?: string[];
  status: string;
}

describe('POST /leads/{profile} with an RD Station webhook', () => {
  it('accepts a current WEBHOOK.CONVERTED event with 200 and maps it field by field', async () => {
    const response = await rt.post(
      URL_WITH_TOKEN,
      platformBody('rdstation', 'current.json'),
      JSON_HEADERS,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as Accepted;
    expect(body).toEqual({ leadId: expect.stringMatching(/^ld_/), status: 'queued' });

    const lead = await rt.ledger.get(body.leadId ?? '');
    expect(lead).toMatchObject({
      profile: 'rd',
      source: 'rdstation',
      status: 'queued',
      dedupKey:
        'rd:c2f3d2b3-7a1e-4a6f-9b0e-5d4c3b2a1f00:aula-experimental:2025-05-02T13:10:02.871Z',
      capture: { formId: 'aula-experimental', externalId: 'c2f3d2b3-7a1e-4a6f-9b0e-5d4c3b2a1f00' },
    });
    expect(lead?.prospect).toMatchObject({
      name: 'Ana',
      lastName: 'Paula Lima',
      email: 'ana.lima@example.com',
      // The mobile phone is the cellphone; the landline goes to notes.
      ddi: '55',
      cellphone: '48991234567',
      cpf: '52998224725',
      birthday: '1990-05-12T00:00:00.000Z',
      idBranch: 7,
      currentStep: 'Aula experimental',
      marketingType: 'RD Station',
    });
    expect(lead?.prospect?.gender).toBeUndefined();
    const notes = lead?.prospect?.notes ?? '';
    expect(notes).toContain('Lead recebido via RD Station, formulário aula-experimental');
    expect(notes).toContain('personal_phone: (48) 3222-1234');
    expect(notes).toContain('job_title: Analista');
    expect(notes).toContain('city: Florianópolis');
    expect(notes).toContain('cf_objetivo: Emagrecer, Condicionamento');
    expect(notes).toContain('cf_unidade: Centro');
    expect(notes).toContain('company: Empresa Exemplo');
    expect(notes).toContain('channel=Busca Paga | Google');
    expect(notes).toContain('tags=aula-experimental, unidade-centro');
  });

  it('records two leads for a legacy request carrying two', async () => {
    const response = await rt.post(
      URL_WITH_TOKEN,
      platformBody('rdstation', 'legacy-two-leads.json'),
      JSON_HEADERS,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as Accepted;
    expect(body).toEqual({
      leadIds: [expect.stringMatching(/^ld_/), expect.stringMatching(/^ld_/)],
      status: 'queued',
    });
    const [mariaId, carlosId] = body.leadIds ?? [];
    expect(mariaId).not.toBe(carlosId);

    const maria = await rt.ledger.get(mariaId ?? '');
    expect(maria).toMatchObject({ profile: 'rd', status: 'queued' });
    expect(maria?.prospect).toMatchObject({
      name: 'Maria',
      lastName: 'Souza',
      email: 'maria.souza@example.com',
      ddi: '55',
      cellphone: '11987654321',
      cpf: '52998224725',
      birthday: '1990-05-12T00:00:00.000Z',
      idBranch: 7,
      // The last conversion's origin: the UTM source is the marketing type.
      marketingType: 'google',
    });
    const mariaNotes = maria?.prospect?.notes ?? '';
    expect(mariaNotes).toContain('Melhor horário para contato: Manhã');
    expect(mariaNotes).toContain('Unidade: Centro');
    expect(mariaNotes).toContain('utm_campaign=aula-experimental-maio');
    expect(mariaNotes).toContain('utm_term=academia centro');

    const carlos = await rt.ledger.get(carlosId ?? '');
    expect(carlos).toMatchObject({ profile: 'rd', status: 'queued' });
    expect(carlos?.prospect).toMatchObject({
      name: 'Carlos',
      lastName: 'Pereira',
      email: 'carlos.pereira@example.com',
      ddi: '55',
      cellphone: '21998765432',
      idBranch: 7,
      // `(direct)` is an analytics placeholder, not a source.
      marketingType: 'RD Station',
    });
    expect(carlos?.prospect?.notes).toContain('channel=Direto');
    expect(carlos?.prospect?.notes).not.toContain('(direct)');
  });

  it('answers a redelivery with the same leads, never new ones', async () => {
    const body = platformBody('rdstation', 'legacy-two-leads.json');
    const first = ((await (await rt.post(URL_WITH_TOKEN, body, JSON_HEADERS)).json()) as Accepted)
      .leadIds;
    const before = await rt.countLeads();
    const again = await rt.post(URL_WITH_TOKEN, body, JSON_HEADERS);
    expect(again.status).toBe(200);
    expect(((await again.json()) as Accepted).leadIds).toEqual(first);
    expect(await rt.countLeads()).toBe(before);
    const leads = await rt.leads('rd');
    for (const leadId of first ?? []) {
      expect(leads.filter((l) => l.leadId === leadId)).toHaveLength(1);
    }
  });

  it('refuses a wrong or missing token with 403/401 and stores nothing', async () => {
    const before = await rt.countLeads();
    const body = platformBody('rdstation', 'current.json');
    const wrong = await rt.post('/leads/rd?token=demo-rd-tokem', body, JSON_HEADERS);
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ error: { code: 'invalid_token' } });
    const header = await rt.post('/leads/rd', body, { ...JSON_HEADERS, 'x-lead-token': 'nope' });
    expect(header.status).toBe(403);
    const missing = await rt.post('/leads/rd', body, JSON_HEADERS);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'missing_token' } });
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a truncated body with its reason and still answers 200', async () => {
    const response = await rt.post(
      URL_WITH_TOKEN,
      platformBody('rdstation', 'malformed.txt'),
      JSON_HEADERS,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as Accepted;
    const lead = await rt.ledger.get(body.leadId ?? '');
    expect(lead).toMatchObject({
      profile: 'rd',
      status: 'parked',
      reason: 'unreadable body: body is not JSON',
    });
  });
});
