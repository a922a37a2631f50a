import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { tallySource } from '../../functions/sources/tally.ts';
import {
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { MORE_SECRETS, tallySignatureOf } from '../helpers/more-sources.ts';
import {
  changedBody,
  flipOneByte,
  type ProfileOf,
  platformBody,
  platformRequest,
} from '../helpers/platform-fixtures.ts';

const profile: ProfileOf<'tally'> = {
  source: 'tally',
  secret: MORE_SECRETS.tally,
  defaults: { idBranch: 1 },
};

const RESPONSE = platformBody('tally', 'form-response.json');

const signed = (body: Buffer) =>
  platformRequest(body, { headers: { 'Tally-Signature': tallySignatureOf(body) } });
const leadOf = async (body: Buffer): Promise<LeadCapture> =>
  theLead(await tallySource.capture(signed(body), profile));

const variant = (change: (payload: Record<string, unknown>) => void) =>
  changedBody(RESPONSE, change);

describe('tallySource.authenticate', () => {
  it('accepts the base64 HMAC-SHA256 of the raw body', () => {
    expect(tallySource.authenticate(signed(RESPONSE), profile)).toEqual({ ok: true });
  });

  it('answers 401 without Tally-Signature (a webhook with no signing secret)', () => {
    expect(tallySource.authenticate(platformRequest(RESPONSE), profile)).toMatchObject({
      status: 401,
      code: 'missing_signature',
    });
  });

  it('answers 403 for another secret, a hex digest, or one byte changed after signing', () => {
    // Prepare
    const other = platformRequest(RESPONSE, {
      headers: { 'Tally-Signature': tallySignatureOf(RESPONSE, 'another-secret') },
    });
    const hex = platformRequest(RESPONSE, {
      headers: {
        'Tally-Signature': Buffer.from(tallySignatureOf(RESPONSE), 'base64').toString('hex'),
      },
    });
    const tampered = { ...signed(RESPONSE), body: flipOneByte(RESPONSE) };

    // Act / Assess
    for (const request of [other, hex, tampered]) {
      expect(tallySource.authenticate(request, profile)).toMatchObject({
        status: 403,
        code: 'invalid_signature',
      });
    }
  });
});

describe('tallySource.capture', () => {
  it('reads fields by key with their labels and types, choices resolved to their text', async () => {
    // Act
    const lead = await leadOf(RESPONSE);

    // Assess
    expect(lead).toMatchObject({
      dedupKey: 'tally:2wgx4n',
      externalId: '2wgx4n',
      formId: 'VwbNEw',
      isTest: false,
      submittedAt: '2025-05-02T13:10:02.000Z',
      attribution: {
        utm_source: 'instagram',
        utm_campaign: 'maio-aula-gratis',
        form_name: 'Aula experimental grátis',
      },
    });
    expect(lead.answers).toContainEqual({
      key: 'question_meaqEl',
      label: 'Gênero',
      type: 'choice',
      value: 'Feminino',
    });
    // The checkbox group once (not its per-option booleans), an empty answer and Tally's
    // calculated field not at all.
    expect(lead.answers).toContainEqual({
      key: 'question_w2E4N2',
      label: 'Quais modalidades te interessam?',
      type: 'choice',
      value: ['Musculação', 'Pilates'],
    });
    expect(lead.answers).toHaveLength(10);
    expect(lead.answers.map((a) => a.key)).not.toContain('question_9kLpQ2');
  });

  it('maps the response field by field', async () => {
    // Act
    const prospect = mapCleanly(await leadOf(RESPONSE), profile);

    // Assess
    expect(prospect).toMatchObject({
      name: 'Juliana',
      lastName: 'Martins Costa',
      email: 'juliana.costa@exemplo.com',
      ddi: '55',
      cellphone: '11976543210',
      cpf: '39053344705',
      birthday: '1994-03-08T00:00:00.000Z',
      gender: 'F',
      marketingType: 'instagram',
    });
    for (const line of [
      'Quais modalidades te interessam?: Musculação, Pilates',
      'Unidade mais perto de você: Pinheiros',
      'Conte seu objetivo: Voltar a treinar depois da gravidez',
      'Treinos por semana: 3',
      'utm_campaign=maio-aula-gratis',
    ]) {
      expect(prospect.notes).toContain(line);
    }
  });

  it('gives a redelivery (Tally’s retry) the same dedup key', async () => {
    expect((await leadOf(Buffer.from(RESPONSE))).dedupKey).toBe((await leadOf(RESPONSE)).dedupKey);
  });

  it('acknowledges other event types with no lead', async () => {
    const body = variant((payload) => {
      payload.eventType = 'FORM_DELETED';
    });
    expect(await tallySource.capture(signed(body), profile)).toEqual({ leads: [] });
  });

  it.each([
    ['a body that is not JSON', platformBody('tally', 'malformed.txt'), 'o corpo não é JSON'],
    ['no data', Buffer.from('{"eventType":"FORM_RESPONSE"}'), 'data falta ou não é um objeto'],
    [
      'no response id',
      variant((payload) => {
        (payload.data as Record<string, unknown>).responseId = undefined;
        (payload.data as Record<string, unknown>).submissionId = undefined;
      }),
      'falta data.responseId',
    ],
  ])('reports %s as a problem to park', async (_, body, problem) => {
    expect(problemOf(await tallySource.capture(signed(body), profile))).toBe(problem);
  });
});

describe('the mapping corpus: Tally, field by field', () => {
  it.each(corpusOf('tally'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
