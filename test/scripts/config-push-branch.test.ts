/**
 * Adding a branch takes a minute and no deploy (issue 34): `npm run config -- push` with a new
 * account and a new profile stores both (the version, the two shard entries), says in Portuguese
 * which credentials to fill in and where, and then, as the functions read the store (the AWS
 * configuration adapter over the same mocked AppConfig version and Secrets Manager), the new
 * profile authenticates a lead with its generated token and the console's kit shows and reveals
 * it. AWS is mocked with aws-sdk-client-mock; Secrets Manager is a map (test/helpers).
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearCaches } from '@aws-lambda-powertools/parameters';
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
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminDeps, handleAdmin } from '../../functions/admin/admin.ts';
import { awsProfileSecrets } from '../../functions/admin/profile-secrets-aws.ts';
import { createAwsConfigSource } from '../../functions/config/config-aws.ts';
import type { Profile } from '../../functions/config/config-schema.ts';
import { PROFILE_RULES } from '../../functions/config/profile-rules.ts';
import { secretNames } from '../../functions/config/secrets-aws.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';
import { adapterFor } from '../../functions/sources/registry.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import { push } from '../../scripts/config-store.ts';
import { storedLines } from '../../scripts/secret-store.ts';
import { storedJson } from '../helpers/appconfig-store.ts';
import { emptyShards, fakeSecrets, storedEntry } from '../helpers/secrets-store.ts';

const appConfig = mockClient(AppConfigClient);
const sm = mockClient(SecretsManagerClient);
const dir = mkdtempSync(join(tmpdir(), 'leads-branch-'));
const CLIENTS: Client[] = [{ username: 'ops', password: 'ops-secret', roles: ['admin'] }];

const BEFORE = {
  stage: 'prod',
  alarmEmail: 'ops@example.com',
  upstream: { baseUrl: 'https://evo.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  profiles: { site: { source: 'form', defaults: { idBranch: 1 } } },
  report: { branches: [1], refreshSeconds: 900 },
};
/** The same file with a new branch group: the account `norte` and its landing page. */
const AFTER = {
  ...BEFORE,
  upstreams: { norte: { baseUrl: 'https://evo.example.com', maxPerSecond: 2, maxPerMinute: 20 } },
  profiles: {
    ...BEFORE.profiles,
    'lp-norte': { source: 'form', upstream: 'norte', defaults: { idBranch: 31 } },
  },
};

beforeAll(() => {
  process.env.AWS_REGION ??= 'sa-east-1';
  appConfig.on(ListApplicationsCommand).resolves({ Items: [{ Name: 'leads-prod', Id: 'app1' }] });
  appConfig.on(ListEnvironmentsCommand).resolves({ Items: [{ Name: 'prod', Id: 'env1' }] });
  appConfig
    .on(ListConfigurationProfilesCommand)
    .resolves({ Items: [{ Name: 'settings', Id: 'prof1' }] });
  appConfig
    .on(ListDeploymentStrategiesCommand)
    .resolves({ Items: [{ Name: 'leads-prod-all-at-once', Id: 'strat1' }] });
  appConfig.on(ListDeploymentsCommand).resolves({ Items: [] });
  appConfig.on(GetHostedConfigurationVersionCommand).resolves({
    Content: storedJson<GetHostedConfigurationVersionCommandOutput['Content']>({}),
  });
  appConfig.on(CreateHostedConfigurationVersionCommand).resolves({ VersionNumber: 7 });
  appConfig.on(StartDeploymentCommand).resolves({ DeploymentNumber: 3 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run config -- push with a new account and a new profile', () => {
  it('stores both, says what to fill in, and the profile takes leads and shows in the kit without a deploy', async () => {
    // Prepare: a deployed stack whose shards hold the first profile and account.
    const stored = fakeSecrets(sm, emptyShards('leads/prod'));
    const file = join(dir, 'deploy.prod.json');
    writeFileSync(file, JSON.stringify(AFTER));
    const clients = { appConfig: new AppConfigClient({}), secrets: new SecretsManagerClient({}) };

    // Act: the push.
    const result = await push(file, clients);

    // Assess: what the operator reads, in Portuguese, with where.
    const lines = storedLines(result.entries);
    const norte = secretNames('leads/prod').upstream('norte').secret;
    expect(lines).toContain(
      `conta "norte": preencha "username", "password" (hoje REPLACE_ME) com npm run config -- secrets ARQUIVO, segredo ${norte}, entrada "norte"`,
    );
    expect(lines.find((l) => l.startsWith('perfil "lp-norte"'))).toMatch(/"token" gerado/);
    const token = storedEntry(stored, 'leads/prod', 'profile', 'lp-norte')?.token as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Act: the functions read the version the push stored, and the shards.
    const [call] = appConfig.commandCalls(CreateHostedConfigurationVersionCommand);
    const version = JSON.parse(new TextDecoder().decode(call?.args[0].input.Content as Uint8Array));
    clearCaches();
    const config = createAwsConfigSource(
      { LEADS_SECRETS_PREFIX: 'leads/prod' },
      { rules: PROFILE_RULES, settings: async () => version },
    );
    const profile = (await config.profile('lp-norte')) as Profile;

    // Assess: its account, and a lead with its token is authentic.
    expect(await config.accountOf('lp-norte')).toBe('norte');
    const request = {
      method: 'POST',
      headers: { 'x-lead-token': token },
      query: {},
      body: Buffer.from('{}'),
      contentType: 'application/json',
      receivedAt: new Date(),
    } as unknown as IntakeRequest;
    expect(adapterFor(profile).authenticate(request, profile).ok).toBe(true);

    // Act: the console's kit and its reveal, over the same store.
    const deps = {
      config: { ...config, clients: async () => CLIENTS },
      profileSecrets: awsProfileSecrets({
        entry: async (name) => secretNames('leads/prod').profile(name),
      }),
      events: {
        refused() {},
        retried() {},
        replayed() {},
        failed() {},
        secretRevealed() {},
        secretRotated() {},
      },
      now: () => new Date(),
    } as unknown as AdminDeps;
    const call2 = (resource: string, method: string) =>
      handleAdmin(
        {
          resource,
          pathParameters: { profile: 'lp-norte' },
          request: {
            method,
            headers: {
              authorization: `Basic ${Buffer.from('ops:ops-secret').toString('base64')}`,
              host: 'leads.example',
            },
            query: {},
            body: Buffer.alloc(0),
            contentType: '',
            receivedAt: new Date(),
          },
          baseUrl: 'https://leads.example/prod',
        },
        deps,
      );
    const kit = JSON.parse((await call2('/admin/setup', 'GET')).body) as {
      profiles: { profile: string }[];
    };
    const reveal = await call2('/admin/setup/{profile}/reveal', 'POST');

    // Assess
    expect(kit.profiles.map((p) => p.profile)).toEqual(['site', 'lp-norte']);
    expect(reveal.statusCode).toBe(200);
    expect(JSON.parse(reveal.body).secrets).toEqual([
      expect.objectContaining({ key: 'token', value: token }),
    ]);
  });
});
