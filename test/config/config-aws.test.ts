import { clearCaches } from '@aws-lambda-powertools/parameters';
import {
  AppConfigDataClient,
  GetLatestConfigurationCommand,
  StartConfigurationSessionCommand,
} from '@aws-sdk/client-appconfigdata';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createAwsConfigSource,
  SETTINGS_MAX_AGE_SECONDS,
  type SettingsInput,
} from '../../functions/config/config-aws.ts';
import { PROFILE_RULES } from '../../functions/config/profile-rules.ts';
import {
  AwsConfigError,
  createAwsClientsSource,
  secretNames,
} from '../../functions/config/secrets-aws.ts';
import { storedJson } from '../helpers/appconfig-store.ts';

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

const ENV = { LEADS_SECRETS_PREFIX: 'leads/test' };

/** The functions' options with the settings the configuration store would answer. */
const STORE = { rules: PROFILE_RULES, settings: async () => SETTINGS };

/** What Secrets Manager answers for a secret name: its JSON text. */
function secret(name: string, value: unknown): void {
  secretsManager
    .on(GetSecretValueCommand, { SecretId: name })
    .resolves({ SecretString: typeof value === 'string' ? value : JSON.stringify(value) });
}

type EntryKind = 'profile' | 'upstream';
/** The shard secret that holds an entry (functions/config/secret-shards.ts). */
const shard = (kind: EntryKind, name: string) => secretNames('leads/test')[kind](name).secret;
/** How errors name an entry: `<shard> entry "<name>"`. */
const label = (kind: EntryKind, name: string) => `${shard(kind, name)} entry "${name}"`;
/** The shards as the mock answers them, entry by entry. */
let shards: Record<string, Record<string, unknown>> = {};
/** Puts `value` as the entry `name` of its shard. */
function entry(kind: EntryKind, name: string, value: unknown): void {
  const id = shard(kind, name);
  shards[id] ??= {};
  (shards[id] as Record<string, unknown>)[name] = value;
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
  shards = {};
  // Shards answer what `entry` put in them; `secret` answers other ids (or overrides one).
  secretsManager.on(GetSecretValueCommand).callsFake(({ SecretId }) => {
    const found = shards[SecretId as string];
    return found === undefined ? {} : { SecretString: JSON.stringify(found) };
  });
});

describe('createAwsConfigSource', () => {
  it('merges the upstream settings with the upstream secret', async () => {
    // Prepare
    entry('upstream', 'default', {
      username: 'gym.dns',
      password: 's3cr3t-key',
      generated: 'random',
    });
    const config = createAwsConfigSource(ENV, STORE);

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
    entry('profile', 'site', { token: 'site-token', generated: 'random' });
    entry('profile', 'meta', {
      appSecret: 'app-secret',
      verifyToken: 'verify',
      pageAccessToken: 'page-token',
    });
    const config = createAwsConfigSource(ENV, STORE);

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
    const config = createAwsConfigSource(ENV, STORE);

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
    entry('upstream', 'default', { username: 'gym.dns', password: 'key' });
    const config = createAwsConfigSource(ENV, STORE);

    // Act
    await config.upstream();
    await config.upstream();
    const beforeRefresh = calls(shard('upstream', 'default'));
    config.refresh();
    await config.upstream();
    await config.upstream();

    // Assess
    expect(beforeRefresh).toBe(1);
    expect(calls(shard('upstream', 'default'))).toBe(2);
  });

  it('names the secret and the missing key, never a value', async () => {
    // Prepare
    entry('profile', 'meta', {
      appSecret: 'app-secret-value',
      verifyToken: 'verify-value',
    });
    const config = createAwsConfigSource(ENV, STORE);

    // Act
    const error = await failure(config.profile('meta'));

    // Assess
    expect(error.message).toContain(`secret ${label('profile', 'meta')}`);
    expect(error.message).toContain('key "pageAccessToken" is missing');
    expect(error.message).not.toContain('app-secret-value');
    expect(error.message).not.toContain('verify-value');
  });

  it('says when a secret still holds the placeholder set at deploy time', async () => {
    // Prepare
    entry('upstream', 'default', {
      username: 'REPLACE_ME',
      password: 'REPLACE_ME',
      generated: 'x',
    });
    secret('leads/test/clients', { clients: 'REPLACE_ME', generated: 'x' });
    const config = createAwsConfigSource(ENV, STORE);

    // Act
    const upstream = await failure(config.upstream());
    const clients = await failure(config.clients());

    // Assess
    expect(upstream.message).toContain(
      `secret ${label('upstream', 'default')}: key "username" still holds the placeholder`,
    );
    expect(upstream.message).toContain('key "password" still holds the placeholder');
    expect(clients.message).toContain('secret leads/test/clients still holds the placeholder');
  });

  it('refuses a secret that is not valid JSON without quoting it', async () => {
    // Prepare
    secret(shard('upstream', 'default'), 'username=gym.dns password=very-secret');
    const config = createAwsConfigSource(ENV, STORE);

    // Act
    const error = await failure(config.upstream());

    // Assess
    expect(error.message).toBe(`secret ${shard('upstream', 'default')} is not valid JSON`);
    expect(error.message).not.toContain('very-secret');
  });

  it('reports a schema problem on a secret key against the secret, without the value', async () => {
    // Prepare
    entry('profile', 'site', { token: '   ' });
    const config = createAwsConfigSource(ENV, STORE);

    // Act
    const error = await failure(config.profile('site'));

    // Assess
    expect(error.message).toBe(
      `Configuração inválida do perfil "site":\n  segredo ${label('profile', 'site')}, chave "token": não pode ficar vazio`,
    );
  });

  it('keeps plain passwords out of a deployed clients list', async () => {
    // Prepare
    secret('leads/test/clients', [{ username: 'ops', password: 'plain-pass', roles: ['admin'] }]);
    const config = createAwsConfigSource(ENV, STORE);

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
    const config = createAwsConfigSource(ENV, STORE);

    // Act
    const error = await failure(config.upstream());

    // Assess
    expect(error.message).toContain(`cannot read secret ${shard('upstream', 'default')}: `);
    expect(error.message).toContain("can't find");
  });

  it('names invalid settings, each problem with its path, and a missing LEADS_SECRETS_PREFIX', async () => {
    // Act
    const noNames = await failure(createAwsConfigSource({}).report());
    const invalid = await failure(
      createAwsConfigSource(ENV, {
        settings: async () => ({ ...SETTINGS, upstream: { baseUrl: 'nope' } }),
      }).report(),
    );
    const noPrefix = await failure(createAwsConfigSource({}, STORE).upstream());

    // Assess
    expect(noNames.message).toMatch(/LEADS_APPCONFIG_APPLICATION.* must be set/);
    expect(invalid.message).toMatch(
      /^Configuração inválida no repositório de configurações \(AppConfig\):\n {2}upstream\.baseUrl: deve ser uma URL válida$/m,
    );
    expect(invalid.message).toContain('  upstream.maxPerMinute: é obrigatório (um número)');
    expect(noPrefix.message).toBe('LEADS_SECRETS_PREFIX is not set');
  });

  it('refuses an unknown key, naming the closest known one', async () => {
    // Act
    const error = await failure(
      createAwsConfigSource(ENV, {
        rules: PROFILE_RULES,
        settings: async () => ({
          ...SETTINGS,
          profiles: { site: { source: 'form', default: { idBranch: 1 } } },
        }),
      }).report(),
    );

    // Assess
    expect(error.message).toContain(
      '  profiles.site.default: chave desconhecida: você quis dizer "defaults"?',
    );
  });

  it('reads each account from its own secret, with its own settings and report', async () => {
    // Prepare
    entry('upstream', 'default', { username: 'chain.a', password: 'key-a' });
    entry('upstream', 'south', { username: 'chain.b', password: 'key-b' });
    const settings: SettingsInput = {
      ...SETTINGS,
      upstreams: {
        south: {
          baseUrl: 'https://south.example.com',
          maxPerSecond: 2,
          maxPerMinute: 20,
          report: { branches: [7], refreshSeconds: 300 },
        },
      },
      profiles: { ...SETTINGS.profiles, southsite: { source: 'prospect', upstream: 'south' } },
    };
    const config = createAwsConfigSource(ENV, {
      rules: PROFILE_RULES,
      settings: async () => settings,
    });

    // Act
    const accounts = await config.accounts();
    const south = await config.upstream('south');
    const main = await config.upstream();

    // Assess
    expect(accounts).toEqual(['default', 'south']);
    expect(south).toMatchObject({
      baseUrl: 'https://south.example.com',
      username: 'chain.b',
      password: 'key-b',
      maxPerSecond: 2,
    });
    expect(main).toMatchObject({ username: 'chain.a', password: 'key-a' });
    expect(await config.report('south')).toMatchObject({ branches: [7], refreshSeconds: 300 });
    expect(await config.accountOf('southsite')).toBe('south');
    expect(await config.accountOf('site')).toBe('default');
    expect(await config.profileNameFor('prospect', 'south')).toBe('southsite');
  });

  it('refuses a profile naming an account that does not exist', async () => {
    const error = await failure(
      createAwsConfigSource(ENV, {
        settings: async () => ({
          ...SETTINGS,
          profiles: { site: { source: 'form', upstream: 'north' } },
        }),
      }).report(),
    );
    expect(error.message).toContain(
      '  profiles.site.upstream: nomeia a conta "north", que não está configurada (contas: "default")',
    );
  });

  it('uses a new version as soon as the store answers it, and keeps the last good one when a version is invalid', async () => {
    // Prepare: the store's answer, as the provider returns it (a new object per new version).
    let answer: unknown = SETTINGS;
    const refused: string[] = [];
    const config = createAwsConfigSource(ENV, {
      rules: PROFILE_RULES,
      settings: async () => answer,
      onInvalidSettings: (error) => refused.push(error.message),
    });
    expect(await config.profileNames()).toEqual(['site', 'meta', 'native']);

    // Act: a version with one more profile, then a broken one
    answer = { ...SETTINGS, profiles: { ...SETTINGS.profiles, extra: { source: 'prospect' } } };
    const afterChange = await config.profileNames();
    answer = { ...SETTINGS, report: { branches: 'all' } };
    const afterBroken = await config.profileNames();

    // Assess
    expect(afterChange).toContain('extra');
    expect(afterBroken).toContain('extra');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain('report.branches');
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
    const config = createAwsConfigSource(ENV, { settings: async () => SETTINGS });
    await expect(config.profile('site')).rejects.toThrow(/reads no profiles/);
  });
});

describe('appConfigSettings (the configuration store through the Powertools provider)', () => {
  const appConfig = mockClient(AppConfigDataClient);
  const NAMES = {
    ...ENV,
    LEADS_APPCONFIG_APPLICATION: 'app',
    LEADS_APPCONFIG_ENVIRONMENT: 'env',
    LEADS_APPCONFIG_PROFILE: 'settings',
  };
  const version = (settings: unknown) => ({
    Configuration: storedJson(settings),
    NextPollConfigurationToken: 'next',
  });

  beforeEach(() => {
    appConfig.reset();
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => vi.useRealTimers());

  it('sees a new version within a minute, and asks the store at most once per cache period', async () => {
    // Prepare: version 1, then the operator deploys version 2 with one more profile
    appConfig.on(StartConfigurationSessionCommand).resolves({ InitialConfigurationToken: 'first' });
    appConfig.on(GetLatestConfigurationCommand).resolvesOnce(version(SETTINGS));
    const config = createAwsConfigSource(NAMES, { rules: PROFILE_RULES });
    const before = await config.profileNames();
    appConfig
      .on(GetLatestConfigurationCommand)
      .resolves(
        version({ ...SETTINGS, profiles: { ...SETTINGS.profiles, extra: { source: 'prospect' } } }),
      );

    // Act: reads during the next minute
    vi.advanceTimersByTime(20_000);
    const soon = await config.profileNames();
    vi.advanceTimersByTime(SETTINGS_MAX_AGE_SECONDS * 1000);
    const withinAMinute = await config.profileNames();

    // Assess
    expect(before).not.toContain('extra');
    expect(soon).not.toContain('extra');
    expect(withinAMinute).toContain('extra');
    expect(SETTINGS_MAX_AGE_SECONDS).toBeLessThan(60);
    expect(appConfig.commandCalls(GetLatestConfigurationCommand)).toHaveLength(2);
  });

  it('reads only the shard that holds the profile or account asked for, and one read serves its neighbours', async () => {
    // Prepare: 3,000 form profiles and 300 accounts, every entry in its shard.
    const profiles: Record<string, unknown> = {};
    const upstreams: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) {
      const account = `unit-${i}`;
      upstreams[account] = {
        baseUrl: 'https://upstream.example.com',
        maxPerSecond: 1,
        maxPerMinute: 10,
      };
      entry('upstream', account, { username: `dns-${i}`, password: `key-${i}` });
    }
    for (let i = 0; i < 3000; i++) {
      const name = `p-${i}`;
      profiles[name] = { source: 'form', upstream: `unit-${i % 300}`, defaults: { idBranch: 1 } };
      entry('profile', name, { token: `token-${i}` });
    }
    const settings = { ...SETTINGS, upstreams, profiles };
    const config = createAwsConfigSource(ENV, {
      rules: PROFILE_RULES,
      settings: async () => settings,
    });
    const last = 'p-2999';
    const neighbours = Object.keys(profiles).filter(
      (name) => name !== last && shard('profile', name) === shard('profile', last),
    );

    // Act
    const profile = await config.profile(last);
    for (const name of neighbours) await config.profile(name);
    const account = await config.upstream('unit-299');

    // Assess: two reads in all, of exactly the two shards; a shard holds about 1/16 of the keys.
    expect(profile).toMatchObject({ token: 'token-2999' });
    expect(account).toMatchObject({ username: 'dns-299' });
    expect(neighbours.length).toBeGreaterThan(100);
    const read = secretsManager
      .commandCalls(GetSecretValueCommand)
      .map((c) => c.args[0].input.SecretId);
    expect(read).toEqual([shard('profile', last), shard('upstream', 'unit-299')]);
    const bytes = (id: string) => JSON.stringify(shards[id]).length;
    const all = Object.keys(shards)
      .filter((id) => id.includes('/profiles-'))
      .reduce((n, id) => n + bytes(id), 0);
    expect(bytes(shard('profile', last))).toBeLessThan(all / 10);
  });
});
