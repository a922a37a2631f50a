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

/** Which branch a mapped lead goes to and why, as the preview and the console show it. */
export interface BranchExplanation {
  /** The lead's branch; absent: none (the lead waits for a person to choose it). */
  idBranch?: number;
  /** Its name in the account's directory, when it has one. */
  name?: string;
  /**
   * `answer`: an answer named it; `unknown`/`ambiguous`: an answer named no branch, or two;
   * `given`: no answer asked for it (the profile's, the form's, a hidden field, a correction).
   */
  why: 'answer' | 'unknown' | 'ambiguous' | 'given';
  /** What the person answered to the branch question. */
  answered?: string;
  /** One Portuguese sentence saying it. */
  text: string;
  /** Something a person should look at: an answer that named no branch, or no branch at all. */
  warning: boolean;
}

/** "2 (Moema)", or "2" for a branch the directory does not name. */
function branchTitle(idBranch: number, directory: readonly NamedBranch[]): string {
  const name = directory.find((branch) => branch.idBranch === idBranch)?.name;
  return name ? `${idBranch} (${name})` : String(idBranch);
}

/**
 * The branch a lead goes to (`idBranch`, as finally mapped: an operator's correction or a
 * hidden field included) explained from the mapping's choice (`choice`, absent when no answer
 * asked for the branch) with the account's directory for names; `corrected`: an operator chose
 * `idBranch` in a correction, which is then what the sentence says.
 */
export function explainBranch(
  choice: BranchChoice | undefined,
  idBranch: number | undefined,
  directory: readonly NamedBranch[],
  corrected = false,
): BranchExplanation {
  const name = directory.find((branch) => branch.idBranch === idBranch)?.name;
  const chosen = idBranch === undefined ? {} : { idBranch, ...(name && { name }) };
  const none = 'o lead fica parado até uma pessoa escolher a unidade';
  if (corrected && idBranch !== undefined) {
    const answered = choice?.answered === undefined ? {} : { answered: choice.answered };
    const text = `Unidade ${branchTitle(idBranch, directory)}: escolhida por um operador na correção.`;
    return { ...chosen, why: 'given', ...answered, text, warning: false };
  }
  if (choice?.kind === 'answer' && choice.idBranch === idBranch) {
    const how = {
      name: 'nomeia a unidade',
      number: 'é o número da unidade',
      typo: `é ${choice.name} com um pequeno erro de digitação`,
    }[choice.by];
    const text = `Unidade ${branchTitle(choice.idBranch, directory)}: a resposta "${choice.answered}" ${how}.`;
    return { ...chosen, why: 'answer', answered: choice.answered, text, warning: false };
  }
  if (choice?.kind === 'default' && choice.answered !== undefined) {
    const why = choice.reason === 'ambiguous' ? 'ambiguous' : 'unknown';
    const what =
      why === 'ambiguous'
        ? `a resposta "${choice.answered}" serve a mais de uma unidade`
        : `a resposta "${choice.answered}" não é uma unidade conhecida`;
    const text =
      idBranch === undefined
        ? `Sem unidade: ${what} e o perfil não tem unidade padrão; ${none}.`
        : `Unidade ${branchTitle(idBranch, directory)}, a padrão do perfil: ${what}.`;
    return { ...chosen, why, answered: choice.answered, text, warning: true };
  }
  if (idBranch === undefined) {
    const text = `Sem unidade: nenhuma resposta disse a unidade e o perfil não tem unidade padrão; ${none}.`;
    return { why: 'given', text, warning: true };
  }
  const text = `Unidade ${branchTitle(idBranch, directory)}: a definida para o lead (perfil, formulário, campo oculto ou correção).`;
  return { ...chosen, why: 'given', text, warning: false };
}
