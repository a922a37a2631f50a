import { describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { elementorSource } from '../../functions/sources/elementor.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import {
  CONTENT_HASH_KEY,
  corpusOf,
  expectCorpusMapping,
  expectNotesContain,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { CARLOS_LIMA, DEMO_SECRETS, leadRequest } from '../helpers/lead-fixtures.ts';

type ElementorProfile = Extract<Profile, { source: 'elementor' }>;

const profile: ElementorProfile = {
  source: 'elementor',
  token: DEMO_SECRETS.elementor,
  defaults: { idBranch: 2, currentStep: 'Aula experimental' },
};

/** Golden dedup key of default-mode.json (see form.test.ts for why it is pinned). */
const DEFAULT_MODE_HASH = 'hash:61502805f65834ef2a058213103ec7c154947a4708517a151377a5ab03fb3d78';

const resultOf = (request: IntakeRequest) => elementorSource.capture(request, profile);
const captureOne = async (request: IntakeRequest) => theLead(await resultOf(request));

/** The attribution both modes carry: hidden UTMs, the page URL and the form name. */
const ATTRIBUTION = {
  utm_source: 'instagram',
  utm_medium: 'social',
  utm_campaign: 'aula-experimental',
  page_url: 'https://academia.example.com.br/aula-experimental/',
  form_name: 'Aula experimental',
};

function expectCarlos(capture: LeadCapture): void {
  const prospect = mapCleanly(capture, profile);
  expect(prospect).toMatchObject({
    ...CARLOS_LIMA,
    idBranch: 2,
    currentStep: 'Aula experimental',
    marketingType: 'instagram',
  });
  expectNotesContain(prospect.notes, [
    'Lead recebido via Elementor, formulário a1b2c3d.',
    'Modalidades de interesse: Musculação, Natação',
    'utm_source=instagram; utm_medium=social',
    'page_url=https://academia.example.com.br/aula-experimental/',
  ]);
  // Neither the visitor's IP nor their browser is kept anywhere.
  expect(JSON.stringify({ capture, prospect })).not.toMatch(/177\.10\.20\.30|Mozilla|Android/);
}

describe('elementor source', () => {
  describe('capture, default mode', () => {
    it('keys answers by label, drops meta, and keeps hidden UTMs and the page URL as attribution', async () => {
      // Act
      const capture = await captureOne(leadRequest('elementor', 'default-mode'));
      // Assess
      expect(capture).toEqual({
        source: 'elementor',
        dedupKey: DEFAULT_MODE_HASH,
        isTest: false,
        formId: 'a1b2c3d',
        answers: [
          { key: 'Nome completo', value: 'Carlos Eduardo Lima' },
          { key: 'E-mail', value: 'Carlos.Lima@Exemplo.com' },
          { key: 'WhatsApp', value: '(41) 99123-4567' },
          { key: 'CPF', value: '390.533.447-05' },
          { key: 'Data de nascimento', value: '19/04/1987' },
          { key: 'Sexo', value: 'Masculino' },
          { key: 'Modalidades de interesse', value: 'Musculação, Natação' },
        ],
        attribution: ATTRIBUTION,
      });
    });

    it('maps it to the expected Prospect', async () => {
      expectCarlos(await captureOne(leadRequest('elementor', 'default-mode')));
    });

    it('recognises the same answers sent again a minute later', async () => {
      const again = await captureOne(leadRequest('elementor', 'default-mode-resubmitted'));
      expect(again.dedupKey).toBe(DEFAULT_MODE_HASH);
    });
  });

  describe('capture, advanced mode', () => {
    it('keys answers by field id with the title as label; a checkbox group is a list', async () => {
      // Act
      const capture = await captureOne(leadRequest('elementor', 'advanced-mode'));
      // Assess
      // Each answer carries the input type its field declares (`tel` is a phone).
      expect(capture.answers).toEqual([
        { key: 'name', label: 'Nome completo', type: 'text', value: 'Carlos Eduardo Lima' },
        { key: 'email', label: 'E-mail', type: 'email', value: 'Carlos.Lima@Exemplo.com' },
        { key: 'whatsapp', label: 'WhatsApp', type: 'phone', value: '(41) 99123-4567' },
        { key: 'cpf', label: 'CPF', type: 'text', value: '390.533.447-05' },
        { key: 'nascimento', label: 'Data de nascimento', type: 'date', value: '1987-04-19' },
        { key: 'sexo', label: 'Sexo', type: 'choice', value: 'Masculino' },
        {
          key: 'modalidades',
          label: 'Modalidades de interesse',
          type: 'choice',
          value: ['Musculação', 'Natação'],
        },
      ]);
      expect(capture.attribution).toEqual(ATTRIBUTION);
      expect(capture.formId).toBe('a1b2c3d');
      expect(capture.dedupKey).toMatch(CONTENT_HASH_KEY);
      expect(Object.keys(capture.attribution).sort()).toEqual(Object.keys(ATTRIBUTION).sort());
    });

    it('maps it to the expected Prospect', async () => {
      expectCarlos(await captureOne(leadRequest('elementor', 'advanced-mode')));
    });

    it('flags a filled honeypot (the profile field) as spam', async () => {
      const body =
        'form%5Bid%5D=a1b2c3d&fields%5Bname%5D%5Bvalue%5D=Bot&fields%5B_hp%5D%5Bid%5D=_hp&fields%5B_hp%5D%5Bvalue%5D=x';
      const result = await resultOf(leadRequest('elementor', 'advanced-mode', { body }));
      if (!('leads' in result)) throw new Error('expected leads');
      expect(result.spam).toBe(true);
      expect(result.leads[0]?.answers).toEqual([{ key: 'name', value: 'Bot' }]);
    });
  });

  describe('capture, unreadable bodies', () => {
    it('says what is wrong, without personal data', async () => {
      const malformed = problemOf(await resultOf(leadRequest('elementor', 'malformed')));
      expect(malformed).toBe('o corpo não é um JSON válido');
      const noFields = await resultOf(
        leadRequest('elementor', 'advanced-mode', { body: 'form%5Bid%5D=a1b2c3d' }),
      );
      expect(problemOf(noFields)).toBe('corpo do modo avançado sem o objeto fields[...]');
      const empty = await resultOf(leadRequest('elementor', 'default-mode', { body: '' }));
      expect(problemOf(empty)).toBe('o corpo não tem campos');
      expect(malformed).not.toContain('Carlos');
    });

    it('is parked, not refused', () => {
      expect(elementorSource.parkUnreadable).toBe(true);
    });
  });

  describe('authenticate', () => {
    it('accepts the profile token', () => {
      expect(
        elementorSource.authenticate(leadRequest('elementor', 'default-mode'), profile),
      ).toEqual({
        ok: true,
      });
      const viaHeader = leadRequest('elementor', 'default-mode', {
        query: { token: undefined },
        headers: { 'X-Lead-Token': DEMO_SECRETS.elementor },
      });
      expect(elementorSource.authenticate(viaHeader, profile)).toEqual({ ok: true });
    });

    it('answers 401 without a token and 403 with a wrong one', () => {
      const none = leadRequest('elementor', 'default-mode', { query: { token: undefined } });
      const wrong = leadRequest('elementor', 'default-mode', { query: { token: ['x'] } });
      expect(elementorSource.authenticate(none, profile)).toMatchObject({
        status: 401,
        code: 'missing_token',
      });
      expect(elementorSource.authenticate(wrong, profile)).toMatchObject({
        status: 403,
        code: 'invalid_token',
      });
    });
  });

  describe('accepted', () => {
    it('answers exactly 200, which is all Elementor counts as success', () => {
      const answer = elementorSource.accepted(['01JHQ2W3X4Y5Z6']);
      expect(answer.statusCode).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ leadId: '01JHQ2W3X4Y5Z6', status: 'queued' });
    });
  });
});

describe('the mapping corpus: default and Advanced Data modes, generated ids, field by field', () => {
  it.each(corpusOf('elementor'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
