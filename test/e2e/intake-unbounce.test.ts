/**
 * Unbounce's form webhook through the local gateway: the same Lambda handler as on AWS, the
 * ledger on the local DynamoDB. A urlencoded POST whose answers sit in `data.json` (every value
 * an array), authenticated by the profile token in the URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SECRETS, loadLeadFixture } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';

const PAGE_ID = '7c1b2e4a-9f3d-4c8e-b5a6-2d1f0e9c8b7a';

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [],
    profiles: {
      unbounce: {
        source: 'unbounce',
        token: DEMO_SECRETS.unbounce,
        defaults: { idBranch: 1, currentStep: 'Lead' },
        // The landing page's own branch: `forms.<page_id>` wins over `defaults`.
        forms: { [PAGE_ID]: { idBranch: 8 } },
      },
    },
  });
});
afterAll(() => rt?.stop());

async function leadIdOf(response: Response): Promise<string> {
  const body = (await response.json()) as { leadId: string };
  return body.leadId;
}

describe('POST /leads/{profile} with an Unbounce webhook', () => {
  it('accepts the lead with 200, records it and maps it to the Prospect field by field', async () => {
    const response = await rt.send('/leads/unbounce', loadLeadFixture('unbounce', 'valid'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { leadId: string; status: string };
    expect(body).toEqual({ leadId: expect.stringMatching(/^ld_/), status: 'queued' });

    const lead = await rt.ledger.get(body.leadId);
    expect(lead).toMatchObject({
      profile: 'unbounce',
      source: 'unbounce',
      status: 'queued',
      capture: { formId: PAGE_ID, submittedAt: '2025-01-15T14:35:00.000Z' },
    });
    expect(lead?.prospect).toMatchObject({
      name: 'Ana',
      lastName: 'Beatriz Gonçalves',
      email: 'ana.goncalves@exemplo.com.br',
      ddi: '55',
      cellphone: '31988887777',
      cpf: '12345678909',
      birthday: '1992-11-23T00:00:00.000Z',
      gender: 'F',
      idBranch: 8,
      currentStep: 'Lead',
      marketingType: 'facebook',
    });
    const notes = lead?.prospect?.notes ?? '';
    expect(notes).toContain('Lead recebido via Unbounce');
    expect(notes).toContain('qual_seu_objetivo: Hipertrofia, Saúde e bem-estar');
    expect(notes).toContain('utm_medium=cpc');
    expect(notes).toContain('utm_campaign=verao-2025');
    expect(notes).toContain('fbclid=IwAR0x7YqL2mN8pK4sT1vW9zB3cD6eF5gH');
    expect(notes).toContain('page_name=LP Academia Verão 2025');
    expect(notes).toContain('variant=b');
    // Unbounce's metadata is nobody's answer: the visitor's IP never reaches the CRM.
    expect(notes).not.toContain('189.6.12.34');
    expect(notes).not.toContain('como_conheceu');
  });

  it('answers a redelivery with the same lead: again, in another key order, relayed by PHP with the header token', async () => {
    const first = await leadIdOf(
      await rt.send('/leads/unbounce', loadLeadFixture('unbounce', 'valid')),
    );
    const before = await rt.countLeads();

    const again = await rt.send('/leads/unbounce', loadLeadFixture('unbounce', 'valid'));
    expect(again.status).toBe(200);
    expect(await leadIdOf(again)).toBe(first);
    const reordered = await rt.send('/leads/unbounce', loadLeadFixture('unbounce', 'redelivery'));
    expect(reordered.status).toBe(200);
    expect(await leadIdOf(reordered)).toBe(first);
    const viaPhp = await rt.send('/leads/unbounce', loadLeadFixture('unbounce', 'php-renamed'));
    expect(viaPhp.status).toBe(200);
    expect(await leadIdOf(viaPhp)).toBe(first);

    expect(await rt.countLeads()).toBe(before);
    const same = (await rt.leads('unbounce')).filter((lead) => lead.leadId === first);
    expect(same).toHaveLength(1);
  });

  it('refuses a wrong or missing token with 403/401 and stores nothing', async () => {
    const before = await rt.countLeads();
    const fixture = loadLeadFixture('unbounce', 'valid');
    const wrong = await rt.send('/leads/unbounce?token=demo-unbounce-tokeN', fixture);
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ error: { code: 'invalid_token' } });
    const missing = await rt.send('/leads/unbounce?x=1', fixture);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'missing_token' } });
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a truncated body with its reason and still answers 200 (Unbounce drops 4xx leads)', async () => {
    const response = await rt.send('/leads/unbounce', loadLeadFixture('unbounce', 'malformed'));
    expect(response.status).toBe(200);
    const lead = await rt.ledger.get(await leadIdOf(response));
    expect(lead).toMatchObject({
      profile: 'unbounce',
      status: 'parked',
      reason: 'unreadable body: data.json is not valid JSON',
    });
    // The body is kept for an operator to read.
    expect(JSON.stringify(lead?.capture.answers)).toContain('Ana+Beatriz');
  });
});
