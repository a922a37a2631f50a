/**
 * Plain HTML forms through the local gateway: the same Lambda handler as on AWS, the ledger on
 * the local DynamoDB. Checks what a user of the product notices: the answer, the Prospect that
 * will be delivered, duplicates, spam, CORS and refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
import { DEMO_SECRETS, loadLeadFixture, MARIA_CONCEICAO } from '../helpers/lead-fixtures.ts';
import {
  expectErrorCode,
  expectQueuedAnswer,
  expectSameLead,
  leadIdOf,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';

const site = {
  source: 'form',
  token: DEMO_SECRETS.form,
  allowedOrigins: ['https://lp.example.com'],
  defaults: { idBranch: 1, marketingType: 'Site' },
  fieldMap: { qual_seu_cpf: 'cpf' },
};

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig({ site, obrigado: { ...site, redirectUrl: 'https://lp.example.com/obrigado' } }),
  );
});
afterAll(() => rt?.stop());

describe('POST /leads/{profile} with a plain HTML form', () => {
  it('accepts the form, records it and maps it to the Prospect field by field', async () => {
    const response = await rt.send('/leads/site', loadLeadFixture('form', 'valid-urlencoded'));
    const lead = await expectQueuedAnswer(rt, response, 202);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://lp.example.com');
    expect(lead).toMatchObject({ profile: 'site', source: 'form', status: 'queued' });
    expect(lead?.prospect).toMatchObject({
      ...MARIA_CONCEICAO,
      idBranch: 1,
      marketingType: 'Site',
    });
    expectNotesContain(lead?.prospect?.notes, [
      'Quero conhecer a unidade Paulista',
      'utm_campaign=matricula-verao',
      'gclid=Cj0KCQiA4L67BhDUARIsADWrl7Ekq9xY',
    ]);
  });

  it('answers a redelivery with the same lead, never a second one', async () => {
    const fixture = loadLeadFixture('form', 'redelivery-urlencoded');
    const first = await leadIdOf(await rt.send('/leads/site', fixture));
    await expectSameLead(await rt.send('/leads/site', fixture), 202, first);
    const queued = await rt.ledger.listByStatus('queued', { limit: 100 });
    expect(queued.leads.filter((lead) => lead.leadId === first)).toHaveLength(1);
  });

  it('keeps a lead the mapping cannot complete and says so: parked, with the reason', async () => {
    // Prepare: a Zapier step whose field mapping lost the phone.
    const body = JSON.stringify({ nome: 'Rita Alves', email: 'rita.alves@example.com' });

    // Act
    const response = await rt.post('/leads/site', body, {
      'content-type': 'application/json',
      'x-lead-token': DEMO_SECRETS.form,
    });

    // Assess: accepted (nothing typed is lost), and the answer does not pretend it is queued.
    expect(response.status).toBe(202);
    const answer = (await response.json()) as { leadId: string; status: string; reason: string };
    expect(answer).toEqual({
      leadId: expect.stringMatching(/^ld_/),
      status: 'parked',
      reason: 'falta o campo obrigatório celular',
    });
    const lead = await rt.ledger.get(answer.leadId);
    expect(lead).toMatchObject({ status: 'parked', prospect: { email: 'rita.alves@example.com' } });
  });

  it('refuses a wrong or missing token with 403/401 and stores nothing', async () => {
    const before = (await rt.ledger.listByStatus('queued', { limit: 100 })).leads.length;
    const fixture = loadLeadFixture('form', 'valid-urlencoded');
    const wrong = await rt.send('/leads/site?token=nope', fixture);
    await expectErrorCode(wrong, 403, 'invalid_token');
    // The page is allowed to read why (the fixture posts from https://lp.example.com).
    expect(wrong.headers.get('access-control-allow-origin')).toBe('https://lp.example.com');
    const missing = await rt.send('/leads/site?x=1', fixture);
    expect(missing.status).toBe(401);
    expect((await rt.ledger.listByStatus('queued', { limit: 100 })).leads.length).toBe(before);
  });

  it('answers a malformed body with 400 saying what is wrong', async () => {
    const response = await rt.send('/leads/site', loadLeadFixture('form', 'malformed-json'));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_body');
    expect(body.error.message).toMatch(/JSON/i);
  });

  it('quietly accepts and drops a lead whose honeypot is filled', async () => {
    const response = await rt.send('/leads/site', loadLeadFixture('form', 'honeypot'));
    expect(response.status).toBe(202);
    expect(await rt.ledger.get(await leadIdOf(response))).toBeUndefined();
  });

  it('redirects a plain HTML form to the thank-you page with 303', async () => {
    const response = await rt.send('/leads/obrigado', loadLeadFixture('form', 'valid-urlencoded'));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('https://lp.example.com/obrigado');
  });

  it('answers CORS preflight only for allowed origins', async () => {
    const preflight = (origin: string) =>
      fetch(new URL('/leads/site', rt.url), {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
    const allowed = await preflight('https://lp.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://lp.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('x-lead-token');
    const other = await preflight('https://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a body over the size limit with 413', async () => {
    const fixture = loadLeadFixture('form', 'valid-urlencoded');
    const response = await rt.send('/leads/site', {
      ...fixture,
      body: `${fixture.body}&pad=${'x'.repeat(300 * 1024)}`,
    });
    expect(response.status).toBe(413);
  });

  it('answers 404 for a profile that does not exist', async () => {
    const response = await rt.send('/leads/nope', loadLeadFixture('form', 'valid-urlencoded'));
    expect(response.status).toBe(404);
  });
});
