import { describe, expect, it } from 'vitest';
import { jotformSource, prettyLabels, unescapeHtml } from '../../functions/sources/jotform.ts';
import {
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { MORE_SECRETS, wireFixture, wireRequest } from '../helpers/more-sources.ts';
import type { ProfileOf } from '../helpers/platform-fixtures.ts';

const profile: ProfileOf<'jotform'> = {
  source: 'jotform',
  token: MORE_SECRETS.jotform,
  defaults: { idBranch: 1 },
};

const SUBMISSION = wireFixture('jotform', 'submission');
const PREVIEW = wireFixture('jotform', 'preview');

const leadOf = async (request = wireRequest(SUBMISSION)) =>
  theLead(await jotformSource.capture(request, profile));

describe('jotformSource.authenticate (Jotform signs nothing: a URL token)', () => {
  it('accepts the profile’s token in the URL', () => {
    expect(jotformSource.authenticate(wireRequest(SUBMISSION), profile)).toEqual({ ok: true });
  });

  it('answers 401 without a token, 403 with another', () => {
    expect(
      jotformSource.authenticate(wireRequest(SUBMISSION, { query: {} }), profile),
    ).toMatchObject({ status: 401, code: 'missing_token' });
    expect(
      jotformSource.authenticate(wireRequest(SUBMISSION, { query: { token: ['x'] } }), profile),
    ).toMatchObject({ status: 403, code: 'invalid_token' });
  });
});

describe('jotformSource.capture', () => {
  it('reads rawRequest by question, labelled from pretty, widgets by their shape', async () => {
    // Act
    const lead = await leadOf();

    // Assess
    expect(lead).toMatchObject({
      source: 'jotform',
      dedupKey: 'jotform:6207451038291045123',
      externalId: '6207451038291045123',
      formId: '251215468210043',
      isTest: false,
      submittedAt: '2025-05-02T13:10:02.391Z',
      attribution: { utm_source: 'facebook', form_name: 'Aula experimental – Academia Movimento' },
    });
    expect(lead.answers).toEqual([
      { key: 'first_name', value: 'Beatriz' },
      { key: 'last_name', value: 'Ramos Ferreira' },
      { key: 'email', label: 'E-mail', value: 'beatriz.ferreira@exemplo.com' },
      { key: 'whatsapp', label: 'WhatsApp', type: 'phone', value: '(31) 98765-1234' },
      { key: 'dataDe', label: 'Data de Nascimento', type: 'date', value: '1996-11-22' },
      { key: 'qualSeu', label: 'Qual seu CPF?', value: '714.602.380-01' },
      { key: 'sexo', label: 'Sexo', value: 'Feminino' },
      { key: 'objetivos', label: 'Objetivos', value: ['Emagrecer', 'Ganhar massa'] },
      // Jotform's &#039; undone
      {
        key: 'comoConheceu',
        label: 'Como conheceu a academia?',
        value: "Indicação da Ana D'Ávila",
      },
    ]);
  });

  it('maps the submission field by field', async () => {
    // Act
    const prospect = mapCleanly(await leadOf(), profile);

    // Assess
    expect(prospect).toMatchObject({
      name: 'Beatriz',
      lastName: 'Ramos Ferreira',
      email: 'beatriz.ferreira@exemplo.com',
      ddi: '55',
      cellphone: '31987651234',
      cpf: '71460238001',
      birthday: '1996-11-22T00:00:00.000Z',
      gender: 'F',
      marketingType: 'facebook',
    });
    expect(prospect.notes).toContain('Objetivos: Emagrecer, Ganhar massa');
    expect(prospect.notes).toContain("Como conheceu a academia?: Indicação da Ana D'Ávila");
  });

  it('marks a submission from the form builder’s preview as a test lead', async () => {
    const lead = await leadOf(wireRequest(PREVIEW));
    expect(lead.isTest).toBe(true);
    expect(lead.dedupKey).toBe('jotform:6207451038291045999');
  });

  it('gives a redelivery of the same submission the same dedup key', async () => {
    expect((await leadOf()).dedupKey).toBe((await leadOf(wireRequest(SUBMISSION))).dedupKey);
  });

  it('reports a rawRequest that is not JSON as a problem to park', async () => {
    const result = await jotformSource.capture(
      wireRequest(wireFixture('jotform', 'malformed')),
      profile,
    );
    expect(problemOf(result)).toBe('rawRequest não é um objeto JSON');
    expect(jotformSource.parkUnreadable).toBe(true);
  });
});

describe('Jotform’s text helpers', () => {
  it('undoes HTML escapes and keeps unknown ones', () => {
    expect(unescapeHtml('D&#039;Ávila &amp; Cia &lt;3 &#x1F600; &bogus;')).toBe(
      "D'Ávila & Cia <3 😀 &bogus;",
    );
  });

  it('labels each value from pretty, commas in labels and values included', () => {
    expect(
      prettyLabels('Nome:Ana Lima, Cidade, UF:Recife, PE, Nota:9', [
        ['Ana Lima'],
        ['Recife, PE'],
        ['9'],
      ]),
    ).toEqual(['Nome', 'Cidade, UF', 'Nota']);
  });

  it('leaves a value it cannot find in pretty unlabelled, and labels the next one', () => {
    expect(
      prettyLabels('Nome:Ana Lima, Cidade:Recife, Nota:9', [
        ['Ana Lima'],
        ['não está'],
        ['Recife'],
        ['9'],
      ]),
    ).toEqual(['Nome', undefined, 'Cidade', 'Nota']);
  });
});

describe('the mapping corpus: Jotform, field by field', () => {
  it.each(corpusOf('jotform'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
