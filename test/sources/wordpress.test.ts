import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { type WordPressPlugin, wordpressSource } from '../../functions/sources/wordpress.ts';
import {
  CONTENT_HASH_KEY,
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import {
  MORE_SECRETS,
  type WireFixture,
  wireFixture,
  wireRequest,
} from '../helpers/more-sources.ts';
import type { ProfileOf } from '../helpers/platform-fixtures.ts';

const profileOf = (plugin: WordPressPlugin): ProfileOf<'wordpress'> => ({
  source: 'wordpress',
  token: MORE_SECRETS.wordpress,
  plugin,
  defaults: { idBranch: 1 },
});

const CF7 = wireFixture('wordpress', 'contact-form-7');
const WPFORMS = wireFixture('wordpress', 'wpforms');
const GRAVITY = wireFixture('wordpress', 'gravity-forms');

const leadOf = async (fixture: WireFixture, plugin: WordPressPlugin): Promise<LeadCapture> =>
  theLead(await wordpressSource.capture(wireRequest(fixture), profileOf(plugin)));

describe('wordpressSource.authenticate (the add-ons sign nothing: a token)', () => {
  it('accepts the token in the URL or in X-Lead-Token; 401 without, 403 with another', () => {
    // Prepare
    const profile = profileOf('contact-form-7');
    const inHeader = wireRequest(CF7, {
      query: {},
      headers: { 'X-Lead-Token': MORE_SECRETS.wordpress },
    });

    // Act / Assess
    expect(wordpressSource.authenticate(wireRequest(CF7), profile)).toEqual({ ok: true });
    expect(wordpressSource.authenticate(inHeader, profile)).toEqual({ ok: true });
    expect(wordpressSource.authenticate(wireRequest(CF7, { query: {} }), profile)).toMatchObject({
      status: 401,
    });
    expect(
      wordpressSource.authenticate(wireRequest(CF7, { query: { token: ['x'] } }), profile),
    ).toMatchObject({ status: 403, code: 'invalid_token' });
  });
});

describe('wordpressSource.capture, plugin contact-form-7', () => {
  it('maps CF7’s field names field by field, its _wpcf7 metadata dropped', async () => {
    // Act
    const lead = await leadOf(CF7, 'contact-form-7');
    const prospect = mapCleanly(lead, profileOf('contact-form-7'));

    // Assess
    expect(lead.formId).toBe('87');
    expect(lead.answers).toContainEqual({
      key: 'tel-123',
      type: 'phone',
      value: '(85) 98888-7777',
    });
    expect(prospect).toMatchObject({
      name: 'Fernanda',
      lastName: 'Lima',
      email: 'fernanda.lima@exemplo.com',
      ddi: '55',
      cellphone: '85988887777',
      cpf: '11144477735',
      birthday: '1993-12-01T00:00:00.000Z',
      marketingType: 'google',
    });
    for (const line of ['menu-512: Unidade Aldeota', 'checkbox-301: Musculação, Funcional']) {
      expect(prospect.notes).toContain(line);
    }
    expect(prospect.notes).not.toContain('wpcf7');
  });

  it('keys a body without a submission id by its content: a redelivery is the same lead', async () => {
    const first = await leadOf(CF7, 'contact-form-7');
    expect(first.dedupKey).toMatch(CONTENT_HASH_KEY);
    expect(
      (await leadOf(wireFixture('wordpress', 'contact-form-7'), 'contact-form-7')).dedupKey,
    ).toBe(first.dedupKey);
  });
});

describe('wordpressSource.capture, plugin wpforms', () => {
  it('keys the entry by its mapped entry_id and form_id, an unexpanded smart tag ignored', async () => {
    // Act
    const lead = await leadOf(WPFORMS, 'wpforms');

    // Assess
    expect(lead).toMatchObject({ dedupKey: 'wordpress:wpforms:56:3412', externalId: '3412' });
    expect(lead.attribution.utm_source).toBeUndefined();
    expect(mapCleanly(lead, profileOf('wpforms'))).toMatchObject({
      name: 'Gabriel',
      lastName: 'Souza Lima',
      email: 'gabriel.lima@exemplo.com',
      cellphone: '27998123344',
      cpf: '86288366757',
      birthday: '1998-06-30T00:00:00.000Z',
      gender: 'M',
    });
  });
});

describe('wordpressSource.capture, plugin gravity-forms', () => {
  it('reads "All Fields": the Name field’s inputs as first and last name, the entry metadata dropped', async () => {
    // Act
    const lead = await leadOf(GRAVITY, 'gravity-forms');
    const prospect = mapCleanly(lead, profileOf('gravity-forms'));

    // Assess
    expect(lead).toMatchObject({
      dedupKey: 'wordpress:gravityforms:3:1187',
      formId: '3',
      submittedAt: '2025-05-02T13:10:07.000Z',
    });
    expect(prospect).toMatchObject({
      name: 'Rafael',
      lastName: 'Nunes Barros',
      email: 'rafael.nunes@exemplo.com',
      cellphone: '51998123456',
    });
    expect(prospect.notes).toContain('Quero treinar à noite');
    expect(prospect.notes).toContain('Musculação, Yoga');
    for (const metadata of ['177.10.20.30', 'iPhone', 'active']) {
      expect(prospect.notes).not.toContain(metadata);
    }
  });
});

describe('wordpressSource.capture, problems', () => {
  it('reports a body that is not JSON as a problem to park', async () => {
    const result = await wordpressSource.capture(
      wireRequest(wireFixture('wordpress', 'malformed')),
      profileOf('contact-form-7'),
    );
    expect(problemOf(result)).toBe('o corpo não é um JSON válido');
    expect(wordpressSource.parkUnreadable).toBe(true);
  });
});

describe('the mapping corpus: WordPress presets, field by field', () => {
  it.each(corpusOf('wordpress'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
