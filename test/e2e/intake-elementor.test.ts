/**
 * Elementor Pro's form "Webhook" action through the local gateway: the same Lambda handler as on
 * AWS, the ledger on the local DynamoDB. A urlencoded POST by `wp_remote_post`, in default mode
 * (keys are field labels) or "Advanced Data" mode (bracket keys); Elementor needs exactly 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SECRETS, loadLeadFixture } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';

const FORM_ID = 'a1b2c3d';

const elementor = {
  source: 'elementor',
  token: DEMO_SECRETS.elementor,
  defaults: { idBranch: 1, temperature: 2 },
  forms: { [FORM_ID]: { idBranch: 9 } },
};

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [],
    // A site uses one mode; the advanced one gets its own profile here.
    profiles: { elementor, 'elementor-adv': elementor },
  });
});
afterAll(() => rt?.stop());

async function leadIdOf(response: Response): Promise<string> {
  const body = (await response.json()) as { leadId: string };
  return body.leadId;
}

/** Carlos as both modes must map him. */
const CARLOS = {
  name: 'Carlos',
  lastName: 'Eduardo Lima',
  email: 'carlos.lima@exemplo.com',
  ddi: '55',
  cellphone: '41991234567',
  cpf: '39053344705',
  birthday: '1987-04-19T00:00:00.000Z',
  gender: 'M',
  idBranch: 9,
  temperature: 2,
  marketingType: 'instagram',
};

describe('POST /leads/{profile} with an Elementor Pro webhook', () => {
  it('accepts a default-mode form with exactly 200 and maps it field by field', async () => {
    const response = await rt.send(
      '/leads/elementor',
      loadLeadFixture('elementor', 'default-mode'),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { leadId: string; status: string };
    expect(body).toEqual({ leadId: expect.stringMatching(/^ld_/), status: 'queued' });

    const lead = await rt.ledger.get(body.leadId);
    expect(lead).toMatchObject({
      profile: 'elementor',
      source: 'elementor',
      status: 'queued',
      capture: { formId: FORM_ID },
    });
    expect(lead?.prospect).toMatchObject(CARLOS);
    const notes = lead?.prospect?.notes ?? '';
    expect(notes).toContain('Lead recebido via Elementor, formulário a1b2c3d.');
    expect(notes).toContain('Modalidades de interesse: Musculação, Natação');
    expect(notes).toContain('utm_medium=social');
    expect(notes).toContain('utm_campaign=aula-experimental');
    expect(notes).toContain('page_url=https://academia.example.com.br/aula-experimental/');
    expect(notes).toContain('form_name=Aula experimental');
    // Meta entries nobody typed stay out: user agent, IP, date, time, credit.
    expect(notes).not.toMatch(/177\.10\.20\.30|Mozilla|Powered by|14:35/);
  });

  it('accepts an "Advanced Data" form with exactly 200 and maps it the same way', async () => {
    const response = await rt.send(
      '/leads/elementor-adv',
      loadLeadFixture('elementor', 'advanced-mode'),
    );
    expect(response.status).toBe(200);
    const lead = await rt.ledger.get(await leadIdOf(response));
    expect(lead).toMatchObject({ profile: 'elementor-adv', status: 'queued' });
    expect(lead?.prospect).toMatchObject(CARLOS);
    const notes = lead?.prospect?.notes ?? '';
    expect(notes).toContain('Modalidades de interesse: Musculação, Natação');
    expect(notes).toContain('form_name=Aula experimental');
    expect(notes).not.toMatch(/177\.10\.20\.30|Mozilla/);
  });

  it('answers a redelivery, or the visitor pressing Send again, with the same lead', async () => {
    const fixture = loadLeadFixture('elementor', 'default-mode');
    const first = await leadIdOf(await rt.send('/leads/elementor', fixture));
    const before = await rt.countLeads();

    const again = await rt.send('/leads/elementor', fixture);
    expect(again.status).toBe(200);
    expect(await leadIdOf(again)).toBe(first);
    // Same answers a minute later: only the Time meta differs, and it is not part of the lead.
    const resubmitted = await rt.send(
      '/leads/elementor',
      loadLeadFixture('elementor', 'default-mode-resubmitted'),
    );
    expect(resubmitted.status).toBe(200);
    expect(await leadIdOf(resubmitted)).toBe(first);

    expect(await rt.countLeads()).toBe(before);
    expect((await rt.leads('elementor')).filter((l) => l.leadId === first)).toHaveLength(1);
  });

  it('refuses a wrong or missing token with 403/401 and stores nothing', async () => {
    const before = await rt.countLeads();
    const fixture = loadLeadFixture('elementor', 'default-mode');
    const wrong = await rt.send('/leads/elementor?token=demo-elementor-tokem', fixture);
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ error: { code: 'invalid_token' } });
    const wrongHeader = await rt.send('/leads/elementor?x=1', fixture, {
      headers: { 'X-Lead-Token': 'not-the-token' },
    });
    expect(wrongHeader.status).toBe(403);
    const missing = await rt.send('/leads/elementor?x=1', fixture);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'missing_token' } });
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a malformed body with its reason and still answers exactly 200', async () => {
    const response = await rt.send('/leads/elementor', loadLeadFixture('elementor', 'malformed'));
    expect(response.status).toBe(200);
    const lead = await rt.ledger.get(await leadIdOf(response));
    expect(lead).toMatchObject({
      profile: 'elementor',
      status: 'parked',
      reason: 'unreadable body: body is not valid JSON',
    });
  });
});
