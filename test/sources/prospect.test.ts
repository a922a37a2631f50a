import { describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import { prospectSource, readProspect } from '../../functions/sources/prospect.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import {
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { leadRequest } from '../helpers/lead-fixtures.ts';

type ProspectProfile = Extract<Profile, { source: 'prospect' }>;

const profile: ProspectProfile = { source: 'prospect', defaults: { idBranch: 1, visit: 4 } };

const RAFAEL = {
  name: 'Rafael',
  lastName: 'Souza Pereira',
  email: 'rafael.pereira@exemplo.com',
  idBranch: 3,
  ddi: '55',
  cellphone: '11987654321',
  birthday: '1988-02-14T00:00:00Z',
  gender: 'M',
  cpf: '04715829649',
  marketingType: 'Indicação',
  notes: 'Indicado pelo aluno Paulo (matrícula 4521).',
  interests: [1, 4],
  validateCpfDuplication: true,
};

/** Golden dedup key of valid.json (see form.test.ts for why it is pinned). */
const VALID_HASH = 'hash:5424b7b3859462ae8ecb84a90f58a697866f3bd48bd88733ea53295046c0d1e3';

/** Prospect captures synchronously: theLead and problemOf fail on a promise. */
const capture = (request: IntakeRequest) => prospectSource.capture(request, profile);

describe('prospect source', () => {
  describe('capture', () => {
    it('keeps the validated Prospect as sent, with no answers', () => {
      // Act
      const lead = theLead(capture(leadRequest('prospect', 'valid')));
      // Assess
      expect(lead).toEqual({
        source: 'prospect',
        dedupKey: VALID_HASH,
        isTest: false,
        answers: [],
        attribution: {},
        prospect: RAFAEL,
      });
    });

    it('maps it to itself, the client winning over the profile defaults', () => {
      // Prepare
      const lead = theLead(capture(leadRequest('prospect', 'valid')));
      // Act
      const prospect = mapCleanly(lead, profile);
      // Assess
      expect(prospect).toMatchObject({
        name: 'Rafael',
        lastName: 'Souza Pereira',
        email: 'rafael.pereira@exemplo.com',
        ddi: '55',
        cellphone: '11987654321',
        cpf: '04715829649',
        gender: 'M',
        idBranch: 3,
        visit: 4,
        marketingType: 'Indicação',
        interests: [1, 4],
      });
      expect(prospect.notes).toBe(
        'Indicado pelo aluno Paulo (matrícula 4521).\n\nLead recebido via API.',
      );
    });

    it('recognises a retry of the same Prospect whatever its formatting and key order', () => {
      expect(theLead(capture(leadRequest('prospect', 'redelivery'))).dedupKey).toBe(VALID_HASH);
      const other = leadRequest('prospect', 'valid', {
        body: JSON.stringify({ ...RAFAEL, email: 'rafael@exemplo.com' }),
      });
      expect(theLead(capture(other)).dedupKey).not.toBe(VALID_HASH);
    });

    it('uses the Idempotency-Key header when there is one', () => {
      expect(theLead(capture(leadRequest('prospect', 'idempotent'))).dedupKey).toBe(
        'key:8d2f6c1e-3b7a-4e9d-a5c4-0f1e2d3c4b5a',
      );
      const bad = leadRequest('prospect', 'idempotent', { headers: { 'Idempotency-Key': 'á' } });
      expect(problemOf(capture(bad))).toBe(
        'a chave de idempotência deve ter de 1 a 255 caracteres ASCII visíveis',
      );
    });

    it('keeps unknown fields, as production does', () => {
      const body = JSON.stringify({ ...RAFAEL, address: { city: 'São Paulo' } });
      const lead = theLead(capture(leadRequest('prospect', 'valid', { body })));
      expect(lead.prospect).toMatchObject({ address: { city: 'São Paulo' } });
    });

    it('lists each bad field, never its value', () => {
      // Act
      const problem = problemOf(capture(leadRequest('prospect', 'invalid-fields')));
      // Assess
      expect(problem).toBe(
        'Prospect inválido: name: deve ser um texto, não um número inteiro; ' +
          'idBranch: deve ser um número, não um texto; interests.1: deve ser um número, não um texto',
      );
      expect(problem).not.toMatch(/12345|três|musculação/);
    });

    it('gives the details as a list for an error response', () => {
      const read = readProspect(leadRequest('prospect', 'invalid-fields'));
      expect('details' in read && read.details).toEqual([
        { field: 'name', message: 'deve ser um texto, não um número inteiro' },
        { field: 'idBranch', message: 'deve ser um número, não um texto' },
        { field: 'interests.1', message: 'deve ser um número, não um texto' },
      ]);
    });

    it('says what is wrong with a body that is not a Prospect at all', () => {
      expect(problemOf(capture(leadRequest('prospect', 'malformed')))).toBe(
        'o corpo não é um JSON válido',
      );
      expect(problemOf(capture(leadRequest('prospect', 'valid', { body: '[1]' })))).toBe(
        'o corpo deve ser um objeto JSON (um Prospect)',
      );
      expect(problemOf(capture(leadRequest('prospect', 'valid', { body: '  ' })))).toBe(
        'o corpo está vazio; esperava-se um Prospect',
      );
      const form = leadRequest('prospect', 'valid', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(
        problemOf(
          prospectSource.capture(
            { ...form, contentType: 'application/x-www-form-urlencoded' },
            profile,
          ),
        ),
      ).toBe('o tipo de conteúdo deve ser application/json ou application/json-patch+json');
      expect(prospectSource.parkUnreadable).toBe(false);
    });
  });

  describe('authenticate', () => {
    it('always passes: Basic auth with prospects:write is checked by the use case', () => {
      expect(prospectSource.authenticate(leadRequest('prospect', 'valid'), profile)).toEqual({
        ok: true,
      });
    });
  });

  describe('accepted', () => {
    it('answers 202 queued with the lead id', () => {
      const answer = prospectSource.accepted(['01JHQ2W3X4Y5Z6']);
      expect(answer.statusCode).toBe(202);
      expect(answer.headers).toEqual({ 'content-type': 'application/json' });
      expect(JSON.parse(answer.body)).toEqual({ leadId: '01JHQ2W3X4Y5Z6', status: 'queued' });
    });
  });
});

describe("the mapping corpus: the seed's Prospect, field by field", () => {
  it.each(corpusOf('prospect'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
