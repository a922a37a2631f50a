import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../../functions/domain/lead.ts';
import { mapLeadToProspect } from '../../../functions/domain/map-lead.ts';
import type { CaptureResult, IntakeRequest } from '../../../functions/intake/source.ts';
import { prospectSource, readProspect } from '../../../functions/intake/sources/prospect.ts';
import type { Profile } from '../../../functions/shared/config-schema.ts';
import { leadRequest } from '../../helpers/lead-fixtures.ts';

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

function captured(result: CaptureResult | Promise<CaptureResult>): LeadCapture {
  if (result instanceof Promise) throw new Error('prospect captures synchronously');
  if (!('leads' in result)) throw new Error(`expected leads, got problem: ${result.problem}`);
  expect(result.leads).toHaveLength(1);
  return result.leads[0] as LeadCapture;
}

function problemOf(result: CaptureResult | Promise<CaptureResult>): string {
  if (result instanceof Promise) throw new Error('prospect captures synchronously');
  if (!('problem' in result)) throw new Error('expected a problem');
  expect(result.dedupKey).toMatch(/^hash:[0-9a-f]{64}$/);
  return result.problem;
}

const capture = (request: IntakeRequest) => prospectSource.capture(request, profile);

describe('prospect source', () => {
  describe('capture', () => {
    it('keeps the validated Prospect as sent, with no answers', () => {
      // Act
      const lead = captured(capture(leadRequest('prospect', 'valid')));
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
      const lead = captured(capture(leadRequest('prospect', 'valid')));
      // Act
      const { prospect, missing, warnings } = mapLeadToProspect(lead, profile);
      // Assess
      expect(missing).toEqual([]);
      expect(warnings).toEqual([]);
      expect(prospect.name).toBe('Rafael');
      expect(prospect.lastName).toBe('Souza Pereira');
      expect(prospect.email).toBe('rafael.pereira@exemplo.com');
      expect(prospect.ddi).toBe('55');
      expect(prospect.cellphone).toBe('11987654321');
      expect(prospect.cpf).toBe('04715829649');
      expect(prospect.gender).toBe('M');
      expect(prospect.idBranch).toBe(3);
      expect(prospect.visit).toBe(4);
      expect(prospect.marketingType).toBe('Indicação');
      expect(prospect.interests).toEqual([1, 4]);
      expect(prospect.notes).toBe(
        'Indicado pelo aluno Paulo (matrícula 4521).\n\nLead recebido via API.',
      );
    });

    it('recognises a retry of the same Prospect whatever its formatting and key order', () => {
      expect(captured(capture(leadRequest('prospect', 'redelivery'))).dedupKey).toBe(VALID_HASH);
      const other = leadRequest('prospect', 'valid', {
        body: JSON.stringify({ ...RAFAEL, email: 'rafael@exemplo.com' }),
      });
      expect(captured(capture(other)).dedupKey).not.toBe(VALID_HASH);
    });

    it('uses the Idempotency-Key header when there is one', () => {
      expect(captured(capture(leadRequest('prospect', 'idempotent'))).dedupKey).toBe(
        'key:8d2f6c1e-3b7a-4e9d-a5c4-0f1e2d3c4b5a',
      );
      const bad = leadRequest('prospect', 'idempotent', { headers: { 'Idempotency-Key': 'á' } });
      expect(problemOf(capture(bad))).toBe(
        'the idempotency key must be 1 to 255 visible ASCII characters',
      );
    });

    it('keeps unknown fields, as production does', () => {
      const body = JSON.stringify({ ...RAFAEL, address: { city: 'São Paulo' } });
      const lead = captured(capture(leadRequest('prospect', 'valid', { body })));
      expect(lead.prospect).toMatchObject({ address: { city: 'São Paulo' } });
    });

    it('lists each bad field, never its value', () => {
      // Act
      const problem = problemOf(capture(leadRequest('prospect', 'invalid-fields')));
      // Assess
      expect(problem).toBe(
        'invalid Prospect: name: must be a string, got an integer; ' +
          'idBranch: must be a number, got a string; interests.1: must be a number, got a string',
      );
      expect(problem).not.toMatch(/12345|três|musculação/);
    });

    it('gives the details as a list for an error response', () => {
      const read = readProspect(leadRequest('prospect', 'invalid-fields'));
      expect('details' in read && read.details).toEqual([
        { field: 'name', message: 'must be a string, got an integer' },
        { field: 'idBranch', message: 'must be a number, got a string' },
        { field: 'interests.1', message: 'must be a number, got a string' },
      ]);
    });

    it('says what is wrong with a body that is not a Prospect at all', () => {
      expect(problemOf(capture(leadRequest('prospect', 'malformed')))).toBe(
        'body is not valid JSON',
      );
      expect(problemOf(capture(leadRequest('prospect', 'valid', { body: '[1]' })))).toBe(
        'the body must be a JSON object (a Prospect)',
      );
      expect(problemOf(capture(leadRequest('prospect', 'valid', { body: '  ' })))).toBe(
        'the body is empty; expected a Prospect',
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
      ).toBe('the content type must be application/json or application/json-patch+json');
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
