import { describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import { attributionKeyOf, fieldsHash, formSource } from '../../functions/sources/form.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import { authenticateToken } from '../../functions/sources/token.ts';
import {
  CONTENT_HASH_KEY,
  corpusOf,
  expectCorpusMapping,
  expectNotesContain,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { DEMO_SECRETS, leadRequest, MARIA_CONCEICAO } from '../helpers/lead-fixtures.ts';
import { mapCapture } from '../helpers/map-capture.ts';

type FormProfile = Extract<Profile, { source: 'form' }>;

const profile: FormProfile = {
  source: 'form',
  token: DEMO_SECRETS.form,
  defaults: { idBranch: 1, marketingType: 'Site' },
  fieldMap: { qual_seu_cpf: 'cpf' },
};

const resultOf = (request: IntakeRequest) => formSource.capture(request, profile);
const captureOne = async (request: IntakeRequest) => theLead(await resultOf(request));

/**
 * Golden dedup key of valid-urlencoded.json: a changed hashing would let every redelivery in
 * flight at deploy time through as a new lead, so a change here must be deliberate.
 */
const VALID_URLENCODED_HASH =
  'hash:972500d2dae3c3b27bb3cd5483a2f193f1b75aaa9bc13c379daac39fe3dde67a';

describe('form source', () => {
  describe('capture', () => {
    it('captures a Brazilian landing-page form: answers, attribution and dedup key', async () => {
      // Act
      const capture = await captureOne(leadRequest('form', 'valid-urlencoded'));
      // Assess
      expect(capture).toEqual({
        source: 'form',
        dedupKey: VALID_URLENCODED_HASH,
        isTest: false,
        answers: [
          { key: 'nome', value: 'Maria José da Conceição' },
          { key: 'email', value: 'Maria.Conceicao@Exemplo.com.br' },
          { key: 'celular', value: '(11) 98765-4321' },
          { key: 'qual_seu_cpf', value: '529.982.247-25' },
          { key: 'data_nascimento', value: '12/05/1990' },
          { key: 'sexo', value: 'Feminino' },
          { key: 'objetivo', value: ['Emagrecer', 'Condicionamento'] },
          { key: 'mensagem', value: 'Quero conhecer a unidade Paulista' },
        ],
        attribution: {
          utm_source: 'google',
          utm_medium: 'cpc',
          utm_campaign: 'matricula-verao',
          utm_term: 'academia perto de mim',
          gclid: 'Cj0KCQiA4L67BhDUARIsADWrl7Ekq9xY',
          page_url: 'https://lp.example.com/matricula?utm_source=google&utm_medium=cpc',
        },
      });
    });

    it('maps it to the expected Prospect, field by field', async () => {
      // Prepare
      const capture = await captureOne(leadRequest('form', 'valid-urlencoded'));
      // Act
      const prospect = mapCleanly(capture, profile);
      // Assess
      expect(prospect).toMatchObject({ ...MARIA_CONCEICAO, idBranch: 1, marketingType: 'Site' });
      expect(prospect.notes).toBe(
        [
          'Lead recebido via Site.',
          'objetivo: Emagrecer, Condicionamento\nmensagem: Quero conhecer a unidade Paulista',
          'Origem: utm_source=google; utm_medium=cpc; utm_campaign=matricula-verao; ' +
            'utm_term=academia perto de mim; gclid=Cj0KCQiA4L67BhDUARIsADWrl7Ekq9xY; ' +
            'page_url=https://lp.example.com/matricula?utm_source=google&utm_medium=cpc',
          // 12/05/1990 reads as 12 May or 5 December: kept as day/month, and said so.
          'Avisos:\n- Data de nascimento ambígua, lida como dia/mês/ano (12/05/1990); confira: 12/05/1990',
        ].join('\n\n'),
      );
    });

    it('gives a redelivery of the same fields, in another order, the same dedup key', async () => {
      const again = await captureOne(leadRequest('form', 'redelivery-urlencoded'));
      expect(again.dedupKey).toBe(VALID_URLENCODED_HASH);
      const changed = await captureOne(
        leadRequest('form', 'valid-urlencoded', {
          body: 'nome=Maria+Jos%C3%A9&email=outra%40exemplo.com',
        }),
      );
      expect(changed.dedupKey).not.toBe(VALID_URLENCODED_HASH);
    });

    it('captures a Zapier JSON hook with its idempotency key, numbers and booleans as text', async () => {
      // Act
      const capture = await captureOne(leadRequest('form', 'zapier-json'));
      // Assess
      expect(capture).toEqual({
        source: 'form',
        dedupKey: 'key:zap-5f0c9a2e-7b1d-4c3a-9e8f-1a2b3c4d5e6f',
        isTest: false,
        answers: [
          { key: 'nome', value: 'João Pedro Araújo' },
          { key: 'email', value: 'JOAO.ARAUJO@EXEMPLO.COM' },
          { key: 'telefone', value: '+55 21 99876-5432' },
          { key: 'cpf', value: '111.444.777-35' },
          { key: 'data_nascimento', value: '1985-03-07' },
          { key: 'genero', value: 'masculino' },
          { key: 'idade', value: '39' },
          { key: 'aceita_whatsapp', value: 'true' },
          { key: 'unidade', value: 'Barra da Tijuca' },
        ],
        attribution: { utm_source: 'zapier', utm_campaign: 'planilha-indicacoes' },
      });
      const { prospect, missing } = mapCapture(capture, profile);
      expect(missing).toEqual([]);
      expect(prospect).toMatchObject({
        name: 'João Pedro',
        lastName: 'Araújo',
        email: 'joao.araujo@exemplo.com',
        ddi: '55',
        cellphone: '21998765432',
        cpf: '11144477735',
        birthday: '1985-03-07T00:00:00.000Z',
        gender: 'M',
        idBranch: 1,
      });
      expectNotesContain(prospect.notes, [
        'idade: 39\naceita_whatsapp: true\nunidade: Barra da Tijuca',
        'Origem: utm_source=zapier; utm_campaign=planilha-indicacoes',
      ]);
    });

    it('prefers the Idempotency-Key header to the field, and refuses a key that is not visible ASCII', async () => {
      const viaHeader = await captureOne(
        leadRequest('form', 'zapier-json', { headers: { 'Idempotency-Key': 'n8n-run-42' } }),
      );
      expect(viaHeader.dedupKey).toBe('key:n8n-run-42');
      const bad = await resultOf(
        leadRequest('form', 'zapier-json', { headers: { 'Idempotency-Key': 'chave com espaço' } }),
      );
      expect(problemOf(bad)).toBe(
        'a chave de idempotência deve ter de 1 a 255 caracteres ASCII visíveis',
      );
    });

    it('reads a multipart form, ignoring its file', async () => {
      // Act
      const capture = await captureOne(leadRequest('form', 'multipart'));
      // Assess
      expect(capture.answers).toEqual([
        { key: 'nome', value: 'Ana Luíza Gonçalves' },
        { key: 'email', value: 'ana.goncalves@exemplo.com.br' },
        { key: 'whatsapp', value: '(48) 99654-3210' },
        { key: 'cpf', value: '714.602.380-01' },
        { key: 'nascimento', value: '03/09/2001' },
        { key: 'sexo', value: 'F' },
      ]);
      expect(capture.attribution).toEqual({
        utm_source: 'instagram',
        utm_medium: 'social',
        fbclid: 'IwAR2F4k9dM1vQ7xZ3eT8uY6pL0sNcRbWhJgKfA5',
      });
      expect(capture.dedupKey).toMatch(CONTENT_HASH_KEY);
      const { prospect } = mapCapture(capture, profile);
      expect(prospect).toMatchObject({
        name: 'Ana Luíza',
        lastName: 'Gonçalves',
        cellphone: '48996543210',
        cpf: '71460238001',
        birthday: '2001-09-03T00:00:00.000Z',
        gender: 'F',
      });
    });

    it('reads JSON sent as text/plain, with pageUrl and formId as attribution and formId kept', async () => {
      const capture = await captureOne(leadRequest('form', 'text-plain-json'));
      expect(capture.answers).toEqual([
        { key: 'nome', value: 'Beatriz Ramos' },
        { key: 'email', value: 'bia.ramos@exemplo.com' },
        { key: 'celular', value: '(31) 98888-7777' },
      ]);
      expect(capture.attribution).toEqual({
        page_url: 'https://lp.example.com/',
        form_id: 'lp-verao-2025',
      });
      expect(capture.formId).toBe('lp-verao-2025');
    });

    it('takes a body whose root is an array of fields (a site widget), in JSON or as text/plain', async () => {
      // Prepare
      const fields = JSON.stringify([
        { id: 'f1', name: 'Nome', value: 'Ana Souza', type: 'text' },
        { id: 'f2', name: 'E-mail', value: 'ana@exemplo.com', type: 'email' },
        { id: 'f3', name: 'Telefone', value: '(11) 98765-4321', type: 'tel' },
      ]);
      const asJson = leadRequest('form', 'zapier-json', { body: fields });
      const asText = { ...asJson, contentType: 'text/plain' };

      // Act
      const json = await captureOne(asJson);
      const text = await captureOne(asText);

      // Assess
      expect(json.answers).toEqual([
        { key: 'Nome', value: 'Ana Souza' },
        { key: 'E-mail', type: 'email', value: 'ana@exemplo.com' },
        { key: 'Telefone', type: 'phone', value: '(11) 98765-4321' },
      ]);
      expect(text.answers).toEqual(json.answers);
      expect(mapCleanly(json, profile)).toMatchObject({
        name: 'Ana',
        lastName: 'Souza',
        email: 'ana@exemplo.com',
        cellphone: '11987654321',
      });
    });

    it('reads an array nested in the body by the same rules: field_data values, questions, phones', async () => {
      // Prepare
      const body = JSON.stringify({
        data: {
          field_data: [{ name: 'full_name', values: ['Carla Dias'] }],
          questions_and_answers: [
            { question: 'Seu WhatsApp', answer: '21 99888-7766', position: 0 },
          ],
          emails: [{ value: 'carla@exemplo.com', primary: true }],
        },
      });

      // Act
      const capture = await captureOne(leadRequest('form', 'zapier-json', { body }));

      // Assess
      expect(capture.answers).toEqual([
        { key: 'data[field_data][full_name]', label: 'full_name', value: 'Carla Dias' },
        {
          key: 'data[questions_and_answers][Seu WhatsApp]',
          label: 'Seu WhatsApp',
          value: '21 99888-7766',
        },
        { key: 'data[emails]', value: 'carla@exemplo.com' },
      ]);
      expect(mapCleanly(capture, profile)).toMatchObject({
        name: 'Carla',
        lastName: 'Dias',
        email: 'carla@exemplo.com',
        cellphone: '21998887766',
      });
    });

    it('flags a filled honeypot as spam, and never makes the honeypot an answer', async () => {
      // Act
      const result = await resultOf(leadRequest('form', 'honeypot'));
      // Assess
      expect('leads' in result && result.spam).toBe(true);
      const clean = await resultOf(leadRequest('form', 'valid-urlencoded'));
      expect('spam' in clean).toBe(false);
    });

    it('uses the profile honeypotField instead of _hp when set', async () => {
      const body = 'nome=Bot&website=http%3A%2F%2Fspam.example&_hp=x';
      const result = await formSource.capture(leadRequest('form', 'honeypot', { body }), {
        ...profile,
        honeypotField: 'website',
      });
      if (!('leads' in result)) throw new Error('expected leads');
      expect(result.spam).toBe(true);
      expect(result.leads[0]?.answers).toEqual([
        { key: 'nome', value: 'Bot' },
        { key: '_hp', value: 'x' },
      ]);
    });

    it('never turns a token field into an answer (it would carry the secret into notes)', async () => {
      const capture = await captureOne(
        leadRequest('form', 'valid-urlencoded', { body: 'nome=Maria&token=demo-form-token' }),
      );
      expect(capture.answers).toEqual([{ key: 'nome', value: 'Maria' }]);
    });

    it('says what is wrong with malformed bodies, without personal data', async () => {
      const json = problemOf(await resultOf(leadRequest('form', 'malformed-json')));
      expect(json).toBe('o corpo não é um JSON válido');
      const multipart = problemOf(await resultOf(leadRequest('form', 'malformed-multipart')));
      expect(multipart).toBe('o corpo multipart/form-data não pôde ser lido (o boundary confere?)');
      const empty = problemOf(
        await resultOf(leadRequest('form', 'valid-urlencoded', { body: '' })),
      );
      expect(empty).toBe('o corpo não tem campos');
      const hiddenOnly = problemOf(
        await resultOf(
          leadRequest('form', 'valid-urlencoded', { body: 'utm_source=google&nome=&_hp=' }),
        ),
      );
      expect(hiddenOnly).toBe('o corpo não tem respostas, só campos ocultos ou vazios');
      for (const problem of [json, multipart, empty, hiddenOnly])
        expect(problem).not.toMatch(/Maria/);
    });
  });

  describe('authenticate', () => {
    it('accepts the profile token as ?token= or as X-Lead-Token', () => {
      expect(formSource.authenticate(leadRequest('form', 'valid-urlencoded'), profile)).toEqual({
        ok: true,
      });
      expect(
        formSource.authenticate(leadRequest('form', 'redelivery-urlencoded'), profile),
      ).toEqual({ ok: true });
    });

    it('answers 401 missing_token without a token, 403 invalid_token with another', () => {
      // Prepare
      const none = leadRequest('form', 'valid-urlencoded', { query: { token: undefined } });
      const wrong = leadRequest('form', 'valid-urlencoded', { query: { token: ['t0k3n-errado'] } });
      const wrongHeader = leadRequest('form', 'redelivery-urlencoded', {
        headers: { 'X-Lead-Token': 'demo-form-tokeN' },
      });
      // Act
      const missing = formSource.authenticate(none, profile);
      const invalid = formSource.authenticate(wrong, profile);
      // Assess
      expect(missing).toMatchObject({ ok: false, status: 401, code: 'missing_token' });
      expect(invalid).toMatchObject({ ok: false, status: 403, code: 'invalid_token' });
      expect(formSource.authenticate(wrongHeader, profile)).toMatchObject({ status: 403 });
      for (const result of [missing, invalid]) {
        expect(JSON.stringify(result)).not.toMatch(/t0k3n-errado|demo-form-token/);
      }
    });

    it('treats an empty token as missing and reads the header before the query', () => {
      const empty = leadRequest('form', 'valid-urlencoded', { query: { token: [''] } });
      expect(authenticateToken(empty, DEMO_SECRETS.form)).toMatchObject({ status: 401 });
      const both = leadRequest('form', 'valid-urlencoded', {
        headers: { 'X-Lead-Token': DEMO_SECRETS.form },
        query: { token: ['outro'] },
      });
      expect(authenticateToken(both, DEMO_SECRETS.form)).toEqual({ ok: true });
    });

    it('does not cover the body: a token source cannot tell a tampered body', async () => {
      const tampered = leadRequest('form', 'valid-urlencoded', {
        body: leadRequest('form', 'valid-urlencoded').body.toString().replace('Maria', 'Mario'),
      });
      expect(formSource.authenticate(tampered, profile)).toEqual({ ok: true });
      expect((await captureOne(tampered)).dedupKey).not.toBe(VALID_URLENCODED_HASH);
    });
  });

  describe('accepted', () => {
    it('answers 202 with the lead id, or ids', () => {
      expect(formSource.parkUnreadable).toBe(false);
      const one = formSource.accepted(['01JHQ2W3X4Y5Z6']);
      expect(one.statusCode).toBe(202);
      expect(one.headers).toEqual({ 'content-type': 'application/json' });
      expect(JSON.parse(one.body)).toEqual({ leadId: '01JHQ2W3X4Y5Z6', status: 'queued' });
      expect(JSON.parse(formSource.accepted(['a', 'b']).body)).toEqual({
        leadIds: ['a', 'b'],
        status: 'queued',
      });
    });
  });
});

describe('attributionKeyOf', () => {
  it('recognises UTMs, click ids and page/form keys in any spelling', () => {
    expect(attributionKeyOf('UTM_Source')).toBe('utm_source');
    expect(attributionKeyOf('utm-campaign')).toBe('utm_campaign');
    expect(attributionKeyOf('pageUrl')).toBe('page_url');
    expect(attributionKeyOf('referer')).toBe('referrer');
    expect(attributionKeyOf('formId')).toBe('form_id');
    expect(attributionKeyOf('li_fat_id')).toBe('li_fat_id');
    expect(attributionKeyOf('nome')).toBeUndefined();
  });
});

describe('fieldsHash', () => {
  it('ignores order, blank values and surrounding spaces, but not the source', () => {
    const a = fieldsHash('form', [
      ['nome', 'Maria'],
      ['email', ' maria@exemplo.com '],
      ['_hp', ''],
    ]);
    expect(a).toBe(
      fieldsHash('form', [
        ['email', 'maria@exemplo.com'],
        ['nome', 'Maria'],
      ]),
    );
    expect(a).not.toBe(
      fieldsHash('elementor', [
        ['email', 'maria@exemplo.com'],
        ['nome', 'Maria'],
      ]),
    );
  });
});

describe('the mapping corpus: HTML forms, Contact Form 7, Gravity Forms, Zapier, Make, n8n and relays, field by field', () => {
  it.each(corpusOf('form'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
