/**
 * Secrets Manager as a map of secret id → JSON text, behind aws-sdk-client-mock: GetSecretValue
 * (ResourceNotFoundException for a secret that does not exist), PutSecretValue (only on an
 * existing secret, as Secrets Manager does), DescribeSecret. For the tests of the packed store's
 * writers (config push, the migration).
 */
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { shardNames } from '../../functions/config/secret-shards.ts';
import { secretNames } from '../../functions/config/secrets-aws.ts';

const notFound = (id: string) =>
  new ResourceNotFoundException({
    message: `Secrets Manager can't find the specified secret ${id}.`,
    $metadata: {},
  });

export function fakeSecrets(
  mock: AwsClientStub<SecretsManagerClient>,
  initial: Record<string, unknown> = {},
): Record<string, string> {
  const stored: Record<string, string> = Object.fromEntries(
    Object.entries(initial).map(([id, value]) => [id, JSON.stringify(value)]),
  );
  mock.on(GetSecretValueCommand).callsFake(({ SecretId }) => {
    const id = SecretId as string;
    if (!(id in stored)) throw notFound(id);
    return { Name: id, SecretString: stored[id] };
  });
  mock.on(DescribeSecretCommand).callsFake(({ SecretId }) => {
    const id = SecretId as string;
    if (!(id in stored)) throw notFound(id);
    return { Name: id };
  });
  mock.on(PutSecretValueCommand).callsFake(({ SecretId, SecretString }) => {
    const id = SecretId as string;
    if (!(id in stored)) throw notFound(id);
    stored[id] = SecretString as string;
    return { Name: id };
  });
  // Name filters match by prefix, case aside, as Secrets Manager's do; two a page.
  mock.on(ListSecretsCommand).callsFake(({ Filters, NextToken }) => {
    const prefixes = (Filters ?? []).flatMap((f: { Values?: string[] }) => f.Values ?? []);
    const names = Object.keys(stored)
      .filter((id) => prefixes.some((p: string) => id.toLowerCase().startsWith(p.toLowerCase())))
      .sort();
    const start = Number(NextToken ?? 0);
    const page = names.slice(start, start + 2);
    return {
      SecretList: page.map((Name) => ({ Name })),
      ...(start + 2 < names.length && { NextToken: String(start + 2) }),
    };
  });
  return stored;
}

/** Every shard of a deployed stack of `prefix`, each `{}` as the stack creates them. */
export function emptyShards(prefix: string): Record<string, unknown> {
  return Object.fromEntries(
    [...shardNames(prefix, 'accounts'), ...shardNames(prefix, 'profiles')].map((id) => [id, {}]),
  );
}

/** A profile's or an account's entry as stored now. */
export function storedEntry(
  stored: Record<string, string>,
  prefix: string,
  kind: 'profile' | 'upstream',
  name: string,
): Record<string, unknown> | undefined {
  const where = secretNames(prefix)[kind](name);
  const shard = stored[where.secret];
  return shard === undefined ? undefined : JSON.parse(shard)[where.entry];
}
