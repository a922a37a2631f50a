/**
 * A platform's (or a person's curl) refused credentials through the local gateway: the message in
 * Portuguese unless the request asks for English, the code the same in both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, type TestRuntime, testConfig } from '../helpers/local-runtime.ts';

const site = { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } };
const typeform = {
  source: 'typeform',
  secret: 'typeform-secret-for-tests',
  defaults: { idBranch: 1 },
};

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(testConfig({ site, typeform }));
});
afterAll(() => rt?.stop());

async function refusal(path: string, headers: Record<string, string> = {}) {
  const response = await rt.post(path, '{"x":1}', {
    'content-type': 'application/json',
    ...headers,
  });
  const body = (await response.json()) as { error: { code: string; message: string; details: [] } };
  const { details, ...error } = body.error;
  expect(details).toEqual([]);
  return { status: response.status, ...error };
}

describe('source authentication refusals', () => {
  it('say a missing or wrong token in Portuguese, in English on request, with the same codes', async () => {
    // Act
    const missing = await refusal('/leads/site');
    const wrong = await refusal('/leads/site?token=not-the-token');
    const wrongInEnglish = await refusal('/leads/site?token=not-the-token', {
      'accept-language': 'en-US,en;q=0.9',
    });

    // Assess
    expect(missing).toEqual({
      status: 401,
      code: 'missing_token',
      message: 'Este endereço exige o token do perfil: envie ?token= ou o cabeçalho X-Lead-Token.',
    });
    expect(wrong).toEqual({
      status: 403,
      code: 'invalid_token',
      message: 'O token não vale para este perfil.',
    });
    expect(wrongInEnglish).toEqual({
      status: 403,
      code: 'invalid_token',
      message: 'The token is not valid for this profile.',
    });
  });

  it('say a missing or mismatched signature in Portuguese, in English on request', async () => {
    // Act
    const missing = await refusal('/leads/typeform');
    const forged = await refusal('/leads/typeform', { 'typeform-signature': 'sha256=forged' });
    const forgedInEnglish = await refusal('/leads/typeform', {
      'typeform-signature': 'sha256=forged',
      'accept-language': 'en',
    });

    // Assess
    expect(missing).toEqual({
      status: 401,
      code: 'missing_signature',
      message: 'O cabeçalho Typeform-Signature é obrigatório.',
    });
    expect(forged).toEqual({
      status: 403,
      code: 'invalid_signature',
      message: 'O cabeçalho Typeform-Signature não confere com o corpo.',
    });
    expect(forgedInEnglish).toMatchObject({
      code: 'invalid_signature',
      message: 'The Typeform-Signature header does not match the body.',
    });
  });
});
