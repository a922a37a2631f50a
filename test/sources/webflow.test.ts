import { describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import { webflowSource } from '../../functions/sources/webflow.ts';
import {
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import {
  DEMO_SECRETS,
  FERNANDA_SANTOS,
  leadRequest,
  RECEIVED_AT,
  signWebflow,
} from '../helpers/lead-fixtures.ts';

type WebflowProfile = Extract<Profile, { source: 'webflow' }>;

const FORM_ID = '65429eadebe8a9f3a30f62d0';
const profile: WebflowProfile = {
  source: 'webflow',
  secret: DEMO_SECRETS.webflow,
  defaults: { idBranch: 6 },
  forms: { [FORM_ID]: { idBranch: 7 } },
};

const MINUTE = 60_000;

function signed(name = 'valid', timestampMs?: number): IntakeRequest {
  return signWebflow(leadRequest('webflow', name), DEMO_SECRETS.webflow, timestampMs);
}

/** Webflow captures synchronously: problemOf fails on a promise. */
const resultOf = (request: IntakeRequest) => webflowSource.capture(request, profile);
const captureOne = async (request: IntakeRequest) => theLead(await resultOf(request));

describe('webflow source', () => {
  describe('capture', () => {
    it('reads payload.data into answers, keeping the digits of a phone sent as a number', async () => {
      // Act
      const capture = await captureOne(signed());
      // Assess
      expect(capture).toEqual({
        source: 'webflow',
        dedupKey: 'webflow:6787f0a4c2b1d3e4f5a6b7c8',
        externalId: '6787f0a4c2b1d3e4f5a6b7c8',
        isTest: false,
        formId: FORM_ID,
        submittedAt: '2025-01-15T17:35:16.117Z',
        answers: [
          { key: 'Nome', value: 'Fernanda' },
          { key: 'Sobrenome', value: 'Oliveira Santos' },
          { key: 'Email', value: 'Fernanda.Santos@Exemplo.com' },
          { key: 'Telefone', value: '21998765432' },
          { key: 'CPF', value: '853.513.468-93' },
          { key: 'Data de Nascimento', value: '30/08/1995' },
          { key: 'Gênero', value: 'Feminino' },
          { key: 'Unidade', value: 'Botafogo' },
          { key: 'Aceito receber ofertas', value: 'true' },
        ],
        attribution: {
          utm_source: 'google',
          utm_medium: 'cpc',
          utm_campaign: 'aula-gratis',
          gclid: 'EAIaIQobChMIq7rX0YyQigMVtE5IAB0',
          form_name: 'Agende sua aula',
        },
      });
    });

    it('maps it to the expected Prospect, with the branch of forms.<formId>', async () => {
      // Prepare
      const capture = await captureOne(signed());
      // Act
      const prospect = mapCleanly(capture, profile);
      // Assess
      expect(prospect).toMatchObject({ ...FERNANDA_SANTOS, idBranch: 7, marketingType: 'google' });
      expect(prospect.notes).toBe(
        [
          `Lead recebido via Webflow, formulário ${FORM_ID}, lead 6787f0a4c2b1d3e4f5a6b7c8.`,
          'Unidade: Botafogo\nAceito receber ofertas: true',
          'Origem: utm_source=google; utm_medium=cpc; utm_campaign=aula-gratis; ' +
            'gclid=EAIaIQobChMIq7rX0YyQigMVtE5IAB0; form_name=Agende sua aula',
        ].join('\n\n'),
      );
    });

    it('gives the retry ten minutes later the same dedup key', async () => {
      // Prepare
      const later = new Date(RECEIVED_AT.getTime() + 10 * MINUTE);
      const retry = signWebflow(
        leadRequest('webflow', 'redelivery', { receivedAt: later }),
        DEMO_SECRETS.webflow,
      );
      // Act
      const auth = webflowSource.authenticate(retry, profile);
      const capture = await captureOne(retry);
      // Assess
      expect(auth).toEqual({ ok: true });
      expect(retry.headers['x-webflow-signature']).not.toBe(
        signed().headers['x-webflow-signature'],
      );
      expect(capture.dedupKey).toBe('webflow:6787f0a4c2b1d3e4f5a6b7c8');
    });

    it('keeps integers beyond 2^53 and lists as sent', async () => {
      const body =
        '{"triggerType":"form_submission","payload":{"id":"x1","data":{"Código":12345678901234567890,"Modalidades":["Yoga","Pilates"],"Vazio":null}}}';
      const capture = await captureOne(leadRequest('webflow', 'valid', { body }));
      expect(capture.answers).toEqual([
        { key: 'Código', value: '12345678901234567890' },
        { key: 'Modalidades', value: ['Yoga', 'Pilates'] },
      ]);
      expect(capture.formId).toBeUndefined();
    });

    it('flags a filled honeypot as spam', async () => {
      const body =
        '{"triggerType":"form_submission","payload":{"id":"x2","data":{"Nome":"Bot","_hp":"http://spam.example"}}}';
      const result = await resultOf(leadRequest('webflow', 'valid', { body }));
      expect('leads' in result && result.spam).toBe(true);
    });

    it('says what is wrong with an unreadable body, without its content', () => {
      const capture = (body: string) => resultOf(leadRequest('webflow', 'valid', { body }));
      expect(problemOf(resultOf(leadRequest('webflow', 'malformed')))).toBe(
        'o corpo não é um JSON válido',
      );
      expect(problemOf(capture('[]'))).toBe('o corpo não é um objeto JSON');
      expect(problemOf(capture('{"triggerType":"site_publish","payload":{}}'))).toBe(
        'triggerType não é form_submission',
      );
      expect(problemOf(capture('{"triggerType":"form_submission"}'))).toBe(
        'payload falta ou não é um objeto',
      );
      expect(problemOf(capture('{"payload":{"data":{"Nome":"Fernanda"}}}'))).toBe(
        'falta payload.id',
      );
      expect(problemOf(capture('{"payload":{"id":"x3","data":"Fernanda"}}'))).toBe(
        'payload.data falta ou não é um objeto',
      );
      expect(webflowSource.parkUnreadable).toBe(true);
    });

    it('reads the legacy site-webhook shape {name, site, data, d, _id} as the same submission', async () => {
      // Prepare: what hooks made in the site dashboard send
      const body = JSON.stringify({
        name: 'Agende sua aula',
        site: '62749158efef318abc8d5a0f',
        data: { Nome: 'Fernanda', Email: 'Fernanda.Santos@Exemplo.com', utm_source: 'google' },
        d: '2025-01-15T17:35:16.117Z',
        _id: '6787f0a4c2b1d3e4f5a6b7c9',
      });
      // Act
      const capture = await captureOne(leadRequest('webflow', 'valid', { body }));
      // Assess
      expect(capture).toEqual({
        source: 'webflow',
        dedupKey: 'webflow:6787f0a4c2b1d3e4f5a6b7c9',
        externalId: '6787f0a4c2b1d3e4f5a6b7c9',
        isTest: false,
        submittedAt: '2025-01-15T17:35:16.117Z',
        answers: [
          { key: 'Nome', value: 'Fernanda' },
          { key: 'Email', value: 'Fernanda.Santos@Exemplo.com' },
        ],
        attribution: { utm_source: 'google', form_name: 'Agende sua aula' },
      });
      expect(
        problemOf(resultOf(leadRequest('webflow', 'valid', { body: '{"_id":"x","data":1}' }))),
      ).toBe('data falta ou não é um objeto');
    });
  });

  describe('authenticate', () => {
    it('accepts a correct signature over the raw body, in either hex case', () => {
      const request = signed();
      expect(webflowSource.authenticate(request, profile)).toEqual({ ok: true });
      const upper = {
        ...request,
        headers: {
          ...request.headers,
          'x-webflow-signature': request.headers['x-webflow-signature']?.toUpperCase() ?? '',
        },
      };
      expect(webflowSource.authenticate(upper, profile)).toEqual({ ok: true });
    });

    it('answers 401 when the signature or the timestamp is missing (an unsigned dashboard hook)', () => {
      const unsigned = leadRequest('webflow', 'valid');
      expect(webflowSource.authenticate(unsigned, profile)).toMatchObject({
        ok: false,
        status: 401,
        code: 'missing_signature',
      });
      const noTimestamp = signed();
      const { 'x-webflow-timestamp': _dropped, ...headers } = noTimestamp.headers;
      expect(webflowSource.authenticate({ ...noTimestamp, headers }, profile)).toMatchObject({
        status: 401,
        code: 'missing_signature',
      });
    });

    it('answers 401 for a timestamp that is not milliseconds', () => {
      const request = signed();
      const bad = {
        ...request,
        headers: { ...request.headers, 'x-webflow-timestamp': '2025-01-15' },
      };
      expect(webflowSource.authenticate(bad, profile)).toMatchObject({
        status: 401,
        code: 'invalid_timestamp',
      });
    });

    it('answers 403 for another secret or a body changed by one byte', () => {
      // Prepare
      const otherSecret = signWebflow(leadRequest('webflow', 'valid'), 'outro-segredo');
      const request = signed();
      const body = Buffer.from(request.body);
      body[body.indexOf('Fernanda')] = 'G'.charCodeAt(0);
      // Act
      const wrong = webflowSource.authenticate(otherSecret, profile);
      const tampered = webflowSource.authenticate({ ...request, body }, profile);
      // Assess
      expect(wrong).toMatchObject({ ok: false, status: 403, code: 'invalid_signature' });
      expect(tampered).toMatchObject({ ok: false, status: 403, code: 'invalid_signature' });
    });

    it('answers 403 for a timestamp more than 5 minutes old or ahead, even correctly signed', () => {
      const stale = signed('valid', RECEIVED_AT.getTime() - 5 * MINUTE - 1);
      const ahead = signed('valid', RECEIVED_AT.getTime() + 5 * MINUTE + 1);
      const edge = signed('valid', RECEIVED_AT.getTime() - 5 * MINUTE);
      expect(webflowSource.authenticate(stale, profile)).toMatchObject({
        status: 403,
        code: 'stale_timestamp',
      });
      expect(webflowSource.authenticate(ahead, profile)).toMatchObject({
        status: 403,
        code: 'stale_timestamp',
      });
      expect(webflowSource.authenticate(edge, profile)).toEqual({ ok: true });
    });

    it('never echoes the signature or the secret', () => {
      const result = webflowSource.authenticate(signWebflow(signed(), 'outro-segredo'), profile);
      const text = JSON.stringify(result);
      expect(text).not.toContain(DEMO_SECRETS.webflow);
      expect(text).not.toMatch(/[0-9a-f]{64}/);
    });
  });

  describe('authenticate, a dashboard hook (auth: token)', () => {
    const dashboard: WebflowProfile = { ...profile, auth: 'token' };
    const withToken = (token?: string) =>
      leadRequest('webflow', 'valid', token === undefined ? {} : { query: { token: [token] } });

    it('accepts an unsigned hook that carries the profile token in its URL', () => {
      expect(webflowSource.authenticate(withToken(DEMO_SECRETS.webflow), dashboard)).toEqual({
        ok: true,
      });
    });

    it('answers 401 without the token and 403 with another, signed or not', () => {
      expect(webflowSource.authenticate(withToken(), dashboard)).toMatchObject({
        status: 401,
        code: 'missing_token',
      });
      expect(webflowSource.authenticate(signed(), dashboard)).toMatchObject({
        status: 401,
        code: 'missing_token',
      });
      expect(webflowSource.authenticate(withToken('outro-token'), dashboard)).toMatchObject({
        status: 403,
        code: 'invalid_token',
      });
    });

    it('still refuses an unsigned hook with a token on a profile that expects signatures', () => {
      expect(webflowSource.authenticate(withToken(DEMO_SECRETS.webflow), profile)).toMatchObject({
        status: 401,
        code: 'missing_signature',
      });
    });
  });

  describe('accepted', () => {
    it('answers exactly 200, which is all Webflow counts as success', () => {
      const answer = webflowSource.accepted(['01JHQ2W3X4Y5Z6']);
      expect(answer.statusCode).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ leadId: '01JHQ2W3X4Y5Z6', status: 'queued' });
    });
  });
});

describe('the mapping corpus: v2, legacy and dashboard hooks, field by field', () => {
  it.each(corpusOf('webflow'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
