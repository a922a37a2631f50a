/**
 * The branch rule (functions/config/branch-rule.ts): a profile must say where its leads' branch
 * comes from, or every lead would park for `idBranch`.
 */
import { describe, expect, it } from 'vitest';
import {
  type BranchRuleProfile,
  branchProblems,
  branchRuleMessage,
  profileGivesBranch,
} from '../../functions/config/branch-rule.ts';
import { accountsNamingBranches, namedBranchesOf } from '../../functions/config/config-accounts.ts';

describe('the branch rule', () => {
  it.each<[string, BranchRuleProfile]>([
    ['a default branch', { source: 'form', defaults: { idBranch: 3 } }],
    [
      'a branch on each of its forms',
      { source: 'meta', forms: { '1': { idBranch: 2 }, '2': { idBranch: 5 } } },
    ],
    [
      'a field of the lead mapped to idBranch',
      { source: 'form', fieldMap: { unidade: 'idBranch' } },
    ],
    ['a source whose caller names the branch', { source: 'prospect' }],
  ])('accepts a profile with %s', (_name, profile) => {
    expect(profileGivesBranch(profile)).toBe(true);
    expect(branchProblems({ p: profile })).toEqual([]);
  });

  it.each<[string, BranchRuleProfile]>([
    ['nothing but its source', { source: 'form' }],
    ['defaults without a branch', { source: 'form', defaults: { marketingType: 'Site' } as never }],
    ['no forms listed', { source: 'meta', forms: {} }],
    ['a fieldMap to other fields', { source: 'form', fieldMap: { cpf_do_aluno: 'cpf' } }],
  ])('refuses a profile with %s, saying the rule', (_name, profile) => {
    expect(branchProblems({ 'lp-nova': profile })).toEqual([
      { field: 'profiles.lp-nova', message: branchRuleMessage() },
    ]);
  });

  it('names the forms that give no branch when some do', () => {
    const [problem] = branchProblems({
      chain: { source: 'meta', forms: { '111': { idBranch: 1 }, '222': {}, '333': undefined } },
    });
    expect(problem?.message).toBe(
      `${branchRuleMessage()} (formulários sem "idBranch": forms.222, forms.333)`,
    );
  });

  it('says the rule in Portuguese, with the keys as written', () => {
    expect(branchRuleMessage()).toBe(
      'um perfil precisa de "defaults.idBranch", de "forms.<id>.idBranch" em cada formulário, de um campo do lead mapeado para "idBranch" em "fieldMap", de uma fonte em que quem envia diz a unidade ("prospect") ou de unidades com nome na conta ("branches": o lead que responde "Qual unidade?" com um nome vai para ela); sem isso, todo lead dele fica parado sem unidade',
    );
  });

  it('takes an account whose leads name their branch, for the branch-by-name work to give', () => {
    // Prepare: the south account has named branches (a lead's "Qual unidade?" answer is matched)
    const context = { accountNamesBranches: (account: string) => account === 'south' };
    const profiles: Record<string, BranchRuleProfile> = {
      south: { source: 'form', upstream: 'south' },
      other: { source: 'form' },
    };

    // Act / Assess
    expect(branchProblems(profiles, context).map((p) => p.field)).toEqual(['profiles.other']);
  });
});

describe('an account with named branches', () => {
  it('lets its profiles take the branch from a "Qual unidade?" answer, and lists the names', () => {
    const config = {
      upstream: { branches: { '2': { name: 'Moema', aliases: ['Unid. Moema'] } } },
      upstreams: { south: { branches: { '7': { name: 'Centro Histórico' } } } },
      report: undefined,
    };
    expect([...accountsNamingBranches(config)]).toEqual(['default', 'south']);
    expect(namedBranchesOf(config as never)).toEqual([
      { idBranch: 2, account: 'default', name: 'Moema', aliases: ['Unid. Moema'] },
      { idBranch: 7, account: 'south', name: 'Centro Histórico' },
    ]);
    const chainForm = { source: 'form', upstream: 'south' };
    expect(profileGivesBranch(chainForm)).toBe(false);
    expect(profileGivesBranch(chainForm, { accountNamesBranches: (a) => a === 'south' })).toBe(
      true,
    );
  });
});
