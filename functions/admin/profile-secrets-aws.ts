/**
 * The AWS adapter of the profile secrets (profile-secrets.ts): the profile's entry in its
 * profiles' shard (config/secret-shards.ts), read with GetSecretValue (no cache: the operator
 * sees what is stored) and rotated with PutSecretValue of the whole shard, the replaced value
 * kept under the entry's `previous` key until the grace ends (config/secret-rotation.ts
 * `rotatedSecret`). Errors name the shard and entry, never a value.
 *
 * A shard holds other profiles' entries, and Secrets Manager has no conditional write: a
 * rotation reads the shard, writes it, then reads it back and writes again (up to
 * WRITE_ATTEMPTS) when another writer's version replaced its own in between, so two operators
 * rotating two profiles of one shard at once both keep their rotation.
 *
 * IAM: secretsmanager:GetSecretValue and secretsmanager:PutSecretValue on the profiles' shards
 * (the admin function's `profiles:rotate` need, infra/constructs/leads-secrets.ts).
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { rotatedSecret } from '../config/secret-rotation.ts';
import type { ShardEntry } from '../config/secret-shards.ts';
import type { ProfileSecrets } from './profile-secrets.ts';

export interface AwsProfileSecretsOptions {
  /** Default: a client made at the first use (the SDK is loaded then, not at the cold start). */
  client?: SecretsManagerClient;
  /** Where a profile's keys live (its `secretName`, else its name, in its shard). */
  entry(profile: string): Promise<ShardEntry>;
}

/** How many times a rotation writes its shard before it gives up (see the module comment). */
export const WRITE_ATTEMPTS = 4;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parsed(id: string, text: string | undefined): Record<string, unknown> {
  try {
    const value = JSON.parse(text ?? '') as unknown;
    if (isRecord(value)) return value;
  } catch {
    // Reported below without quoting the text.
  }
  throw new Error(`secret ${id} does not hold a JSON object`);
}

const sdk = () => import('@aws-sdk/client-secrets-manager');

export function awsProfileSecrets({ client, entry }: AwsProfileSecretsOptions): ProfileSecrets {
  let made: SecretsManagerClient | undefined = client;
  async function sm() {
    const m = await sdk();
    made ??= new m.SecretsManagerClient({});
    return { client: made, m };
  }
  async function readShard(id: string): Promise<Record<string, unknown>> {
    const { client, m } = await sm();
    const answer = await client.send(new m.GetSecretValueCommand({ SecretId: id }));
    return parsed(id, answer.SecretString);
  }
  async function writeShard(id: string, value: Record<string, unknown>): Promise<void> {
    const { client, m } = await sm();
    const secretString = JSON.stringify(value);
    await client.send(new m.PutSecretValueCommand({ SecretId: id, SecretString: secretString }));
  }
  return {
    async read(profile) {
      const where = await entry(profile);
      const found = (await readShard(where.secret))[where.entry];
      return isRecord(found) ? found : undefined;
    },
    async rotate(profile, key, value, now) {
      const where = await entry(profile);
      for (let attempt = 1; ; attempt++) {
        const shard = await readShard(where.secret);
        const current = shard[where.entry];
        const next = rotatedSecret(isRecord(current) ? current : {}, key, value, now);
        await writeShard(where.secret, { ...shard, [where.entry]: next });
        const stored = (await readShard(where.secret))[where.entry];
        if (isRecord(stored) && stored[key] === value) {
          const kept = (next.previous as Record<string, { until: string }> | undefined)?.[key];
          return kept ? { until: kept.until } : {};
        }
        if (attempt >= WRITE_ATTEMPTS) {
          throw new Error(
            `secret ${where.secret} entry "${where.entry}": another writer kept replacing the shard; try again`,
          );
        }
      }
    },
  };
}
