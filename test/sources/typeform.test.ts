import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { typeformSource } from '../../functions/sources/typeform.ts';
import {
  CONTENT_HASH_KEY,
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  theLead,
} from '../helpers/lead-assertions.ts';
import {
  changedBody,
  flipOneByte,
  MARIA_SOUZA,
  PLATFORM_SECRETS,
  type ProfileOf,
  platformBody,
  platformRequest,
  typeformSignature,
} from '../helpers/platform-fixtures.ts';

const profile: ProfileOf<'typeform'> = {
  source: 'typeform',
  secret: PLATFORM_SECRETS.typeform,
  defaults: { idBranch: 1 },
};

const RESPONSE = platformBody('typeform', 'form-response.json');

function signed(body: Buffer) {
  return platformRequest(body, {
    headers: { 'Typeform-Signature': typeformSignature(body, PLATFORM_SECRETS.typeform) },
  });
}

async function leadOf(body: Buffer): Promise<LeadCapture> {
  return theLead(await typeformSource.capture(signed(body), profile));
}

interface Payload {
  event_type?: unknown;
  form_response: Record<string, unknown>;
}

const variant = (change: (payload: Payload) => void) => changedBody<Payload>(RESPONSE, change);

describe('typeformSource.authenticate', () => {
  it('accepts sha256=<base64 HMAC> of the raw body', () => {
    expect(typeformSource.authenticate(signed(RESPONSE), profile)).toEqual({ ok: true });
  });

  it('answers 401 without Typeform-Signature', () => {
    expect(typeformSource.authenticate(platformRequest(RESPONSE), profile)).toMatchObject({
      ok: false,
      status: 401,
      code: 'missing_signature',
    });
  });

  it('answers 403 for a signature with another secret, or hex instead of base64', () => {
    // Prepare
    const other = platformRequest(RESPONSE, {
      headers: { 'Typeform-Signature': typeformSignature(RESPONSE, 'another-secret') },
    });
    const hex = platformRequest(RESPONSE, {
      headers: {
        'Typeform-Signature': `sha256=${Buffer.from(
          typeformSignature(RESPONSE, PLATFORM_SECRETS.typeform).slice(7),
          'base64',
        ).toString('hex')}`,
      },
    });

    // Act / Assess
    expect(typeformSource.authenticate(other, profile)).toMatchObject({
      status: 403,
      code: 'invalid_signature',
    });
    expect(typeformSource.authenticate(hex, profile)).toMatchObject({ status: 403 });
  });

  it('answers 403 when one byte of the body changed after signing', () => {
    const tampered = { ...signed(RESPONSE), body: flipOneByte(RESPONSE) };
    expect(typeformSource.authenticate(tampered, profile)).toMatchObject({ status: 403 });
  });
});

describe('typeformSource.capture', () => {
  it('captures answers by ref with their titles, values by type, hidden fields by the rule', async () => {
    expect(await leadOf(RESPONSE)).toEqual({
      source: 'typeform',
      dedupKey: 'typeform:a3a12ec67a1365927098a606107fac15',
      isTest: false,
      externalId: 'a3a12ec67a1365927098a606107fac15',
      formId: 'lT4Z3j',
      submittedAt: '2025-05-02T13:10:02.000Z',
      answers: [
        // Each answer carries the input type Typeform declares (a URL declares none of ours).
        { key: 'nome', label: 'Seu nome?', type: 'text', value: 'Maria Souza' },
        { key: 'email', label: 'E-mail', type: 'email', value: 'maria.souza@example.com' },
        { key: 'celular', label: 'WhatsApp', type: 'phone', value: '+5511987654321' },
        { key: 'cpf', label: 'Qual seu CPF?', type: 'text', value: '529.982.247-25' },
        { key: 'data_nascimento', label: 'Data de nascimento', type: 'date', value: '1990-05-12' },
        { key: 'sexo', label: 'Sexo', type: 'choice', value: 'Feminino' },
        {
          key: 'objetivos',
          label: 'Quais seus objetivos?',
          type: 'choice',
          value: ['Emagrecer', 'Condicionamento'],
        },
        { key: 'dias_semana', label: 'Quantos dias por semana?', type: 'number', value: '3' },
        { key: 'ja_treinou', label: 'Já treinou em academia?', type: 'choice', value: 'Não' },
        { key: 'instagram', label: 'Seu Instagram', value: 'https://instagram.com/maria.souza' },
        // A hidden field that is not attribution is an answer (no label: Typeform gives none).
        { key: 'unidade', value: 'Centro' },
      ],
      // The blank gclid is dropped.
      attribution: {
        utm_source: 'facebook',
        utm_medium: 'cpc',
        utm_campaign: 'lancamento',
        fbclid: 'IwAR2F4-dbP0l7Mn1IawQQGCINEz7PYXQvwjNwB_qa2ofrHyiLjcbCRxTDMgk',
      },
    });
  });

  it('gives a redelivery of the same body the same dedup key', async () => {
    expect((await leadOf(Buffer.from(RESPONSE))).dedupKey).toBe((await leadOf(RESPONSE)).dedupKey);
  });

  it('reads person fields passed as hidden fields as answers, and UTM spellings as attribution', async () => {
    // Prepare
    const body = variant((payload) => {
      payload.form_response.answers = [];
      payload.form_response.hidden = {
        email: 'hidden@example.com',
        nome: 'Ana Lima',
        UTM_Source: 'instagram',
        'utm-campaign': 'verao',
      };
    });

    // Act
    const lead = await leadOf(body);

    // Assess
    expect(lead.answers).toEqual([
      { key: 'email', value: 'hidden@example.com' },
      { key: 'nome', value: 'Ana Lima' },
    ]);
    expect(lead.attribution).toEqual({ utm_source: 'instagram', utm_campaign: 'verao' });
  });

  it('reads choice "other", file uploads and answers without a definition', async () => {
    // Prepare
    const body = variant((payload) => {
      payload.form_response.definition = undefined;
      payload.form_response.hidden = undefined;
      payload.form_response.answers = [
        { type: 'choice', choice: { other: 'Crossfit' }, field: { id: 'a', ref: 'modalidade' } },
        {
          type: 'choices',
          choices: { labels: ['Yoga'], other: 'Natação' },
          field: { id: 'b', ref: 'outras' },
        },
        { type: 'file_url', file_url: 'https://api.typeform.com/f/x.pdf', field: { id: 'c' } },
        { type: 'text', text: 'sem campo' },
      ];
    });

    // Act / Assess
    expect((await leadOf(body)).answers).toEqual([
      { key: 'modalidade', type: 'choice', value: 'Crossfit' },
      { key: 'outras', type: 'choice', value: ['Yoga', 'Natação'] },
      { key: 'c', value: 'https://api.typeform.com/f/x.pdf' },
    ]);
  });

  it('acknowledges other event types without a lead', async () => {
    const body = variant((payload) => {
      payload.event_type = 'form_response_partial';
    });
    expect(await typeformSource.capture(signed(body), profile)).toEqual({ leads: [] });
  });

  it.each([
    ['a body that is not JSON', platformBody('typeform', 'malformed.txt'), 'o corpo não é JSON'],
    ['no form_response', Buffer.from('{"event_type":"form_response"}'), 'falta form_response'],
    [
      'no token',
      variant((payload) => {
        payload.form_response.token = undefined;
      }),
      'falta form_response.token',
    ],
    [
      'answers that are not a list',
      variant((payload) => {
        payload.form_response.answers = {};
      }),
      'form_response.answers não é uma lista',
    ],
  ])('reports %s as a problem without personal data', async (_, body, problem) => {
    const result = await typeformSource.capture(signed(body), profile);
    expect(result).toEqual({ problem, dedupKey: expect.stringMatching(CONTENT_HASH_KEY) });
  });
});

describe('typeformSource + mapLeadToProspect', () => {
  it('maps the full response field by field', async () => {
    // Act
    const prospect = mapCleanly(await leadOf(RESPONSE), profile);

    // Assess
    expect(prospect).toMatchObject({
      ...MARIA_SOUZA,
      gender: 'F',
      idBranch: 1,
      marketingType: 'facebook', // utm_source
    });
    expect(prospect.notes).toBe(
      [
        'Lead recebido via Typeform, formulário lT4Z3j, lead a3a12ec67a1365927098a606107fac15.',
        [
          'Quais seus objetivos?: Emagrecer, Condicionamento',
          'Quantos dias por semana?: 3',
          'Já treinou em academia?: Não',
          'Seu Instagram: https://instagram.com/maria.souza',
          'unidade: Centro',
        ].join('\n'),
        'Origem: utm_source=facebook; utm_medium=cpc; utm_campaign=lancamento; ' +
          'fbclid=IwAR2F4-dbP0l7Mn1IawQQGCINEz7PYXQvwjNwB_qa2ofrHyiLjcbCRxTDMgk',
      ].join('\n\n'),
    );
  });
});

describe('typeformSource.accepted', () => {
  it('answers 200 JSON with the lead id', () => {
    const answer = typeformSource.accepted(['l-1']);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ leadId: 'l-1' });
    expect(typeformSource.parkUnreadable).toBe(true);
  });
});

describe('the mapping corpus: readable and random refs, declared types, field by field', () => {
  it.each(corpusOf('typeform'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
