/**
 * `npm run config`'s command line, as the real command: help and version exit 0, a wrong command
 * line exits 2 with the usage on stderr, and nothing is sent to AWS for any of them.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { REPO_ROOT } from '../helpers/gateway-process.ts';

/** `npm run -s config -- ...args` (or the script it runs, without npm), with its exit code. */
function config(
  args: string[],
  through: 'npm' | 'node' = 'npm',
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [file, ...head] =
    through === 'npm'
      ? ['npm', 'run', '-s', 'config', '--']
      : [process.execPath, '--import', 'tsx', 'scripts/config.ts'];
  return new Promise((resolve) => {
    execFile(file as string, [...head, ...args], { cwd: REPO_ROOT }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

// Each run starts npm and tsx: seconds apiece on a busy machine.
describe('npm run config (command line)', { timeout: 90_000 }, () => {
  it('prints its help with exit code 0, for --help, help and a command’s --help', async () => {
    // Act
    const runs = [
      await config(['--help']),
      await config(['help'], 'node'),
      await config(['rollback', '-h'], 'node'),
    ];

    // Assess
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^usage: npm run config -- validate\|diff\|push FILE$/m);
      expect(run.stdout).toMatch(/^ {2}rollback FILE \[--to N\] +deploy an earlier version again/m);
    }
  });

  it('says its version with --version', async () => {
    expect(await config(['--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it('refuses a wrong command line with exit code 2 and the usage on stderr', async () => {
    // Act
    const runs = [
      await config(['validate']),
      await config(['frobnicate', 'x'], 'node'),
      await config(['validate', 'a.json', '--to', '3'], 'node'),
      await config(['push', '--force', 'a.json'], 'node'),
    ];

    // Assess
    for (const run of runs) {
      expect(run).toMatchObject({ code: 2, stdout: '' });
      expect(run.stderr).toContain('usage: npm run config --');
    }
    expect(runs[1]?.stderr).toContain('unknown command "frobnicate"');
    expect(runs[2]?.stderr).toContain('--to applies to rollback only');
    expect(runs[3]?.stderr).toContain("Unknown option '--force'");
  });
});
