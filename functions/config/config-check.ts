/**
 * The configuration's checks: one pipeline for the local file (`npm start`, its reloads,
 * `npm run config -- validate --local`), the deploy file (`npm run config -- validate|diff|push`,
 * `cdk deploy`) and the settings the configuration store's validator function is given. The
 * files differ in their top level (the local file holds secrets and clients; the deploy file a
 * stage; the settings neither), so each passes its own schemas; everything else is shared, and
 * so the same mistake gets the same line, in the same order, wherever it is made:
 *
 * 1. unknown keys, each with the closest known key (config-keys.ts), profiles included;
 * 2. the top level against its schema, each profile as an object with a source only;
 * 3. each profile alone: its name (its URL), its source's schema (the secret keys stood in for
 *    where they live in Secrets Manager), and where its leads get their branch (branch-rule.ts);
 * 4. when the top level holds, the accounts that profiles and clients name (config-accounts.ts).
 *
 * The words are config-messages.ts's. Pure: no AWS, no I/O.
 */
import type * as z from 'zod/mini';
import { issuePath } from '../domain/json.ts';
import { type BranchRuleContext, type BranchRuleProfile, branchProblems } from './branch-rule.ts';
import { type AccountsInput, accountProblems, accountsNamingBranches } from './config-accounts.ts';
import type { ProfileRules } from './config-aws.ts';
import { unknownKeyProblems } from './config-keys.ts';
import { type ConfigProblem, describeConfigIssue, profileNameMessage } from './config-messages.ts';
import { PROFILE_NAME } from './config-parts.ts';
import type { Profile } from './config-schema.ts';
import { formerNameProblems } from './profile-names.ts';

/** What a configuration's top level must give the cross-part rules. */
export type TopLevel = AccountsInput<unknown>;

export interface CheckSpec<T extends TopLevel> {
  /** The configuration's full schema, where unknown keys are looked up (profiles by source). */
  keys: z.ZodMiniType;
  /** The top level, each profile as `profileEntrySchema`. */
  shape: z.ZodMiniType<T, unknown>;
  rules: ProfileRules;
  /**
   * `file`: the profiles' secret keys are written in the configuration (the local file);
   * `elsewhere`: they live in Secrets Manager, so are neither required nor checked here.
   */
  secrets: 'file' | 'elsewhere';
  /** Which accounts have named branches; default: those whose `branches` name one. */
  branches?: BranchRuleContext;
}

export type Checked<T> =
  | { ok: true; value: T; profiles: Record<string, Profile> }
  | { ok: false; problems: ConfigProblem[] };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `profiles.Lp-Centro` → `lp-centro`, when lower case is all it lacks. */
function nameSuggestion(name: string): string | undefined {
  const lower = name.trim().toLowerCase().replace(/\s+/g, '-');
  return PROFILE_NAME.test(lower) ? lower : undefined;
}

/** What the branch rule reads of a profile as written (its parts may not have their shape). */
function branchView(entry: Record<string, unknown>, source: string): BranchRuleProfile {
  const object = (value: unknown) => (isObject(value) ? value : undefined);
  const forms = object(entry.forms);
  const fieldMap = object(entry.fieldMap);
  return {
    source,
    upstream: typeof entry.upstream === 'string' ? entry.upstream : undefined,
    defaults: object(entry.defaults),
    forms: forms && Object.fromEntries(Object.entries(forms).map(([id, f]) => [id, object(f)])),
    fieldMap:
      fieldMap &&
      Object.fromEntries(Object.entries(fieldMap).filter(([, t]) => typeof t === 'string')),
  } as BranchRuleProfile;
}

/** Step 3 for one profile: its problems, or the profile as its source's schema reads it. */
function checkProfile<T extends TopLevel>(
  name: string,
  entry: unknown,
  spec: CheckSpec<T>,
  hasUnknownKeys: boolean,
): { problems: ConfigProblem[]; profile?: Profile } {
  const problems: ConfigProblem[] = [];
  if (!PROFILE_NAME.test(name)) {
    problems.push({ field: `profiles.${name}`, message: profileNameMessage(nameSuggestion(name)) });
  }
  // Not an object, or no source: step 2 says so, and no source's schema applies.
  if (!isObject(entry) || typeof entry.source !== 'string') return { problems };
  const secretKeys = spec.secrets === 'elsewhere' ? spec.rules.secretKeysOf(entry.source) : [];
  const standIns = Object.fromEntries(secretKeys.map((key) => [key, 'stand-in']));
  const input = { ...entry, ...standIns };
  const result = spec.rules.profileSchema.safeParse(input, { reportInput: true });
  const issues = result.success ? [] : result.error.issues;
  for (const issue of issues) {
    const head = issue.path[0];
    if (typeof head === 'string' && secretKeys.includes(head)) continue;
    const field = ['profiles', name, ...issue.path.map(String)].join('.');
    problems.push({ field, message: describeConfigIssue(issue) });
  }
  // Read from the profile as written, so that it is said with the profile's other problems; a
  // misspelt key (`default`) or an unknown source is the problem to fix, not the branch.
  const unknownSource = issues.some((issue) => issue.path[0] === 'source');
  if (!hasUnknownKeys && !unknownSource) {
    problems.push(...branchProblems({ [name]: branchView(entry, entry.source) }, spec.branches));
  }
  if (!result.success) return { problems };
  const profile: Record<string, unknown> = { ...result.data };
  for (const key of secretKeys) delete profile[key];
  return { problems, profile: profile as Profile };
}

/** The same problem found twice (by step 2 and step 3) is said once. */
function once(problems: readonly ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.field}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The profiles some unknown key was found in. */
function profilesWithUnknownKeys(unknown: readonly ConfigProblem[]): Set<string> {
  const names = new Set<string>();
  for (const { field } of unknown) {
    const [root, name] = field.split('.');
    if (root === 'profiles' && name !== undefined) names.add(name);
  }
  return names;
}

/** Checks a configuration; its problems in the order above, or the valid configuration. */
export function checkConfiguration<T extends TopLevel>(
  raw: unknown,
  spec: CheckSpec<T>,
): Checked<T> {
  const unknown = unknownKeyProblems(spec.keys, raw, { profileSchema: spec.rules.profileSchema });
  const problems = [...unknown];
  const top = spec.shape.safeParse(raw, { reportInput: true });
  if (!top.success) {
    for (const issue of top.error.issues) {
      // Unknown keys are step 1's, with the closest known key.
      if (issue.code === 'unrecognized_keys' && unknown.length > 0) continue;
      problems.push({ field: issuePath(issue.path), message: describeConfigIssue(issue) });
    }
  }
  const misspelt = profilesWithUnknownKeys(unknown);
  const named = accountsNamingBranches(raw);
  const withBranches: CheckSpec<T> = {
    ...spec,
    branches: spec.branches ?? { accountNamesBranches: (account) => named.has(account) },
  };
  const profiles: Record<string, Profile> = {};
  const entries = isObject(raw) && isObject(raw.profiles) ? Object.entries(raw.profiles) : [];
  for (const [name, entry] of entries) {
    const checked = checkProfile(name, entry, withBranches, misspelt.has(name));
    problems.push(...checked.problems);
    if (checked.profile) profiles[name] = checked.profile;
  }
  if (top.success) problems.push(...accountProblems({ ...top.data, profiles }));
  problems.push(...formerNameProblems(profiles));
  if (problems.length > 0 || !top.success) return { ok: false, problems: once(problems) };
  return { ok: true, value: top.data, profiles };
}
