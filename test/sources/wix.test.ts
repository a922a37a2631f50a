import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { wixSource } from '../../functions/sources/wix.ts';
import {
  CONTENT_HASH_KEY,
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { MORE_SECRETS } from '../helpers/more-sources.ts';
import { type ProfileOf, platformBody, platformRequest } from '../helpers/platform-fixtures.ts';

const profile: ProfileOf<'wix'> = {
  source: 'wix',
  token: MORE_SECRETS.wix,
  defaults: { idBranch: 1 },
};

const SUBMITTED = platformBody('wix', 'form-submitted.json');
const CUSTOM = platformBody('wix', 'custom-body.json');

const sent = (body: Buffer, token: string = MORE_SECRETS.wix) =>
  platformRequest(body, { query: { token: [token] } });
const leadOf = async (body: Buffer): Promise<LeadCapture> =>
  theLead(await wixSource.capture(sent(body), profile));

describe('wixSource.authenticate (Wix signs nothing: a token)', () => {
  it('accepts the token in the URL or X-Lead-Token; 401 without, 403 with another', () => {
    expect(wixSource.authenticate(sent(SUBMITTED), profile)).toEqual({ ok: true });
    expect(
      wixSource.authenticate(
        platformRequest(SUBMITTED, { headers: { 'X-Lead-Token': MORE_SECRETS.wix } }),
        profile,
      ),
    ).toEqual({ ok: true });
    expect(wixSource.authenticate(platformRequest(SUBMITTED), profile)).toMatchObject({
      status: 401,
    });
    expect(wixSource.authenticate(sent(SUBMITTED, 'x'), profile)).toMatchObject({
      status: 403,
      code: 'invalid_token',
    });
  });
});

describe('wixSource.capture', () => {
  it('reads the form trigger’s entire payload: submissions by label, the submission id', async () => {
    // Act
    const lead = await leadOf(SUBMITTED);

    // Assess
    expect(lead).toMatchObject({
      dedupKey: 'wix:3bb431c8-668a-4fe3-b707-87bd6ed44852',
      formId: '93553a26-2cd3-46d0-9833-8f5e59bd36fc',
      submittedAt: '2025-05-02T13:10:02.750Z',
      attribution: { utm_source: 'facebook', form_name: 'Aula experimental' },
    });
    // Each answer once: the field: copies and the CRM contact repeat them.
    expect(lead.answers.map((a) => a.key)).toEqual([
      'Nome',
      'Sobrenome',
      'Email',
      'Telefone (WhatsApp)',
      'Data de nascimento',
      'CPF',
      'Gênero',
      'Qual seu objetivo?',
    ]);
  });

  it('maps the submission field by field', async () => {
    // Act
    const prospect = mapCleanly(await leadOf(SUBMITTED), profile);

    // Assess
    expect(prospect).toMatchObject({
      name: 'Thiago',
      lastName: 'Barbosa Costa',
      email: 'thiago.barbosa@exemplo.com',
      ddi: '55',
      cellphone: '61993456789',
      cpf: '39053344705',
      birthday: '1990-10-25T00:00:00.000Z',
      gender: 'M',
      marketingType: 'facebook',
    });
    expect(prospect.notes).toContain('Qual seu objetivo?: Perder 5 kg até o verão');
    expect(prospect.notes).not.toContain('metaSiteId');
  });

  it('reads a customised body with its keys, the mapped submissionId as dedup key', async () => {
    // Act
    const lead = await leadOf(CUSTOM);

    // Assess
    expect(lead.dedupKey).toBe('wix:7d1e2f3a-4b5c-4d6e-8f70-9a1b2c3d4e5f');
    expect(mapCleanly(lead, profile)).toMatchObject({
      name: 'Renata',
      lastName: 'Carvalho',
      email: 'renata.carvalho@exemplo.com',
      cellphone: '11981234567',
    });
  });

  it('keys a body without a submission id by its content: a redelivery is the same lead', async () => {
    // Prepare
    const body = Buffer.from('{"nome":"Ana Lima","email":"ana.lima@exemplo.com"}');

    // Act
    const first = await leadOf(body);

    // Assess
    expect(first.dedupKey).toMatch(CONTENT_HASH_KEY);
    expect((await leadOf(Buffer.from(body))).dedupKey).toBe(first.dedupKey);
    expect((await leadOf(Buffer.from(SUBMITTED))).dedupKey).toBe(
      (await leadOf(SUBMITTED)).dedupKey,
    );
  });

  it.each([
    ['a body that is not JSON', platformBody('wix', 'malformed.txt'), 'o corpo não é JSON'],
    [
      'a body of metadata only',
      Buffer.from('{"formId":"x","submissionId":"y"}'),
      'o corpo não tem respostas',
    ],
  ])('reports %s as a problem to park', async (_, body, problem) => {
    expect(problemOf(await wixSource.capture(sent(body), profile))).toBe(problem);
  });
});

describe('the mapping corpus: Wix, field by field', () => {
  it.each(corpusOf('wix'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
