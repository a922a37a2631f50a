/**
 * `npm run config -- <command> FILE`: the deployed stack's settings from a laptop, without a
 * deploy (docs/configuration.md). FILE is the deploy configuration (config/deploy.<stage>.json).
 *
 *   validate FILE            check it with the functions' own rules; nothing is sent
 *   validate --local FILE    check a local file (secrets allowed) as npm start does
 *   diff FILE                what push would change against the deployed version
 *   push FILE                write new secret entries, store and deploy a new version
 * (diff and push first warn about profiles leaving that received leads in the last 30 days,
 * read from the stack's ledger, table named by its `LedgerTableName` output; read only)
 *   rollback FILE [--to N]   deploy an earlier version again (default: the one before)
 *   secrets FILE [--from V]  fill in the stage's secrets: prompts with echo off on a terminal,
 *                            or the values file V (scripts/secret-fill.ts); prints no value
 *   schema                   write config/schema.json and config/deploy.schema.json
 *   help, --help, --version  this list, the version (exit code 0)
 *
 * AWS credentials and Region come from the SDK's default chain (AWS_PROFILE and ~/.aws, SSO, the
 * environment, container or instance credentials) for every call, the ledger's DynamoDB reads
 * included; AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> point them elsewhere. Exit
 * codes: 0 done, 1 refused or failed (the message on stderr), 2 a wrong command line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DeployConfigError, loadDeployConfig, REPO_ROOT } from '../infra/config.ts';
import pkg from '../package.json' with { type: 'json' };
import { schemaFiles } from './config-schema-files.ts';
import {
  type ConfigClients,
  ConfigCommandError,
  diff,
  push,
  rollback,
  validateCommand,
} from './config-store.ts';
import { storedLines } from './secret-store.ts';

const USAGE = `usage: npm run config -- validate|diff|push FILE
       npm run config -- validate --local FILE
       npm run config -- rollback FILE [--to VERSION]
       npm run config -- secrets FILE [--from VALUES]
       npm run config -- schema`;

const HELP = `${USAGE}

  validate FILE            check a deploy configuration with the functions' own rules (offline)
  validate --local FILE    check a local configuration (secrets allowed), as npm start checks it
  diff FILE                what push would change against the deployed settings
  push FILE                write the secret entries new profiles/accounts need, store and deploy the settings
  rollback FILE [--to N]   deploy an earlier version again (default: the one before)
  secrets FILE             fill in the stage's secrets, asked on the terminal with echo off
  secrets FILE --from V    the same from a values file (JSON or path=value lines, docs/deploy.md)
  schema                   write config/schema.json and config/deploy.schema.json

FILE is the deploy configuration (config/deploy.<stage>.json). AWS credentials and Region come
from the usual places (AWS_PROFILE, AWS_REGION, ...). --help: this text; --version: the version.`;

/** A wrong command line: the usage on stderr, exit code 2. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Which files each command takes: [least, most]. */
const FILES: Record<string, readonly [number, number]> = {
  validate: [1, 1],
  diff: [1, 1],
  push: [1, 1],
  rollback: [1, 1],
  secrets: [1, 1],
  schema: [0, 0],
};

const OPTIONS = {
  to: { type: 'string' },
  from: { type: 'string' },
  local: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

function parseLine(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
}

/** The command line, checked: the command, its file, `--to`; or what to print and stop. */
function parse(
  args: string[],
):
  | { command: string; file?: string; to?: string; from?: string; local?: boolean }
  | { print: string } {
  const { values, positionals } = parseLine(args);
  const [command, ...files] = positionals;
  if (values.help || command === 'help') return { print: HELP };
  if (values.version) return { print: pkg.version };
  if (command === undefined) throw new UsageError(USAGE);
  const counts = FILES[command];
  if (!counts) throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  if (files.length < counts[0] || files.length > counts[1]) throw new UsageError(USAGE);
  if (values.to !== undefined && command !== 'rollback') {
    throw new UsageError(`--to applies to rollback only\n${USAGE}`);
  }
  if (values.local && command !== 'validate') {
    throw new UsageError(`--local applies to validate only\n${USAGE}`);
  }
  if (values.from !== undefined && command !== 'secrets') {
    throw new UsageError(`--from applies to secrets only\n${USAGE}`);
  }
  if (command === 'secrets' && values.from === undefined && !process.stdin.isTTY) {
    throw new UsageError(
      `secrets: sem um terminal para perguntar, dê os valores num arquivo: --from VALUES\n${USAGE}`,
    );
  }
  return {
    command,
    file: files[0],
    to: values.to,
    from: values.from,
    local: values.local === true,
  };
}

async function clients() {
  const [{ AppConfigClient }, { SecretsManagerClient }] = await Promise.all([
    import('@aws-sdk/client-appconfig'),
    import('@aws-sdk/client-secrets-manager'),
  ]);
  return { appConfig: new AppConfigClient({}), secrets: new SecretsManagerClient({}) };
}

/**
 * The stage's lead ledger, read only (the warnings about profiles leaving): its table from the
 * stack's `LedgerTableName` output. Undefined, with the reason, when it cannot be reached.
 */
async function ledgerClients(
  file: string,
): Promise<{ ledger?: ConfigClients['ledger']; ledgerUnavailable?: string }> {
  let stage: string;
  try {
    stage = loadDeployConfig(file).stage;
  } catch {
    return {}; // the command itself says what is wrong with the file
  }
  try {
    const [{ CloudFormationClient, DescribeStacksCommand }, dynamo, ledger] = await Promise.all([
      import('@aws-sdk/client-cloudformation'),
      import('../functions/kernel/dynamodb-aws.ts'),
      import('../functions/ledger/lead-ledger-dynamodb.ts'),
    ]);
    const stacks = await new CloudFormationClient({}).send(
      new DescribeStacksCommand({ StackName: `leads-${stage}` }),
    );
    const tableName = stacks.Stacks?.[0]?.Outputs?.find(
      (output) => output.OutputKey === 'LedgerTableName',
    )?.OutputValue;
    if (!tableName)
      return { ledgerUnavailable: `a pilha leads-${stage} não tem a saída LedgerTableName` };
    return { ledger: ledger.createDynamoLedger({ client: dynamo.createDynamoDb(), tableName }) };
  } catch (error) {
    return { ledgerUnavailable: `pilha leads-${stage}: ${(error as Error).name}` };
  }
}

function print(lines: readonly string[]): void {
  for (const line of lines) process.stdout.write(`${line}\n`);
}

async function main(args: string[]): Promise<void> {
  const line = parse(args);
  if ('print' in line) {
    print([line.print]);
    return;
  }
  const { command, file = '', to, from, local } = line;
  if (command === 'schema') {
    for (const [name, schema] of Object.entries(schemaFiles())) {
      writeFileSync(join(REPO_ROOT, name), `${JSON.stringify(schema, null, 2)}\n`);
      print([`wrote ${name}`]);
    }
    return;
  }
  switch (command) {
    case 'validate': {
      print([validateCommand([file, ...(local ? ['--local'] : [])])]);
      return;
    }
    case 'diff': {
      const result = await diff(file, { ...(await clients()), ...(await ledgerClients(file)) });
      print([
        ...result.warnings,
        `against the deployed version ${result.version ?? '(none)'}:`,
        ...(result.changes.length > 0 ? result.changes : ['no change']),
      ]);
      return;
    }
    case 'push': {
      const result = await push(file, { ...(await clients()), ...(await ledgerClients(file)) });
      print([
        ...result.warnings,
        ...result.changes,
        `version ${result.version} deployed (deployment ${result.deployment}); functions use it within a minute`,
        ...storedLines(result.entries),
      ]);
      return;
    }
    case 'secrets': {
      const { secretsCommand } = await import('./secret-command.ts');
      print(await secretsCommand(file, from, (await clients()).secrets));
      return;
    }
    case 'rollback': {
      const result = await rollback(file, await clients(), to);
      print([
        ...result.changes,
        `rolled back from version ${result.from ?? '(none)'} to ${result.to} (deployment ${result.deployment})`,
      ]);
      return;
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (
    error instanceof ConfigCommandError ||
    error instanceof DeployConfigError ||
    (error instanceof Error && error.name === 'SecretValuesError')
  ) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(error instanceof UsageError ? 2 : 1);
});
