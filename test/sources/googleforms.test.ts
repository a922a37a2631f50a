import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { googleFormsSource } from '../../functions/sources/googleforms.ts';
import {
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { googleFormsSignature, MORE_SECRETS } from '../helpers/more-sources.ts';
import {
  flipOneByte,
  type ProfileOf,
  platformBody,
  platformRequest,
} from '../helpers/platform-fixtures.ts';

const profile: ProfileOf<'googleforms'> = {
  source: 'googleforms',
  secret: MORE_SECRETS.googleforms,
  defaults: { idBranch: 1 },
};

const RESPONSE = platformBody('googleforms', 'form-response.json');
const SHEET = platformBody('googleforms', 'sheet-named-values.json');

const signed = (body: Buffer) =>
  platformRequest(body, { headers: { 'X-Lead-Signature': googleFormsSignature(body) } });
const leadOf = async (body: Buffer): Promise<LeadCapture> =>
  theLead(await googleFormsSource.capture(signed(body), profile));

describe('googleFormsSource.authenticate', () => {
  it('accepts the Apps Script’s sha256=<base64 HMAC> of the raw body', () => {
    expect(googleFormsSource.authenticate(signed(RESPONSE), profile)).toEqual({ ok: true });
  });

  it('answers 401 without X-Lead-Signature, 403 with another secret', () => {
    // Prepare
    const unsigned = platformRequest(RESPONSE);
    const other = platformRequest(RESPONSE, {
      headers: { 'X-Lead-Signature': googleFormsSignature(RESPONSE, 'another-secret') },
    });

    // Act / Assess
    expect(googleFormsSource.authenticate(unsigned, profile)).toMatchObject({
      status: 401,
      code: 'missing_signature',
    });
    expect(googleFormsSource.authenticate(other, profile)).toMatchObject({
      status: 403,
      code: 'invalid_signature',
    });
  });

  it('answers 403 when one byte of the body changed after signing', () => {
    const tampered = { ...signed(RESPONSE), body: flipOneByte(RESPONSE) };
    expect(googleFormsSource.authenticate(tampered, profile)).toMatchObject({ status: 403 });
  });
});

describe('googleFormsSource.capture', () => {
  it('reads the script’s response: answers by question title, the collected e-mail, the response id', async () => {
    // Act
    const lead = await leadOf(RESPONSE);

    // Assess
    expect(lead).toMatchObject({
      source: 'googleforms',
      dedupKey: 'googleforms:2_ABaOnud7Qm3kXv9sLr2pT8yWc4Hn6jZf1bGd5eKa0iUo3tSx7qPw',
      isTest: false,
      formId: '1FAIpQLSd8mQ2x7vZk3pR9tYb4nWc6eHj0uLa5sGf2KdXo1iMv8qPw',
      submittedAt: '2025-05-02T13:10:02.418Z',
      attribution: { utm_source: 'google', form_name: 'Agende sua aula experimental' },
    });
    expect(lead.answers).toContainEqual({
      key: 'respondentEmail',
      label: 'E-mail',
      type: 'email',
      value: 'pedro.alves@exemplo.com',
    });
    // A checkbox question stays a list; a blank answer is dropped.
    expect(lead.answers).toContainEqual({
      key: 'Qual horário você prefere treinar?',
      value: ['Manhã', 'Noite'],
    });
    expect(lead.answers.map((a) => a.key)).not.toContain('Algo mais que devemos saber?');
  });

  it('maps the response field by field', async () => {
    // Act
    const prospect = mapCleanly(await leadOf(RESPONSE), profile);

    // Assess
    expect(prospect).toMatchObject({
      name: 'Pedro Henrique',
      lastName: 'Alves',
      email: 'pedro.alves@exemplo.com',
      ddi: '55',
      cellphone: '21998765432',
      cpf: '85351346893',
      birthday: '1989-07-15T00:00:00.000Z',
      gender: 'M',
      marketingType: 'google',
    });
    expect(prospect.notes).toContain('Qual horário você prefere treinar?: Manhã, Noite');
    expect(prospect.notes).toContain('Já treinou em academia antes?: Sim');
  });

  it('reads a spreadsheet trigger’s namedValues, keyed by a hash that names the submission', async () => {
    // Act
    const lead = await leadOf(SHEET);
    const later = Buffer.from(SHEET.toString('utf8').replace('10:10:02', '10:11:40'));

    // Assess: the timestamp column is no answer, but a later submission is another lead
    expect(lead.dedupKey).toMatch(/^googleforms:[0-9a-f]{64}$/);
    expect(lead.answers.map((a) => a.key)).not.toContain('Carimbo de data/hora');
    expect(lead.answers[0]).toMatchObject({ type: 'email', value: 'pedro.alves@exemplo.com' });
    expect((await leadOf(later)).dedupKey).not.toBe(lead.dedupKey);
  });

  it('gives a redelivery of the same body the same dedup key', async () => {
    expect((await leadOf(Buffer.from(RESPONSE))).dedupKey).toBe((await leadOf(RESPONSE)).dedupKey);
    expect((await leadOf(Buffer.from(SHEET))).dedupKey).toBe((await leadOf(SHEET)).dedupKey);
  });

  it.each([
    ['a body that is not JSON', platformBody('googleforms', 'malformed.txt'), 'o corpo não é JSON'],
    ['no namedValues', Buffer.from('{"formId":"x"}'), 'namedValues falta ou não é um objeto'],
  ])('reports %s as a problem to park', async (_, body, problem) => {
    expect(problemOf(await googleFormsSource.capture(signed(body), profile))).toBe(problem);
    expect(googleFormsSource.parkUnreadable).toBe(true);
  });

  it('answers 200 with the lead id', () => {
    const answer = googleFormsSource.accepted(['ld_1']);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ leadId: 'ld_1', status: 'queued' });
  });
});

describe('the mapping corpus: Google Forms, field by field', () => {
  it.each(corpusOf('googleforms'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
