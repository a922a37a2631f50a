/**
 * `npm run migrate-secrets -- FILE [--apply]`: moves a stack's first-layout secrets, one per
 * account and per profile (`<prefix>/upstream`, `<prefix>/upstreams/<name>`,
 * `<prefix>/profiles/<secretName>`), into the packed store's shards
 * (functions/config/secret-shards.ts). FILE is the stage's deploy configuration (its
 * `secretsPrefix`). See docs/deploy.md, "Upgrading a stack with one secret per profile".
 *
 * - Without `--apply` it is a dry run: it lists what it would move, entry by entry, and writes
 *   nothing. With `--apply` it writes each shard once.
 * - Every old secret under the prefix is found (ListSecrets by name prefix), not only the file's
 *   profiles: a profile pushed later, or one no longer configured, is moved too; nothing is lost.
 * - The old value wins: an entry the deploy wrote meanwhile (placeholders, a generated token) is
 *   replaced; a replaced value that is neither a placeholder nor the same is kept under the
 *   entry's `previous` for the rotation's 7-day grace (config/secret-rotation.ts), so a token
 *   either side pasted somewhere keeps working for a week.
 * - The old secrets are never deleted or changed: the command prints how to remove them once
 *   the operator has checked the new store.
 *
 * Exit codes: 0 done (or dry run), 1 refused or failed, 2 a wrong command line.
 */
import { resolve } from 'node:path';
import {
  GetSecretValueCommand,
  ListSecretsCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { rotatedSecret } from '../functions/config/secret-rotation.ts';
import {
  describeEntry,
  SHARD_MAX_BYTES,
  type ShardEntry,
  shardBytes,
} from '../functions/config/secret-shards.ts';
import { SECRET_PLACEHOLDER, secretNames } from '../functions/config/secrets-aws.ts';
import { loadDeployConfig } from '../infra/config.ts';

/** One old secret and where its value goes. */
export interface Move {
  from: string;
  to: ShardEntry;
  kind: 'account' | 'profile';
  /** What the shard held there before: nothing, placeholders only, the same, or another value. */
  was: 'none' | 'placeholders' | 'same' | 'other';
}

export interface MigrationResult {
  moves: Move[];
  /** Old secrets that are not JSON objects: left where they are, named. */
  unreadable: string[];
  applied: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first layout's secret names under `prefix`, found by name prefix. */
async function legacySecrets(client: SecretsManagerClient, prefix: string): Promise<string[]> {
  const names: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListSecretsCommand({
        Filters: [{ Key: 'name', Values: [`${prefix}/upstream`, `${prefix}/profiles/`] }],
        MaxResults: 100,
        ...(token !== undefined && { NextToken: token }),
      }),
    );
    for (const secret of page.SecretList ?? []) if (secret.Name) names.push(secret.Name);
    token = page.NextToken;
  } while (token !== undefined);
  return names.sort();
}

/** Where an old secret's value goes, or undefined for a name of another layout. */
export function destinationOf(prefix: string, name: string): Pick<Move, 'to' | 'kind'> | undefined {
  const names = secretNames(prefix);
  if (name === `${prefix}/upstream`) return { to: names.upstream('default'), kind: 'account' };
  const rest = (head: string) => (name.startsWith(head) ? name.slice(head.length) : undefined);
  const account = rest(`${prefix}/upstreams/`);
  if (account && !account.includes('/')) return { to: names.upstream(account), kind: 'account' };
  const profile = rest(`${prefix}/profiles/`);
  if (profile && !profile.includes('/')) return { to: names.profile(profile), kind: 'profile' };
  return undefined;
}

async function readJson(client: SecretsManagerClient, id: string): Promise<unknown> {
  const answer = await client.send(new GetSecretValueCommand({ SecretId: id }));
  try {
    return JSON.parse(answer.SecretString ?? '');
  } catch {
    return undefined;
  }
}

const onlyPlaceholders = (entry: Record<string, unknown>) =>
  Object.entries(entry).every(
    ([key, value]) => key === 'generated' || value === SECRET_PLACEHOLDER,
  );

/** The entry the shard gets: the old value, the replaced one kept in its grace (module comment). */
function merged(
  old: Record<string, unknown>,
  current: unknown,
  now: Date,
): Record<string, unknown> {
  if (!isRecord(current) || onlyPlaceholders(current)) return old;
  // Values already kept in a grace (a run before this one, a rotation) stay kept.
  const kept = {
    ...(isRecord(current.previous) ? current.previous : {}),
    ...(isRecord(old.previous) ? old.previous : {}),
  };
  let next: Record<string, unknown> =
    Object.keys(kept).length > 0 ? { ...old, previous: kept } : old;
  for (const [key, value] of Object.entries(current)) {
    if (key === 'previous' || typeof value !== 'string' || value === SECRET_PLACEHOLDER) continue;
    if (old[key] === value || typeof old[key] !== 'string') continue;
    // As if the old value had replaced this one a moment ago: the one replaced stays a week.
    next = rotatedSecret({ ...next, [key]: value }, key, old[key] as string, now);
  }
  return next;
}

/** The migration (dry run unless `apply`). */
export async function migrate(
  client: SecretsManagerClient,
  prefix: string,
  { apply = false, now = new Date() } = {},
): Promise<MigrationResult> {
  const shards = new Map<string, Record<string, unknown>>();
  const moves: Move[] = [];
  const unreadable: string[] = [];
  for (const from of await legacySecrets(client, prefix)) {
    const destination = destinationOf(prefix, from);
    if (!destination) continue;
    const old = await readJson(client, from);
    if (!isRecord(old)) {
      unreadable.push(from);
      continue;
    }
    const { to } = destination;
    if (!shards.has(to.secret)) {
      const shard = await readJson(client, to.secret);
      shards.set(to.secret, isRecord(shard) ? shard : {});
    }
    const shard = shards.get(to.secret) as Record<string, unknown>;
    const current = shard[to.entry];
    const was: Move['was'] = !isRecord(current)
      ? 'none'
      : JSON.stringify(current) === JSON.stringify(old)
        ? 'same'
        : onlyPlaceholders(current)
          ? 'placeholders'
          : 'other';
    shard[to.entry] = merged(old, current, now);
    moves.push({ from, ...destination, was });
  }
  for (const [id, shard] of shards) {
    if (shardBytes(shard) > SHARD_MAX_BYTES) {
      throw new Error(`o segredo ${id} passaria de ${SHARD_MAX_BYTES} bytes: nada foi gravado`);
    }
  }
  if (apply) {
    for (const [id, shard] of shards) {
      await client.send(
        new PutSecretValueCommand({ SecretId: id, SecretString: JSON.stringify(shard) }),
      );
    }
  }
  return { moves, unreadable, applied: apply };
}

const WAS: Record<Move['was'], string> = {
  none: 'entrada nova',
  placeholders: 'substitui os REPLACE_ME do deploy',
  same: 'já igual',
  other: 'substitui outro valor (guardado em "previous" por 7 dias)',
};

/** What an operator reads (pt-BR). */
export function migrationLines(result: MigrationResult): string[] {
  const verb = result.applied ? 'movido' : 'seria movido';
  return [
    ...result.moves.map((m) => `${m.from} → ${describeEntry(m.to)}: ${verb} (${WAS[m.was]})`),
    ...result.unreadable.map((name) => `${name}: não é um objeto JSON; deixado onde está`),
    result.applied
      ? `${result.moves.length} segredo(s) copiado(s); os antigos continuam lá. Confira o console (kit de cada perfil) e só então remova-os: aws secretsmanager delete-secret --secret-id <nome> --recovery-window-in-days 30`
      : `ensaio: nada foi gravado; rode de novo com --apply para copiar ${result.moves.length} segredo(s)`,
  ];
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) {
  const args = process.argv.slice(2);
  const apply = args.includes('--apply');
  const files = args.filter((arg) => arg !== '--apply');
  const [file] = files;
  if (files.length !== 1 || file === undefined || file.startsWith('-')) {
    process.stderr.write('usage: npm run migrate-secrets -- FILE [--apply]\n');
    process.exit(2);
  }
  try {
    const { SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    const { secretsPrefix } = loadDeployConfig(file);
    const result = await migrate(new SecretsManagerClient({}), secretsPrefix, { apply });
    for (const line of migrationLines(result)) process.stdout.write(`${line}\n`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
