/**
 * Webflow's `form_submission` webhook through the local gateway: the same Lambda handler as on
 * AWS, the ledger on the local DynamoDB. Signed as a Webflow OAuth app signs it
 * (`x-webflow-timestamp`, `x-webflow-signature` over `<timestamp>:<raw body>`); Webflow counts
 * anything but 200 as a failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
import {
  DEMO_SECRETS,
  FERNANDA_SANTOS,
  type LeadFixture,
  loadLeadFixture,
  signWebflow,
  toIntakeRequest,
} from '../helpers/lead-fixtures.ts';
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

const FORM_ID = '65429eadebe8a9f3a30f62d0';

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig({
      webflow: {
        source: 'webflow',
        secret: DEMO_SECRETS.webflow,
        defaults: { idBranch: 1 },
        forms: { [FORM_ID]: { idBranch: 10, currentStep: 'Agendamento' } },
      },
    }),
  );
});
afterAll(() => rt?.stop());

interface SignOptions {
  secret?: string;
  timestampMs?: number;
}

/** The fixture's body with Webflow's signature headers, signed now (or at `timestampMs`). */
function signed(fixture: LeadFixture, options: SignOptions = {}): Record<string, string> {
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

/** Posts the fixture's body to the webflow profile, signed now (or as `options` say). */
function postSigned(fixture: LeadFixture, options?: SignOptions) {
  return rt.post('/leads/webflow', fixture.body, signed(fixture, options));
}

describe('POST /leads/{profile} with a Webflow form_submission webhook', () => {
  it('accepts a signed submission with exactly 200 and maps it field by field', async () => {
    const response = await postSigned(loadLeadFixture('webflow', 'valid'));
    const lead = await expectQueuedAnswer(rt, response, 200);
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
    // Webflow sent the phone as a JSON number: FERNANDA_SANTOS has its digits.
    expect(lead?.prospect).toMatchObject({
      ...FERNANDA_SANTOS,
      idBranch: 10,
      currentStep: 'Agendamento',
      marketingType: 'google',
    });
    expectNotesContain(lead?.prospect?.notes ?? '', [
      'Lead recebido via Webflow',
      'Unidade: Botafogo',
      'Aceito receber ofertas: true',
      'utm_campaign=aula-gratis',
      'gclid=EAIaIQobChMIq7rX0YyQigMVtE5IAB0',
      'form_name=Agende sua aula',
    ]);
  });

  it('answers a retry signed again with a new timestamp with the same lead', async () => {
    const first = await leadIdOf(await postSigned(loadLeadFixture('webflow', 'valid')));
    const before = await rt.countLeads();

    const retry = loadLeadFixture('webflow', 'redelivery');
    const response = await postSigned(retry, { timestampMs: Date.now() + 1_000 });
    await expectSameLead(response, 200, first);
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
    await expectErrorCode(changed, 403, 'invalid_signature');

    const otherSecret = await postSigned(fixture, { secret: 'another-secret' });
    expect(otherSecret.status).toBe(403);

    const stale = await postSigned(fixture, { timestampMs: Date.now() - 10 * 60_000 });
    await expectErrorCode(stale, 403, 'stale_timestamp');
    expect(await rt.countLeads()).toBe(before);
  });

  it('refuses an unsigned hook (made in the site dashboard) with 401 and stores nothing', async () => {
    const before = await rt.countLeads();
    const fixture = loadLeadFixture('webflow', 'valid');
    const response = await rt.send('/leads/webflow', fixture);
    await expectErrorCode(response, 401, 'missing_signature');
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a truncated body with its reason and still answers exactly 200', async () => {
    const response = await postSigned(loadLeadFixture('webflow', 'malformed'));
    await expectParked(rt, response, {
      profile: 'webflow',
      reason: 'corpo ilegível: o corpo não é um JSON válido',
    });
  });
});
