/**
 * The entries a deploy configuration needs in the packed secret store
 * (functions/config/secret-shards.ts), written by `npm run config -- push` before it stores the
 * settings, so that a new profile or account finds its entry when functions see the version:
 *
 * - a new account gets `{"username": REPLACE_ME, "password": REPLACE_ME}` (the gym's DNS and
 *   secret key come from the upstream; an operator fills them in);
 * - a new profile gets its source's keys: the one the gateway chooses and the operator pastes
 *   into the platform (a form's token, a Google key: profile-secrets.ts `rotatableKeys`) gets a
 *   fresh random value, so leads flow at once; the ones a platform issues (Meta's app secret,
 *   a signing secret) hold REPLACE_ME until an operator fills them in;
 * - an existing entry keeps every value; a key its source now needs and it lacks is added.
 *
 * Shards are read once and written only when they change, each checked against the 64 KB a
 * secret holds first: nothing is written when one would not fit. The shards are the stack's
 * (a deploy creates them); a missing one means the stack is not deployed, or is of the first
 * layout (scripts/migrate-secrets.ts).
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { rotatableKeys } from '../functions/admin/profile-secrets.ts';
import { accountsOf } from '../functions/config/config-accounts.ts';
import type { Settings } from '../functions/config/config-aws.ts';
import { newSecretValue } from '../functions/config/secret-rotation.ts';
import {
  describeEntry,
  SHARD_MAX_BYTES,
  type ShardEntry,
  shardBytes,
} from '../functions/config/secret-shards.ts';
import { SECRET_PLACEHOLDER, secretNames } from '../functions/config/secrets-aws.ts';
import { sourceNamed } from '../functions/sources/registry.ts';
import type { SampleAuth } from '../functions/sources/setup.ts';
import { profileSecretsOf } from '../infra/constructs/leads-secrets.ts';

/** One entry the settings need: where, its keys, and which of them the gateway generates. */
export interface NeededEntry {
  where: ShardEntry;
  kind: 'account' | 'profile';
  keys: readonly string[];
  generate: readonly string[];
}

/** What storing the entries did, one line per entry that changed (pt-BR, for the operator). */
export interface StoredEntry {
  where: ShardEntry;
  kind: 'account' | 'profile';
  /** Keys holding REPLACE_ME, to fill in. */
  fill: string[];
  /** Keys the gateway gave a random value (shown in the console's kit). */
  generated: string[];
  /** Whether the entry was (or, in a dry run, would be) written: a key was missing. */
  written: boolean;
}

/** The keys of a profile that the gateway chooses (its token), from its source's kit. */
function generatedKeys(profile: { source: string }): readonly string[] {
  const setup = sourceNamed(profile.source)?.setup as
    | { auth(profile: unknown): SampleAuth }
    | undefined;
  try {
    return rotatableKeys(setup?.auth(profile));
  } catch {
    return [];
  }
}

/** Every entry the settings need: each account's, then each profile secret's. */
export function neededEntries(prefix: string, settings: Settings): NeededEntry[] {
  const names = secretNames(prefix);
  const needed: NeededEntry[] = [];
  for (const account of accountsOf(settings).keys()) {
    needed.push({
      where: names.upstream(account),
      kind: 'account',
      keys: ['username', 'password'],
      generate: [],
    });
  }
  for (const [secretName, { keys }] of profileSecretsOf(settings)) {
    const profile = Object.entries(settings.profiles).find(
      ([name, p]) => (p.secretName ?? name) === secretName,
    )?.[1] as { source: string };
    const generate = generatedKeys(profile).filter((key) => keys.includes(key));
    needed.push({ where: names.profile(secretName), kind: 'profile', keys, generate });
  }
  return needed;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A missing shard: the stack is not deployed, or still has one secret per profile. */
export class MissingShardError extends Error {
  override readonly name = 'MissingShardError';
}

export async function readShard(client: SecretsManagerClient, id: string) {
  try {
    const answer = await client.send(new GetSecretValueCommand({ SecretId: id }));
    const value = JSON.parse(answer.SecretString ?? '{}') as unknown;
    if (!isRecord(value)) throw new Error(`o segredo ${id} não guarda um objeto JSON`);
    return value;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    throw new MissingShardError(
      `o segredo ${id} não existe: faça o deploy da pilha primeiro (npm run deploy -- -c config=FILE); uma pilha com um segredo por perfil migra com npm run migrate-secrets`,
    );
  }
}

/** The entries of `needed` into their shards; `dryRun`: say what would change, write nothing. */
export async function storeEntries(
  client: SecretsManagerClient,
  needed: readonly NeededEntry[],
  { dryRun = false, newValue = newSecretValue } = {},
): Promise<StoredEntry[]> {
  const shards = new Map<string, Record<string, unknown>>();
  for (const id of new Set(needed.map((n) => n.where.secret))) {
    shards.set(id, await readShard(client, id));
  }
  const changed = new Set<string>();
  const stored: StoredEntry[] = [];
  for (const { where, kind, keys, generate } of needed) {
    const shard = shards.get(where.secret) as Record<string, unknown>;
    const current = isRecord(shard[where.entry])
      ? (shard[where.entry] as Record<string, unknown>)
      : {};
    const missing = keys.filter((key) => !Object.hasOwn(current, key));
    const fill = keys.filter(
      (key) =>
        !generate.includes(key) && (current[key] ?? SECRET_PLACEHOLDER) === SECRET_PLACEHOLDER,
    );
    if (missing.length === 0 && fill.length === 0) continue;
    const next = { ...current };
    const generated: string[] = [];
    for (const key of missing) {
      if (generate.includes(key)) {
        next[key] = newValue();
        generated.push(key);
      } else next[key] = SECRET_PLACEHOLDER;
    }
    if (missing.length > 0) {
      shard[where.entry] = next;
      changed.add(where.secret);
    }
    stored.push({ where, kind, fill, generated, written: missing.length > 0 });
  }
  await writeShards(client, shards, changed, dryRun);
  return stored;
}

/**
 * Writes the changed shards, after checking every one fits Secrets Manager's 64 KB: nothing is
 * written when one would not (`config push` and `config secrets`).
 */
export async function writeShards(
  client: SecretsManagerClient,
  shards: ReadonlyMap<string, Record<string, unknown>>,
  changed: ReadonlySet<string>,
  dryRun = false,
): Promise<void> {
  for (const id of changed) {
    const bytes = shardBytes(shards.get(id) as Record<string, unknown>);
    if (bytes > SHARD_MAX_BYTES) {
      throw new Error(
        `o segredo ${id} passaria de ${SHARD_MAX_BYTES} bytes (${bytes}): nada foi gravado; veja docs/configuration.md, "Quantos perfis uma pilha comporta"`,
      );
    }
  }
  if (dryRun) return;
  for (const id of changed) {
    await client.send(
      new PutSecretValueCommand({ SecretId: id, SecretString: JSON.stringify(shards.get(id)) }),
    );
  }
}

/** What an operator reads after a push: each entry to fill in, or generated (pt-BR). */
export function storedLines(stored: readonly StoredEntry[]): string[] {
  return stored.map(({ where, kind, fill, generated }) => {
    const what = kind === 'account' ? `conta "${where.entry}"` : `perfil "${where.entry}"`;
    const parts = [
      ...(fill.length > 0
        ? [
            `preencha ${fill.map((k) => `"${k}"`).join(', ')} (hoje ${SECRET_PLACEHOLDER}) com npm run config -- secrets ARQUIVO, ${describeEntry(where)}`,
          ]
        : []),
      ...(generated.length > 0
        ? [
            `${generated.map((k) => `"${k}"`).join(', ')} gerado(s) pelo gateway: cole no formulário ou na plataforma o valor que o kit do console mostra (Configuração → ${where.entry})`,
          ]
        : []),
    ];
    return `${what}: ${parts.join('; ')}`;
  });
}
