/**
 * The AWS adapter of the profile secrets (profile-secrets.ts): the profile's own secret,
 * `<prefix>/profiles/<secretName>`, read with GetSecretValue (no cache: the operator sees what
 * is stored) and rotated with PutSecretValue, the replaced value kept under its `previous` key
 * until the grace ends (config/secret-rotation.ts `rotatedSecret`). Errors name the secret,
 * never its value.
 *
 * IAM: secretsmanager:GetSecretValue and secretsmanager:PutSecretValue on `<prefix>/profiles/*`
 * (the admin function's `profiles:rotate` need, infra/constructs/leads-secrets.ts).
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { rotatedSecret } from '../config/secret-rotation.ts';
import type { ProfileSecrets } from './profile-secrets.ts';

export interface AwsProfileSecretsOptions {
  /** Default: a client made at the first use (the SDK is loaded then, not at the cold start). */
  client?: SecretsManagerClient;
  /** The secret id of a profile (its `secretName`, else its name, under the prefix). */
  secretId(profile: string): Promise<string>;
}

function parsed(id: string, text: string | undefined): Record<string, unknown> {
  try {
    const value = JSON.parse(text ?? '') as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // Reported below without quoting the text.
  }
  throw new Error(`secret ${id} does not hold a JSON object`);
}

const sdk = () => import('@aws-sdk/client-secrets-manager');

export function awsProfileSecrets({ client, secretId }: AwsProfileSecretsOptions): ProfileSecrets {
  let made: SecretsManagerClient | undefined = client;
  async function send<T>(command: (m: Awaited<ReturnType<typeof sdk>>) => T) {
    const m = await sdk();
    made ??= new m.SecretsManagerClient({});
    return { client: made, command: command(m) };
  }
  async function read(profile: string): Promise<Record<string, unknown>> {
    const id = await secretId(profile);
    const get = await send((m) => new m.GetSecretValueCommand({ SecretId: id }));
    const answer = await get.client.send(get.command);
    return parsed(id, answer.SecretString);
  }
  return {
    read,
    async rotate(profile, key, value, now) {
      const id = await secretId(profile);
      const next = rotatedSecret(await read(profile), key, value, now);
      const secretString = JSON.stringify(next);
      const put = await send(
        (m) => new m.PutSecretValueCommand({ SecretId: id, SecretString: secretString }),
      );
      await put.client.send(put.command);
      const kept = (next.previous as Record<string, { until: string }> | undefined)?.[key];
      return kept ? { until: kept.until } : {};
    },
  };
}
