/**
 * A profile's names: the one it has, and those it had (`formerly`, a rename). A request to
 * `/leads/<former name>` and a lead recorded under a former name are the renamed profile's, so a
 * rename keeps its URL, its token and its waiting leads. Lookups are constant-time: one index per
 * profiles object, built once (config sources keep the object while their settings are current).
 * Pure: no AWS.
 */
import type { ConfigProblem } from './config-messages.ts';

/** A profile as these lookups read it: its `formerly`, when it is a list of names. */
type Named = object;

function formerNames(profile: Named | undefined): readonly string[] {
  const formerly = (profile as { formerly?: unknown } | undefined)?.formerly;
  return Array.isArray(formerly) ? formerly.filter((n): n is string => typeof n === 'string') : [];
}

const INDEXES = new WeakMap<object, Map<string, string>>();

/** Former name → current name, for every profile that names its former names. */
function indexOf(profiles: Readonly<Record<string, Named>>): Map<string, string> {
  let index = INDEXES.get(profiles);
  if (!index) {
    index = new Map();
    for (const [name, profile] of Object.entries(profiles)) {
      for (const former of formerNames(profile)) {
        if (!Object.hasOwn(profiles, former) && !index.has(former)) index.set(former, name);
      }
    }
    INDEXES.set(profiles, index);
  }
  return index;
}

/** The current name of the profile called `name` now or before; undefined when none is. */
export function currentProfileName(
  profiles: Readonly<Record<string, Named>>,
  name: string,
): string | undefined {
  if (Object.hasOwn(profiles, name)) return name;
  return indexOf(profiles).get(name);
}

/** The profile called `name` now or before. */
export function profileCalled<P extends Named>(
  profiles: Readonly<Record<string, P>>,
  name: string,
): P | undefined {
  const current = currentProfileName(profiles, name);
  return current === undefined ? undefined : profiles[current];
}

/** Every name a profile answers to: the current ones, then the former ones (`formerly`). */
export function answeringNames(profiles: Readonly<Record<string, Named>>): string[] {
  return [...Object.keys(profiles), ...indexOf(profiles).keys()];
}

/**
 * A former name must be free: not a profile's current name, nor another profile's former name
 * (a request to it would have two owners).
 */
export function formerNameProblems(profiles: Readonly<Record<string, unknown>>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const owner = new Map<string, string>();
  for (const [name, profile] of Object.entries(profiles)) {
    formerNames(profile as Named | undefined).forEach((former, index) => {
      const field = `profiles.${name}.formerly.${index}`;
      if (Object.hasOwn(profiles, former)) {
        problems.push({
          field,
          message: `'${former}' ainda é o nome de um perfil; um nome antigo não pode estar em uso`,
        });
      } else if (owner.has(former)) {
        problems.push({
          field,
          message: `'${former}' já é nome antigo do perfil '${owner.get(former)}'`,
        });
      } else owner.set(former, name);
    });
  }
  return problems;
}
