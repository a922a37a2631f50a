/**
 * Webflow's `form_submission` webhook through the local gateway: the same Lambda handler as on
 * AWS, the ledger on the local DynamoDB. Signed as a Webflow OAuth app signs it
 * (`x-webflow-timestamp`, `x-webflow-signature` over `<timestamp>:<raw body>`); Webflow counts
 * anything but 200 as a failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_SECRETS,
  type LeadFixture,
  loadLeadFixture,
  signWebflow,
  toIntakeRequest,
} from '../helpers/lead-fixtures.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';

const FORM_ID = '65429eadebe8a9f3a30f62d0';

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [],
    profiles: {
      webflow: {
        source: 'webflow',
        secret: DEMO_SECRETS.webflow,
        defaults: { idBranch: 1 },
        forms: { [FORM_ID]: { idBranch: 10, currentStep: 'Agendamento' } },
      },
    },
  });
});
afterAll(() => rt?.stop());

/** The fixture's body with Webflow's signature headers, signed now (or at `timestampMs`). */
function signed(
  fixture: LeadFixture,
  options: { secret?: string; timestampMs?: number } = {},
): Record<string, string> {
  const request = toIntakeRequest(fixture);
  const { headers } = signWebflow(
    request,
    options.secret ?? DEMO_SECRETS.webflow,
    options.timestampMs ?? Date.now(),
  );
  return {
    'content-type': fixture.headers['Content-Type'] ?? 'application/json',
    'x-webflow-timestamp': headers['x-webflow-timestamp'] ?? '',
    'x-webflow-signature': headers['x-webflow-signature'] ?? '',
  };
}

async function leadIdOf(response: Response): Promise<string> {
  const body = (await response.json()) as { leadId: string };
  return body.leadId;
}

describe('POST /leads/{profile} with a Webflow form_submission webhook', () => {
  it('accepts a signed submission with exactly 200 and maps it field by field', async () => {
    const fixture = loadLeadFixture('webflow', 'valid');
    const response = await rt.post('/leads/webflow', fixture.body, signed(fixture));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { leadId: string; status: string };
    expect(body).toEqual({ leadId: expect.stringMatching(/^ld_/), status: 'queued' });

    const lead = await rt.ledger.get(body.leadId);
    expect(lead).toMatchObject({
      profile: 'webflow',
      source: 'webflow',
      status: 'queued',
      dedupKey: 'webflow:6787f0a4c2b1d3e4f5a6b7c8',
      capture: {
        externalId: '6787f0a4c2b1d3e4f5a6b7c8',
        formId: FORM_ID,
        submittedAt: '2025-01-15T17:35:16.117Z',
      },
    });
    expect(lead?.prospect).toMatchObject({
      name: 'Fernanda',
      lastName: 'Oliveira Santos',
      email: 'fernanda.santos@exemplo.com',
      ddi: '55',
      // Webflow sent the phone as a JSON number.
      cellphone: '21998765432',
      cpf: '85351346893',
      birthday: '1995-08-30T00:00:00.000Z',
      gender: 'F',
      idBranch: 10,
      currentStep: 'Agendamento',
      marketingType: 'google',
    });
    const notes = lead?.prospect?.notes ?? '';
    expect(notes).toContain('Lead recebido via Webflow');
    expect(notes).toContain('Unidade: Botafogo');
    expect(notes).toContain('Aceito receber ofertas: true');
    expect(notes).toContain('utm_campaign=aula-gratis');
    expect(notes).toContain('gclid=EAIaIQobChMIq7rX0YyQigMVtE5IAB0');
    expect(notes).toContain('form_name=Agende sua aula');
  });

  it('answers a retry signed again with a new timestamp with the same lead', async () => {
    const valid = loadLeadFixture('webflow', 'valid');
    const first = await leadIdOf(await rt.post('/leads/webflow', valid.body, signed(valid)));
    const before = await rt.countLeads();

    const retry = loadLeadFixture('webflow', 'redelivery');
    const response = await rt.post(
      '/leads/webflow',
      retry.body,
      signed(retry, { timestampMs: Date.now() + 1_000 }),
    );
    expect(response.status).toBe(200);
    expect(await leadIdOf(response)).toBe(first);
    expect(await rt.countLeads()).toBe(before);
    expect((await rt.leads('webflow')).filter((l) => l.leadId === first)).toHaveLength(1);
  });

  it('refuses a body changed by one byte, another secret or a stale timestamp with 403, and stores nothing', async () => {
    const before = await rt.countLeads();
    const fixture = loadLeadFixture('webflow', 'valid');
    const headers = signed(fixture);
    // "Fernanda" → "Fernandb": one byte of the signed body changed.
    const tampered = fixture.body.replace('"Fernanda"', '"Fernandb"');
    expect(Buffer.byteLength(tampered)).toBe(Buffer.byteLength(fixture.body));
    const changed = await rt.post('/leads/webflow', tampered, headers);
    expect(changed.status).toBe(403);
    expect(await changed.json()).toMatchObject({ error: { code: 'invalid_signature' } });

    const otherSecret = await rt.post(
      '/leads/webflow',
      fixture.body,
      signed(fixture, { secret: 'another-secret' }),
    );
    expect(otherSecret.status).toBe(403);

    const stale = await rt.post(
      '/leads/webflow',
      fixture.body,
      signed(fixture, { timestampMs: Date.now() - 10 * 60_000 }),
    );
    expect(stale.status).toBe(403);
    expect(await stale.json()).toMatchObject({ error: { code: 'stale_timestamp' } });
    expect(await rt.countLeads()).toBe(before);
  });

  it('refuses an unsigned hook (made in the site dashboard) with 401 and stores nothing', async () => {
    const before = await rt.countLeads();
    const fixture = loadLeadFixture('webflow', 'valid');
    const response = await rt.send('/leads/webflow', fixture);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: 'missing_signature' } });
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a truncated body with its reason and still answers exactly 200', async () => {
    const fixture = loadLeadFixture('webflow', 'malformed');
    const response = await rt.post('/leads/webflow', fixture.body, signed(fixture));
    expect(response.status).toBe(200);
    const lead = await rt.ledger.get(await leadIdOf(response));
    expect(lead).toMatchObject({
      profile: 'webflow',
      status: 'parked',
      reason: 'unreadable body: body is not valid JSON',
    });
  });
});
