/**
 * An account's branch directory: the branches a chain form's "Qual unidade?" answer is matched
 * against (domain/branch-match.ts), configured names first, then the names learned from the
 * debtors report (its rows' `branchName`), a configured name winning for the same branch.
 *
 * - Learning: after a refresh succeeds, the refresher records the account's learned names
 *   (`learnedNames`: branch id → the name the report's rows carry) through the LearnedBranchNames
 *   port; the DynamoDB adapter (branch-names-dynamodb.ts) keeps them as one small item per
 *   account in the ledger table, beside the pacer's and circuit's, so that the intake, delivery
 *   and the admin read them with the GetItem they already have.
 * - Reading: `createBranchDirectory` answers each account's directory from a cache of
 *   `ttlMs` (one minute by default), so the intake does not pay a read per lead; a learned list
 *   that cannot be read leaves the configured names (and the last list read, if any): a lead is
 *   never refused for it.
 *
 * The intake, delivery (forward/complete.ts), the admin preview, lead view and correction map a
 * lead with `branchesOf(deps.branches, account)`: a caller given no directory (a unit test's
 * deps) maps with no named branches. No AWS here.
 */
import type { NamedBranch } from '../domain/branch-match.ts';
import { mergeDirectories } from '../domain/branch-match.ts';
import type { DebtorsSnapshot } from '../domain/debtors-report.ts';

/** Branch id → its name as the debtors report's rows carry it (`Unidade Moema`). */
export type LearnedNames = Record<number, string>;

/** Where each account's learned branch names are kept. */
export interface LearnedBranchNames {
  /** The account's learned names; `{}` when none were ever recorded. */
  read(account: string): Promise<LearnedNames>;
  /** Replaces the account's learned names. */
  write(account: string, names: LearnedNames): Promise<void>;
}

/** An account's branch directory (configured names winning over learned ones). */
export type BranchDirectory = (account: string) => Promise<readonly NamedBranch[]>;

/** The names a snapshot's branches carry, by branch id (branches without a name left out). */
export function learnedNames(snapshot: Pick<DebtorsSnapshot, 'byBranch'>): LearnedNames {
  const names: LearnedNames = {};
  for (const branch of snapshot.byBranch) {
    const name = branch.branchName?.trim();
    if (name) names[branch.branchId] = name;
  }
  return names;
}

/** Learned names as directory entries of `account`. */
export function learnedBranches(account: string, names: LearnedNames): NamedBranch[] {
  return Object.entries(names)
    .filter(([id, name]) => Number.isInteger(Number(id)) && typeof name === 'string' && name)
    .map(([id, name]) => ({ idBranch: Number(id), account, name }));
}

/** Default cache life of a directory: a new name reaches the intake within a minute. */
export const BRANCH_DIRECTORY_TTL_MS = 60_000;

export interface BranchDirectoryOptions {
  /** Every account's configured branches (ConfigSource.branches). */
  configured: () => Promise<readonly NamedBranch[]>;
  /** The learned names; absent: configured names only. */
  learned?: LearnedBranchNames | undefined;
  ttlMs?: number;
  now?: () => number;
  /** A learned list could not be read (the configured names are used meanwhile). */
  onLearnedError?: (event: { account: string; error: unknown }) => void;
}

/** The cached directory of each account (see the module comment). */
export function createBranchDirectory(options: BranchDirectoryOptions): BranchDirectory {
  const ttlMs = options.ttlMs ?? BRANCH_DIRECTORY_TTL_MS;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { at: number; learned: NamedBranch[] }>();

  async function learnedOf(account: string): Promise<NamedBranch[]> {
    const cached = cache.get(account);
    if (cached && now() - cached.at < ttlMs) return cached.learned;
    if (!options.learned) return [];
    try {
      const learned = learnedBranches(account, await options.learned.read(account));
      cache.set(account, { at: now(), learned });
      return learned;
    } catch (error) {
      options.onLearnedError?.({ account, error });
      // Tried again after the TTL; the last list read serves meanwhile.
      const kept = cached?.learned ?? [];
      cache.set(account, { at: now(), learned: kept });
      return kept;
    }
  }

  return async (account) => {
    const [configured, learned] = await Promise.all([options.configured(), learnedOf(account)]);
    return mergeDirectories(
      configured.filter((branch) => branch.account === account),
      learned,
    );
  };
}

/** The account's directory, or none when the caller was given no directory. */
export function branchesOf(
  directory: BranchDirectory | undefined,
  account: string,
): Promise<readonly NamedBranch[]> {
  return directory ? directory(account) : Promise.resolve([]);
}
