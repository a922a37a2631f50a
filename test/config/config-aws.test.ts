import { clearCaches } from '@aws-lambda-powertools/parameters';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAwsConfigSource, type SettingsInput } from '../../functions/config/config-aws.ts';
import { PROFILE_RULES } from '../../functions/config/profile-rules.ts';
import { AwsConfigError, createAwsClientsSource } from '../../functions/config/secrets-aws.ts';

const secretsManager = mockClient(SecretsManagerClient);

const SETTINGS: SettingsInput = {
  upstream: { baseUrl: 'https://upstream.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  profiles: {
    site: { source: 'form', defaults: { idBranch: 1 }, allowedOrigins: ['https://lp.example.com'] },
    meta: { source: 'meta', forms: { '1234567890': { idBranch: 3 } } },
    native: { source: 'prospect', defaults: { marketingType: 'App' } },
  },
  report: { branches: [1, 2], refreshSeconds: 600 },
};

const ENV = {
  LEADS_SETTINGS: JSON.stringify(SETTINGS),
  LEADS_SECRETS_PREFIX: 'leads/test',
};

/** What Secrets Manager answers for a secret name: its JSON text. */
function secret(name: string, value: unknown): void {
  secretsManager
    .on(GetSecretValueCommand, { SecretId: name })
    .resolves({ SecretString: typeof value === 'string' ? value : JSON.stringify(value) });
}

function calls(name: string): number {
  return secretsManager
    .commandCalls(GetSecretValueCommand)
    .filter((call) => call.args[0].input.SecretId === name).length;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AwsConfigError);
    return error as Error;
  }
  throw new Error('expected a failure');
}

beforeAll(() => {
  process.env.AWS_REGION ??= 'us-east-1';
});

beforeEach(() => {
  secretsManager.reset();
  clearCaches();
});

describe('createAwsConfigSource', () => {
  it('merges the upstream settings with the upstream secret', async () => {
    // Prepare
    secret('leads/test/upstream', {
      username: 'gym.dns',
      password: 's3cr3t-key',
      generated: 'random',
    });
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    const upstream = await config.upstream();

    // Assess
    expect(upstream).toEqual({
      baseUrl: 'https://upstream.example.com',
      maxPerSecond: 4,
      maxPerMinute: 36,
      timeoutMs: 10_000,
      partnerTokenField: 'tokenPartner',
      username: 'gym.dns',
      password: 's3cr3t-key',
    });
  });

  it("merges a profile's settings with its keys, and reads no secret for prospect profiles", async () => {
    // Prepare
    secret('leads/test/profiles/site', { token: 'site-token', generated: 'random' });
    secret('leads/test/profiles/meta', {
      appSecret: 'app-secret',
      verifyToken: 'verify',
      pageAccessToken: 'page-token',
    });
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    const site = await config.profile('site');
    const meta = await config.profile('meta');
    const native = await config.profile('native');
    const unknown = await config.profile('nope');

    // Assess
    expect(site).toEqual({
      source: 'form',
      token: 'site-token',
      defaults: { idBranch: 1 },
      allowedOrigins: ['https://lp.example.com'],
    });
    expect(meta).toMatchObject({
      source: 'meta',
      appSecret: 'app-secret',
      verifyToken: 'verify',
      pageAccessToken: 'page-token',
      graphBaseUrl: 'https://graph.facebook.com/v21.0',
      forms: { '1234567890': { idBranch: 3 } },
    });
    expect(native).toEqual({ source: 'prospect', defaults: { marketingType: 'App' } });
    expect(unknown).toBeUndefined();
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('reads the clients list (hashes) and the report settings', async () => {
    // Prepare
    const hash = 'scrypt$16384$8$1$c2FsdA==$aGFzaA==';
    secret('leads/test/clients', [{ username: 'ops', passwordHash: hash, roles: ['admin'] }]);
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    const clients = await config.clients();
    const report = await config.report();

    // Assess
    expect(clients).toEqual([{ username: 'ops', passwordHash: hash, roles: ['admin'] }]);
    expect(report).toEqual({
      branches: [1, 2],
      refreshSeconds: 600,
      timeZone: 'America/Sao_Paulo',
    });
  });

  it('asks Secrets Manager once for two reads (cached), again once after refresh()', async () => {
    // Prepare
    secret('leads/test/upstream', { username: 'gym.dns', password: 'key' });
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    await config.upstream();
    await config.upstream();
    const beforeRefresh = calls('leads/test/upstream');
    config.refresh();
    await config.upstream();
    await config.upstream();

    // Assess
    expect(beforeRefresh).toBe(1);
    expect(calls('leads/test/upstream')).toBe(2);
  });

  it('names the secret and the missing key, never a value', async () => {
    // Prepare
    secret('leads/test/profiles/meta', {
      appSecret: 'app-secret-value',
      verifyToken: 'verify-value',
    });
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    const error = await failure(config.profile('meta'));

    // Assess
    expect(error.message).toContain('secret leads/test/profiles/meta');
    expect(error.message).toContain('key "pageAccessToken" is missing');
    expect(error.message).not.toContain('app-secret-value');
    expect(error.message).not.toContain('verify-value');
  });

  it('says when a secret still holds the placeholder set at deploy time', async () => {
    // Prepare
    secret('leads/test/upstream', {
      username: 'REPLACE_ME',
      password: 'REPLACE_ME',
      generated: 'x',
    });
    secret('leads/test/clients', { clients: 'REPLACE_ME', generated: 'x' });
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    const upstream = await failure(config.upstream());
    const clients = await failure(config.clients());

    // Assess
    expect(upstream.message).toContain(
      'secret leads/test/upstream: key "username" still holds the placeholder',
    );
    expect(upstream.message).toContain('key "password" still holds the placeholder');
    expect(clients.message).toContain('secret leads/test/clients still holds the placeholder');
  });

  it('refuses a secret that is not valid JSON without quoting it', async () => {
    // Prepare
    secret('leads/test/upstream', 'username=gym.dns password=very-secret');
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    const error = await failure(config.upstream());

    // Assess
    expect(error.message).toBe('secret leads/test/upstream is not valid JSON');
    expect(error.message).not.toContain('very-secret');
  });

  it('reports a schema problem on a secret key against the secret, without the value', async () => {
    // Prepare
    secret('leads/test/profiles/site', { token: '   ' });
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    const error = await failure(config.profile('site'));

    // Assess
    expect(error.message).toContain(
      'secret leads/test/profiles/site key "token": must not be empty',
    );
  });

  it('keeps plain passwords out of a deployed clients list', async () => {
    // Prepare
    secret('leads/test/clients', [{ username: 'ops', password: 'plain-pass', roles: ['admin'] }]);
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    const error = await failure(config.clients());

    // Assess
    expect(error.message).toContain('keeps "passwordHash" only');
    expect(error.message).not.toContain('plain-pass');
  });

  it('says which secret cannot be read', async () => {
    // Prepare
    secretsManager.on(GetSecretValueCommand).rejects(
      new ResourceNotFoundException({
        message: "Secrets Manager can't find the specified secret.",
        $metadata: {},
      }),
    );
    const config = createAwsConfigSource(ENV, PROFILE_RULES);

    // Act
    const error = await failure(config.upstream());

    // Assess
    expect(error.message).toMatch(/^cannot read secret leads\/test\/upstream: .*can't find/);
  });

  it('names a missing or invalid LEADS_SETTINGS and LEADS_SECRETS_PREFIX', async () => {
    // Act
    const noSettings = await failure(createAwsConfigSource({}).report());
    const badJson = await failure(createAwsConfigSource({ LEADS_SETTINGS: '{' }).report());
    const invalid = await failure(
      createAwsConfigSource({
        LEADS_SETTINGS: JSON.stringify({ ...SETTINGS, upstream: { baseUrl: 'nope' } }),
      }).report(),
    );
    const noPrefix = await failure(
      createAwsConfigSource({ LEADS_SETTINGS: ENV.LEADS_SETTINGS }).upstream(),
    );

    // Assess
    expect(noSettings.message).toBe('LEADS_SETTINGS is not set');
    expect(badJson.message).toBe('LEADS_SETTINGS is not valid JSON');
    expect(invalid.message).toMatch(/^LEADS_SETTINGS is invalid:\n {2}upstream\.baseUrl: /);
    expect(invalid.message).toContain('upstream.maxPerMinute: is required (a number)');
    expect(noPrefix.message).toBe('LEADS_SECRETS_PREFIX is not set');
  });
});

describe('createAwsClientsSource (the authorizer: clients only)', () => {
  it('reads the clients secret without LEADS_SETTINGS, refusing placeholders and plain passwords', async () => {
    // Prepare
    const hash = 'scrypt$16384$8$1$c2FsdA==$aGFzaA==';
    secret('leads/test/clients', [{ username: 'ops', passwordHash: hash, roles: ['report:read'] }]);
    secret('leads/other/clients', { clients: 'REPLACE_ME' });
    secret('leads/plain/clients', [{ username: 'ops', password: 'plain-pass', roles: ['admin'] }]);

    // Act
    const clients = await createAwsClientsSource({ LEADS_SECRETS_PREFIX: 'leads/test' }).clients();
    const placeholder = await failure(
      createAwsClientsSource({ LEADS_SECRETS_PREFIX: 'leads/other' }).clients(),
    );
    const plain = await failure(
      createAwsClientsSource({ LEADS_SECRETS_PREFIX: 'leads/plain' }).clients(),
    );
    const noPrefix = await failure(createAwsClientsSource({}).clients());

    // Assess
    expect(clients).toEqual([{ username: 'ops', passwordHash: hash, roles: ['report:read'] }]);
    expect(placeholder.message).toContain('secret leads/other/clients still holds the placeholder');
    expect(plain.message).toContain('keeps "passwordHash" only');
    expect(plain.message).not.toContain('plain-pass');
    expect(noPrefix.message).toBe('LEADS_SECRETS_PREFIX is not set');
  });

  it('refuses to read a profile when built without the profile rules (admin, report)', async () => {
    const config = createAwsConfigSource(ENV);
    await expect(config.profile('site')).rejects.toThrow(/reads no profiles/);
  });
});
