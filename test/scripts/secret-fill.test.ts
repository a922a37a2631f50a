/**
 * The fill behind `npm run config -- secrets` (scripts/secret-fill.ts) over the Secrets Manager
 * client (aws-sdk-client-mock): values files read as an operator writes them, entries kept
 * whole around the keys given, clients replaced by username, and the refusals that write
 * nothing (a shard past 64 KB, a stage not deployed, an unknown role), none naming a value.
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Settings } from '../../functions/config/config-aws.ts';
import { shardNames } from '../../functions/config/secret-shards.ts';
import { secretNames } from '../../functions/config/secrets-aws.ts';
import {
  emptyValues,
  fillLines,
  fillSecrets,
  parseSecretValues,
  SecretValuesError,
} from '../../scripts/secret-fill.ts';

const PREFIX = 'leads/prod';
const NAMES = secretNames(PREFIX);
const SETTINGS = {
  upstream: { baseUrl: 'https://evo.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  profiles: {
    site: { source: 'form', defaults: { idBranch: 1 } },
    lp: { source: 'form', secretName: 'shared-form', defaults: { idBranch: 2 } },
  },
} as unknown as Settings;

const sm = mockClient(SecretsManagerClient);
let stored: Record<string, string>;
const client = () => new SecretsManagerClient({ region: 'sa-east-1' });
const hash = async (password: string) => `scrypt$1$1$1$salt$${password.length}`;
const entry = (where: { secret: string; entry: string }) =>
  JSON.parse(stored[where.secret] ?? '{}')[where.entry];

beforeAll(() => {
  process.env.AWS_REGION ??= 'sa-east-1';
});

beforeEach(() => {
  sm.reset();
  stored = Object.fromEntries(
    [...shardNames(PREFIX, 'accounts'), ...shardNames(PREFIX, 'profiles')].map((id) => [id, '{}']),
  );
  stored[NAMES.clients] = JSON.stringify([
    { username: 'ops', passwordHash: 'scrypt$old', roles: ['admin'] },
    { username: 'reports', passwordHash: 'scrypt$r', roles: ['report:read'] },
  ]);
  const site = NAMES.profile('site');
  stored[site.secret] = JSON.stringify({
    site: {
      token: 'old-token',
      previous: { token: { value: 'older', until: '2026-12-01T00:00:00Z' } },
    },
  });
  sm.on(GetSecretValueCommand).callsFake(({ SecretId }) => {
    if (!(SecretId in stored)) {
      throw Object.assign(new Error('not found'), { name: 'ResourceNotFoundException' });
    }
    return { SecretString: stored[SecretId] };
  });
  sm.on(PutSecretValueCommand).callsFake(({ SecretId, SecretString }) => {
    stored[SecretId] = SecretString;
    return {};
  });
});

describe('the values file', () => {
  it('reads path=value lines: comments, export, quotes, a value holding = and #', () => {
    const values = parseSecretValues(
      [
        '# conta principal',
        'export accounts.default.username=academia',
        `accounts.default.password='a=b#c'`,
        'profiles.site.token="tok en"',
        'clients.ops.roles=admin, report:read',
        '',
      ].join('\n'),
      'v.env',
    );
    expect(values.accounts).toEqual({ default: { username: 'academia', password: 'a=b#c' } });
    expect(values.profiles).toEqual({ site: { token: 'tok en' } });
    expect(values.clients).toEqual({ ops: { roles: ['admin', 'report:read'] } });
  });

  it('refuses a line that is no path=value and a path of no group, naming the line, not the value', () => {
    const read = () => parseSecretValues('just-a-secret-value\nfoo.bar.baz=hidden-1', 'v.env');
    expect(read).toThrow(SecretValuesError);
    expect(read).toThrow(/linha 1: use caminho=valor[\s\S]*foo\.bar\.baz: começa com/);
    try {
      read();
    } catch (error) {
      expect((error as Error).message).not.toMatch(/just-a-secret-value|hidden-1/);
    }
  });
});

describe('fillSecrets', () => {
  it("keeps the entry's other keys, writes a shared secretName once, and replaces a client by username", async () => {
    const values = emptyValues();
    values.profiles.site = { token: 'new-token' };
    values.profiles.lp = { token: 'shared-token' };
    values.clients.ops = { password: 'pw-123', roles: ['admin', 'prospects:write'] };

    const result = await fillSecrets(client(), PREFIX, SETTINGS, values, hash);

    expect(entry(NAMES.profile('site'))).toEqual({
      token: 'new-token',
      previous: { token: { value: 'older', until: '2026-12-01T00:00:00Z' } },
    });
    expect(entry(NAMES.profile('shared-form'))).toEqual({ token: 'shared-token' });
    expect(JSON.parse(stored[NAMES.clients] as string)).toEqual([
      { username: 'ops', passwordHash: 'scrypt$1$1$1$salt$6', roles: ['admin', 'prospects:write'] },
      { username: 'reports', passwordHash: 'scrypt$r', roles: ['report:read'] },
    ]);
    const lines = fillLines(result);
    expect(lines).toContain(
      `ainda REPLACE_ME: conta "default": "username", "password" (segredo ${NAMES.upstream('default').secret}, entrada "default")`,
    );
    expect(lines.join('\n')).not.toMatch(/new-token|shared-token|pw-123/);
  });

  it('writes nothing when a shard would pass 64 KB, naming the shard', async () => {
    const values = emptyValues();
    values.profiles.site = { token: 'x'.repeat(70_000) };

    await expect(fillSecrets(client(), PREFIX, SETTINGS, values, hash)).rejects.toThrow(
      new RegExp(`o segredo ${NAMES.profile('site').secret} passaria de 65536 bytes`),
    );
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('refuses an unknown role or profile key before reading anything', async () => {
    const values = emptyValues();
    values.clients.ops = { password: 'pw', roles: ['root'] };
    values.profiles.site = { secret: 'hidden-2' };

    const fill = fillSecrets(client(), PREFIX, SETTINGS, values, hash);

    await expect(fill).rejects.toThrow(
      /profiles\.site\.secret: as chaves de profiles\.site são token/,
    );
    await expect(fillSecrets(client(), PREFIX, SETTINGS, values, hash)).rejects.toThrow(
      /clients\.ops\.roles: root não existe/,
    );
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('says the stage is not deployed when its shards are missing', async () => {
    stored = {};
    await expect(fillSecrets(client(), PREFIX, SETTINGS, emptyValues(), hash)).rejects.toThrow(
      /não existe: faça o deploy da pilha primeiro/,
    );
  });
});
