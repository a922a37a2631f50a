/**
 * Branches by name: a chain's landing page asks "Qual unidade?" and the person answers `Moema`;
 * this finds the branch (`idBranch`, and the upstream account that owns it) in the chain's
 * branch directory. Pure: no AWS, no I/O, never throws.
 *
 * The directory lists each account's branches with a name and aliases: configured ones first,
 * then names learned from the debtors report (`branchName`); a configured name wins over a
 * learned one for the same branch. An answer matches a branch when, folded (accents, case,
 * punctuation and the words "unidade", "academia", "filial" and the like ignored), it is the
 * branch's name or an alias, the branch's number (`2`, `Unidade 2`), or one small typo away from a
 * name (`Moeam`, `Moemaa`: one edit, a swap of two letters counting as one; two edits for names
 * of eight letters or more). Two branches equally close is no match: the answer is ambiguous,
 * and the caller says so rather than guess.
 */

/** One branch of the directory. */
export interface NamedBranch {
  idBranch: number;
  /** The upstream account that owns it. */
  account: string;
  name: string;
  aliases?: readonly string[] | undefined;
}

export type BranchMatch =
  | { kind: 'match'; branch: NamedBranch; by: 'name' | 'number' | 'typo' }
  | { kind: 'ambiguous'; candidates: readonly NamedBranch[] }
  | { kind: 'none' };

/** Words that say "branch" around a branch's name: dropped before comparing. */
const BRANCH_WORDS = new Set([
  'unidade',
  'unid',
  'und',
  'un',
  'academia',
  'filial',
  'loja',
  'sede',
  'branch',
  'location',
  'store',
  'gym',
  'da',
  'de',
  'do',
  'das',
  'dos',
  'the',
]);

/** Lower case, no accents, no punctuation, no "unidade"-like words, one space between words. */
export function foldBranchName(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLocaleLowerCase('pt-BR')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((word) => word !== '' && !BRANCH_WORDS.has(word))
    .join(' ');
}

/** Keys and labels that ask which branch: `Unidade`, `Qual unidade?`, `Academia`, `branch`... */
const BRANCH_QUESTION =
  /(^|[^\p{L}])(unidade|unid|academia|filial|branch|location|localiza[cç][aã]o|loja|sede|id_?branch)([^\p{L}]|$)/iu;

/** Whether an answer's key or label asks for the branch (`Qual unidade?`, `filial`, `location`). */
export function isBranchQuestion(keyOrLabel: string): boolean {
  const text = keyOrLabel.normalize('NFKD').replace(/\p{M}/gu, '');
  return BRANCH_QUESTION.test(text) || BRANCH_QUESTION.test(keyOrLabel);
}

/**
 * Edit distance with adjacent swaps (optimal string alignment): `moema`/`moeam` is 1. Stops
 * early (returns `limit + 1`) once every path is past `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const previous = rows[i - 1] as number[];
      let value = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** How many typos a name of this length tolerates: none under 4 letters, 1, or 2 from 8. */
function tolerance(name: string): number {
  const letters = name.replaceAll(' ', '').length;
  if (letters < 4) return 0;
  return letters >= 8 ? 2 : 1;
}

/** The directory's branches with the given number, or with a name or alias folded as `folded`. */
function exact(folded: string, directory: readonly NamedBranch[]): NamedBranch[] {
  if (/^\d+$/.test(folded)) {
    return directory.filter((branch) => branch.idBranch === Number(folded));
  }
  return directory.filter((branch) =>
    [branch.name, ...(branch.aliases ?? [])].some((name) => foldBranchName(name) === folded),
  );
}

/** The branch an answer names (see the module comment). */
export function matchBranch(answer: string, directory: readonly NamedBranch[]): BranchMatch {
  const folded = foldBranchName(answer);
  if (folded === '') return { kind: 'none' };
  const found = distinct(exact(folded, directory));
  if (found.length === 1) {
    const by = /^\d+$/.test(folded) ? 'number' : 'name';
    return { kind: 'match', branch: found[0] as NamedBranch, by };
  }
  if (found.length > 1) return { kind: 'ambiguous', candidates: found };

  let bestDistance = Number.POSITIVE_INFINITY;
  let best: NamedBranch[] = [];
  for (const branch of directory) {
    for (const name of [branch.name, ...(branch.aliases ?? [])]) {
      const candidate = foldBranchName(name);
      const limit = tolerance(candidate);
      const distance = editDistance(folded, candidate, limit);
      if (distance > limit || distance > bestDistance) continue;
      if (distance < bestDistance) best = [];
      bestDistance = distance;
      best.push(branch);
    }
  }
  const close = distinct(best);
  if (close.length === 1) return { kind: 'match', branch: close[0] as NamedBranch, by: 'typo' };
  if (close.length > 1) return { kind: 'ambiguous', candidates: close };
  return { kind: 'none' };
}

/** One entry per branch (a branch matched by its name and an alias is one candidate). */
function distinct(branches: readonly NamedBranch[]): NamedBranch[] {
  const seen = new Set<string>();
  return branches.filter((branch) => {
    const key = `${branch.account}#${branch.idBranch}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The directory of several sources, the first one's names winning for the same branch
 * (configured names before the ones learned from the debtors report).
 */
export function mergeDirectories(...sources: readonly (readonly NamedBranch[])[]): NamedBranch[] {
  const merged = new Map<string, NamedBranch>();
  for (const source of sources) {
    for (const branch of source) {
      const key = `${branch.account}#${branch.idBranch}`;
      if (!merged.has(key)) merged.set(key, branch);
    }
  }
  return [...merged.values()];
}
