/**
 * The operator CLI's help and version, in this process and as the bin: `--help` and `help
 * <command>` answer for every command with exit code 0, `--version` says package.json's version,
 * and a wrong command line still exits 2.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/commands/index.ts';
import { main } from '../../cli/leads.ts';
import pkg from '../../package.json' with { type: 'json' };
import { REPO_ROOT } from '../helpers/gateway-process.ts';

/** The CLI in this process; no gateway is called (no LEADS_URL is reachable at port 9). */
async function leads(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    env: { LEADS_URL: 'http://127.0.0.1:9' },
    io: { out: (text) => out.push(text), err: (text) => err.push(text) },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('leads --help and --version', () => {
  it('prints every command’s help with exit code 0, as <command> --help and as help <command>', async () => {
    for (const command of COMMANDS) {
      // Act
      const words = command.name.split(' ');
      const asOption = await leads([...words, '--help']);
      const asCommand = await leads(['help', ...words]);

      // Assess
      expect(asOption, command.name).toMatchObject({ code: 0, err: '' });
      expect(asOption.out.split('\n')[0]).toBe(`uso: npm run -s leads -- ${command.usage}`);
      expect(asOption.out).toContain(command.summary);
      expect(asCommand).toEqual(asOption);
    }
  });

  it('lists the commands for help, --help, no arguments, and a group’s help (config)', async () => {
    // Act
    const runs = await Promise.all([[], ['help'], ['--help'], ['-h']].map((args) => leads(args)));
    const config = await leads(['config', '--help']);

    // Assess
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/^uso: /);
      expect(run.out).toContain('comandos:');
      for (const command of COMMANDS) expect(run.out).toContain(command.usage);
    }
    expect(config.code).toBe(0);
    expect(config.out).toContain('config rollback ARQUIVO [--to VERSÃO]');
    expect(config.out).not.toContain('retry <leadId>');
  });

  it('says its version with --version, alone or after a command, and touches no gateway', async () => {
    // Act
    const runs = await Promise.all(
      [['--version'], ['-v'], ['list', '--version']].map((args) => leads(args)),
    );

    // Assess
    for (const run of runs) expect(run).toEqual({ code: 0, out: pkg.version, err: '' });
  });

  it('still refuses a wrong command line with exit code 2', async () => {
    // Act
    const unknown = await leads(['help', 'frobnicate']);
    const none = await leads(['--json']);
    const jsonForText = await leads(['config', 'validate', 'config/deploy.example.json', '--json']);
    const unknownOption = await leads(['list', '--bogus']);
    const noValue = await leads(['list', '--status']);

    // Assess
    expect(unknown).toMatchObject({
      code: 2,
      out: '',
      err: expect.stringContaining('comando desconhecido: frobnicate'),
    });
    expect(none).toMatchObject({
      code: 2,
      out: '',
      err: expect.stringContaining('nenhum comando informado'),
    });
    expect(jsonForText).toMatchObject({
      code: 2,
      out: '',
      err: expect.stringContaining('--json não se aplica'),
    });
    expect(unknownOption).toMatchObject({ code: 2, out: '' });
    expect(unknownOption.err.split('\n')).toEqual([
      'erro: opção desconhecida: --bogus',
      'uso: npm run -s leads -- list [--status <status>] [--limit <n>] [--all]',
      '(npm run -s leads -- help lista os comandos)',
    ]);
    expect(noValue).toMatchObject({
      code: 2,
      err: expect.stringContaining('a opção --status precisa de um valor'),
    });
  });

  it('runs as the bin: --version and --help exit 0 from any directory', async () => {
    // Act
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, [join(REPO_ROOT, 'bin', 'leads.js'), ...args], {
        cwd: '/',
      });
    const [version, help] = await Promise.all([run(['--version']), run(['show', '--help'])]);

    // Assess: a failure would reject with the exit code.
    expect(version.stdout).toBe(`${pkg.version}\n`);
    expect(help.stdout).toMatch(/^uso: .* show <leadId>\n/);
  });
});
