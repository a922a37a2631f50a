import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { googleSource } from '../../functions/sources/google.ts';
import {
  CONTENT_HASH_KEY,
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  theLead,
} from '../helpers/lead-assertions.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import {
  changedBody,
  flipOneByte,
  GOOGLE_TEST_PERSON,
  JOAO_SILVA,
  PLATFORM_SECRETS,
  type ProfileOf,
  platformBody,
  platformRequest,
} from '../helpers/platform-fixtures.ts';

const profile: ProfileOf<'google'> = {
  source: 'google',
  key: PLATFORM_SECRETS.google,
  defaults: { idBranch: 4 },
};

const TEST_LEAD = platformBody('google', 'test-lead.json');
const LEAD = platformBody('google', 'lead.json');

async function leadOf(body: Buffer): Promise<LeadCapture> {
  return theLead(await googleSource.capture(platformRequest(body), profile));
}

function withKey(key: unknown): Buffer {
  return changedBody(TEST_LEAD, (payload) => {
    if (key === undefined) delete payload.google_key;
    else payload.google_key = key;
  });
}

describe('googleSource.authenticate', () => {
  it('accepts the google_key of the body', () => {
    expect(googleSource.authenticate(platformRequest(TEST_LEAD), profile)).toEqual({ ok: true });
  });

  it.each([
    ['no google_key', withKey(undefined)],
    ['an empty google_key', withKey('')],
    ['a google_key that is not text', withKey(12345)],
    ['a body that is not JSON', platformBody('google', 'malformed.txt')],
    ['a JSON array', Buffer.from('[]')],
    ['an empty body', Buffer.alloc(0)],
  ])('answers 401 missing_key for %s', (_, body) => {
    expect(googleSource.authenticate(platformRequest(body), profile)).toMatchObject({
      ok: false,
      status: 401,
      code: 'missing_key',
    });
  });

  it('answers 403 invalid_key for another key, without echoing it', () => {
    const result = googleSource.authenticate(platformRequest(withKey('guessed-key')), profile);
    expect(result).toMatchObject({ ok: false, status: 403, code: 'invalid_key' });
    expect(JSON.stringify(result)).not.toContain('guessed-key');
  });

  it('answers 403 when one byte of the key changed', () => {
    const at = TEST_LEAD.indexOf(PLATFORM_SECRETS.google) + 3;
    const result = googleSource.authenticate(platformRequest(flipOneByte(TEST_LEAD, at)), profile);
    expect(result).toMatchObject({ ok: false, status: 403 });
  });
});

describe('googleSource.capture', () => {
  it("captures Google's test payload: test flag, enum keys, ids as strings", async () => {
    expect(await leadOf(TEST_LEAD)).toEqual({
      source: 'google',
      dedupKey: 'google:TeSter-123-ABCDEFGHIJKLMNOPQRSTUVWXYZ-abc-0123456789',
      isTest: true,
      externalId: 'TeSter-123-ABCDEFGHIJKLMNOPQRSTUVWXYZ-abc-0123456789',
      formId: '349080077126',
      answers: [
        { key: 'FULL_NAME', label: 'Full Name', value: 'FirstName LastName' },
        // The standard e-mail and phone columns declare their input type.
        { key: 'EMAIL', label: 'User Email', type: 'email', value: 'test@example.com' },
        { key: 'PHONE_NUMBER', label: 'User Phone', type: 'phone', value: '+16505550123' },
        { key: 'GOVERNMENT_ISSUED_ID_CPF_BR', label: 'CPF', value: '529.982.247-25' },
      ],
      attribution: {
        form_id: '349080077126',
        campaign_id: '23729418209',
        adgroup_id: '20000000000',
        creative_id: '30000000000',
        gcl_id: 'TeSter-123-ABCDEFGHIJKLMNOPQRSTUVWXYZ-abc-0123456789',
      },
    });
  });

  it('keeps int64 ids beyond 2^53 exact and keys custom questions by their text', async () => {
    // Prepare: JSON.parse would round both ids.
    const naive = JSON.parse(LEAD.toString('utf8'));
    expect(String(naive.form_id)).not.toBe('9007199254740993');

    // Act
    const lead = await leadOf(LEAD);

    // Assess
    expect(lead).toEqual({
      source: 'google',
      dedupKey: 'google:Cj0KCQjw-lead-0001-BR',
      isTest: false,
      externalId: 'Cj0KCQjw-lead-0001-BR',
      formId: '9007199254740993',
      submittedAt: '2025-05-02T13:10:02.000Z',
      answers: [
        { key: 'FIRST_NAME', label: 'First Name', value: 'João' },
        { key: 'LAST_NAME', label: 'Last Name', value: 'da Silva' },
        { key: 'WORK_EMAIL', label: 'Work Email', type: 'email', value: 'joao.silva@example.com' },
        { key: 'WORK_PHONE', label: 'Work Phone', type: 'phone', value: '+55 21 99876-5432' },
        { key: 'POSTAL_CODE', label: 'Postal Code', value: '20040-002' },
        { key: 'CITY', label: 'City', value: 'Rio de Janeiro' },
        {
          key: 'Qual horário você prefere treinar?',
          label: 'Qual horário você prefere treinar?',
          value: 'Manhã',
        },
        { key: 'Data de nascimento', label: 'Data de nascimento', value: '12/05/1990' },
      ],
      attribution: {
        form_id: '9007199254740993',
        campaign_id: '21876543210987654',
        adgroup_id: '165432109876',
        creative_id: '701234567890',
        asset_group_id: '6512345678',
        gcl_id: 'Cj0KCQjwmYzIBhC6ARIsAHA3IkQ',
        lead_stage: 'NEW',
      },
    });
  });

  it('gives a redelivery of the same body the same dedup key', async () => {
    expect((await leadOf(Buffer.from(LEAD))).dedupKey).toBe((await leadOf(LEAD)).dedupKey);
  });

  it('skips columns without a value and keys a nameless custom column by its id', async () => {
    const body = Buffer.from(
      JSON.stringify({
        lead_id: 'x-1',
        google_key: PLATFORM_SECRETS.google,
        user_column_data: [
          { column_id: 'EMAIL', column_name: 'User Email' },
          { column_id: 'qual_seu_objetivo', string_value: 'Emagrecer' },
        ],
      }),
    );
    expect((await leadOf(body)).answers).toEqual([
      { key: 'qual_seu_objetivo', value: 'Emagrecer' },
    ]);
  });

  it.each([
    [
      'a body that is not JSON',
      platformBody('google', 'malformed.txt'),
      'o corpo não é um objeto JSON',
    ],
    ['a lead without lead_id', platformBody('google', 'no-lead-id.json'), 'falta lead_id'],
    [
      'user_column_data that is not a list',
      Buffer.from('{"lead_id":"x","user_column_data":{}}'),
      'user_column_data não é uma lista',
    ],
  ])('reports %s as a problem without personal data', async (_, body, problem) => {
    const result = await googleSource.capture(platformRequest(body), profile);
    expect(result).toEqual({ problem, dedupKey: expect.stringMatching(CONTENT_HASH_KEY) });
    expect(JSON.stringify(result)).not.toContain('@example.com');
  });
});

describe('googleSource + mapLeadToProspect', () => {
  it('maps a lead with first/last name, work e-mail and phone field by field', async () => {
    // Act
    const prospect = mapCleanly(await leadOf(LEAD), profile);

    // Assess: the birthday comes from a custom question typed as free text: day/month (the
    // profile's default order), flagged because 12/05 also reads as 5 December.
    expect(prospect).toMatchObject({ ...JOAO_SILVA, idBranch: 4, marketingType: 'Google Ads' });
    expect(prospect.cpf).toBeUndefined();
    expect(prospect.notes).toBe(
      [
        'Lead recebido via Google Ads, formulário 9007199254740993, lead Cj0KCQjw-lead-0001-BR.',
        [
          'Postal Code: 20040-002',
          'City: Rio de Janeiro',
          'Qual horário você prefere treinar?: Manhã',
        ].join('\n'),
        'Origem: form_id=9007199254740993; campaign_id=21876543210987654; adgroup_id=165432109876; ' +
          'creative_id=701234567890; asset_group_id=6512345678; gcl_id=Cj0KCQjwmYzIBhC6ARIsAHA3IkQ; ' +
          'lead_stage=NEW',
        'Avisos:\n- Data de nascimento ambígua, lida como dia/mês/ano (12/05/1990); confira: 12/05/1990',
      ].join('\n\n'),
    );
  });

  it("maps Google's test lead, CPF column included, and flags it as a test", async () => {
    const { prospect, missing } = mapCapture(await leadOf(TEST_LEAD), profile);
    expect(missing).toEqual([]);
    expect(prospect).toMatchObject({
      ...GOOGLE_TEST_PERSON,
      idBranch: 4,
      marketingType: 'Google Ads',
    });
    expect(prospect.notes).toContain('LEAD DE TESTE');
  });
});

describe('googleSource.accepted', () => {
  it('answers 200 {} as JSON, as Google expects', () => {
    expect(googleSource.accepted(['l-1'])).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(googleSource.parkUnreadable).toBe(true);
  });
});

describe("the mapping corpus: Google's standard columns, custom questions and test data, field by field", () => {
  it.each(corpusOf('google'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
