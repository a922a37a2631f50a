/**
 * Typeform's `form_response` webhook through the local gateway: the same Lambda handler as on
 * AWS, the ledger on the local DynamoDB. Signed with `Typeform-Signature: sha256=<base64 HMAC>`
 * over the raw body; answers keyed by field `ref`, hidden fields as attribution or answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';
import {
  flipOneByte,
  PLATFORM_SECRETS,
  platformBody,
  typeformSignature,
} from '../helpers/platform-fixtures.ts';

const FORM_ID = 'lT4Z3j';
const RESPONSE_TOKEN = 'a3a12ec67a1365927098a606107fac15';

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [],
    profiles: {
      typeform: {
        source: 'typeform',
        secret: PLATFORM_SECRETS.typeform,
        defaults: { idBranch: 1, visit: 4 },
        forms: { [FORM_ID]: { idBranch: 6 } },
      },
    },
  });
});
afterAll(() => rt?.stop());

function signedHeaders(body: Buffer, secret: string = PLATFORM_SECRETS.typeform) {
  return {
    'content-type': 'application/json',
    'typeform-signature': typeformSignature(body, secret),
  };
}

async function leadIdOf(response: Response): Promise<string> {
  const body = (await response.json()) as { leadId: string };
  return body.leadId;
}

describe('POST /leads/{profile} with a Typeform webhook', () => {
  it('accepts a signed form_response with 200 and maps it field by field', async () => {
    const body = platformBody('typeform', 'form-response.json');
    const response = await rt.post('/leads/typeform', body, signedHeaders(body));
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { leadId: string; status: string };
    expect(answer).toEqual({ leadId: expect.stringMatching(/^ld_/), status: 'queued' });

    const lead = await rt.ledger.get(answer.leadId);
    expect(lead).toMatchObject({
      profile: 'typeform',
      source: 'typeform',
      status: 'queued',
      dedupKey: `typeform:${RESPONSE_TOKEN}`,
      capture: {
        externalId: RESPONSE_TOKEN,
        formId: FORM_ID,
        submittedAt: '2025-05-02T13:10:02.000Z',
      },
    });
    expect(lead?.prospect).toMatchObject({
      name: 'Maria',
      lastName: 'Souza',
      email: 'maria.souza@example.com',
      ddi: '55',
      cellphone: '11987654321',
      cpf: '52998224725',
      birthday: '1990-05-12T00:00:00.000Z',
      gender: 'F',
      idBranch: 6,
      visit: 4,
      marketingType: 'facebook',
    });
    const notes = lead?.prospect?.notes ?? '';
    expect(notes).toContain(`Lead recebido via Typeform, formulário ${FORM_ID}`);
    // Unmapped answers under their question titles.
    expect(notes).toContain('Quais seus objetivos?: Emagrecer, Condicionamento');
    expect(notes).toContain('Quantos dias por semana?: 3');
    expect(notes).toContain('Já treinou em academia?: Não');
    expect(notes).toContain('Seu Instagram: https://instagram.com/maria.souza');
    // A hidden field that is no UTM is an answer; UTMs and click ids are the origin.
    expect(notes).toContain('unidade: Centro');
    expect(notes).toContain('utm_medium=cpc');
    expect(notes).toContain('utm_campaign=lancamento');
    expect(notes).toContain('fbclid=IwAR2F4-dbP0l7Mn1IawQQGCINEz7PYXQvwjNwB_qa2ofrHyiLjcbCRxTDMgk');
    expect(notes).not.toContain('gclid');
  });

  it('answers a redelivery with the same lead', async () => {
    const body = platformBody('typeform', 'form-response.json');
    const first = await leadIdOf(await rt.post('/leads/typeform', body, signedHeaders(body)));
    const before = await rt.countLeads();
    const again = await rt.post('/leads/typeform', body, signedHeaders(body));
    expect(again.status).toBe(200);
    expect(await leadIdOf(again)).toBe(first);
    expect(await rt.countLeads()).toBe(before);
    expect((await rt.leads('typeform')).filter((l) => l.leadId === first)).toHaveLength(1);
  });

  it('refuses a body changed by one byte or signed with another secret with 403, a missing signature with 401, and stores nothing', async () => {
    const before = await rt.countLeads();
    const body = platformBody('typeform', 'form-response.json');
    const changed = await rt.post('/leads/typeform', flipOneByte(body), signedHeaders(body));
    expect(changed.status).toBe(403);
    expect(await changed.json()).toMatchObject({ error: { code: 'invalid_signature' } });

    const other = await rt.post('/leads/typeform', body, signedHeaders(body, 'another-secret'));
    expect(other.status).toBe(403);

    // Typeform's signature is base64: the same HMAC in hex is not accepted.
    const hex = await rt.post('/leads/typeform', body, {
      'content-type': 'application/json',
      'typeform-signature': `sha256=${Buffer.from(
        typeformSignature(body, PLATFORM_SECRETS.typeform).slice(7),
        'base64',
      ).toString('hex')}`,
    });
    expect(hex.status).toBe(403);

    const missing = await rt.post('/leads/typeform', body, { 'content-type': 'application/json' });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'missing_signature' } });
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a truncated signed body with its reason and still answers 200', async () => {
    const body = platformBody('typeform', 'malformed.txt');
    const response = await rt.post('/leads/typeform', body, signedHeaders(body));
    expect(response.status).toBe(200);
    const lead = await rt.ledger.get(await leadIdOf(response));
    expect(lead).toMatchObject({
      profile: 'typeform',
      status: 'parked',
      reason: 'unreadable body: body is not JSON',
    });
  });
});
