/**
 * What a scoped client may see (kernel/scope.ts) and where a profile's leads may go
 * (config-accounts.ts reachOfProfile): the rules every scoped route is guarded by.
 */
import { describe, expect, it } from 'vitest';
import { reachOfProfile } from '../../functions/config/config-accounts.ts';
import {
  coversAccount,
  coversPlace,
  coversReach,
  visibleAccounts,
} from '../../functions/kernel/scope.ts';

const BRANCH_2 = { upstreams: ['default'], branches: [2] };
const SOUTH = { upstreams: ['south'] };

describe('a scoped client', () => {
  it('sees a lead of its account and branch, not of another branch or account', () => {
    expect(coversPlace(BRANCH_2, { account: 'default', branch: 2 })).toBe(true);
    expect(coversPlace(BRANCH_2, { account: 'default', branch: 1 })).toBe(false);
    expect(coversPlace(BRANCH_2, { account: 'south', branch: 2 })).toBe(false);
    expect(coversPlace(SOUTH, { account: 'south', branch: 9 })).toBe(true);
  });

  it('does not see a lead whose branch is not known unless it covers the whole account', () => {
    expect(coversPlace(BRANCH_2, { account: 'default' })).toBe(false);
    expect(coversPlace(SOUTH, { account: 'south' })).toBe(true);
    expect(coversPlace({}, { account: 'anything' })).toBe(true);
  });

  it('covers a whole account only without a branch limit', () => {
    expect(coversAccount(BRANCH_2, 'default')).toBe(false);
    expect(coversAccount(SOUTH, 'south')).toBe(true);
    expect(coversAccount(SOUTH, 'default')).toBe(false);
    expect(visibleAccounts(SOUTH, ['default', 'south'])).toEqual(['south']);
  });
});

describe('a profile’s reach', () => {
  it('is its default branch and every form’s', () => {
    const reach = reachOfProfile({
      source: 'meta',
      defaults: { idBranch: 2 },
      forms: { f1: { idBranch: 5 }, f2: {} },
    });
    expect(reach).toEqual({ account: 'default', branches: [2, 5] });
    expect(coversReach(BRANCH_2, reach)).toBe(false);
    expect(coversReach({ branches: [2, 5] }, reach)).toBe(true);
  });

  it('is the whole account when a lead may come without the profile’s branch', () => {
    expect(reachOfProfile({ source: 'form' }).branches).toBe('any');
    expect(reachOfProfile({ source: 'prospect', defaults: { idBranch: 2 } }).branches).toBe('any');
    expect(coversReach(BRANCH_2, { account: 'default', branches: 'any' })).toBe(false);
    expect(coversReach(SOUTH, reachOfProfile({ source: 'form', upstream: 'south' }))).toBe(true);
  });
});
