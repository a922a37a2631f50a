/**
 * Rotating a profile's secret value (its token, its webhook key): a new random value replaces the
 * current one, and the value it replaced stays valid for ROTATION_GRACE_DAYS, so that the
 * platform keeps delivering while an operator pastes the new one. Pure: node:crypto only.
 *
 * Where the replaced value is kept beside the new one:
 * - deployed: in the profile's own secret (`<prefix>/profiles/<secretName>`), under the key
 *   `previous`: `{"previous": {"token": {"value": "<old>", "until": "<ISO>"}}}`
 *   (config-aws.ts reads it, admin/profile-secrets-aws.ts writes it);
 * - locally: in DATA_DIR beside the configuration file (rotated-secrets-local.ts).
 *
 * A profile read with a rotation in its grace carries the replaced values out of sight (a symbol
 * property: never serialised, never logged); the intake accepts a request that a former value
 * authenticates (sources/rotation.ts `authenticateRotated`).
 */
import { randomBytes } from 'node:crypto';
import { SECRET_PLACEHOLDER } from './secrets-aws.ts';

/** How long a replaced value is still accepted. */
export const ROTATION_GRACE_DAYS = 7;
/** The key of a deployed profile secret that holds the replaced values. */
export const PREVIOUS_KEY = 'previous';

/** A value a rotation replaced, accepted until `until` (ISO 8601). */
export interface PreviousValue {
  value: string;
  until: string;
}

/** The replaced values of a profile still in (or past) their grace, by secret key. */
export type PreviousValues = Readonly<Record<string, PreviousValue>>;

const PREVIOUS = Symbol('previous secret values');

type Carrier = { [PREVIOUS]?: PreviousValues };

/** A new value: 32 random bytes, URL-safe base64 (43 characters, fit for `?token=`). */
export function newSecretValue(): string {
  return randomBytes(32).toString('base64url');
}

/** `profile` carrying `previous` (kept by spreads, left out of JSON); the same object. */
export function withPreviousValues<P extends object>(
  profile: P,
  previous: PreviousValues | undefined,
): P {
  if (previous && Object.keys(previous).length > 0) {
    Object.defineProperty(profile, PREVIOUS, { value: previous, enumerable: true });
  }
  return profile;
}

/** The replaced values a profile carries (none when it was never rotated). */
export function previousValuesOf(profile: object): PreviousValues {
  return (profile as Carrier)[PREVIOUS] ?? {};
}

/** The replaced values still accepted at `now`. */
export function previousInGrace(previous: PreviousValues, now: Date): PreviousValues {
  return Object.fromEntries(
    Object.entries(previous).filter(([, { until }]) => Date.parse(until) > now.getTime()),
  );
}

/**
 * The profile as each rotation still in its grace at `now` found it: one copy per replaced
 * value, that value put back. Empty when nothing was rotated, or every grace is over.
 */
export function formerProfiles<P extends object>(profile: P, now: Date): P[] {
  return Object.entries(previousInGrace(previousValuesOf(profile), now)).map(
    ([key, { value }]) => ({ ...profile, [key]: value }),
  );
}

/** The `previous` key of a secret's JSON, the entries that are well formed; never throws. */
export function previousFromSecret(secret: unknown): PreviousValues {
  const raw = isRecord(secret) ? secret[PREVIOUS_KEY] : undefined;
  if (!isRecord(raw)) return {};
  const found: Record<string, PreviousValue> = {};
  for (const [key, entry] of Object.entries(raw)) {
    if (!isRecord(entry)) continue;
    const { value, until } = entry;
    if (typeof value === 'string' && typeof until === 'string' && !Number.isNaN(Date.parse(until)))
      found[key] = { value, until };
  }
  return found;
}

/** When a value replaced at `now` stops being accepted. */
export function graceEnd(now: Date): string {
  return new Date(now.getTime() + ROTATION_GRACE_DAYS * 86_400_000).toISOString();
}

/**
 * A secret's JSON after rotating `key` to `value` at `now`: the old value under `previous`
 * until the grace ends, the replaced values whose grace is over dropped, every other key kept.
 */
export function rotatedSecret(
  secret: Readonly<Record<string, unknown>>,
  key: string,
  value: string,
  now: Date,
): Record<string, unknown> {
  const old = secret[key];
  const previous: Record<string, PreviousValue> = {
    ...previousInGrace(previousFromSecret(secret), now),
  };
  // A placeholder never filled in is no credential anyone sends: it is not kept.
  if (typeof old === 'string' && old !== value && old !== SECRET_PLACEHOLDER) {
    previous[key] = { value: old, until: graceEnd(now) };
  }
  const next: Record<string, unknown> = { ...secret, [key]: value };
  if (Object.keys(previous).length > 0) next[PREVIOUS_KEY] = previous;
  else delete next[PREVIOUS_KEY];
  return next;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
