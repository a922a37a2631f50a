/**
 * Personal data in a lead (functions/domain/personal-data.ts): the subjects (e-mail, phone, CPF)
 * an erasure request finds a lead by, whatever the field is called or how it was typed; what a
 * redacted capture keeps; the consent a profile maps, and the notes that say it.
 */
import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import {
  redactCapture,
  subjectsOf,
  subjectsOfQuery,
  withConsent,
} from '../../functions/domain/personal-data.ts';
import { mapCapture } from '../helpers/map-capture.ts';

function capture(answers: Record<string, string | string[]>, extra: Partial<LeadCapture> = {}) {
  return {
    source: 'form',
    dedupKey: 'hash:x',
    isTest: false,
    answers: Object.entries(answers).map(([key, value]) => ({ key, value })),
    attribution: { gclid: 'click-1' },
    ...extra,
  } satisfies LeadCapture;
}

const CONSENT = {
  field: 'Aceito os termos',
  text: 'Autorizo a Academia Exemplo a usar meus dados para contato comercial.',
  version: '2026-01',
};

describe('subjectsOf', () => {
  it('finds e-mail, phone and CPF in any field, normalised as the mapping reads them', () => {
    // Act
    const subjects = subjectsOf(
      capture({
        'Seu melhor e-mail': ' Ana.Souza@Example.COM ',
        whats: '(11) 98765-4321',
        documento: '529.982.247-25',
        mensagem: 'Quero saber dos planos',
      }),
      { email: 'ana.souza@example.com', ddi: '55', cellphone: '11987654321' },
    );

    // Assess
    expect(subjects).toEqual([
      'cpf:52998224725',
      'email:ana.souza@example.com',
      'phone:+5511987654321',
    ]);
  });

  it('names nobody in a lead without contact data', () => {
    expect(subjectsOf(capture({ nome: 'Ana', objetivo: ['Emagrecer'] }))).toEqual([]);
  });
});

describe('subjectsOfQuery', () => {
  it('normalises what an erasure request gives, and says what is wrong', () => {
    expect(subjectsOfQuery({ email: 'ANA.SOUZA@example.com', phone: '+55 11 98765-4321' })).toEqual(
      { subjects: ['email:ana.souza@example.com', 'phone:+5511987654321'] },
    );
    expect(subjectsOfQuery({ cpf: '111.111.111-11' })).toEqual({
      problems: [{ field: 'cpf', message: 'cpf is not a valid CPF' }],
    });
    expect(subjectsOfQuery({})).toMatchObject({ problems: [{ message: /at least one/ }] });
  });
});

describe('redactCapture', () => {
  it('keeps the source, form, test flag, submission time and consent; drops every answer and click id', () => {
    // Prepare
    const full = withConsent(
      capture(
        { nome: 'Ana Souza', email: 'ana@example.com', 'Aceito os termos': 'on' },
        { formId: 'f1', submittedAt: '2026-01-02T03:04:05Z', externalId: 'lead-9' },
      ),
      CONSENT,
      '2026-01-02T03:04:06Z',
    );

    // Act
    const redacted = redactCapture(full);

    // Assess
    expect(redacted).toEqual({
      source: 'form',
      dedupKey: 'redacted',
      isTest: false,
      formId: 'f1',
      submittedAt: '2026-01-02T03:04:05Z',
      answers: [],
      attribution: {},
      consent: full.consent,
    });
  });
});

describe('consent', () => {
  it.each([
    ['on', true],
    ['Sim', true],
    ['Li e concordo', true],
    ['false', false],
    ['não', false],
    ['', false],
  ])('reads a consent checkbox sent as %j as given: %s', (value, given) => {
    const lead = withConsent(capture({ aceito_os_termos: value }), CONSENT, '2026-02-01T10:00:00Z');
    expect(lead.consent).toEqual({ ...CONSENT, given, at: '2026-02-01T10:00:00Z' });
  });

  it('records a consent that was never sent as not given, and nothing without a consent setting', () => {
    expect(withConsent(capture({ nome: 'Ana' }), CONSENT, undefined).consent).toMatchObject({
      given: false,
    });
    expect(withConsent(capture({ nome: 'Ana' }), undefined, undefined).consent).toBeUndefined();
  });

  it('tells the upstream in the notes: accepted, when, which version of which text', () => {
    // Prepare
    const lead = capture({ nome: 'Ana Souza', email: 'ana@example.com', aceito_os_termos: 'on' });

    // Act: recorded at intake, then mapped
    const recorded = withConsent(lead, CONSENT, '2026-02-01T10:00:00.000Z');
    const notes = mapCapture(recorded, { consent: CONSENT }).prospect.notes ?? '';
    const notGiven = mapCapture(capture({ nome: 'Ana' }), { consent: CONSENT }).prospect.notes;

    // Assess
    expect(notes).toContain(
      `Consentimento LGPD: aceito em 2026-02-01T10:00:00.000Z (versão 2026-01): "${CONSENT.text}"`,
    );
    expect(notGiven).toContain('Consentimento LGPD: NÃO marcado (versão 2026-01)');
  });
});
