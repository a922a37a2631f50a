/**
 * The branch rule: a lead is delivered with its branch (`idBranch`), so a profile must say where
 * its leads' branch comes from; a profile that can never give one (`"lp-nova": {"source":
 * "form"}`) would park every lead for `idBranch`, and is refused when the configuration is
 * validated (config-check.ts: `npm start`, a reload, `npm run config -- validate`, the store's
 * validator function). A profile gets its leads' branch from:
 *
 * - `defaults.idBranch`: every lead of the profile;
 * - `forms.<id>.idBranch` on each of its forms (one form per branch);
 * - a field of the lead mapped to `idBranch` in `fieldMap` (a hidden `idBranch` or `unidade`
 *   field of the form: `"fieldMap": {"unidade": "idBranch"}`);
 * - its source, when whoever sends the lead names the branch (`prospect`: the Prospect API).
 *
 * - its account's named branches (`branches` of the account): a lead answering "Qual unidade?"
 *   with a name is matched against them (functions/domain/branch-match.ts); config-check.ts
 *   gives `accountNamesBranches` the accounts whose `branches` name one.
 */
import { accountOfProfile } from './config-accounts.ts';
import type { ConfigProblem } from './config-messages.ts';

/** Sources whose caller names each lead's branch (the Prospect API takes `idBranch`). */
const CALLER_NAMES_BRANCH: ReadonlySet<string> = new Set(['prospect']);

/** What the rule reads of a profile. */
export interface BranchRuleProfile {
  source: string;
  upstream?: string | undefined;
  defaults?: { idBranch?: unknown } | undefined;
  forms?: Record<string, { idBranch?: unknown } | undefined> | undefined;
  fieldMap?: Record<string, string> | undefined;
}

/** What the rule knows of the accounts. */
export interface BranchRuleContext {
  /** Whether the leads of this account may name their branch (an account with named branches). */
  accountNamesBranches(account: string): boolean;
}

/** No account has named branches (tests of the other alternatives). */
export const NO_NAMED_BRANCHES: BranchRuleContext = { accountNamesBranches: () => false };

/** Where a profile's leads get their branch, as the message words the rule. */
export const BRANCH_ALTERNATIVES: readonly string[] = [
  'de "defaults.idBranch"',
  'de "forms.<id>.idBranch" em cada formulário',
  'de um campo do lead mapeado para "idBranch" em "fieldMap"',
  'de uma fonte em que quem envia diz a unidade ("prospect")',
  'de unidades com nome na conta ("branches": o lead que responde "Qual unidade?" com um nome vai para ela)',
];

/** The rule itself, as an operator reads it. */
export function branchRuleMessage(formsWithout: readonly string[] = []): string {
  const last = BRANCH_ALTERNATIVES.length - 1;
  const ways = `${BRANCH_ALTERNATIVES.slice(0, last).join(', ')} ou ${BRANCH_ALTERNATIVES[last]}`;
  const rule = `um perfil precisa ${ways}; sem isso, todo lead dele fica parado sem unidade`;
  if (formsWithout.length === 0) return rule;
  const forms = formsWithout.map((id) => `forms.${id}`).join(', ');
  return `${rule} (formulários sem "idBranch": ${forms})`;
}

/** The forms of a profile that give no branch, when the profile has forms. */
function formsWithoutBranch(profile: BranchRuleProfile): string[] {
  return Object.entries(profile.forms ?? {})
    .filter(([, form]) => form?.idBranch === undefined)
    .map(([id]) => id);
}

/** Whether the profile's leads always get a branch, by the rule above. */
export function profileGivesBranch(
  profile: BranchRuleProfile,
  context: BranchRuleContext = NO_NAMED_BRANCHES,
): boolean {
  if (profile.defaults?.idBranch !== undefined) return true;
  const forms = Object.keys(profile.forms ?? {});
  if (forms.length > 0 && formsWithoutBranch(profile).length === 0) return true;
  if (Object.values(profile.fieldMap ?? {}).includes('idBranch')) return true;
  if (CALLER_NAMES_BRANCH.has(profile.source)) return true;
  return context.accountNamesBranches(accountOfProfile(profile));
}

/** A problem for each profile whose leads would never get a branch. */
export function branchProblems(
  profiles: Record<string, BranchRuleProfile>,
  context: BranchRuleContext = NO_NAMED_BRANCHES,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [name, profile] of Object.entries(profiles)) {
    if (profileGivesBranch(profile, context)) continue;
    problems.push({
      field: `profiles.${name}`,
      message: branchRuleMessage(formsWithoutBranch(profile)),
    });
  }
  return problems;
}
