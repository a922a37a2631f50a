import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { rdstationSource } from '../../functions/sources/rdstation.ts';
import {
  CONTENT_HASH_KEY,
  corpusOf,
  expectCorpusMapping,
  expectSameDedupKeys,
  leadsIn,
  mapCleanly,
} from '../helpers/lead-assertions.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import {
  ANA_LIMA,
  CARLOS_PEREIRA,
  MARIA_SOUZA,
  PLATFORM_SECRETS,
  type ProfileOf,
  platformBody,
  platformJson,
  platformRequest,
} from '../helpers/platform-fixtures.ts';

const profile: ProfileOf<'rdstation'> = {
  source: 'rdstation',
  token: PLATFORM_SECRETS.rdstation,
  defaults: { idBranch: 5 },
  // RD custom fields keep their cf_ prefix; a profile maps the ones that are not aliases.
  fieldMap: { cf_data_de_nascimento: 'birthday' },
};

const CURRENT = platformBody('rdstation', 'current.json');
const LEGACY = platformBody('rdstation', 'legacy-two-leads.json');

async function leadsOf(body: Buffer): Promise<LeadCapture[]> {
  return leadsIn(
    await rdstationSource.capture(
      platformRequest(body, { query: { token: [PLATFORM_SECRETS.rdstation] } }),
      profile,
    ),
  );
}

describe('rdstationSource.authenticate', () => {
  it('accepts the token as ?token= or as X-Lead-Token', () => {
    const query = platformRequest(CURRENT, { query: { token: [PLATFORM_SECRETS.rdstation] } });
    const header = platformRequest(CURRENT, {
      headers: { 'X-Lead-Token': PLATFORM_SECRETS.rdstation },
    });
    expect(rdstationSource.authenticate(query, profile)).toEqual({ ok: true });
    expect(rdstationSource.authenticate(header, profile)).toEqual({ ok: true });
  });

  it('answers 401 without a token', () => {
    expect(rdstationSource.authenticate(platformRequest(CURRENT), profile)).toMatchObject({
      ok: false,
      status: 401,
      code: 'missing_token',
    });
  });

  it('answers 403 for another token, or one that differs by one character', () => {
    const wrong = platformRequest(CURRENT, { query: { token: ['guessed'] } });
    const almost = platformRequest(CURRENT, {
      headers: { 'X-Lead-Token': `${PLATFORM_SECRETS.rdstation.slice(0, -1)}X` },
    });
    expect(rdstationSource.authenticate(wrong, profile)).toMatchObject({
      status: 403,
      code: 'invalid_token',
    });
    expect(rdstationSource.authenticate(almost, profile)).toMatchObject({ status: 403 });
    expect(JSON.stringify(rdstationSource.authenticate(wrong, profile))).not.toContain('guessed');
  });
});

describe('rdstationSource.capture: current payload', () => {
  it('captures the contact: name, e-mail, mobile before personal phone, cf_* fields', async () => {
    expect(await leadsOf(CURRENT)).toEqual([
      {
        source: 'rdstation',
        dedupKey:
          'rd:c2f3d2b3-7a1e-4a6f-9b0e-5d4c3b2a1f00:aula-experimental:2025-05-02T13:10:02.871Z',
        isTest: false,
        externalId: 'c2f3d2b3-7a1e-4a6f-9b0e-5d4c3b2a1f00',
        formId: 'aula-experimental',
        submittedAt: '2025-05-02T13:10:02.871Z',
        answers: [
          { key: 'name', value: 'Ana Paula Lima' },
          { key: 'email', type: 'email', value: 'ana.lima@example.com' },
          { key: 'mobile_phone', type: 'phone', value: '(48) 99123-4567' },
          { key: 'personal_phone', type: 'phone', value: '(48) 3222-1234' },
          { key: 'job_title', value: 'Analista' },
          { key: 'city', value: 'Florianópolis' },
          { key: 'state', value: 'SC' },
          { key: 'country', value: 'Brasil' },
          { key: 'cf_cpf', value: '529.982.247-25' },
          { key: 'cf_data_de_nascimento', value: '12/05/1990' },
          { key: 'cf_objetivo', value: ['Emagrecer', 'Condicionamento'] },
          { key: 'cf_unidade', value: 'Centro' },
          { key: 'company', value: 'Empresa Exemplo' },
        ],
        attribution: {
          conversion: 'aula-experimental',
          channel: 'Busca Paga | Google',
          tags: 'aula-experimental, unidade-centro',
        },
      },
    ]);
  });

  it('reads several events, as a list or under "leads"', async () => {
    // Prepare
    const event = platformJson('rdstation', 'current.json') as {
      event_timestamp: string;
      contact: Record<string, unknown>;
    };
    const second = {
      ...event,
      event_timestamp: '2025-05-02T14:00:00.000Z',
      contact: { ...event.contact, uuid: 'second-uuid' },
    };

    // Act
    const listed = await leadsOf(Buffer.from(JSON.stringify([event, second])));
    const wrapped = await leadsOf(Buffer.from(JSON.stringify({ leads: [event, second] })));

    // Assess
    const keys = [
      'rd:c2f3d2b3-7a1e-4a6f-9b0e-5d4c3b2a1f00:aula-experimental:2025-05-02T13:10:02.871Z',
      'rd:second-uuid:aula-experimental:2025-05-02T14:00:00.000Z',
    ];
    expect(listed.map((lead) => lead.dedupKey)).toEqual(keys);
    expect(wrapped.map((lead) => lead.dedupKey)).toEqual(keys);
  });

  it('falls back to a content hash when the contact has no uuid', async () => {
    // Prepare
    const body = Buffer.from(JSON.stringify({ contact: { email: 'a@example.com', name: 'A' } }));

    // Act
    const [first] = await leadsOf(body);
    const [again] = await leadsOf(Buffer.from(body));

    // Assess
    expect(first?.dedupKey).toMatch(CONTENT_HASH_KEY);
    expect(again?.dedupKey).toBe(first?.dedupKey);
  });
});

describe('rdstationSource.capture: legacy payload', () => {
  it('captures two leads, dropping content and phones that repeat the contact', async () => {
    expect(await leadsOf(LEGACY)).toEqual([
      {
        source: 'rdstation',
        dedupKey: 'rd:9d4f0a1e-2b3c-4d5e-8f90-a1b2c3d4e5f6:2025-05-02T10:10:02-03:00',
        isTest: false,
        externalId: '9d4f0a1e-2b3c-4d5e-8f90-a1b2c3d4e5f6',
        formId: 'aula-experimental',
        submittedAt: '2025-05-02T13:10:02.000Z',
        answers: [
          { key: 'name', value: 'Maria Souza' },
          { key: 'email', type: 'email', value: 'maria.souza@example.com' },
          // personal_phone is the same number: kept once.
          { key: 'mobile_phone', type: 'phone', value: '11 98765-4321' },
          { key: 'city', value: 'São Paulo' },
          { key: 'state', value: 'SP' },
          { key: 'Data de nascimento', value: '12/05/1990' },
          { key: 'Unidade', value: 'Centro' },
          // From last_conversion.content; nome, email_lead and telefone repeat the contact.
          { key: 'cpf', value: '529.982.247-25' },
          { key: 'Melhor horário para contato', value: 'Manhã' },
        ],
        attribution: {
          conversion: 'aula-experimental',
          utm_source: 'google',
          utm_medium: 'cpc',
          utm_campaign: 'aula-experimental-maio',
          channel: 'Busca Paga',
          utm_term: 'academia centro',
          tags: 'academia, lead-quente',
        },
      },
      {
        source: 'rdstation',
        dedupKey: 'rd:0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9:2025-05-02T10:12:40-03:00',
        isTest: false,
        externalId: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
        formId: 'aula-experimental',
        submittedAt: '2025-05-02T13:12:40.000Z',
        answers: [
          { key: 'name', value: 'Carlos Pereira' },
          { key: 'email', type: 'email', value: 'carlos.pereira@example.com' },
          { key: 'mobile_phone', type: 'phone', value: '21 99876-5432' },
          { key: 'job_title', value: 'Mecânico' },
          { key: 'city', value: 'Rio de Janeiro' },
          { key: 'state', value: 'RJ' },
          { key: 'company', value: 'Oficina Pereira' },
        ],
        // "(direct)" and "(none)" are analytics placeholders, not a source.
        attribution: { conversion: 'aula-experimental', channel: 'Direto' },
      },
    ]);
  });

  it('gives a redelivery of the same body the same dedup keys', async () => {
    await expectSameDedupKeys(leadsOf, LEGACY);
  });

  it('captures nothing from an empty leads list', async () => {
    expect(await leadsOf(Buffer.from('{"leads":[]}'))).toEqual([]);
  });
});

describe('rdstationSource.capture: unreadable bodies', () => {
  it.each([
    ['a body that is not JSON', platformBody('rdstation', 'malformed.txt'), 'o corpo não é JSON'],
    ['a string', Buffer.from('"lead"'), 'o corpo não é um objeto JSON'],
    [
      'neither contact nor leads',
      Buffer.from('{"event_type":"x"}'),
      'o corpo não tem "contact" nem "leads"',
    ],
    ['leads not a list', Buffer.from('{"leads":{}}'), 'leads não é uma lista'],
    [
      'a lead that is not an object',
      Buffer.from('{"leads":[{"uuid":"u"},3]}'),
      'leads[1] não é um objeto',
    ],
    [
      'a contact that is not an object',
      Buffer.from('{"contact":"x"}'),
      'body.contact não é um objeto',
    ],
  ])('reports %s as a structural problem', async (_, body, problem) => {
    const result = await rdstationSource.capture(platformRequest(body), profile);
    expect(result).toEqual({ problem, dedupKey: expect.stringMatching(CONTENT_HASH_KEY) });
  });
});

describe('rdstationSource + mapLeadToProspect', () => {
  it('maps the current contact field by field (mobile is the cellphone, cf_cpf the CPF)', async () => {
    // Act
    const [lead] = await leadsOf(CURRENT);
    const prospect = mapCleanly(lead as LeadCapture, profile);

    // Assess
    expect(prospect).toMatchObject({ ...ANA_LIMA, idBranch: 5, marketingType: 'RD Station' });
    expect(prospect.notes).toBe(
      [
        'Lead recebido via RD Station, formulário aula-experimental, lead c2f3d2b3-7a1e-4a6f-9b0e-5d4c3b2a1f00.',
        [
          'personal_phone: (48) 3222-1234',
          'job_title: Analista',
          'city: Florianópolis',
          'state: SC',
          'country: Brasil',
          'cf_objetivo: Emagrecer, Condicionamento',
          'cf_unidade: Centro',
          'company: Empresa Exemplo',
        ].join('\n'),
        'Origem: conversion=aula-experimental; channel=Busca Paga | Google; tags=aula-experimental, unidade-centro',
        // cf_data_de_nascimento is free text: 12/05/1990 read day first, and flagged.
        'Avisos:\n- Data de nascimento ambígua, lida como dia/mês/ano (12/05/1990); confira: 12/05/1990',
      ].join('\n\n'),
    );
  });

  it('maps both legacy leads', async () => {
    // Act
    const [maria, carlos] = (await leadsOf(LEGACY)).map(
      (lead) => mapCapture(lead, profile).prospect,
    );

    // Assess
    expect(maria).toMatchObject({ ...MARIA_SOUZA, idBranch: 5, marketingType: 'google' });
    expect(carlos).toMatchObject({ ...CARLOS_PEREIRA, idBranch: 5, marketingType: 'RD Station' });
  });
});

describe('rdstationSource.accepted', () => {
  it('answers 200 JSON with the lead ids', () => {
    const answer = rdstationSource.accepted(['l-1', 'l-2']);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ leadIds: ['l-1', 'l-2'] });
    expect(rdstationSource.parkUnreadable).toBe(true);
  });
});

describe('the mapping corpus: current and legacy payloads, custom fields, field by field', () => {
  it.each(corpusOf('rdstation'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
