/**
 * Thousands of branches on one stack (issue 34): `npx cdk synth -c config=<file>` with a chain
 * of 3,000 profiles of mixed sources over 300 accounts makes one stack whose size does not
 * depend on them: no secret, function or other resource per profile or account, a handful of
 * secret shards (infra/constructs/leads-secrets.ts), no setting in the template
 * (infra/constructs/config-store.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT_SHARDS,
  PROFILE_SHARDS,
  shardNames,
} from '../../functions/config/secret-shards.ts';
import { buildApp, type LeadsApp } from '../../infra/app.ts';
import { CONFIG_CONTEXT_KEY, parseDeployConfig } from '../../infra/config.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import { chainAccountName, chainDeployConfig, chainProfileName } from '../fixtures/chain-config.ts';
import {
  cdkJsonContext,
  removeTempOutdirs,
  roleStatements,
  secretNamesGranted,
  synthViolations,
  tempOutdir,
  testApp,
  type Violation,
} from './helpers.ts';

const PROFILES = 3000;
const ACCOUNTS = 300;
/** What the issue allows: resources, template bytes, secrets. */
const MAX_RESOURCES = 450;
const TEMPLATE_LIMIT = 1_000_000;
const MAX_SECRETS = 25;

function resourceTypes(template: Template): Map<string, number> {
  const counts = new Map<string, number>();
  for (const resource of Object.values(
    template.toJSON().Resources as Record<string, { Type: string }>,
  )) {
    counts.set(resource.Type, (counts.get(resource.Type) ?? 0) + 1);
  }
  return counts;
}

describe(`a chain of ${PROFILES} profiles over ${ACCOUNTS} accounts (npx cdk synth -c config=<file>)`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'leads-chain-'));
  const file = join(dir, 'deploy.chain.json');
  let built: LeadsApp;
  let template: Template;
  let body: string;
  let violations: Violation[];

  beforeAll(() => {
    // Prepare: the deploy file an agency would write, 3,000 profiles of ten kinds.
    writeFileSync(
      file,
      JSON.stringify(chainDeployConfig({ profiles: PROFILES, accounts: ACCOUNTS })),
    );

    // Act: what `npx cdk synth -c config=<file>` does, cdk-nag included.
    built = buildApp({
      outdir: tempOutdir(),
      context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], [CONFIG_CONTEXT_KEY]: file },
      env: {},
    });
    violations = synthViolations(built.app);
    template = Template.fromStack(built.stack);
    body = JSON.stringify(template.toJSON());
  }, 180_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    removeTempOutdirs();
  });

  it('reads every profile and account of the file, with no unacknowledged cdk-nag finding', () => {
    const sources = new Set(Object.values(built.config.settings.profiles).map((p) => p.source));
    expect(Object.keys(built.config.settings.profiles)).toHaveLength(PROFILES);
    expect(Object.keys(built.config.settings.upstreams ?? {})).toHaveLength(ACCOUNTS);
    expect(sources.size).toBeGreaterThanOrEqual(8);
    expect(violations).toEqual([]);
  });

  it(`makes one stack of at most ${MAX_RESOURCES} resources and a template under 1 MB`, () => {
    const resources = Object.keys(template.toJSON().Resources as object).length;
    expect(resources).toBeLessThanOrEqual(MAX_RESOURCES);
    expect(Buffer.byteLength(body)).toBeLessThan(TEMPLATE_LIMIT);
    // The settings are not in the template (the deploy pushes them to AppConfig).
    template.resourceCountIs('AWS::AppConfig::HostedConfigurationVersion', 0);
    template.resourceCountIs('AWS::AppConfig::ConfigurationProfile', 1);
  });

  it('has the same resources, type by type, as the same file with 30 profiles', () => {
    // Prepare: the same stage (same names) with 30 profiles over 3 accounts.
    const small = new LeadsStack(testApp(), built.stack.node.id, {
      config: parseDeployConfig(chainDeployConfig({ profiles: 30, accounts: 3 })),
    });
    const smallTypes = resourceTypes(Template.fromStack(small));

    // Assess: a resource count that does not move with profiles or accounts.
    expect(resourceTypes(template)).toEqual(smallTypes);
  });

  it(`keeps the credentials in ${PROFILE_SHARDS + ACCOUNT_SHARDS + 2} secrets (at most ${MAX_SECRETS}), none per profile or account`, () => {
    const names = Object.values(template.findResources('AWS::SecretsManager::Secret'))
      .map((s) => (s as { Properties: { Name: string } }).Properties.Name)
      .sort();
    expect(names.length).toBeLessThanOrEqual(MAX_SECRETS);
    expect(names).toEqual(
      [
        'leads/chain/clients',
        'leads/chain/erasure-salt',
        ...shardNames('leads/chain', 'accounts'),
        ...shardNames('leads/chain', 'profiles'),
      ].sort(),
    );
    // No resource, name, description or output names a profile or an account.
    for (const name of [
      chainProfileName(0),
      chainProfileName(PROFILES - 1),
      chainAccountName(ACCOUNTS - 1),
    ]) {
      expect(body).not.toContain(name);
    }
  });

  it('grants each function the shards of the kinds it needs, by ARN, and no name pattern', () => {
    const granted = (fnName: string) => {
      const fn =
        fnName === 'report-refresher'
          ? built.stack.report.refresher
          : built.stack.functions.get(fnName);
      if (!fn) throw new Error(`no ${fnName}`);
      const role = built.stack.getLogicalId(fn.role?.node.defaultChild as CfnElement);
      return secretNamesGranted(roleStatements(template, role), undefined, template);
    };
    const accounts = shardNames('leads/chain', 'accounts');
    const profiles = shardNames('leads/chain', 'profiles');
    // The report refresher needs upstream credentials only: it reads no profile's key.
    expect(granted('report-refresher')).toEqual([...accounts].sort());
    expect(granted('forwarder')).toEqual([...accounts, ...profiles].sort());
    expect(granted('authorizer')).toEqual(['leads/chain/clients']);
    expect(granted('intake')).toEqual(
      ['leads/chain/clients', 'leads/chain/erasure-salt', ...profiles].sort(),
    );
    expect(body).not.toContain('leads/chain/profiles/*');
    expect(body).not.toContain('leads/chain/upstreams/*');
  });
});
