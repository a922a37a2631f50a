/**
 * The configuration store (infra/constructs/config-store.ts) in the stack, with a configuration
 * far past the 4 KB environment variable that used to carry the settings (issue 12): 280 `form`
 * profiles (test/fixtures/many-profiles.ts), a few of them on a second account `south`. The
 * settings no longer pass through the template (issue 34): the stack holds the store, and
 * `npm run deploy` / `config push` store the versions (test/infra/chain-stack.test.ts holds the
 * 3,000-profile chain).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsStoreJsonSchema } from '../../functions/config/config-json-schema.ts';
import { PROFILE_RULES } from '../../functions/config/profile-rules.ts';
import { validateSettingsText } from '../../functions/config/validator/validate.ts';
import { ENV } from '../../functions/kernel/env.ts';
import { FUNCTIONS, type FunctionSpec } from '../../functions/kernel/routes.ts';
import { buildApp, type LeadsApp } from '../../infra/app.ts';
import { CONFIG_CONTEXT_KEY, parseDeployConfig } from '../../infra/config.ts';
import { SETTINGS_PROFILE } from '../../infra/constructs/config-store.ts';
import { LAMBDA_ENV_LIMIT_BYTES } from '../../infra/constructs/node-function.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import { manyProfilesDeployConfig, profileName } from '../fixtures/many-profiles.ts';
import {
  APPCONFIG_READ_ACTIONS,
  appConfigIds,
  appConfigStatements,
  cdkJsonContext,
  configurationArn,
  environmentOf,
  liveAliasOf,
  removeTempOutdirs,
  roleStatements,
  synthViolations,
  tempOutdir,
  testApp,
  type Violation,
} from './helpers.ts';

// A CommonJS module whose default export is the class: loaded as Node loads it.
const AjvDraft04 = createRequire(import.meta.url)(
  'ajv-draft-04',
) as typeof import('ajv-draft-04').default;

/** AppConfig takes at most this many characters in a validator's Content. */
const VALIDATOR_CONTENT_LIMIT = 32_768;
/** CloudFormation's template size limit (a template uploaded to S3, as CDK does). */
const TEMPLATE_BODY_LIMIT = 1_000_000;
/** CloudFormation's resource limit per stack. */
const STACK_RESOURCE_LIMIT = 500;
/** What NodeFunction assumes for a value CloudFormation fills in (an id, a URL). */
const UNRESOLVED_VALUE_BYTES = 128;

/** The functions the stack gives the `config:read` need, and the report refresher. */
const READERS = ['intake', 'report', 'forwarder', 'reconciler', 'admin', 'watch'] as const;

interface FunctionResource {
  Properties: {
    FunctionName?: string;
    Environment?: { Variables?: Record<string, unknown> };
    Role?: { 'Fn::GetAtt': [string, string] };
  };
}

/** A function's environment size as Lambda counts it, values only CloudFormation knows estimated. */
function environmentBytes(variables: Record<string, unknown>): number {
  return Object.entries(variables).reduce(
    (sum, [key, value]) =>
      sum +
      Buffer.byteLength(key) +
      (typeof value === 'string' ? Buffer.byteLength(value) : UNRESOLVED_VALUE_BYTES),
    0,
  );
}

/** How many profiles the deploy file holds (module comment). */
const PROFILES = 280;

describe(`a stack with ${PROFILES} profiles (npx cdk synth -c config=<file>)`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'leads-many-profiles-'));
  const file = join(dir, 'deploy.chain.json');
  let built: LeadsApp;
  let template: Template;
  let violations: Violation[];
  let functions: Record<string, FunctionResource>;
  /** Logical id of the function (and of its role) by its FUNCTIONS name. */
  let fnIds: (name: string) => { fn: string; role: string };

  beforeAll(() => {
    // Prepare: the deploy configuration file an operator would write.
    writeFileSync(file, JSON.stringify(manyProfilesDeployConfig({ count: PROFILES }), null, 2));

    // Act: what `npx cdk synth -c config=<file>` does: the app reads the file named by the
    // context, runs the cdk-nag packs and CDK's own CloudFormation validation.
    built = buildApp({
      outdir: tempOutdir(),
      context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], [CONFIG_CONTEXT_KEY]: file },
      env: {},
    });
    violations = synthViolations(built.app);
    template = Template.fromStack(built.stack);
    functions = template.findResources('AWS::Lambda::Function') as Record<string, FunctionResource>;
    fnIds = (name) => {
      const fn =
        name === 'report-refresher'
          ? built.stack.report.refresher
          : built.stack.functions.get(name);
      if (!fn) throw new Error(`no ${name} function`);
      return {
        fn: built.stack.getLogicalId(fn.node.defaultChild as CfnElement),
        role: built.stack.getLogicalId(fn.role?.node.defaultChild as CfnElement),
      };
    };
  }, 120_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    removeTempOutdirs();
  });

  it('synthesizes from the file with no unacknowledged cdk-nag (or CDK validation) finding', () => {
    // Assess
    expect(built.example).toBe(false);
    expect(built.stack.stackName).toBe('leads-chain');
    expect(Object.keys(built.config.settings.profiles)).toHaveLength(PROFILES);
    expect(violations).toEqual([]);
  });

  it('keeps every function environment under 4 KB, the same with many profiles as with 3, and no LEADS_SETTINGS', () => {
    // Prepare: the same stack (same stage, same construct paths) with three profiles.
    const small = new LeadsStack(testApp(), built.stack.node.id, {
      config: parseDeployConfig(manyProfilesDeployConfig({ count: 3 })),
    });
    const smallFunctions = Template.fromStack(small).findResources('AWS::Lambda::Function');

    // Act
    const environments = Object.entries(functions).map(([id, fn]) => ({
      id,
      variables: fn.Properties.Environment?.Variables ?? {},
    }));

    // Assess
    expect(environments).toHaveLength(Object.keys(FUNCTIONS).length + 1);
    for (const { id, variables } of environments) {
      expect(environmentBytes(variables), id).toBeLessThan(LAMBDA_ENV_LIMIT_BYTES);
      expect(variables, id).not.toHaveProperty('LEADS_SETTINGS');
      expect(JSON.stringify(variables), id).not.toContain(profileName(0));
      // The settings do not travel with the function: its variables do not grow with them.
      expect(variables, id).toEqual(
        (smallFunctions[id] as FunctionResource | undefined)?.Properties.Environment?.Variables,
      );
    }
  });

  it('holds no setting in the template: no version, no deployment, no profile name', () => {
    template.resourceCountIs('AWS::AppConfig::HostedConfigurationVersion', 0);
    template.resourceCountIs('AWS::AppConfig::Deployment', 0);
    const body = JSON.stringify(template.toJSON());
    expect(body).not.toContain(profileName(0));
    expect(body).not.toContain(`lp-${PROFILES}`);
    expect(body).not.toContain('qual_seu_cpf');
  });

  it('gives the settings `npm run deploy` pushes to both of the profile’s validators, which pass them', () => {
    // Prepare: the JSON Schema validator as the template holds it, and the validator
    // function's own checks (functions/config/validator/validate.ts).
    const ids = appConfigIds(template);
    const profile = template.findResources('AWS::AppConfig::ConfigurationProfile')[ids.profile] as {
      Properties: { Validators: Array<{ Type: string; Content: unknown }> };
    };
    const schema = profile.Properties.Validators.find((v) => v.Type === 'JSON_SCHEMA')?.Content;
    if (typeof schema !== 'string') throw new Error('no JSON Schema validator');
    // AppConfig's JSON Schema validator takes draft-04: compile it with a draft-04 validator.
    const parsed = JSON.parse(schema);
    expect(parsed.$schema).toBe('http://json-schema.org/draft-04/schema#');
    const validate = new AjvDraft04({
      strict: false,
      allErrors: true,
      validateFormats: false,
    }).compile(parsed);

    // Act: the content `npm run deploy` stores (scripts/config-store.ts push).
    const text = JSON.stringify(built.config.settings);
    const bySchema = validate(JSON.parse(text));
    const byFunction = validateSettingsText(text, PROFILE_RULES);

    // Assess
    expect(bySchema, JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...JSON.parse(text), report: { branches: 'all' } })).toBe(false);
    expect(Object.keys(byFunction.profiles)).toHaveLength(PROFILES);
    // The schema does not grow with the profiles, and fits AppConfig's validator limit.
    expect(schema.length).toBeLessThanOrEqual(VALIDATOR_CONTENT_LIMIT);
  });

  it("creates no secret per profile or account, and stays far under CloudFormation's 500 resources and 1 MB", () => {
    const resources = Object.keys(template.toJSON().Resources as object).length;
    const secrets = Object.values(template.findResources('AWS::SecretsManager::Secret')).map(
      (s) => (s as { Properties: { Name: string } }).Properties.Name,
    );
    expect(secrets).toHaveLength(22);
    expect(secrets.some((name) => name.includes('south') || name.includes('lp-'))).toBe(false);
    expect(resources).toBeLessThan(STACK_RESOURCE_LIMIT);
    expect(Buffer.byteLength(JSON.stringify(template.toJSON()))).toBeLessThan(TEMPLATE_BODY_LIMIT);
  });

  describe('functions read the store, not an environment variable', () => {
    it('gives config:read to the functions that need the settings, and only to them', () => {
      // Act
      const specs: Record<string, FunctionSpec> = FUNCTIONS;
      const needing = Object.entries(specs)
        .filter(([, spec]) => spec.needs?.includes('config:read'))
        .map(([name]) => name)
        .sort();

      // Assess
      expect(needing).toEqual([...READERS].sort());
    });

    it.each([...READERS, 'report-refresher'])(
      '%s: the three LEADS_APPCONFIG_* names of the store, and the two data-plane actions on its configuration only',
      (name) => {
        // Prepare
        const ids = appConfigIds(template);
        const { fn, role } = fnIds(name);

        // Act
        const variables = environmentOf(template, fn);
        const statements = roleStatements(template, role);

        // Assess
        expect(variables).toMatchObject({
          [ENV.appConfigApplication]: { Ref: ids.application },
          [ENV.appConfigEnvironment]: { Ref: ids.environment },
          [ENV.appConfigProfile]: { Ref: ids.profile },
        });
        expect(variables).not.toHaveProperty('LEADS_SETTINGS');
        expect(appConfigStatements(statements)).toEqual([
          {
            Effect: 'Allow',
            Action: APPCONFIG_READ_ACTIONS,
            Resource: [configurationArn(template)],
          },
        ]);
      },
    );

    it.each(['authorizer', 'openapi', 'config-validator'])(
      '%s: neither the names nor any AppConfig grant',
      (name) => {
        // Prepare
        const { fn, role } = fnIds(name);

        // Act
        const variables = environmentOf(template, fn);
        const statements = roleStatements(template, role);

        // Assess
        expect(Object.keys(variables).filter((key) => key.startsWith('LEADS_APPCONFIG_'))).toEqual(
          [],
        );
        expect(appConfigStatements(statements)).toEqual([]);
      },
    );

    it('names no other AppConfig resource in any policy', () => {
      // Act
      const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
        Properties: { PolicyDocument: { Statement: Array<{ Action: string | string[] }> } };
      }>;
      const appConfigActions = new Set(
        policies
          .flatMap((p) => p.Properties.PolicyDocument.Statement)
          .flatMap((s) => [s.Action].flat())
          .filter((action) => action.startsWith('appconfig:')),
      );

      // Assess: read-only, data plane only; no control-plane action (that is the CLI's).
      expect([...appConfigActions].sort()).toEqual(APPCONFIG_READ_ACTIONS);
    });
  });

  describe('the store', () => {
    it('is the application leads-<stage>, the environment <stage> and the hosted profile settings', () => {
      // Act
      const ids = appConfigIds(template);

      // Assess
      template.hasResourceProperties('AWS::AppConfig::Application', { Name: 'leads-chain' });
      template.hasResourceProperties('AWS::AppConfig::Environment', {
        Name: 'chain',
        ApplicationId: { Ref: ids.application },
      });
      template.hasResourceProperties('AWS::AppConfig::ConfigurationProfile', {
        Name: SETTINGS_PROFILE,
        LocationUri: 'hosted',
        ApplicationId: { Ref: ids.application },
      });
    });

    it("validates each version with a JSON Schema and the config-validator's live alias, which AppConfig of this account may invoke", () => {
      // Prepare
      const ids = appConfigIds(template);
      const validator = liveAliasOf(template, fnIds('config-validator').fn);

      // Act
      const profile = template.findResources('AWS::AppConfig::ConfigurationProfile')[
        ids.profile
      ] as { Properties: { Validators: Array<{ Type: string; Content: unknown }> } };
      const permissions = (
        Object.values(template.findResources('AWS::Lambda::Permission')) as Array<{
          Properties: unknown;
        }>
      )
        .filter((p) => JSON.stringify(p).includes(`"${validator}"`))
        .map((p) => p.Properties);

      // Assess
      expect(profile.Properties.Validators).toEqual([
        { Type: 'JSON_SCHEMA', Content: JSON.stringify(settingsStoreJsonSchema()) },
        { Type: 'LAMBDA', Content: { Ref: validator } },
      ]);
      expect(permissions).toEqual([
        {
          Action: 'lambda:InvokeFunction',
          FunctionName: { Ref: validator },
          Principal: 'appconfig.amazonaws.com',
          SourceAccount: { Ref: 'AWS::AccountId' },
        },
      ]);
      // The validator is behind no route and reads nothing but its logs and traces' grants.
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: 'leads-chain-config-validator',
      });
      const actions = roleStatements(template, fnIds('config-validator').role).flatMap(
        (s) => s.Action,
      );
      expect([...new Set(actions)].sort()).toEqual([
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
    });

    it('deploys versions all at once, without bake time (the strategy `config push` finds by name)', () => {
      // Assess
      template.hasResourceProperties('AWS::AppConfig::DeploymentStrategy', {
        GrowthType: 'LINEAR',
        GrowthFactor: 100,
        DeploymentDurationInMinutes: 0,
        FinalBakeTimeInMinutes: 0,
      });
    });
  });
});
