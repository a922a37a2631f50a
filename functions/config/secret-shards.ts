/**
 * The packed secret store: every profile's keys and every account's upstream credentials live in
 * a fixed handful of Secrets Manager secrets (shards), whatever the number of profiles and
 * accounts, instead of one secret per profile or account (docs/configuration.md, "How many
 * profiles a stack holds").
 *
 * - `<prefix>/store/profiles-00` … `-15` hold the profiles' keys, `<prefix>/store/accounts-0` …
 *   `-3` the accounts' `{"username", "password"}`: two kinds apart, so that a function that
 *   needs only upstream credentials (the report refresher) reads no profile key.
 * - A shard's value is a JSON object keyed by entry name (the profile's `secretName`, else its
 *   name; the account's name): `{"site": {"token": "…", "previous": {…}}, "meta": {…}}`. An
 *   entry is exactly what the old one-secret-per-profile value was, `previous` (rotation's grace,
 *   secret-rotation.ts) included.
 * - Which shard holds an entry is a stable hash of its name (FNV-1a, 32 bit) modulo the shard
 *   count. The counts are fixed: changing one moves entries between shards, so it would need a
 *   migration (scripts/migrate-secrets.ts), never a silent redeploy.
 * - A secret value holds at most 65,536 bytes: 16 profile shards hold about 1 MB of keys (3,000
 *   Meta profiles with long page tokens and a rotation in grace each, or over 10,000 form
 *   profiles); `config push` refuses a shard that would pass SHARD_MAX_BYTES, naming it.
 *
 * Pure: no AWS imports (the stack, the functions, the scripts and the tests share it).
 */

/** Profile shards: 16 × 64 KB. */
export const PROFILE_SHARDS = 16;
/** Account shards: 4 × 64 KB, about 600 bytes an account with a rotation in grace. */
export const ACCOUNT_SHARDS = 4;
/** Secrets Manager's limit on a secret value, in bytes of UTF-8. */
export const SHARD_MAX_BYTES = 65_536;

export type ShardKind = 'profiles' | 'accounts';

/** FNV-1a over the name's UTF-16 code units, as an unsigned 32-bit integer. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export function shardCount(kind: ShardKind): number {
  return kind === 'profiles' ? PROFILE_SHARDS : ACCOUNT_SHARDS;
}

/** The shard index of an entry: stable for a name, whatever else is configured. */
export function shardIndexOf(kind: ShardKind, entry: string): number {
  return fnv1a(entry) % shardCount(kind);
}

/** The shard secret's name: `<prefix>/store/profiles-07`, `<prefix>/store/accounts-2`. */
export function shardName(prefix: string, kind: ShardKind, index: number): string {
  const width = String(shardCount(kind) - 1).length;
  return `${prefix}/store/${kind}-${String(index).padStart(width, '0')}`;
}

/** Every shard secret name of a kind, in index order. */
export function shardNames(prefix: string, kind: ShardKind): string[] {
  return Array.from({ length: shardCount(kind) }, (_, i) => shardName(prefix, kind, i));
}

/** Where an entry lives: its shard's secret name and the entry's key in it. */
export interface ShardEntry {
  secret: string;
  entry: string;
}

/** The shard and entry of a profile secret name (its `secretName`, else its name). */
export function profileEntry(prefix: string, secretName: string): ShardEntry {
  return {
    secret: shardName(prefix, 'profiles', shardIndexOf('profiles', secretName)),
    entry: secretName,
  };
}

/** The shard and entry of an account's upstream credentials. */
export function accountEntry(prefix: string, account: string): ShardEntry {
  return {
    secret: shardName(prefix, 'accounts', shardIndexOf('accounts', account)),
    entry: account,
  };
}

/** `segredo <shard>, entrada "<entry>"`: where an operator finds it (pt-BR). */
export function describeEntry({ secret, entry }: ShardEntry): string {
  return `segredo ${secret}, entrada "${entry}"`;
}

/** The bytes a shard's value takes once stored. */
export function shardBytes(value: Readonly<Record<string, unknown>>): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** Entry names grouped by the shard that holds them (only shards with an entry). */
export function groupByShard(
  prefix: string,
  kind: ShardKind,
  entries: Iterable<string>,
): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const entry of entries) {
    const secret = shardName(prefix, kind, shardIndexOf(kind, entry));
    const list = grouped.get(secret) ?? [];
    list.push(entry);
    grouped.set(secret, list);
  }
  return grouped;
}
