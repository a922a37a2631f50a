/**
 * `npm run deploy|diff|destroy -- -c config=config/deploy.<stage>.json`: the CDK CLI, refusing
 * at once (before it synthesizes, publishes assets or touches AWS) when no deploy configuration
 * is named, since the app would then build the undeployable example (infra/app.ts). The
 * configuration is named by `-c config=<path>` / `--context config=<path>` or LEADS_DEPLOY_CONFIG.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { CONFIG_ENV, HOW_TO_CHOOSE_A_CONFIG, REPO_ROOT } from '../infra/config.ts';

/** The CDK commands that act on a deployed stack, so need a real configuration. */
export const STACK_COMMANDS = ['deploy', 'diff', 'destroy'] as const;

/** The deploy configuration named on the command line (`-c config=x`, `--context=config=x`...). */
export function configArgument(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const inline = /^(?:-c|--context)=(.*)$/.exec(arg);
    const pair = inline ? inline[1] : arg === '-c' || arg === '--context' ? args[i + 1] : undefined;
    const value = /^config=(.+)$/.exec(pair ?? '')?.[1]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** Why this CDK command line must not run, or undefined when it may. */
export function refusal(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const command = args[0];
  if (!STACK_COMMANDS.includes(command as (typeof STACK_COMMANDS)[number])) {
    return `usage: scripts/cdk.ts ${STACK_COMMANDS.join('|')} -c config=<deploy config> [cdk options]`;
  }
  if (configArgument(args) || env[CONFIG_ENV]?.trim()) return undefined;
  return `cdk ${command}: no deploy configuration given, and the example cannot be deployed; ${HOW_TO_CHOOSE_A_CONFIG}`;
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) {
  const args = process.argv.slice(2);
  const why = refusal(args);
  if (why) {
    process.stderr.write(`${why}\n`);
    process.exit(2);
  }
  const cdk = join(REPO_ROOT, 'node_modules', '.bin', 'cdk');
  const run = spawnSync(cdk, args, { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
