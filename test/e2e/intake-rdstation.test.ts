/**
 * RD Station Marketing webhooks through the local gateway: the same Lambda handler as on AWS,
 * the ledger on the local DynamoDB. The current `WEBHOOK.CONVERTED` event and the legacy
 * `{"leads": [...]}` payload (several leads in one request); RD signs nothing, so the profile
 * token travels in the URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
import {
  expectErrorCode,
  expectParked,
  expectQueuedAnswer,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';
import {
  ANA_LIMA,
  CARLOS_PEREIRA,
  MARIA_SOUZA,
  PLATFORM_SECRETS,
  platformBody,
} from '../helpers/platform-fixtures.ts';

const URL_WITH_TOKEN = `/leads/rd?token=${PLATFORM_SECRETS.rdstation}`;
const JSON_HEADERS = { 'content-type': 'application/json' };

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig({
      rd: {
        source: 'rdstation',
        token: PLATFORM_SECRETS.rdstation,
        defaults: { idBranch: 1 },
        // The conversion identifier is the form id: one conversion, one branch.
        forms: { 'aula-experimental': { idBranch: 7, currentStep: 'Aula experimental' } },
      },
    }),
  );
});
afterAll(() => rt?.stop());

/** Posts test/fixtures/leads/rdstation/<file> with the profile token in the URL. */
const postFixture = (file: string) =>
  rt.post(URL_WITH_TOKEN, platformBody('rdstation', file), JSON_HEADERS);

interface Accepted {
  leadId?: string;
  leadIds?: string[];
  status: string;
}

describe('POST /leads/{profile} with an RD Station webhook', () => {
  it('accepts a current WEBHOOK.CONVERTED event with 200 and maps it field by field', async () => {
    const lead = await expectQueuedAnswer(rt, await postFixture('current.json'), 200);
    expect(lead).toMatchObject({
      profile: 'rd',
      source: 'rdstation',
      status: 'queued',
      dedupKey:
        'rd:c2f3d2b3-7a1e-4a6f-9b0e-5d4c3b2a1f00:aula-experimental:2025-05-02T13:10:02.871Z',
      capture: { formId: 'aula-experimental', externalId: 'c2f3d2b3-7a1e-4a6f-9b0e-5d4c3b2a1f00' },
    });
    // The mobile phone is the cellphone; the landline goes to notes.
    expect(lead?.prospect).toMatchObject({
      ...ANA_LIMA,
      idBranch: 7,
      currentStep: 'Aula experimental',
      marketingType: 'RD Station',
    });
    expect(lead?.prospect?.gender).toBeUndefined();
    expectNotesContain(lead?.prospect?.notes ?? '', [
      'Lead recebido via RD Station, formulário aula-experimental',
      'personal_phone: (48) 3222-1234',
      'job_title: Analista',
      'city: Florianópolis',
      'cf_objetivo: Emagrecer, Condicionamento',
      'cf_unidade: Centro',
      'company: Empresa Exemplo',
      'channel=Busca Paga | Google',
      'tags=aula-experimental, unidade-centro',
    ]);
  });

  it('records two leads for a legacy request carrying two', async () => {
    const response = await postFixture('legacy-two-leads.json');
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
      ...MARIA_SOUZA,
      idBranch: 7,
      // The last conversion's origin: the UTM source is the marketing type.
      marketingType: 'google',
    });
    expectNotesContain(maria?.prospect?.notes ?? '', [
      'Melhor horário para contato: Manhã',
      'Unidade: Centro',
      'utm_campaign=aula-experimental-maio',
      'utm_term=academia centro',
    ]);

    const carlos = await rt.ledger.get(carlosId ?? '');
    expect(carlos).toMatchObject({ profile: 'rd', status: 'queued' });
    expect(carlos?.prospect).toMatchObject({
      ...CARLOS_PEREIRA,
      idBranch: 7,
      // `(direct)` is an analytics placeholder, not a source.
      marketingType: 'RD Station',
    });
    expect(carlos?.prospect?.notes).toContain('channel=Direto');
    expect(carlos?.prospect?.notes).not.toContain('(direct)');
  });

  it('answers a redelivery with the same leads, never new ones', async () => {
    const first = ((await (await postFixture('legacy-two-leads.json')).json()) as Accepted).leadIds;
    const before = await rt.countLeads();
    const again = await postFixture('legacy-two-leads.json');
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
    await expectErrorCode(wrong, 403, 'invalid_token');
    const header = await rt.post('/leads/rd', body, { ...JSON_HEADERS, 'x-lead-token': 'nope' });
    expect(header.status).toBe(403);
    const missing = await rt.post('/leads/rd', body, JSON_HEADERS);
    await expectErrorCode(missing, 401, 'missing_token');
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a truncated body with its reason and still answers 200', async () => {
    await expectParked(rt, await postFixture('malformed.txt'), {
      profile: 'rd',
      reason: 'corpo ilegível: o corpo não é JSON',
    });
  });
});
