import { describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import { unbounceSource } from '../../functions/sources/unbounce.ts';
import {
  corpusOf,
  expectCorpusMapping,
  expectNotesContain,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { ANA_GONCALVES, DEMO_SECRETS, leadRequest } from '../helpers/lead-fixtures.ts';

type UnbounceProfile = Extract<Profile, { source: 'unbounce' }>;

const PAGE_ID = '7c1b2e4a-9f3d-4c8e-b5a6-2d1f0e9c8b7a';
const profile: UnbounceProfile = {
  source: 'unbounce',
  token: DEMO_SECRETS.unbounce,
  defaults: { idBranch: 4 },
  forms: { [PAGE_ID]: { idBranch: 5, marketingType: 'LP Verão' } },
};

/** Golden dedup key of valid.json (see form.test.ts for why it is pinned). */
/** valid.json carries Unbounce's submission stamp: a lasting submission key, not a windowed hash. */
const VALID_HASH = 'unbounce:026195acfe82b721f19180e499a50dc1b1d562d72f24d3b06e8035b4e7da2554';

const resultOf = (request: IntakeRequest) => unbounceSource.capture(request, profile);
const captureOne = async (request: IntakeRequest) => theLead(await resultOf(request));

/** A valid.json-shaped body with another data.json. */
function withData(data: string): string {
  return new URLSearchParams([
    ['page_id', PAGE_ID],
    ['page_name', 'LP Academia Verão 2025'],
    ['data.json', data],
  ]).toString();
}

/** valid.json's request carrying `body` instead. */
const validWith = (body: string) => leadRequest('unbounce', 'valid', { body });

describe('unbounce source', () => {
  describe('capture', () => {
    it('reads data.json into answers, page fields and UTMs into attribution, drops metadata', async () => {
      // Act
      const capture = await captureOne(leadRequest('unbounce', 'valid'));
      // Assess
      expect(capture).toEqual({
        source: 'unbounce',
        dedupKey: VALID_HASH,
        isTest: false,
        formId: PAGE_ID,
        submittedAt: '2025-01-15T14:35:00.000Z',
        answers: [
          { key: 'nome_completo', value: 'Ana Beatriz Gonçalves' },
          { key: 'email', value: 'Ana.Goncalves@Exemplo.com.br' },
          { key: 'telefone', value: '(31) 98888-7777' },
          { key: 'cpf', value: '123.456.789-09' },
          { key: 'data_de_nascimento', value: '23/11/1992' },
          { key: 'genero', value: 'Feminino' },
          { key: 'qual_seu_objetivo', value: ['Hipertrofia', 'Saúde e bem-estar'] },
        ],
        attribution: {
          page_id: PAGE_ID,
          page_name: 'LP Academia Verão 2025',
          variant: 'b',
          page_url: 'https://lp.academia.example.com.br/verao/',
          utm_source: 'facebook',
          utm_medium: 'cpc',
          utm_campaign: 'verao-2025',
          fbclid: 'IwAR0x7YqL2mN8pK4sT1vW9zB3cD6eF5gH',
        },
      });
      expect(JSON.stringify(capture)).not.toContain('189.6.12.34');
    });

    it('maps it to the expected Prospect, with the page settings from forms.<page_id>', async () => {
      // Prepare
      const capture = await captureOne(leadRequest('unbounce', 'valid'));
      // Act
      const prospect = mapCleanly(capture, profile);
      // Assess
      expect(prospect).toMatchObject({ ...ANA_GONCALVES, idBranch: 5, marketingType: 'LP Verão' });
      expectNotesContain(prospect.notes, [
        `Lead recebido via Unbounce, formulário ${PAGE_ID}.`,
        'qual_seu_objetivo: Hipertrofia, Saúde e bem-estar',
        'utm_source=facebook; utm_medium=cpc; utm_campaign=verao-2025; fbclid=IwAR0x7YqL2mN8pK4sT1vW9zB3cD6eF5gH',
      ]);
    });

    it('recognises a redelivery whatever the key order, and the PHP-renamed data_json', async () => {
      expect((await captureOne(leadRequest('unbounce', 'redelivery'))).dedupKey).toBe(VALID_HASH);
      const renamed = await captureOne(leadRequest('unbounce', 'php-renamed'));
      expect(renamed.dedupKey).toBe(VALID_HASH);
      expect(renamed.answers).toHaveLength(7);
    });

    it('gives another page or other answers another dedup key', async () => {
      const data = '{"nome":["Ana"],"email":["ana@exemplo.com"]}';
      const a = await captureOne(validWith(withData(data)));
      const b = await captureOne(validWith(withData(data).replace('7c1b', '8d2c')));
      const c = await captureOne(validWith(withData(data.replace('Ana"', 'Ane"'))));
      expect(new Set([a.dedupKey, b.dedupKey, c.dedupKey]).size).toBe(3);
    });

    it('keys a stamped submission for good, and the same answers submitted a minute later anew', async () => {
      const stamped = (time: string) =>
        `{"nome":["Ana"],"email":["ana@exemplo.com"],"date_submitted":["2025-01-15"],"time_submitted":["${time}"]}`;
      const first = await captureOne(validWith(withData(stamped('02:35 PM UTC'))));
      const retry = await captureOne(validWith(withData(stamped('02:35 PM UTC'))));
      const again = await captureOne(validWith(withData(stamped('02:36 PM UTC'))));
      const unstamped = await captureOne(validWith(withData('{"nome":["Ana"]}')));

      expect(first.dedupKey).toMatch(/^unbounce:[0-9a-f]{64}$/);
      expect(retry.dedupKey).toBe(first.dedupKey);
      expect(again.dedupKey).not.toBe(first.dedupKey);
      // Without Unbounce's stamp the content may come again legitimately: a windowed hash.
      expect(unstamped.dedupKey).toMatch(/^hash:[0-9a-f]{64}$/);
    });

    it('accepts bare values and numbers in data.json, and skips nested objects and blanks', async () => {
      const capture = await captureOne(
        validWith(
          withData('{"nome":"Ana","telefone":[31988887777],"extra":[{"x":1}],"obs":[""," "]}'),
        ),
      );
      expect(capture.answers).toEqual([
        { key: 'nome', value: 'Ana' },
        { key: 'telefone', value: '31988887777' },
      ]);
      expect(capture.submittedAt).toBeUndefined();
    });

    it('flags a filled honeypot field as spam', async () => {
      const result = await resultOf(validWith(withData('{"nome":["Bot"],"_hp":["x"]}')));
      expect('leads' in result && result.spam).toBe(true);
    });

    it('says what is wrong with data.json, without its content', async () => {
      const malformed = problemOf(await resultOf(leadRequest('unbounce', 'malformed')));
      expect(malformed).toBe('data.json não é um JSON válido');
      expect(malformed).not.toContain('Ana');
      const missing = await resultOf(validWith(`page_id=${PAGE_ID}&nome=Ana`));
      expect(problemOf(missing)).toBe('falta data.json');
      const notObject = await resultOf(validWith(withData('["Ana"]')));
      expect(problemOf(notObject)).toBe('data.json não é um objeto JSON');
    });

    it('is parked, not refused, when unreadable', () => {
      expect(unbounceSource.parkUnreadable).toBe(true);
    });
  });

  describe('authenticate', () => {
    it('accepts the token in the query or the header', () => {
      expect(unbounceSource.authenticate(leadRequest('unbounce', 'valid'), profile)).toEqual({
        ok: true,
      });
      expect(unbounceSource.authenticate(leadRequest('unbounce', 'php-renamed'), profile)).toEqual({
        ok: true,
      });
    });

    it('answers 401 without a token and 403 with a wrong one', () => {
      const none = leadRequest('unbounce', 'valid', { query: { token: undefined } });
      const wrong = leadRequest('unbounce', 'valid', { query: { token: ['demo-form-token'] } });
      expect(unbounceSource.authenticate(none, profile)).toMatchObject({
        ok: false,
        status: 401,
        code: 'missing_token',
      });
      const invalid = unbounceSource.authenticate(wrong, profile);
      expect(invalid).toMatchObject({ ok: false, status: 403, code: 'invalid_token' });
      expect(JSON.stringify(invalid)).not.toContain('demo-form-token');
    });
  });

  describe('accepted', () => {
    it('answers 200 with the lead id', () => {
      const answer = unbounceSource.accepted(['01JHQ2W3X4Y5Z6']);
      expect(answer.statusCode).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ leadId: '01JHQ2W3X4Y5Z6', status: 'queued' });
    });
  });
});

describe('the mapping corpus: documented and Brazilian field names, field by field', () => {
  it.each(corpusOf('unbounce'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
