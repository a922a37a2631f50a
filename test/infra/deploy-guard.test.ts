import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, EXAMPLE_GUARD_PARAMETER } from '../../infra/app.ts';
import { CONFIG_ENV, DEFAULT_DEPLOY_CONFIG, REPO_ROOT } from '../../infra/config.ts';
import { cdkJsonContext, removeTempOutdirs, tempOutdir } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'leads-deploy-guard-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeTempOutdirs();
});

/** The committed example with some keys replaced (or removed when `undefined`), as a file. */
function exampleVariant(name: string, changes: Record<string, unknown>): string {
  const raw = JSON.parse(readFileSync(DEFAULT_DEPLOY_CONFIG, 'utf8')) as Record<string, unknown>;
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete raw[key];
    else raw[key] = value;
  }
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(raw));
  return path;
}

/** What `cdk synth` passes: cdk.json's context (plus `config` when given), no bundling. */
function build(context: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) {
  return buildApp({
    outdir: tempOutdir(),
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context },
    env,
  });
}

interface ParameterJson {
  Type: string;
  Default?: unknown;
  AllowedPattern?: string;
  Description?: string;
}

function parametersOf(template: Template): Record<string, ParameterJson> {
  return (template.toJSON() as { Parameters?: Record<string, ParameterJson> }).Parameters ?? {};
}

/** The app as `cdk` runs it (no CDK_OUTDIR: nothing is synthesized), with its own environment. */
function runApp(env: NodeJS.ProcessEnv) {
  const { [CONFIG_ENV]: _config, CDK_OUTDIR: _outdir, ...inherited } = process.env;
  return spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env },
    encoding: 'utf8',
  });
}

describe('deploying the example by accident', () => {
  it('builds the example as stack leads-example, marked as such, when no config is given', () => {
    // Act
    const built = build();

    // Assess
    expect(built.example).toBe(true);
    expect(built.stack.stackName).toBe('leads-example');
    expect(built.stack.templateOptions.description).toMatch(/EXAMPLE configuration/);
    expect(built.notice).toContain('cannot be deployed');
    expect(built.notice).toContain('-c config=config/deploy.<stage>.json');
  });

  it("makes the example's template undeployable: a parameter no value can satisfy", () => {
    // Act
    const template = Template.fromStack(build().stack);

    // Assess
    const guard = parametersOf(template)[EXAMPLE_GUARD_PARAMETER];
    expect(guard).toBeDefined();
    expect(guard?.Default).toBeUndefined();
    const pattern = new RegExp(`^(?:${guard?.AllowedPattern})$`);
    for (const value of ['', 'x', 'yes', 'prod', 'example', 'deploy anyway']) {
      expect(pattern.test(value), value).toBe(false);
    }
    expect(guard?.Description).toContain('-c config=');
    const rules = (template.toJSON() as { Rules?: Record<string, unknown> }).Rules ?? {};
    expect(JSON.stringify(rules.ExampleGuard)).toContain(`{"Ref":"${EXAMPLE_GUARD_PARAMETER}"}`);
  });

  it('builds a deployable stack named by the stage of the config given with -c config=', () => {
    // Prepare
    const prod = exampleVariant('prod.json', { stage: 'prod' });

    // Act
    const built = build({ config: prod });

    // Assess
    expect(built.example).toBe(false);
    expect(built.notice).toBeUndefined();
    expect(built.stack.stackName).toBe('leads-prod');
    expect(built.stack.templateOptions.description).toBe('Leads gateway (prod)');
    expect(parametersOf(Template.fromStack(built.stack))).not.toHaveProperty(
      EXAMPLE_GUARD_PARAMETER,
    );
  });

  it('reads the config named by LEADS_DEPLOY_CONFIG when no context is given', () => {
    // Prepare
    const staging = exampleVariant('staging.json', { stage: 'staging' });

    // Act
    const built = build({}, { [CONFIG_ENV]: staging });

    // Assess
    expect(built.stack.stackName).toBe('leads-staging');
    expect(built.example).toBe(false);
  });

  it('keeps a config of stage "example" undeployable even when it is passed explicitly', () => {
    // Act
    const built = build({ config: DEFAULT_DEPLOY_CONFIG });

    // Assess
    expect(built.example).toBe(true);
    expect(parametersOf(Template.fromStack(built.stack))).toHaveProperty(EXAMPLE_GUARD_PARAMETER);
  });

  it('refuses a config without a stage, saying so', () => {
    // Prepare
    const noStage = exampleVariant('no-stage.json', { stage: undefined });

    // Act / Assess
    expect(() => build({ config: noStage })).toThrow(/no-stage\.json:\n\s+stage: é obrigatório/);
  });

  it('prints what to pass on the command line: the example notice, or the problem and exit 1', () => {
    // Prepare
    const noStage = exampleVariant('cli-no-stage.json', { stage: undefined });

    // Act
    const example = runApp({});
    const refused = runApp({ [CONFIG_ENV]: noStage });

    // Assess
    expect(example.status).toBe(0);
    expect(example.stderr).toContain('Synthesized the EXAMPLE stack leads-example');
    expect(example.stderr).toContain('npx cdk deploy -c config=config/deploy.<stage>.json');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('  stage: é obrigatório (um texto)');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    // Two cold `node --import tsx` runs of the app: about 20 s alone, more beside the other
    // synthesizing test files.
  }, 90_000);
});
