/**
 * `npm run config -- validate --local FILE`, as an operator runs it: the local configuration
 * file (secrets included) checked offline with `npm start`'s own checks, printing what
 * `npm start` prints for the same file.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runLocalUntilExit } from '../helpers/gateway-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'leads-validate-local-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DEMO = join(REPO_ROOT, 'config/demo.json');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run config -- ...args`, in its own process. */
function config(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/config.ts', ...args],
      {
        cwd: REPO_ROOT,
      },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The demo configuration with `edit` made, written to a file. */
// biome-ignore lint/suspicious/noExplicitAny: the demo file broken on purpose
function demoWith(name: string, edit: (config: Record<string, any>) => void): string {
  const config = JSON.parse(readFileSync(DEMO, 'utf8'));
  edit(config);
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

describe('npm run config -- validate --local FILE', () => {
  it('accepts the demo file, secrets and all, where the deploy validation refuses its secrets and points at --local', {
    timeout: 60_000,
  }, async () => {
    // Act
    const [local, deploy] = await Promise.all([
      config('validate', '--local', 'config/demo.json'),
      config('validate', 'config/demo.json'),
    ]);

    // Assess
    expect(local).toEqual({
      code: 0,
      stdout: 'válida: 1 conta(s), 19 perfil(is), 3 cliente(s)\n',
      stderr: '',
    });
    expect(deploy.code).toBe(1);
    expect(deploy.stderr).toMatch(/^Valores secretos em config\/demo\.json:\n/);
    expect(deploy.stderr).toContain(
      '  upstream.password: um valor secreto não fica na configuração de deploy',
    );
    expect(deploy.stderr).not.toContain('demo-site-token');
    expect(deploy.stderr.trimEnd().split('\n').at(-1)).toBe(
      'Se config/demo.json é uma configuração local (a de npm start, com segredos): npm run config -- validate --local config/demo.json',
    );
  });

  it('prints exactly what npm start prints for the same broken file, and exits 1', {
    timeout: 60_000,
  }, async () => {
    // Prepare: a profile without a branch, a name that is no URL, a typo, an unknown account
    const path = demoWith('broken.json', (c) => {
      // No named branches either: nothing gives lp-nova's leads a branch.
      delete c.upstream.branches;
      c.profiles['lp-nova'] = { source: 'form', token: 'lp-nova-token' };
      c.profiles['LP-Centro'] = { ...c.profiles.site };
      c.profiles.site.default = c.profiles.site.defaults;
      delete c.profiles.site.defaults;
      c.profiles.native.upstream = 'north';
    });

    // Act
    const [validated, started] = await Promise.all([
      config('validate', '--local', path),
      runLocalUntilExit({ PORT: '0', SANDBOX_PORT: '0', LEADS_CONFIG: path }),
    ]);

    // Assess
    expect(validated.code).toBe(1);
    expect(started.code).toBe(1);
    expect(validated.stdout).toBe('');
    expect(validated.stderr).toBe(started.stderr);
    expect(validated.stderr.split('\n')).toEqual([
      `Configuração inválida em ${path}:`,
      '  profiles.site.default: chave desconhecida: você quis dizer "defaults"?',
      expect.stringMatching(/^ {2}profiles\.lp-nova: um perfil precisa de "defaults\.idBranch", /),
      expect.stringMatching(/^ {2}profiles\.LP-Centro: o nome de um perfil .*: use "lp-centro"$/),
      '  profiles.native.upstream: nomeia a conta "north", que não está configurada (contas: "default")',
      '',
    ]);
    expect(validated.stderr).not.toContain('lp-nova-token');
  });

  it('says how to call it when the file is missing, and names a file that does not exist', {
    timeout: 60_000,
  }, async () => {
    // Act
    const [noFile, missing] = await Promise.all([
      config('validate', '--local'),
      config('validate', '--local', join(dir, 'nowhere.json')),
    ]);

    // Assess: a wrong command line exits 2 with the usage, a file that cannot be read 1
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('npm run config -- validate --local FILE');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `Não foi possível ler a configuração em ${join(dir, 'nowhere.json')}:\n  o arquivo não existe\n`,
    );
  });
});
