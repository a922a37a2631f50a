/**
 * The branch a lead's answers choose (a chain's form asks "Qual unidade?"): the mapping's step
 * for the branch, over the account's named branches (branch-match.ts). Pure.
 *
 * An answer whose key or label asks for the branch (`Unidade`, `Qual unidade?`, `Academia`,
 * `Filial`, `branch`, `location`, a Meta custom question, a hidden field) and whose value names
 * one of the branches sets the lead's `idBranch`, over the profile's default. An answer that
 * names none, or two equally, leaves the default (the notes warn, saying which branch was used
 * and why) or, without a default, leaves the branch missing: the lead is parked for it, and the
 * console shows what the person answered.
 */
import { type BranchMatch, matchBranch, type NamedBranch } from './branch-match.ts';

/** Why a lead went to the branch it went to (the preview and the console show it). */
export type BranchChoice =
  | {
      /** The branch an answer named. */
      kind: 'answer';
      idBranch: number;
      account: string;
      name: string;
      /** What the person answered, and how it matched (`typo`: one small typo forgiven). */
      answered: string;
      by: 'name' | 'number' | 'typo';
    }
  | {
      /** No answer named a branch: the profile's default (if any). */
      kind: 'default';
      idBranch?: number | undefined;
      /** What the person answered when it named no branch, or named two. */
      answered?: string | undefined;
      reason?: 'unknown' | 'ambiguous' | undefined;
    };

export interface BranchAnswer {
  /** The answer's position among the capture's answers. */
  index: number;
  text: string;
}

/** The Portuguese warning of an answer that named no branch, or two. */
function unmatchedWarning(
  answered: string,
  match: Exclude<BranchMatch, { kind: 'match' }>,
  fallback: number | undefined,
): string {
  const what =
    match.kind === 'ambiguous'
      ? `Unidade ambígua ("${answered}": ${match.candidates.map((b) => b.name).join(' ou ')})`
      : `Unidade não reconhecida ("${answered}")`;
  return fallback === undefined
    ? `${what}; o lead espera que uma pessoa escolha a unidade`
    : `${what}; usada a unidade padrão do perfil (${fallback})`;
}

/**
 * The branch the answers choose among `branches`, the first answer that names one winning; and
 * the warning to note when answers named none.
 */
export function chooseBranch(
  answers: readonly BranchAnswer[],
  branches: readonly NamedBranch[],
  fallback: number | undefined,
): { choice: BranchChoice; chosenIndex?: number; warning?: string } {
  let unmatched: { answered: string; match: Exclude<BranchMatch, { kind: 'match' }> } | undefined;
  for (const answer of answers) {
    const match = matchBranch(answer.text, branches);
    if (match.kind === 'match') {
      const { idBranch, account, name } = match.branch;
      return {
        choice: { kind: 'answer', idBranch, account, name, answered: answer.text, by: match.by },
        chosenIndex: answer.index,
      };
    }
    unmatched ??= { answered: answer.text, match };
  }
  if (!unmatched) return { choice: { kind: 'default', idBranch: fallback } };
  const reason = unmatched.match.kind === 'ambiguous' ? 'ambiguous' : 'unknown';
  return {
    choice: { kind: 'default', idBranch: fallback, answered: unmatched.answered, reason },
    warning: unmatchedWarning(unmatched.answered, unmatched.match, fallback),
  };
}
