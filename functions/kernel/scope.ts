/**
 * What a scoped API client may see and change (`upstreams` and `branches` of a client in the
 * configuration; docs/configuration.md, "Scoping clients"). Pure predicates: the route guards
 * (kernel/route-guard.ts and the flows' own guards built on it) decide with these, never a route.
 *
 * A *place* is where a lead lives: its upstream account and, once known, its branch. A lead whose
 * branch is not known yet (parked for its branch, or waiting for its platform's lookup) belongs
 * to its whole account: only a client that covers the whole account sees it.
 *
 * A *reach* is every place a profile's leads may go: its account and the branches its
 * configuration can give them (`any` when a lead may name its own branch). A scoped client may act
 * on a profile (its set-up kit, a test lead, a preview, a backfill) only when the reach is
 * within its scope, so acting on a profile can never create or reveal another branch's leads.
 */
import type { Client } from './client-schema.ts';

export interface Scope {
  /** The accounts the client may see; undefined: every account. */
  upstreams?: readonly string[] | undefined;
  /** The branches (idBranch) the client may see; undefined: every branch. */
  branches?: readonly number[] | undefined;
}

/** Where a lead lives: its account and its branch (undefined while not known). */
export interface Place {
  account: string;
  branch?: number | undefined;
}

/** Every place a profile's leads may go. */
export interface Reach {
  account: string;
  branches: readonly number[] | 'any';
}

export function scopeOf(client: Pick<Client, 'upstreams' | 'branches'>): Scope {
  return { upstreams: client.upstreams, branches: client.branches };
}

/** Whether the scope limits anything at all. */
export function isScoped(scope: Scope): boolean {
  return scope.upstreams !== undefined || scope.branches !== undefined;
}

/** Whether the client may see some of the account (some or all of its branches). */
export function seesAccount(scope: Scope, account: string): boolean {
  return scope.upstreams === undefined || scope.upstreams.includes(account);
}

/** Whether the client may see and change the whole account (no branch limit). */
export function coversAccount(scope: Scope, account: string): boolean {
  return seesAccount(scope, account) && scope.branches === undefined;
}

/** Whether the client may see and change a lead at this place. */
export function coversPlace(scope: Scope, place: Place): boolean {
  if (!seesAccount(scope, place.account)) return false;
  if (scope.branches === undefined) return true;
  return place.branch !== undefined && scope.branches.includes(place.branch);
}

/** Whether every place a profile's leads may go is within the scope. */
export function coversReach(scope: Scope, reach: Reach): boolean {
  if (!seesAccount(scope, reach.account)) return false;
  if (scope.branches === undefined) return true;
  const allowed = scope.branches;
  return reach.branches !== 'any' && reach.branches.every((branch) => allowed.includes(branch));
}

/** The accounts of `accounts` the client may see, in their order. */
export function visibleAccounts(scope: Scope, accounts: readonly string[]): string[] {
  return accounts.filter((account) => seesAccount(scope, account));
}
