/**
 * Rotated profile secrets on this machine (what the profile's own secret keeps on AWS:
 * secret-rotation.ts). `npm start` reads its secrets from the configuration file, which is often
 * config/demo.json under version control: a rotation never rewrites it. The new value, and the
 * value it replaced with its grace, go to `<DATA_DIR>/rotated-secrets.json` (readable by its
 * owner only), beside the ledger, and the local configuration source lays them over the file's
 * values (config-local.ts `localConfigSource`).
 *
 * A rotation applies while the file still holds the value it replaced (kept as its SHA-256):
 * edit the token in the file and the file's value is the one used again, the rotation left
 * behind. Deleting DATA_DIR (or this file) also puts the file's values back.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { localDataDir } from '../kernel/local-services.ts';
import { type PreviousValue, withPreviousValues } from './secret-rotation.ts';

/** The file under DATA_DIR that keeps the rotated values. */
export const ROTATED_SECRETS_FILE = 'rotated-secrets.json';

/** One rotated key of a profile. */
interface Rotation {
  /** The value in use. */
  value: string;
  /** SHA-256 (hex) of the configuration file's value it stands in for. */
  replaces: string;
  /** The value before it, accepted until its grace ends. */
  previous?: PreviousValue;
}

/** Profile name → secret key → its rotation. */
type Rotations = Record<string, Record<string, Rotation>>;

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

let cache: { path: string; mtimeMs: number; rotations: Rotations } | undefined;

function fileOf(dataDir: string): string {
  return join(dataDir, ROTATED_SECRETS_FILE);
}

/** The rotations kept under `dataDir` (none when the file is absent or unreadable). */
function readRotations(dataDir: string): Rotations {
  const path = fileOf(dataDir);
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return {};
  }
  if (cache?.path === path && cache.mtimeMs === mtimeMs) return cache.rotations;
  let rotations: Rotations = {};
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      rotations = parsed as Rotations;
    }
  } catch {
    // A broken file rotates nothing: the configuration file's values stay in use.
  }
  cache = { path, mtimeMs, rotations };
  return rotations;
}

/**
 * `profile` (as the configuration file holds it) with the rotations of profile `name` that
 * still apply: their value in place of the file's, the replaced values carried for the grace.
 */
export function withLocalRotations<P extends object>(
  name: string,
  profile: P | undefined,
  dataDir: string | undefined = localDataDir(),
): P | undefined {
  if (!profile || !dataDir) return profile;
  const entries = readRotations(dataDir)[name];
  if (!entries) return profile;
  const values: Record<string, string> = {};
  const previous: Record<string, PreviousValue> = {};
  for (const [key, rotation] of Object.entries(entries)) {
    const fileValue = (profile as Record<string, unknown>)[key];
    if (typeof fileValue !== 'string' || digest(fileValue) !== rotation.replaces) continue;
    values[key] = rotation.value;
    if (rotation.previous) previous[key] = rotation.previous;
  }
  if (Object.keys(values).length === 0) return profile;
  return withPreviousValues({ ...profile, ...values }, previous);
}

/**
 * Keeps `value` as profile `name`'s `key`, in place of `fileValue` (the configuration file's),
 * the value in use until now (`current`) accepted until `until`. Written whole, then renamed.
 */
export function rotateLocalSecret(
  dataDir: string,
  change: {
    name: string;
    key: string;
    fileValue: string;
    current: string;
    value: string;
    until: string;
  },
): void {
  const rotations = structuredClone(readRotations(dataDir));
  const profile = rotations[change.name] ?? {};
  profile[change.key] = {
    value: change.value,
    replaces: digest(change.fileValue),
    previous: { value: change.current, until: change.until },
  };
  rotations[change.name] = profile;
  const path = fileOf(dataDir);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(rotations, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  cache = undefined;
}
