/**
 * Personal data in a lead (functions/domain/personal-data.ts): the subjects (e-mail, phone, CPF)
 * an erasure request finds a lead by, whatever the field is called or how it was typed; what a
 * redacted capture keeps; the consent a profile maps, and the notes that say it.
 */
import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import {
  erasureMarks,
  redactCapture,
  subjectsOf,
  subjectsOfQuery,
  submissionDigest,
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

  it('adds what an operator typed in a correction, and ignores a field they cleared', () => {
    // Act
    const subjects = subjectsOf(capture({ nome: 'Ana' }), undefined, {
      email: 'Ana.Op@Example.com',
      ddi: '55',
      cellphone: '21998760002',
      cpf: null,
    });

    // Assess
    expect(subjects).toEqual(['email:ana.op@example.com', 'phone:+5521998760002']);
  });
});

describe('submissionDigest and erasureMarks', () => {
  const sent = capture(
    { nome: 'Ana Souza', email: 'ana@example.com', objetivo: ['Emagrecer', 'Força'] },
    { formId: 'f1', submittedAt: '2026-05-04T10:00:00.000Z' },
  );

  it('is the same for every delivery of one submission, whatever its dedup key, consent time or order', () => {
    // Prepare: the same submission under a new key, received later, its answers and keys reordered
    const again: LeadCapture = {
      ...sent,
      dedupKey: 'key:a-new-idempotency-key',
      answers: [...sent.answers].reverse(),
      attribution: Object.fromEntries(Object.entries(sent.attribution).reverse()),
      consent: { field: 'lgpd', given: true, text: 'Autorizo', version: '1', at: 'later' },
    };

    // Act / Assess
    expect(submissionDigest(again)).toBe(submissionDigest(sent));
    expect(submissionDigest(sent)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when anything the person sent differs: an answer, a click, the time, the form', () => {
    const digest = submissionDigest(sent);
    const variants: LeadCapture[] = [
      { ...sent, answers: [...sent.answers, { key: 'mensagem', value: 'oi' }] },
      { ...sent, attribution: { gclid: 'click-2' } },
      { ...sent, submittedAt: '2026-05-04T10:00:01.000Z' },
      { ...sent, formId: 'f2' },
      { ...sent, prospect: { name: 'Ana', email: 'ana@example.com' } },
    ];
    for (const variant of variants) expect(submissionDigest(variant)).not.toBe(digest);
  });

  it('marks a lead by its dedup key and its digest, a WhatsApp conversation by its digest only, a test lead or a redacted one not at all', () => {
    expect(erasureMarks(sent, 'typeform:abc')).toEqual([
      'dedup:typeform:abc',
      `content:${submissionDigest(sent)}`,
    ]);
    // A conversation key is the person's number: it would turn away their next conversation.
    expect(erasureMarks(sent, 'whatsapp:5511987654321')).toEqual([
      `content:${submissionDigest(sent)}`,
    ]);
    expect(erasureMarks({ ...sent, isTest: true }, 'google:test')).toEqual([]);
    expect(erasureMarks(redactCapture(sent), 'redacted')).toEqual([]);
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
