/** Shared set-up for the infra tests: apps with cdk.json's feature flags, cdk-nag reports. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type AppProps, Stack, Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { type DeployConfig, parseDeployConfig, REPO_ROOT } from '../../infra/config.ts';

/** The feature flags and other context of cdk.json, as `cdk synth` passes them. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

const outdirs: string[] = [];

/** A fresh cloud assembly directory; removeTempOutdirs() deletes them (afterAll). */
export function tempOutdir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'leads-cdk-'));
  outdirs.push(dir);
  return dir;
}

export function removeTempOutdirs(): void {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface TestAppOptions extends AppProps {
  /** Run esbuild for NodejsFunctions (slow-ish); off by default. */
  bundle?: boolean;
}

/**
 * An app with cdk.json's flags, no bundling and no built-in CloudFormation validation (it
 * takes seconds per synth; the app test keeps it on).
 */
export function testApp({ bundle = false, context, ...props }: TestAppOptions = {}): App {
  return new App({
    outdir: tempOutdir(),
    builtinCloudFormationValidation: false,
    ...props,
    context: {
      ...cdkJsonContext(),
      ...(!bundle && { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
  });
}

export function testStack(app: App = testApp(), id = 'test'): Stack {
  return new Stack(app, id);
}

/** A small deploy configuration with every kind of profile. */
export function deployConfig(overrides: Record<string, unknown> = {}): DeployConfig {
  return parseDeployConfig({
    stage: 'prod',
    upstream: { baseUrl: 'https://upstream.example.com', maxPerSecond: 4, maxPerMinute: 36 },
    profiles: {
      site: { source: 'form', defaults: { idBranch: 1 } },
      meta: { source: 'meta', forms: { '123': { idBranch: 2 } } },
      native: { source: 'prospect' },
    },
    report: { branches: [1], refreshSeconds: 900 },
    // Test stacks are never deployed; alarmEmail in `overrides` replaces this.
    ...(!('alarmEmail' in overrides) && { noAlarmEmail: 'a test stack: nobody reads its alarms' }),
    ...overrides,
  });
}

export interface Violation {
  plugin: string;
  rule: string;
  severity: string;
  paths: string[];
}

interface ValidationReport {
  pluginReports: Array<{
    pluginName: string;
    violations: Array<{
      ruleName: string;
      severity: string;
      violatingConstructs: Array<{ constructPath: string }>;
    }>;
  }>;
}

/** Registers the same cdk-nag packs as infra/app.ts. */
export function addNagPacks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
}

/**
 * Synthesizes the app without failing on findings and returns every finding of the validation
 * report (cdk-nag packs, CDK's own checks and annotations), errors and warnings alike.
 */
export function synthViolations(app: App): Violation[] {
  const reportFile = join(app.outdir, 'validation-report.json');
  try {
    app.synth();
  } catch (error) {
    // Errors stop synthesis after the report is written; the report is what we want.
    if (!existsSync(reportFile)) throw error;
  }
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ValidationReport;
  return report.pluginReports.flatMap((plugin) =>
    plugin.violations.map((v) => ({
      plugin: plugin.pluginName,
      rule: v.ruleName,
      severity: v.severity,
      paths: v.violatingConstructs.map((c) => c.constructPath),
    })),
  );
}

/**
 * Every acknowledgement in the tree: construct path, rule id, reason. cdk-nag's by default;
 * with `plugin`, that policy-validation plugin's (ids `<plugin>::<rule>`, such as Control
 * Tower's `cdk-validator-cfnguard::…`, test/infra/control-tower.test.ts).
 */
export function acknowledgements(
  app: App,
  plugin?: string,
): Array<{ path: string; id: string; reason: string }> {
  // A plugin's namespace comes before the first `::` outside brackets (cdk-nag's ids have
  // `::` only inside them: `AwsSolutions-IAM5[Resource::*]`).
  const namespaced = (id: string) => /^[^[\]]+::/.test(id);
  const mine = (id: string) => (plugin ? id.startsWith(`${plugin}::`) : !namespaced(id));
  return acknowledgedRules(app).filter((ack) => mine(ack.id));
}

function acknowledgedRules(app: App): Array<{ path: string; id: string; reason: string }> {
  return app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

/** The logical id of the only resource of a type. */
export function onlyLogicalId(template: Template, type: string): string {
  const ids = Object.keys(template.findResources(type));
  if (ids.length !== 1) throw new Error(`expected one ${type}, found ${ids.length}`);
  return ids[0] as string;
}

/** An IAM statement with Action and Resource always as lists. */
export interface PolicyStatementJson {
  Effect: string;
  Action: string[];
  Resource: unknown[];
}

/** Every statement of the policies attached to a role (by its logical id). */
export function roleStatements(template: Template, roleLogicalId: string): PolicyStatementJson[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
    Properties: {
      Roles: unknown[];
      PolicyDocument: {
        Statement: Array<{ Effect: string; Action: string | string[]; Resource: unknown }>;
      };
    };
  }>;
  return policies
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${roleLogicalId}"`))
    .flatMap((p) => p.Properties.PolicyDocument.Statement)
    .map((s) => ({ Effect: s.Effect, Action: [s.Action].flat(), Resource: [s.Resource].flat() }));
}

/** The sorted actions of the statements whose resources mention `logicalId`. */
export function actionsOn(statements: PolicyStatementJson[], logicalId: string): string[] {
  const on = statements.filter((s) => JSON.stringify(s.Resource).includes(`"${logicalId}"`));
  return [...new Set(on.flatMap((s) => s.Action))].sort();
}

/** The environment variables of the function `fnId` (logical id) as the template has them. */
export function environmentOf(template: Template, fnId: string): Record<string, unknown> {
  const fn = template.findResources('AWS::Lambda::Function')[fnId] as
    | { Properties: { Environment?: { Variables?: Record<string, unknown> } } }
    | undefined;
  if (!fn) throw new Error(`no function ${fnId} in the template`);
  return fn.Properties.Environment?.Variables ?? {};
}

/** The logical id of the `live` alias of the function `fnId` (logical id). */
export function liveAliasOf(template: Template, fnId: string): string {
  const aliases = template.findResources('AWS::Lambda::Alias', {
    Properties: { FunctionName: { Ref: fnId }, Name: 'live' },
  });
  const ids = Object.keys(aliases);
  if (ids.length !== 1) throw new Error(`expected one live alias of ${fnId}, found ${ids.length}`);
  return ids[0] as string;
}

/**
 * `METHOD /path` of every API method whose integration invokes the function `fnId`: through its
 * `live` alias, as every invoker does.
 */
export function routesOf(template: Template, fnId: string): string[] {
  const alias = liveAliasOf(template, fnId);
  const resources = template.findResources('AWS::ApiGateway::Resource') as Record<
    string,
    { Properties: { PathPart: string; ParentId: { Ref?: string } } }
  >;
  const pathOf = (id: string | undefined): string => {
    const resource = id === undefined ? undefined : resources[id];
    if (!resource) return '';
    return `${pathOf(resource.Properties.ParentId.Ref)}/${resource.Properties.PathPart}`;
  };
  const methods = Object.values(template.findResources('AWS::ApiGateway::Method')) as Array<{
    Properties: { HttpMethod: string; ResourceId: { Ref?: string }; Integration: unknown };
  }>;
  return methods
    .filter((m) => JSON.stringify(m.Properties.Integration).includes(`"${alias}"`))
    .map((m) => `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId.Ref) || '/'}`)
    .sort();
}

/**
 * The secret names a set of statements grants `action` on, as the policy writes them: a
 * stack-created secret by its `Ref` (its ARN; the name from the template), or a name with
 * Secrets Manager's `-??????` suffix, or a name pattern. Sorted.
 */
export function secretNamesGranted(
  statements: PolicyStatementJson[],
  action = 'secretsmanager:GetSecretValue',
  template?: Template,
): string[] {
  const secrets = (template?.findResources('AWS::SecretsManager::Secret') ?? {}) as Record<
    string,
    { Properties: { Name: string } }
  >;
  const names = statements
    .filter((s) => s.Action.includes(action))
    .flatMap((s) => s.Resource)
    .map((resource) => {
      const ref = (resource as { Ref?: string }).Ref;
      if (ref !== undefined) return secrets[ref]?.Properties.Name ?? `Ref:${ref}`;
      return /:secret:([^"]+)"\]\]\}$/.exec(JSON.stringify(resource))?.[1];
    })
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)].sort();
}

/** The two AppConfig data-plane actions a settings reader needs (infra/constructs/config-store.ts). */
export const APPCONFIG_READ_ACTIONS = [
  'appconfig:GetLatestConfiguration',
  'appconfig:StartConfigurationSession',
];

/** The logical ids of the configuration store's AppConfig resources (one of each). */
export function appConfigIds(template: Template) {
  return {
    application: onlyLogicalId(template, 'AWS::AppConfig::Application'),
    environment: onlyLogicalId(template, 'AWS::AppConfig::Environment'),
    profile: onlyLogicalId(template, 'AWS::AppConfig::ConfigurationProfile'),
    strategy: onlyLogicalId(template, 'AWS::AppConfig::DeploymentStrategy'),
  };
}

/** The ARN of the settings' configuration profile in its environment, as the template writes it. */
export function configurationArn(template: Template): unknown {
  const ids = appConfigIds(template);
  return {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':appconfig:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        ':application/',
        { Ref: ids.application },
        '/environment/',
        { Ref: ids.environment },
        '/configuration/',
        { Ref: ids.profile },
      ],
    ],
  };
}

/** The statements of `statements` that grant any AppConfig action. */
export function appConfigStatements(statements: PolicyStatementJson[]): PolicyStatementJson[] {
  return statements.filter((s) => s.Action.some((a) => a.startsWith('appconfig:')));
}
