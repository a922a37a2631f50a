import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AppConfigClient,
  CreateHostedConfigurationVersionCommand,
  GetHostedConfigurationVersionCommand,
  type GetHostedConfigurationVersionCommandOutput,
  ListApplicationsCommand,
  ListConfigurationProfilesCommand,
  ListDeploymentStrategiesCommand,
  ListDeploymentsCommand,
  ListEnvironmentsCommand,
  StartDeploymentCommand,
} from '@aws-sdk/client-appconfig';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretNames } from '../../functions/config/secrets-aws.ts';
import type { LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import { REPO_ROOT } from '../../infra/config.ts';
import { schemaFiles } from '../../scripts/config-schema-files.ts';
import {
  ConfigCommandError,
  diff,
  diffSettings,
  push,
  pushUnlessCurrent,
  rollback,
  validateFile,
} from '../../scripts/config-store.ts';
import { storedLines } from '../../scripts/secret-store.ts';
import { storedJson } from '../helpers/appconfig-store.ts';
import { emptyShards, fakeSecrets, storedEntry } from '../helpers/secrets-store.ts';

const appConfig = mockClient(AppConfigClient);
const secretsManager = mockClient(SecretsManagerClient);
const clients = {
  appConfig: new AppConfigClient({ region: 'sa-east-1' }),
  secrets: new SecretsManagerClient({ region: 'sa-east-1' }),
};

const DEPLOY = {
  stage: 'prod',
  alarmEmail: 'ops@example.com',
  upstream: { baseUrl: 'https://evo.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  upstreams: {
    south: { baseUrl: 'https://evo.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  },
  profiles: {
    site: { source: 'form', defaults: { idBranch: 1 } },
    southsite: { source: 'form', upstream: 'south', defaults: { idBranch: 7 } },
    api: { source: 'prospect' },
  },
  report: { branches: [1], refreshSeconds: 900 },
};

let dir: string;
function file(content: unknown): string {
  const path = join(dir, `deploy-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

/** The stack's store as AppConfig lists it, with `versions` deployed in order (oldest first). */
function store(versions: Record<string, unknown>): void {
  appConfig.on(ListApplicationsCommand).resolves({
    Items: [
      { Name: 'leads-other', Id: 'o' },
      { Name: 'leads-prod', Id: 'app1' },
    ],
  });
  appConfig.on(ListEnvironmentsCommand).resolves({ Items: [{ Name: 'prod', Id: 'env1' }] });
  appConfig
    .on(ListConfigurationProfilesCommand)
    .resolves({ Items: [{ Name: 'settings', Id: 'prof1' }] });
  appConfig
    .on(ListDeploymentStrategiesCommand)
    .resolves({ Items: [{ Name: 'leads-prod-all-at-once', Id: 'strat1' }] });
  const numbers = Object.keys(versions);
  appConfig.on(ListDeploymentsCommand).resolves({
    Items: numbers.map((version, index) => ({
      DeploymentNumber: index + 1,
      ConfigurationName: 'settings',
      ConfigurationVersion: version,
      State: 'COMPLETE',
    })),
  });
  for (const [version, content] of Object.entries(versions)) {
    appConfig
      .on(GetHostedConfigurationVersionCommand, { VersionNumber: Number(version) })
      .resolves({
        Content: storedJson<GetHostedConfigurationVersionCommandOutput['Content']>(content),
      });
  }
  appConfig.on(CreateHostedConfigurationVersionCommand).resolves({ VersionNumber: 9 });
  appConfig.on(StartDeploymentCommand).resolves({ DeploymentNumber: 12 });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'leads-config-'));
  appConfig.reset();
  secretsManager.reset();
  // A deployed stack's shards, empty until something is pushed.
  fakeSecrets(secretsManager, emptyShards('leads/prod'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run config -- validate', () => {
  it('accepts the example and a configuration with several accounts', () => {
    expect(validateFile(join(REPO_ROOT, 'config/deploy.example.json')).stage).toBe('example');
    expect(Object.keys(validateFile(file(DEPLOY)).settings.upstreams ?? {})).toEqual(['south']);
  });

  it('refuses with the functions own messages: unknown key with its closest, bad profile, unknown account, no branch', () => {
    const typo = file({
      ...DEPLOY,
      profiles: { site: { source: 'form', default: { idBranch: 1 } } },
    });
    const account = file({ ...DEPLOY, profiles: { x: { source: 'prospect', upstream: 'north' } } });
    const badProfile = file({
      ...DEPLOY,
      profiles: { x: { source: 'form', defaults: { idBranch: 'one' } } },
    });
    const noBranch = file({ ...DEPLOY, profiles: { 'lp-nova': { source: 'form' } } });

    expect(() => validateFile(typo)).toThrow(
      /\n {2}profiles\.site\.default: chave desconhecida: você quis dizer "defaults"\?$/,
    );
    expect(() => validateFile(account)).toThrow(
      /\n {2}profiles\.x\.upstream: nomeia a conta "north", que não está configurada/,
    );
    expect(() => validateFile(badProfile)).toThrow(
      /\n {2}profiles\.x\.defaults\.idBranch: deve ser um número, não um texto$/,
    );
    expect(() => validateFile(noBranch)).toThrow(
      /\n {2}profiles\.lp-nova: um perfil precisa de "defaults\.idBranch", /,
    );
  });
});

describe('npm run config -- push', () => {
  it('writes the entries a new account or profile needs into the shards, stores a version and deploys it', async () => {
    // Prepare: version 3 is deployed; the default account's and site's entries exist already.
    store({
      '3': validateFile(
        file({ ...DEPLOY, upstreams: undefined, profiles: { site: DEPLOY.profiles.site } }),
      ).settings,
    });
    const secrets = fakeSecrets(secretsManager, emptyShards('leads/prod'));
    const upstream = secretNames('leads/prod').upstream('default');
    const site = secretNames('leads/prod').profile('site');
    secrets[upstream.secret] = JSON.stringify({ default: { username: 'u', password: 'p' } });
    secrets[site.secret] = JSON.stringify({
      ...JSON.parse(secrets[site.secret] as string),
      site: { token: 'kept' },
    });

    // Act
    const result = await push(file(DEPLOY), clients);

    // Assess: the account to fill in, the profile's token generated (leads flow at once).
    expect(storedEntry(secrets, 'leads/prod', 'upstream', 'south')).toEqual({
      username: 'REPLACE_ME',
      password: 'REPLACE_ME',
    });
    const token = storedEntry(secrets, 'leads/prod', 'profile', 'southsite')?.token;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(storedEntry(secrets, 'leads/prod', 'profile', 'site')).toEqual({ token: 'kept' });
    expect(storedEntry(secrets, 'leads/prod', 'upstream', 'default')).toEqual({
      username: 'u',
      password: 'p',
    });
    expect(result.entries.map((e) => [e.where.entry, e.fill, e.generated])).toEqual([
      ['south', ['username', 'password'], []],
      ['southsite', [], ['token']],
    ]);
    const lines = storedLines(result.entries);
    expect(lines[0]).toBe(
      `conta "south": preencha "username", "password" (hoje REPLACE_ME) com npm run config -- secrets ARQUIVO, segredo ${secretNames('leads/prod').upstream('south').secret}, entrada "south"`,
    );
    expect(lines[1]).toMatch(
      /^perfil "southsite": "token" gerado\(s\) pelo gateway: cole .*kit do console/,
    );
    // Written before the version is stored: functions that see it find the entries.
    const writes = secretsManager.commandCalls(PutSecretValueCommand).length;
    expect(writes).toBe(2);
    const [version] = appConfig.commandCalls(CreateHostedConfigurationVersionCommand);
    const stored = JSON.parse(
      new TextDecoder().decode(version?.args[0].input.Content as Uint8Array),
    );
    expect(Object.keys(stored.profiles)).toEqual(['site', 'southsite', 'api']);
    expect(stored).not.toHaveProperty('stage');
    const [deployment] = appConfig.commandCalls(StartDeploymentCommand);
    expect(deployment?.args[0].input).toMatchObject({
      ApplicationId: 'app1',
      EnvironmentId: 'env1',
      ConfigurationProfileId: 'prof1',
      ConfigurationVersion: '9',
      DeploymentStrategyId: 'strat1',
    });
    expect(result.changes).toContain('+ upstreams.south.baseUrl: "https://evo.example.com"');
    expect(result.changes).toContain('+ profiles.southsite.upstream: "south"');
    expect(result.changes.filter((line) => !line.startsWith('+ '))).toEqual([]);
  });

  it('sends nothing when the file is invalid, and says when the stack is not deployed', async () => {
    store({});
    await expect(push(file({ ...DEPLOY, report: { branches: 'all' } }), clients)).rejects.toThrow(
      /report\.branches/,
    );
    expect(appConfig.commandCalls(CreateHostedConfigurationVersionCommand)).toHaveLength(0);

    appConfig.reset();
    appConfig.on(ListApplicationsCommand).resolves({ Items: [] });
    await expect(push(file(DEPLOY), clients)).rejects.toThrow(
      /no AppConfig application "leads-prod".*deploy the stack first/,
    );
  });
});

describe('npm run deploy: the settings after CloudFormation (pushUnlessCurrent)', () => {
  it('stores the deploy file as the first version of a new stack, its entries written', async () => {
    store({});
    const result = await pushUnlessCurrent(file(DEPLOY), clients);
    expect(result.pushed?.version).toBe('9');
    expect(appConfig.commandCalls(StartDeploymentCommand)).toHaveLength(1);
    expect(result.entries.map((e) => e.where.entry)).toEqual([
      'default',
      'south',
      'site',
      'southsite',
    ]);
  });

  it('adds no version when the deployed one holds the file already, and says what is still to fill in', async () => {
    // Prepare: a first deploy happened; the accounts are still placeholders.
    store({});
    await pushUnlessCurrent(file(DEPLOY), clients);
    const deployed = validateFile(file(DEPLOY)).settings;
    appConfig.reset();
    store({ '9': deployed });

    // Act: a redeploy of code only
    const result = await pushUnlessCurrent(file(DEPLOY), clients);

    // Assess
    expect(result.pushed).toBeUndefined();
    expect(appConfig.commandCalls(CreateHostedConfigurationVersionCommand)).toHaveLength(0);
    expect(result.entries.map((e) => [e.where.entry, e.fill])).toEqual([
      ['default', ['username', 'password']],
      ['south', ['username', 'password']],
    ]);
  });
});

describe('npm run config -- diff and rollback', () => {
  it('lists what push would change, path by path', async () => {
    store({
      '4': validateFile(file({ ...DEPLOY, profiles: { site: DEPLOY.profiles.site } })).settings,
    });
    const result = await diff(file(DEPLOY), clients);
    expect(result.version).toBe('4');
    expect(result.changes).toContain('+ profiles.api.source: "prospect"');
    expect(result.changes.some((line) => line.startsWith('- '))).toBe(false);
  });

  it('warns in Portuguese before a profile that received leads leaves, saying how many wait', async () => {
    // Prepare: version 4 has `site`; the ledger holds two of its leads (one queued) and one of api
    store({ '4': validateFile(file(DEPLOY)).settings });
    const lead = (profile: string, status: string, position: string) => ({
      lead: { profile, status } as LeadRecord,
      position,
    });
    const ledger = {
      listRecent: async () => ({
        entries: [
          lead('site', 'queued', 'p1'),
          lead('site', 'delivered', 'p2'),
          lead('api', 'queued', 'p3'),
        ],
        more: false,
      }),
    };
    const { site: _site, ...others } = DEPLOY.profiles;
    const renamed = file({ ...DEPLOY, profiles: { ...others, 'site-novo': DEPLOY.profiles.site } });

    // Act
    const diffed = await diff(renamed, { ...clients, ledger });
    const pushed = await push(renamed, { ...clients, ledger });
    const unchanged = await diff(file(DEPLOY), { ...clients, ledger });
    const blind = await diff(renamed, { ...clients, ledgerUnavailable: 'AccessDenied' });

    // Assess
    expect(diffed.warnings).toEqual([
      expect.stringMatching(
        /^aviso: o perfil 'site' sai da configuração e recebeu 2 lead\(s\) nos últimos 30 dias; 1 aguardando entrega\..*'site' parece renomeado para 'site-novo': acrescente "formerly": \["site"\]/,
      ),
    ]);
    expect(pushed.warnings).toEqual(diffed.warnings);
    expect(unchanged.warnings).toEqual([]);
    expect(blind.warnings).toEqual([
      expect.stringMatching(
        /^aviso: sai\(em\) da configuração o\(s\) perfil\(is\) 'site'; não foi possível consultar .*AccessDenied/,
      ),
    ]);
  });

  it('deploys the version before the current one again, or the one asked for', async () => {
    // Prepare: versions 5 then 6 deployed
    store({
      '5': { ...DEPLOY, report: { branches: [1], refreshSeconds: 900 } },
      '6': { ...DEPLOY, report: { branches: [1, 2], refreshSeconds: 900 } },
    });

    // Act
    const previous = await rollback(file(DEPLOY), clients);
    const asked = await rollback(file(DEPLOY), clients, '6');

    // Assess
    expect(previous).toMatchObject({ from: '6', to: '5' });
    expect(previous.changes).toEqual(['~ report.branches: [1,2] → [1]']);
    expect(asked.to).toBe('6');
    const versions = appConfig
      .commandCalls(StartDeploymentCommand)
      .map((c) => c.args[0].input.ConfigurationVersion);
    expect(versions).toEqual(['5', '6']);
  });

  it('refuses a rollback with nothing earlier to go back to', async () => {
    store({ '1': DEPLOY });
    await expect(rollback(file(DEPLOY), clients)).rejects.toBeInstanceOf(ConfigCommandError);
  });

  it('writes a change of value, an addition and a removal each on its own line', () => {
    expect(diffSettings({ a: { b: 1, c: 2 } }, { a: { b: 1, c: 3, d: 4 } })).toEqual([
      '~ a.c: 2 → 3',
      '+ a.d: 4',
    ]);
    expect(diffSettings({ a: 1 }, {})).toEqual(['- a: 1']);
  });
});

describe('the shipped JSON Schemas', () => {
  it('are what the zod schemas generate (npm run config -- schema)', () => {
    for (const [name, schema] of Object.entries(schemaFiles())) {
      const shipped = JSON.parse(readFileSync(join(REPO_ROOT, name), 'utf8'));
      expect(shipped, `${name} is stale: run npm run config -- schema`).toEqual(schema);
    }
  });

  it('accept the shipped examples and refuse an unknown key, as an editor would show', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const files = schemaFiles();
    const local = ajv.compile(files['config/schema.json'] as object);
    const deploy = ajv.compile(files['config/deploy.schema.json'] as object);
    const demo = JSON.parse(readFileSync(join(REPO_ROOT, 'config/demo.json'), 'utf8'));
    const example = JSON.parse(readFileSync(join(REPO_ROOT, 'config/deploy.example.json'), 'utf8'));

    expect(local(demo), JSON.stringify(local.errors)).toBe(true);
    expect(deploy(example), JSON.stringify(deploy.errors)).toBe(true);
    expect(local({ ...demo, report: { ...demo.report, refreshSecond: 60 } })).toBe(false);
  });
});
