/**
 * `npm run deploy|diff|destroy -- -c config=config/deploy.<stage>.json`: the CDK CLI, refusing
 * at once (before it synthesizes, publishes assets or touches AWS) when no deploy configuration
 * is named, since the app would then build the undeployable example (infra/app.ts). The
 * configuration is named by `-c config=<path>` / `--context config=<path>` or LEADS_DEPLOY_CONFIG.
 *
 * A deploy first runs the preflight (scripts/preflight.ts): the region and account, the CDK
 * bootstrap, and the account's Lambda concurrency against what the stack reserves; when one
 * falls short it says what to do (what to ask AWS for) and nothing is deployed.
 * `--skip-preflight` (taken off the command line before the CDK CLI sees it) skips it. The CDK
 * CLI always gets `-c skipPreflight=true`: the app's own concurrency check
 * (infra/synth-preflight.ts, for a plain `npx cdk deploy`) would only repeat this one.
 *
 * Once CloudFormation is done, a deploy stores the deploy file's settings in the configuration
 * store as a new version (`npm run config -- push`'s path: both validators, the history that
 * `rollback` uses), unless the deployed version holds them already: the settings never pass
 * through the template (infra/constructs/config-store.ts). It prints which secret entries are
 * still to fill in. Then it switches the ledger table's deletion protection on
 * (scripts/stack-protection.ts: not in the template, so that a failed first create can roll
 * back) and reminds that the alarm e-mail must be confirmed before any alarm arrives.
 *
 * A destroy first deletes the settings' hosted versions (the deploy made them, and AppConfig
 * refuses to delete a profile that has any); the retained resources stay (docs/deploy.md).
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import {
  CONFIG_ENV,
  DeployConfigError,
  deployConfigPath,
  HOW_TO_CHOOSE_A_CONFIG,
  REPO_ROOT,
} from '../infra/config.ts';
import { SKIP_PREFLIGHT_CONTEXT } from '../infra/synth-preflight.ts';

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

/** Skips the deploy's preflight; not passed on to the CDK CLI. */
export const SKIP_PREFLIGHT = '--skip-preflight';

/** Every `-c key=value` (or `--context`, `-c=`, `--context=`) of the command line. */
export function contextArguments(args: readonly string[]): Record<string, string> {
  const context: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const inline = /^(?:-c|--context)=(.*)$/.exec(arg);
    const pair = inline ? inline[1] : arg === '-c' || arg === '--context' ? args[i + 1] : undefined;
    const match = /^([^=]+)=(.*)$/.exec(pair ?? '');
    if (match) context[match[1] as string] = match[2] as string;
  }
  return context;
}

/**
 * What the CDK CLI is given: the command line, and `-c skipPreflight=true`, since the app's own
 * concurrency check (infra/synth-preflight.ts) is this script's preflight again: run before the
 * deploy (or skipped on purpose with --skip-preflight), and of no use to a diff or a destroy.
 */
export function cdkArguments(args: readonly string[]): string[] {
  return [...args, '-c', `${SKIP_PREFLIGHT_CONTEXT}=true`];
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

/** The preflight of a deploy: true when it may go on (what was found or wrong on stderr). */
async function preflightPasses(args: readonly string[]): Promise<boolean> {
  const { preflight, synthesizeForPreflight } = await import('./preflight.ts');
  const context = contextArguments(args);
  const path = deployConfigPath(context.config) as string;
  process.stderr.write('preflight: synthesizing the stack to read what it needs...\n');
  const input = await synthesizeForPreflight(path, context);
  const { problems, facts } = await preflight(input);
  for (const fact of facts) process.stderr.write(`preflight: ${fact}\n`);
  if (problems.length === 0) return true;
  process.stderr.write(
    `\npreflight: nothing was deployed, ${problems.length} thing(s) to do first:\n${problems.map((p) => `- ${p}`).join('\n')}\n\n(${SKIP_PREFLIGHT} deploys without these checks.)\n`,
  );
  return false;
}

/** After a deploy: the settings as a version (see the module comment); the exit code. */
async function storeSettings(args: readonly string[]): Promise<number> {
  const path = deployConfigPath(contextArguments(args).config) as string;
  const [{ pushUnlessCurrent }, { storedLines }, { AppConfigClient }, { SecretsManagerClient }] =
    await Promise.all([
      import('./config-store.ts'),
      import('./secret-store.ts'),
      import('@aws-sdk/client-appconfig'),
      import('@aws-sdk/client-secrets-manager'),
    ]);
  try {
    const clients = { appConfig: new AppConfigClient({}), secrets: new SecretsManagerClient({}) };
    const { pushed, entries } = await pushUnlessCurrent(path, clients);
    const lines = pushed
      ? [
          ...pushed.changes,
          `configurações: versão ${pushed.version} publicada (implantação ${pushed.deployment}); as funções a usam em até um minuto`,
        ]
      : ['configurações: a versão publicada já é a do arquivo; nenhuma versão nova'];
    for (const line of [...lines, ...storedLines(entries)]) {
      process.stdout.write(`${line}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(
      `o deploy terminou, mas as configurações não foram publicadas: ${(error as Error).message}\nrode: npm run config -- push ${path}\n`,
    );
    return 1;
  }
}

/**
 * After a deploy: the ledger table's deletion protection on (scripts/stack-protection.ts), and
 * the alarm e-mail's confirmation reminder; the exit code.
 */
async function afterDeploy(args: readonly string[]): Promise<number> {
  const path = deployConfigPath(contextArguments(args).config) as string;
  const [
    { loadDeployConfig },
    { protectLedgerTable },
    { CloudFormationClient },
    { DynamoDBClient },
  ] = await Promise.all([
    import('../infra/config.ts'),
    import('./stack-protection.ts'),
    import('@aws-sdk/client-cloudformation'),
    import('@aws-sdk/client-dynamodb'),
  ]);
  const config = loadDeployConfig(path);
  let code = 0;
  try {
    const { line } = await protectLedgerTable(`leads-${config.stage}`, {
      cloudFormation: new CloudFormationClient({}),
      dynamo: new DynamoDBClient({}),
    });
    process.stdout.write(`${line}\n`);
  } catch (error) {
    process.stderr.write(
      `o deploy terminou, mas a proteção contra exclusão da tabela do ledger não foi ligada: ${(error as Error).message}\nrode de novo: npm run deploy -- -c config=${path}\n`,
    );
    code = 1;
  }
  for (const line of alarmEmailReminder(config.alarmEmail)) process.stdout.write(`${line}\n`);
  return code;
}

/**
 * Before a destroy: the settings' hosted versions deleted, so that CloudFormation can delete
 * their configuration profile (scripts/config-store.ts, deleteSettingsVersions); the exit code.
 */
async function beforeDestroy(args: readonly string[]): Promise<number> {
  const path = deployConfigPath(contextArguments(args).config) as string;
  const [{ loadDeployConfig }, { deleteSettingsVersions }, { AppConfigClient }] = await Promise.all(
    [
      import('../infra/config.ts'),
      import('./config-store.ts'),
      import('@aws-sdk/client-appconfig'),
    ],
  );
  try {
    const { stage } = loadDeployConfig(path);
    const deleted = await deleteSettingsVersions(stage, new AppConfigClient({}));
    process.stdout.write(
      `configurações: ${deleted.length} versão(ões) hospedada(s) apagada(s) antes de excluir a pilha\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(
      `a pilha não foi excluída: as versões das configurações não puderam ser apagadas: ${(error as Error).message}\n`,
    );
    return 1;
  }
}

/** What a deploy says last about the alarm e-mail (SNS sends nothing until it is confirmed). */
export function alarmEmailReminder(alarmEmail: string | undefined): string[] {
  if (!alarmEmail) {
    return ['alarmes: nenhum e-mail assinado (noAlarmEmail); assine a saída AlarmTopicArn'];
  }
  return [
    `alarmes: confirme a assinatura no e-mail "AWS Notification - Subscription Confirmation" enviado a ${alarmEmail}`,
    '  até a confirmação, nenhum alarme chega (no primeiro deploy e sempre que o endereço mudar)',
  ];
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) {
  const given = process.argv.slice(2);
  const args = given.filter((arg) => arg !== SKIP_PREFLIGHT);
  const why = refusal(args);
  if (why) {
    process.stderr.write(`${why}\n`);
    process.exit(2);
  }
  if (args[0] === 'deploy' && !given.includes(SKIP_PREFLIGHT)) {
    try {
      if (!(await preflightPasses(args))) process.exit(1);
    } catch (error) {
      if (!(error instanceof DeployConfigError)) throw error;
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
  }
  if (args[0] === 'destroy') process.exitCode = await beforeDestroy(args);
  if (process.exitCode) process.exit(process.exitCode);
  const cdk = join(REPO_ROOT, 'node_modules', '.bin', 'cdk');
  const run = spawnSync(cdk, cdkArguments(args), { stdio: 'inherit' });
  if (run.status === 0 && args[0] === 'deploy') {
    const stored = await storeSettings(args);
    const after = await afterDeploy(args);
    process.exit(stored || after);
  }
  process.exit(run.status ?? 1);
}
