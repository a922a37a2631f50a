/**
 * Unbounce's form webhook through the local gateway: the same Lambda handler as on AWS, the
 * ledger on the local DynamoDB. A urlencoded POST whose answers sit in `data.json` (every value
 * an array), authenticated by the profile token in the URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
import { ANA_GONCALVES, DEMO_SECRETS, loadLeadFixture } from '../helpers/lead-fixtures.ts';
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

const PAGE_ID = '7c1b2e4a-9f3d-4c8e-b5a6-2d1f0e9c8b7a';

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig({
      unbounce: {
        source: 'unbounce',
        token: DEMO_SECRETS.unbounce,
        defaults: { idBranch: 1, currentStep: 'Lead' },
        // The landing page's own branch: `forms.<page_id>` wins over `defaults`.
        forms: { [PAGE_ID]: { idBranch: 8 } },
      },
    }),
  );
});
afterAll(() => rt?.stop());

/** Posts test/fixtures/leads/unbounce/<name>.json to the unbounce profile. */
const sendFixture = (name: string) => rt.send('/leads/unbounce', loadLeadFixture('unbounce', name));

describe('POST /leads/{profile} with an Unbounce webhook', () => {
  it('accepts the lead with 200, records it and maps it to the Prospect field by field', async () => {
    const lead = await expectQueuedAnswer(rt, await sendFixture('valid'), 200);
    expect(lead).toMatchObject({
      profile: 'unbounce',
      source: 'unbounce',
      status: 'queued',
      capture: { formId: PAGE_ID, submittedAt: '2025-01-15T14:35:00.000Z' },
    });
    expect(lead?.prospect).toMatchObject({
      ...ANA_GONCALVES,
      idBranch: 8,
      currentStep: 'Lead',
      marketingType: 'facebook',
    });
    const notes = lead?.prospect?.notes ?? '';
    expectNotesContain(notes, [
      'Lead recebido via Unbounce',
      'qual_seu_objetivo: Hipertrofia, Saúde e bem-estar',
      'utm_medium=cpc',
      'utm_campaign=verao-2025',
      'fbclid=IwAR0x7YqL2mN8pK4sT1vW9zB3cD6eF5gH',
      'page_name=LP Academia Verão 2025',
      'variant=b',
    ]);
    // Unbounce's metadata is nobody's answer: the visitor's IP never reaches the CRM.
    expect(notes).not.toContain('189.6.12.34');
    expect(notes).not.toContain('como_conheceu');
  });

  it('answers a redelivery with the same lead: again, in another key order, relayed by PHP with the header token', async () => {
    const first = await leadIdOf(await sendFixture('valid'));
    const before = await rt.countLeads();

    await expectSameLead(await sendFixture('valid'), 200, first);
    await expectSameLead(await sendFixture('redelivery'), 200, first);
    await expectSameLead(await sendFixture('php-renamed'), 200, first);

    expect(await rt.countLeads()).toBe(before);
    const same = (await rt.leads('unbounce')).filter((lead) => lead.leadId === first);
    expect(same).toHaveLength(1);
  });

  it('refuses a wrong or missing token with 403/401 and stores nothing', async () => {
    const before = await rt.countLeads();
    const fixture = loadLeadFixture('unbounce', 'valid');
    const wrong = await rt.send('/leads/unbounce?token=demo-unbounce-tokeN', fixture);
    await expectErrorCode(wrong, 403, 'invalid_token');
    const missing = await rt.send('/leads/unbounce?x=1', fixture);
    await expectErrorCode(missing, 401, 'missing_token');
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a truncated body with its reason and still answers 200 (Unbounce drops 4xx leads)', async () => {
    const lead = await expectParked(rt, await sendFixture('malformed'), {
      profile: 'unbounce',
      reason: 'corpo ilegível: data.json não é um JSON válido',
    });
    // The body is kept for an operator to read.
    expect(JSON.stringify(lead?.capture.answers)).toContain('Ana+Beatriz');
  });
});
