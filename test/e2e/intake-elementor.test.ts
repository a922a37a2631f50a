/**
 * Elementor Pro's form "Webhook" action through the local gateway: the same Lambda handler as on
 * AWS, the ledger on the local DynamoDB. A urlencoded POST by `wp_remote_post`, in default mode
 * (keys are field labels) or "Advanced Data" mode (bracket keys); Elementor needs exactly 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
import { CARLOS_LIMA, DEMO_SECRETS, loadLeadFixture } from '../helpers/lead-fixtures.ts';
import {
  expectErrorCode,
  expectParked,
  expectQueuedAnswer,
  expectSameLead,
  leadIdOf,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';

const FORM_ID = 'a1b2c3d';

const elementor = {
  source: 'elementor',
  token: DEMO_SECRETS.elementor,
  defaults: { idBranch: 1, temperature: 2 },
  forms: { [FORM_ID]: { idBranch: 9 } },
};

let rt: TestRuntime;
beforeAll(async () => {
  // A site uses one mode; the advanced one gets its own profile here.
  rt = await startTestRuntime(testConfig({ elementor, 'elementor-adv': elementor }));
});
afterAll(() => rt?.stop());

/** Carlos as both modes must map him. */
const CARLOS = { ...CARLOS_LIMA, idBranch: 9, temperature: 2, marketingType: 'instagram' };

describe('POST /leads/{profile} with an Elementor Pro webhook', () => {
  it('accepts a default-mode form with exactly 200 and maps it field by field', async () => {
    const response = await rt.send(
      '/leads/elementor',
      loadLeadFixture('elementor', 'default-mode'),
    );
    const lead = await expectQueuedAnswer(rt, response, 200);
    expect(lead).toMatchObject({
      profile: 'elementor',
      source: 'elementor',
      status: 'queued',
      capture: { formId: FORM_ID },
    });
    expect(lead?.prospect).toMatchObject(CARLOS);
    const notes = lead?.prospect?.notes ?? '';
    expectNotesContain(notes, [
      'Lead recebido via Elementor, formulário a1b2c3d.',
      'Modalidades de interesse: Musculação, Natação',
      'utm_medium=social',
      'utm_campaign=aula-experimental',
      'page_url=https://academia.example.com.br/aula-experimental/',
      'form_name=Aula experimental',
    ]);
    // Meta entries nobody typed stay out: user agent, IP, date, time, credit.
    expect(notes).not.toMatch(/177\.10\.20\.30|Mozilla|Powered by|14:35/);
  });

  it('accepts an "Advanced Data" form with exactly 200 and maps it the same way', async () => {
    const response = await rt.send(
      '/leads/elementor-adv',
      loadLeadFixture('elementor', 'advanced-mode'),
    );
    const lead = await expectQueuedAnswer(rt, response, 200);
    expect(lead).toMatchObject({ profile: 'elementor-adv', status: 'queued' });
    expect(lead?.prospect).toMatchObject(CARLOS);
    const notes = lead?.prospect?.notes ?? '';
    expectNotesContain(notes, [
      'Modalidades de interesse: Musculação, Natação',
      'form_name=Aula experimental',
    ]);
    expect(notes).not.toMatch(/177\.10\.20\.30|Mozilla/);
  });

  it('answers a redelivery, or the visitor pressing Send again, with the same lead', async () => {
    const fixture = loadLeadFixture('elementor', 'default-mode');
    const first = await leadIdOf(await rt.send('/leads/elementor', fixture));
    const before = await rt.countLeads();

    await expectSameLead(await rt.send('/leads/elementor', fixture), 200, first);
    // Same answers a minute later: only the Time meta differs, and it is not part of the lead.
    const resubmitted = await rt.send(
      '/leads/elementor',
      loadLeadFixture('elementor', 'default-mode-resubmitted'),
    );
    await expectSameLead(resubmitted, 200, first);

    expect(await rt.countLeads()).toBe(before);
    expect((await rt.leads('elementor')).filter((l) => l.leadId === first)).toHaveLength(1);
  });

  it('refuses a wrong or missing token with 403/401 and stores nothing', async () => {
    const before = await rt.countLeads();
    const fixture = loadLeadFixture('elementor', 'default-mode');
    const wrong = await rt.send('/leads/elementor?token=demo-elementor-tokem', fixture);
    await expectErrorCode(wrong, 403, 'invalid_token');
    const wrongHeader = await rt.send('/leads/elementor?x=1', fixture, {
      headers: { 'X-Lead-Token': 'not-the-token' },
    });
    expect(wrongHeader.status).toBe(403);
    const missing = await rt.send('/leads/elementor?x=1', fixture);
    await expectErrorCode(missing, 401, 'missing_token');
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a malformed body with its reason and still answers exactly 200', async () => {
    const response = await rt.send('/leads/elementor', loadLeadFixture('elementor', 'malformed'));
    await expectParked(rt, response, {
      profile: 'elementor',
      reason: 'corpo ilegível: o corpo não é um JSON válido',
    });
  });
});
