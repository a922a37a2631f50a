/**
 * Typeform's `form_response` webhook through the local gateway: the same Lambda handler as on
 * AWS, the ledger on the local DynamoDB. Signed with `Typeform-Signature: sha256=<base64 HMAC>`
 * over the raw body; answers keyed by field `ref`, hidden fields as attribution or answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
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
import {
  flipOneByte,
  MARIA_SOUZA,
  PLATFORM_SECRETS,
  platformBody,
  typeformSignature,
} from '../helpers/platform-fixtures.ts';

const FORM_ID = 'lT4Z3j';
const RESPONSE_TOKEN = 'a3a12ec67a1365927098a606107fac15';
const JSON_HEADERS = { 'content-type': 'application/json' };

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig({
      typeform: {
        source: 'typeform',
        secret: PLATFORM_SECRETS.typeform,
        defaults: { idBranch: 1, visit: 4 },
        forms: { [FORM_ID]: { idBranch: 6 } },
      },
    }),
  );
});
afterAll(() => rt?.stop());

function signedHeaders(body: Buffer, secret: string = PLATFORM_SECRETS.typeform) {
  return { ...JSON_HEADERS, 'typeform-signature': typeformSignature(body, secret) };
}

/** Posts `body` to the typeform profile, signed over its own bytes. */
const postSigned = (body: Buffer) => rt.post('/leads/typeform', body, signedHeaders(body));

describe('POST /leads/{profile} with a Typeform webhook', () => {
  it('accepts a signed form_response with 200 and maps it field by field', async () => {
    const response = await postSigned(platformBody('typeform', 'form-response.json'));
    const lead = await expectQueuedAnswer(rt, response, 200);
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
      ...MARIA_SOUZA,
      gender: 'F',
      idBranch: 6,
      visit: 4,
      marketingType: 'facebook',
    });
    const notes = lead?.prospect?.notes ?? '';
    expectNotesContain(notes, [
      `Lead recebido via Typeform, formulário ${FORM_ID}`,
      // Unmapped answers under their question titles.
      'Quais seus objetivos?: Emagrecer, Condicionamento',
      'Quantos dias por semana?: 3',
      'Já treinou em academia?: Não',
      'Seu Instagram: https://instagram.com/maria.souza',
      // A hidden field that is no UTM is an answer; UTMs and click ids are the origin.
      'unidade: Centro',
      'utm_medium=cpc',
      'utm_campaign=lancamento',
      'fbclid=IwAR2F4-dbP0l7Mn1IawQQGCINEz7PYXQvwjNwB_qa2ofrHyiLjcbCRxTDMgk',
    ]);
    expect(notes).not.toContain('gclid');
  });

  it('answers a redelivery with the same lead', async () => {
    const body = platformBody('typeform', 'form-response.json');
    const first = await leadIdOf(await postSigned(body));
    const before = await rt.countLeads();
    await expectSameLead(await postSigned(body), 200, first);
    expect(await rt.countLeads()).toBe(before);
    expect((await rt.leads('typeform')).filter((l) => l.leadId === first)).toHaveLength(1);
  });

  it('refuses a body changed by one byte or signed with another secret with 403, a missing signature with 401, and stores nothing', async () => {
    const before = await rt.countLeads();
    const body = platformBody('typeform', 'form-response.json');
    const changed = await rt.post('/leads/typeform', flipOneByte(body), signedHeaders(body));
    await expectErrorCode(changed, 403, 'invalid_signature');

    const other = await rt.post('/leads/typeform', body, signedHeaders(body, 'another-secret'));
    expect(other.status).toBe(403);

    // Typeform's signature is base64: the same HMAC in hex is not accepted.
    const hex = await rt.post('/leads/typeform', body, {
      ...JSON_HEADERS,
      'typeform-signature': `sha256=${Buffer.from(
        typeformSignature(body, PLATFORM_SECRETS.typeform).slice(7),
        'base64',
      ).toString('hex')}`,
    });
    expect(hex.status).toBe(403);

    const missing = await rt.post('/leads/typeform', body, JSON_HEADERS);
    await expectErrorCode(missing, 401, 'missing_signature');
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks a truncated signed body with its reason and still answers 200', async () => {
    const response = await postSigned(platformBody('typeform', 'malformed.txt'));
    await expectParked(rt, response, {
      profile: 'typeform',
      reason: 'corpo ilegível: o corpo não é JSON',
    });
  });
});
