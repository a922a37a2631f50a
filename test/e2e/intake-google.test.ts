/**
 * The Google Ads lead form webhook through the local gateway: the same Lambda handler as on AWS,
 * the ledger on the local DynamoDB. A JSON `WebhookLead` carrying the shared key in the body
 * (`google_key`); Google expects 200 with `{}`, so the lead is found in the ledger by its id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
import {
  expectErrorCode,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';
import {
  GOOGLE_TEST_PERSON,
  JOAO_SILVA,
  PLATFORM_SECRETS,
  platformBody,
} from '../helpers/platform-fixtures.ts';

/** The lead's form_id: above 2^53, so a naive JSON.parse would read 9007199254740992. */
const FORM_ID = '9007199254740993';
const JSON_HEADERS = { 'content-type': 'application/json' };

const google = {
  source: 'google',
  key: PLATFORM_SECRETS.google,
  defaults: { idBranch: 4, currentStep: 'Lead Google' },
  forms: { [FORM_ID]: { idBranch: 5 } },
};

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig({ google, 'google-live': { ...google, deliverTestLeads: true } }),
  );
});
afterAll(() => rt?.stop());

/** The leads of `profile` whose Google lead_id is `leadId` (Google's answer carries no id). */
async function leadsWithId(profile: string, leadId: string): Promise<LeadRecord[]> {
  return (await rt.leads(profile)).filter((lead) => lead.capture.externalId === leadId);
}

async function expectEmptyObject(response: Response): Promise<void> {
  expect(response.status).toBe(200);
  expect(await response.text()).toBe('{}');
}

/** Posts Google's "Send test data" lead to `profile`; the one record it made there. */
async function postTestLead(profile: string): Promise<LeadRecord | undefined> {
  const body = platformBody('google', 'test-lead.json');
  await expectEmptyObject(await rt.post(`/leads/${profile}`, body, JSON_HEADERS));
  const [lead, ...others] = await leadsWithId(
    profile,
    'TeSter-123-ABCDEFGHIJKLMNOPQRSTUVWXYZ-abc-0123456789',
  );
  expect(others).toHaveLength(0);
  return lead;
}

describe('POST /leads/{profile} with a Google Ads lead form webhook', () => {
  it('accepts the lead with 200 {} and maps it to the Prospect field by field', async () => {
    await expectEmptyObject(
      await rt.post('/leads/google', platformBody('google', 'lead.json'), JSON_HEADERS),
    );

    const queued = await rt.ledger.listByStatus('queued', { limit: 100 });
    const lead = queued.leads.find((l) => l.capture.externalId === 'Cj0KCQjw-lead-0001-BR');
    expect(lead).toMatchObject({
      profile: 'google',
      source: 'google',
      status: 'queued',
      dedupKey: 'google:Cj0KCQjw-lead-0001-BR',
      capture: {
        isTest: false,
        formId: FORM_ID,
        submittedAt: '2025-05-02T13:10:02.000Z',
        attribution: {
          form_id: FORM_ID,
          campaign_id: '21876543210987654',
          gcl_id: 'Cj0KCQjwmYzIBhC6ARIsAHA3IkQ',
        },
      },
    });
    expect(lead?.prospect).toMatchObject({
      // The birthday is a custom question typed by a Brazilian audience: DD/MM/YYYY.
      ...JOAO_SILVA,
      // forms.<form_id> wins over defaults, which fill what the form does not set.
      idBranch: 5,
      currentStep: 'Lead Google',
      marketingType: 'Google Ads',
    });
    expect(lead?.prospect?.cpf).toBeUndefined();
    expect(lead?.prospect?.gender).toBeUndefined();
    const notes = lead?.prospect?.notes ?? '';
    expectNotesContain(notes, [
      `Lead recebido via Google Ads, formulário ${FORM_ID}, lead Cj0KCQjw-lead-0001-BR.`,
      'Qual horário você prefere treinar?: Manhã',
      'Postal Code: 20040-002',
      'City: Rio de Janeiro',
      'gcl_id=Cj0KCQjwmYzIBhC6ARIsAHA3IkQ',
      'campaign_id=21876543210987654',
    ]);
    // The shared key never reaches the CRM.
    expect(notes).not.toContain(PLATFORM_SECRETS.google);
  });

  it('answers a redelivery with 200 {} and keeps a single lead', async () => {
    const body = platformBody('google', 'lead.json');
    await expectEmptyObject(await rt.post('/leads/google', body, JSON_HEADERS));
    const before = await rt.countLeads();
    await expectEmptyObject(await rt.post('/leads/google', body, JSON_HEADERS));
    expect(await rt.countLeads()).toBe(before);
    expect(await leadsWithId('google', 'Cj0KCQjw-lead-0001-BR')).toHaveLength(1);
  });

  it('refuses a wrong key with 403 and a missing key with 401, and stores nothing', async () => {
    const before = await rt.countLeads();
    const lead = JSON.parse(platformBody('google', 'lead.json').toString('utf8')) as Record<
      string,
      unknown
    >;
    const wrong = await rt.post(
      '/leads/google',
      JSON.stringify({ ...lead, lead_id: 'other-lead', google_key: 'demo-google-kez' }),
      JSON_HEADERS,
    );
    await expectErrorCode(wrong, 403, 'invalid_key');

    const { google_key: _none, ...keyless } = lead;
    const missing = await rt.post(
      '/leads/google',
      JSON.stringify({ ...keyless, lead_id: 'other-lead' }),
      JSON_HEADERS,
    );
    await expectErrorCode(missing, 401, 'missing_key');
    expect(await rt.countLeads()).toBe(before);
    expect(await leadsWithId('google', 'other-lead')).toHaveLength(0);
  });

  it('keeps a test lead ("Send test data") as `test`, not queued', async () => {
    const lead = await postTestLead('google');
    expect(lead).toMatchObject({ status: 'test', capture: { isTest: true } });
    const queued = await rt.ledger.listByStatus('queued', { limit: 100 });
    expect(queued.leads.some((l) => l.leadId === lead?.leadId)).toBe(false);
  });

  it('queues a test lead when the profile says deliverTestLeads', async () => {
    const lead = await postTestLead('google-live');
    expect(lead).toMatchObject({ status: 'queued', capture: { isTest: true } });
    expect(lead?.prospect).toMatchObject({ ...GOOGLE_TEST_PERSON, idBranch: 4 });
    expect(lead?.prospect?.notes).toContain('LEAD DE TESTE');
  });

  it('parks an authentic lead without lead_id with its reason, answering 200 {}', async () => {
    await expectEmptyObject(
      await rt.post('/leads/google', platformBody('google', 'no-lead-id.json'), JSON_HEADERS),
    );
    const parked = await rt.ledger.listByStatus('parked', { limit: 100 });
    const lead = parked.leads.find((l) => l.profile === 'google' && /lead_id/.test(l.reason ?? ''));
    expect(lead).toMatchObject({
      source: 'google',
      status: 'parked',
      reason: 'corpo ilegível: falta lead_id',
    });
    // The body is kept for an operator, but the shared key it carries is a secret: it must not
    // be stored with it (nor reach the CRM's notes if the lead is retried).
    expect(JSON.stringify(lead?.capture)).toContain('a@example.com');
    expect(JSON.stringify(lead)).not.toContain(PLATFORM_SECRETS.google);
  });

  it('refuses a body too broken to carry the key with 401, and stores nothing', async () => {
    // Google's key is inside the body: a body that is not JSON cannot be authenticated, so it
    // is refused rather than parked (anyone could otherwise fill the ledger).
    const before = await rt.countLeads();
    const response = await rt.post(
      '/leads/google',
      platformBody('google', 'malformed.txt'),
      JSON_HEADERS,
    );
    await expectErrorCode(response, 401, 'missing_key');
    expect(await rt.countLeads()).toBe(before);
  });
});
