/**
 * Unknown keys in a configuration, named with the closest known key: a `default` typed for
 * `defaults` would otherwise be dropped without a word and park every lead of the profile.
 * Walks the input along the zod schema (objects, records, arrays, defaults, optionals, and a
 * discriminated union by its discriminator), so every schema the configuration is built from
 * (the sources' profile schemas included) is checked the same way. Loose objects accept any
 * key; a root `$schema` (for editors) is allowed.
 */
import type * as z from 'zod/mini';
import { type ConfigProblem, unknownKeyMessage } from './config-messages.ts';

type AnySchema = z.ZodMiniType;

interface Def {
  type: string;
  innerType?: AnySchema;
  in?: AnySchema;
  shape?: Record<string, AnySchema>;
  catchall?: AnySchema;
  valueType?: AnySchema;
  element?: AnySchema;
  options?: AnySchema[];
  discriminator?: string;
  values?: unknown[];
}

const defOf = (schema: AnySchema): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Optional, default, nullable... down to the schema that says what the value is. */
function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (let depth = 0; depth < 10; depth += 1) {
    const def = defOf(current);
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) return current;
    current = inner;
  }
  return current;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Edit distance (insertions, deletions, substitutions), for "did you mean". */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j] as number;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** The known key closest to `key`, when it is close enough to be a typo of it. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const folded = key.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(folded, name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return undefined;
  const tolerance = Math.max(2, Math.floor(best.name.length / 3));
  return best.distance <= tolerance ? best.name : undefined;
}

/** The union option a discriminated value belongs to. */
function optionFor(def: Def, value: Record<string, unknown>): AnySchema | undefined {
  const key = def.discriminator;
  if (!key) return undefined;
  return def.options?.find((option) => {
    const field = defOf(unwrap(option)).shape?.[key];
    return field !== undefined && (defOf(unwrap(field)).values ?? []).includes(value[key]);
  });
}

export interface UnknownKeyOptions {
  /** Checks every value of `profiles` against this schema instead of the one in `schema`. */
  profileSchema?: AnySchema;
}

/** Every unknown key of `input` under `schema`, as `{field, message}` (empty when none). */
export function unknownKeyProblems(
  schema: AnySchema,
  input: unknown,
  options: UnknownKeyOptions = {},
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];

  function walk(node: AnySchema, value: unknown, path: string[]): void {
    const target = unwrap(node);
    const def = defOf(target);
    if (def.type === 'object' && def.shape && isPlainObject(value)) {
      const known = Object.keys(def.shape);
      const loose = def.catchall !== undefined && defOf(def.catchall).type !== 'never';
      for (const [key, child] of Object.entries(value)) {
        const field = def.shape[key];
        if (field) {
          const profiles = path.length === 0 && key === 'profiles' && options.profileSchema;
          if (profiles && isPlainObject(child)) {
            for (const [name, profile] of Object.entries(child)) {
              walk(options.profileSchema as AnySchema, profile, [...path, key, name]);
            }
          } else walk(field, child, [...path, key]);
        } else if (!loose && !(path.length === 0 && key === '$schema')) {
          problems.push({
            field: [...path, key].join('.'),
            message: unknownKeyMessage(closestKey(key, known), known),
          });
        }
      }
      return;
    }
    if (def.type === 'record' && def.valueType && isPlainObject(value)) {
      for (const [key, child] of Object.entries(value)) walk(def.valueType, child, [...path, key]);
      return;
    }
    if (def.type === 'array' && def.element && Array.isArray(value)) {
      value.forEach((child, index) => {
        walk(def.element as AnySchema, child, [...path, String(index)]);
      });
      return;
    }
    if (def.type === 'union' && isPlainObject(value)) {
      const option = optionFor(def, value);
      if (option) walk(option, value, path);
    }
  }

  walk(schema, input, []);
  return problems;
}
