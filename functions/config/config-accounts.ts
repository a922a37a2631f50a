/**
 * The account model of a configuration (the file, or the deployed settings): its accounts by
 * name, what the schema cannot check about them, and a profile's account. Apart from
 * config-schema.ts so that the functions that read settings but handle no lead (report,
 * refresher, reconciler, watch) do not load the sources' schemas, and with them the sources,
 * the mapping and libphonenumber-js, to know an account (docs/performance.md).
 */

import type { NamedBranch } from '../domain/branch-match.ts';
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import type { Reach } from '../kernel/scope.ts';
import {
  type ConfigProblem,
  defaultAccountClashMessage,
  unknownAccountMessage,
} from './config-messages.ts';
import { DEFAULT_REPORT, type ReportConfig } from './config-parts.ts';

/** What the account model needs of a configuration (the file, or the deployed settings). */
export interface AccountsInput<U> {
  upstream: U;
  upstreams?: Record<string, U & { report?: ReportConfig | undefined }> | undefined;
  report?: ReportConfig | undefined;
  profiles: Record<string, { upstream?: string | undefined }>;
  clients?: readonly { username: string; upstreams?: readonly string[] | undefined }[];
}

/**
 * The accounts of a configuration by name: `upstream` (with `report`) as `default`, then
 * `upstreams`. Call accountProblems first: this assumes there are no clashes.
 */
export function accountsOf<U>(
  config: Pick<AccountsInput<U>, 'upstream' | 'upstreams' | 'report'>,
): Map<string, U & { report: ReportConfig }> {
  const accounts = new Map<string, U & { report: ReportConfig }>();
  accounts.set(DEFAULT_ACCOUNT, { ...config.upstream, report: config.report ?? DEFAULT_REPORT });
  for (const [name, account] of Object.entries(config.upstreams ?? {})) {
    accounts.set(name, { ...account, report: account.report ?? DEFAULT_REPORT });
  }
  return accounts;
}

/**
 * What the schema cannot check alone: `default` is not named twice, and every profile and
 * client names accounts that exist.
 */
export function accountProblems<U>(config: AccountsInput<U>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const named = Object.keys(config.upstreams ?? {});
  if (named.includes(DEFAULT_ACCOUNT)) {
    problems.push({
      field: `upstreams.${DEFAULT_ACCOUNT}`,
      message: defaultAccountClashMessage(DEFAULT_ACCOUNT),
    });
  }
  const known = new Set([DEFAULT_ACCOUNT, ...named]);
  for (const [name, profile] of Object.entries(config.profiles)) {
    const account = accountOfProfile(profile);
    if (!known.has(account)) {
      problems.push({
        field: `profiles.${name}.upstream`,
        message: unknownAccountMessage(account, [...known]),
      });
    }
  }
  config.clients?.forEach((client, index) => {
    for (const account of client.upstreams ?? []) {
      if (!known.has(account)) {
        problems.push({
          field: `clients.${index}.upstreams`,
          message: unknownAccountMessage(account, [...known]),
        });
      }
    }
  });
  return problems;
}

/** The account of a profile. */
export function accountOfProfile(profile: { upstream?: string | undefined }): string {
  return profile.upstream ?? DEFAULT_ACCOUNT;
}

/** What a profile's reach is read from: its source, account, default and per-form fields. */
export interface ReachInput {
  source: string;
  upstream?: string | undefined;
  defaults?: { idBranch?: number | undefined } | undefined;
  forms?: Record<string, { idBranch?: number | undefined } | undefined> | undefined;
}

/**
 * Every place a profile's leads may go (kernel/scope.ts): its account, and the branches its
 * configuration gives them: the default branch and each form's. `any` when a lead may come
 * without a branch the profile chose: the Prospect API (the caller names the branch) or a
 * profile without a default branch (its leads name one, or wait for an operator to).
 */
export function reachOfProfile(profile: ReachInput): Reach {
  const account = accountOfProfile(profile);
  const fallback = profile.defaults?.idBranch;
  if (profile.source === 'prospect' || fallback === undefined) return { account, branches: 'any' };
  const branches = new Set([fallback]);
  for (const form of Object.values(profile.forms ?? {})) branches.add(form?.idBranch ?? fallback);
  return { account, branches: [...branches].sort((a, b) => a - b) };
}

/** What the named branches are read from: each account's `branches`. */
type BranchesOf = {
  branches?: Record<string, { name: string; aliases?: string[] | undefined }> | undefined;
};

/**
 * Every account's named branches (`branches` of `upstream` and of each `upstreams.<name>`), as the
 * branch matcher and the console read them.
 */
export function namedBranchesOf<U extends BranchesOf>(
  config: Pick<AccountsInput<U>, 'upstream' | 'upstreams' | 'report'>,
): NamedBranch[] {
  return [...accountsOf(config)].flatMap(([account, settings]) =>
    Object.entries(settings.branches ?? {}).map(([id, branch]) => ({
      idBranch: Number(id),
      account,
      name: branch.name,
      ...(branch.aliases && { aliases: branch.aliases }),
    })),
  );
}

/** The accounts of a configuration as written that name at least one branch. */
export function accountsNamingBranches(raw: unknown): Set<string> {
  const named = new Set<string>();
  const record = (value: unknown) =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  const names = (value: unknown) => Object.keys(record(record(value)?.branches) ?? {}).length > 0;
  const top = record(raw);
  if (names(top?.upstream)) named.add(DEFAULT_ACCOUNT);
  for (const [name, account] of Object.entries(record(top?.upstreams) ?? {})) {
    if (names(account)) named.add(name);
  }
  return named;
}
