/**
 * Branches by name (domain/branch-match.ts): what a chain's "Qual unidade?" answer matches.
 */
import { describe, expect, it } from 'vitest';
import {
  editDistance,
  isBranchQuestion,
  matchBranch,
  mergeDirectories,
  type NamedBranch,
} from '../../functions/domain/branch-match.ts';

const CHAIN: NamedBranch[] = [
  { idBranch: 1, account: 'default', name: 'Paulista', aliases: ['Av. Paulista', 'Bela Vista'] },
  { idBranch: 2, account: 'default', name: 'Moema' },
  { idBranch: 3, account: 'south', name: 'Porto Alegre Centro', aliases: ['POA'] },
  { idBranch: 4, account: 'default', name: 'Moóca' },
  { idBranch: 5, account: 'default', name: 'Santana' },
  { idBranch: 6, account: 'default', name: 'Santa Ana' },
];

const id = (answer: string) => {
  const match = matchBranch(answer, CHAIN);
  return match.kind === 'match' ? match.branch.idBranch : match.kind;
};

describe('matching a branch by what the person answered', () => {
  it('ignores case, accents, punctuation and the word "Unidade"', () => {
    expect(id('Moema')).toBe(2);
    expect(id('moema ')).toBe(2);
    expect(id('Unid. Moema')).toBe(2);
    expect(id('UNIDADE MOEMA')).toBe(2);
    expect(id('Academia - Moema')).toBe(2);
    expect(id('mooca')).toBe(4);
  });

  it('takes aliases and the branch number', () => {
    expect(id('Av Paulista')).toBe(1);
    expect(id('bela vista')).toBe(1);
    expect(id('poa')).toBe(3);
    expect(id('2')).toBe(2);
    expect(id('Unidade 3')).toBe(3);
  });

  it('says which account owns the branch', () => {
    const match = matchBranch('Porto Alegre centro', CHAIN);
    expect(match).toMatchObject({ kind: 'match', branch: { account: 'south', idBranch: 3 } });
  });

  it('forgives one small typo, two in a long name', () => {
    expect(id('Moeam')).toBe(2);
    expect(id('Moemaa')).toBe(2);
    expect(id('Pualista')).toBe(1);
    expect(id('Porto Alegr Cntro')).toBe(3);
    expect(matchBranch('Moeam', CHAIN)).toMatchObject({ by: 'typo' });
  });

  it('does not guess between two branches equally close, nor from a far answer', () => {
    // "Santna" is one edit from both Santana and Santa Ana (folded "santa ana" is two away).
    expect(id('Santan')).toBe(5);
    const twoClose: NamedBranch[] = [
      { idBranch: 7, account: 'default', name: 'Lapa' },
      { idBranch: 8, account: 'default', name: 'Lama' },
    ];
    expect(matchBranch('Lapma', twoClose).kind).toBe('ambiguous');
    expect(id('Curitiba')).toBe('none');
    expect(id('')).toBe('none');
    expect(id('Unidade')).toBe('none');
  });

  it('recognises the questions that ask for the branch', () => {
    for (const question of [
      'Unidade',
      'Qual unidade?',
      'Academia',
      'Filial',
      'branch',
      'location',
      'idBranch',
      'unidade_preferida',
    ]) {
      expect(isBranchQuestion(question), question).toBe(true);
    }
    for (const question of ['Nome', 'E-mail', 'Cidade', 'Comunidade']) {
      expect(isBranchQuestion(question), question).toBe(false);
    }
  });

  it('counts a swap of two letters as one edit', () => {
    expect(editDistance('moema', 'moeam')).toBe(1);
    expect(editDistance('moema', 'moema')).toBe(0);
    expect(editDistance('abc', 'xyz', 1)).toBe(2);
  });

  it('lets configured names win over learned ones for the same branch', () => {
    const configured = [{ idBranch: 2, account: 'default', name: 'Moema Premium' }];
    const learned = [
      { idBranch: 2, account: 'default', name: 'MOEMA' },
      { idBranch: 9, account: 'default', name: 'Tatuapé' },
    ];
    const merged = mergeDirectories(configured, learned);
    expect(merged.map((b) => b.name)).toEqual(['Moema Premium', 'Tatuapé']);
  });
});
