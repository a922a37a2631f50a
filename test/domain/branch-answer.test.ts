/**
 * Which branch a lead goes to and why, as the preview and the console say it
 * (functions/domain/branch-answer.ts `explainBranch`), from the mapping's own choice.
 */
import { describe, expect, it } from 'vitest';
import { explainBranch } from '../../functions/domain/branch-answer.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { initialState } from '../../functions/domain/lead-arrival.ts';
import { type MappingProfile, mapLeadToProspect } from '../../functions/domain/map-lead.ts';

const BRANCHES = [
  { idBranch: 1, account: 'default', name: 'Centro' },
  { idBranch: 2, account: 'default', name: 'Moema', aliases: ['Unidade Moema'] },
];

function chainForm(unidade: string): LeadCapture {
  return {
    source: 'form',
    dedupKey: 'hash:1',
    isTest: false,
    answers: [
      { key: 'nome', value: 'Ana Souza' },
      { key: 'email', value: 'ana.souza@example.com' },
      { key: 'celular', value: '(11) 98765-4321' },
      { key: 'Qual unidade?', value: unidade },
    ],
    attribution: {},
  };
}

const explained = (unidade: string, defaults?: { idBranch: number }) => {
  const mapped = mapLeadToProspect(
    chainForm(unidade),
    { defaults } as MappingProfile,
    'Formulário',
    BRANCHES,
  );
  return explainBranch(mapped.branch, mapped.prospect.idBranch ?? undefined, BRANCHES);
};

describe('the branch a lead goes to, explained', () => {
  it('names the branch an answer chose and how the answer matched it', () => {
    expect(explained('Moema', { idBranch: 1 })).toEqual({
      idBranch: 2,
      name: 'Moema',
      why: 'answer',
      answered: 'Moema',
      text: 'Unidade 2 (Moema): a resposta "Moema" nomeia a unidade.',
      warning: false,
    });
    expect(explained('Moeam').text).toBe(
      'Unidade 2 (Moema): a resposta "Moeam" é Moema com um pequeno erro de digitação.',
    );
    expect(explained('Unidade 2').text).toBe(
      'Unidade 2 (Moema): a resposta "Unidade 2" é o número da unidade.',
    );
  });

  it('warns of an answer that names no branch: the default used, or none and the lead parked', () => {
    expect(explained('Tatuapé', { idBranch: 1 })).toMatchObject({
      idBranch: 1,
      why: 'unknown',
      warning: true,
      text: 'Unidade 1 (Centro), a padrão do perfil: a resposta "Tatuapé" não é uma unidade conhecida.',
    });
    const none = explained('Tatuapé');
    expect(none).toMatchObject({ why: 'unknown', warning: true });
    expect(none.idBranch).toBeUndefined();
    expect(none.text).toMatch(/^Sem unidade: .*fica parado até uma pessoa escolher a unidade\.$/);
  });

  it('says the branch was given when no answer asked for one, and warns when there is none', () => {
    expect(explainBranch(undefined, 2, BRANCHES)).toMatchObject({
      idBranch: 2,
      name: 'Moema',
      why: 'given',
      warning: false,
    });
    expect(explainBranch(undefined, undefined, BRANCHES)).toMatchObject({ warning: true });
    expect(explainBranch(undefined, 9, BRANCHES).text).toMatch(/^Unidade 9: /);
  });

  it('does not credit an answer with a branch an operator’s correction changed', () => {
    const mapped = mapLeadToProspect(chainForm('Moema'), {} as MappingProfile, 'Form', BRANCHES);
    expect(explainBranch(mapped.branch, 1, BRANCHES)).toMatchObject({ idBranch: 1, why: 'given' });
  });
});

describe('a lead’s first state with the account’s named branches', () => {
  it('queues a chain form’s lead for the branch it names, and parks one naming none without a default', () => {
    const named = initialState(chainForm('unid. moema'), {}, 'Formulário', BRANCHES);
    const unknown = initialState(chainForm('Tatuapé'), {}, 'Formulário', BRANCHES);
    const unnamed = initialState(chainForm('Moema'), {}, 'Formulário');
    expect(named).toMatchObject({ status: 'queued', prospect: { idBranch: 2 } });
    expect(unknown.status).toBe('parked');
    expect(unknown.prospect?.idBranch).toBeUndefined();
    expect(unknown.prospect?.notes).toContain('Unidade não reconhecida ("Tatuapé")');
    expect(unnamed.status).toBe('parked');
  });
});
