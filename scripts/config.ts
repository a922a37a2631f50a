/**
 * `npm run config -- <command> FILE`: the deployed stack's settings from a laptop, without a
 * deploy (docs/configuration.md). FILE is the deploy configuration (config/deploy.<stage>.json).
 *
 *   validate FILE            check it with the functions' own rules; nothing is sent
 *   validate --local FILE    check a local file (secrets allowed) as npm start does
 *   diff FILE                what push would change against the deployed version
 *   push FILE                create missing secrets, store and deploy a new version
 *   rollback FILE [--to N]   deploy an earlier version again (default: the one before)
 *   schema                   write config/schema.json and config/deploy.schema.json
 *
 * AWS credentials and Region come from the usual places (AWS_PROFILE, AWS_REGION, ...).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_PLACEHOLDER } from '../functions/config/secrets-aws.ts';
import { DeployConfigError, REPO_ROOT } from '../infra/config.ts';
import { schemaFiles } from './config-schema-files.ts';
import { ConfigCommandError, diff, push, rollback, validateCommand } from './config-store.ts';

const USAGE = `usage: npm run config -- validate|diff|push FILE
       npm run config -- rollback FILE [--to VERSION]
       npm run config -- schema`;

async function clients() {
  const [{ AppConfigClient }, { SecretsManagerClient }] = await Promise.all([
    import('@aws-sdk/client-appconfig'),
    import('@aws-sdk/client-secrets-manager'),
  ]);
  return { appConfig: new AppConfigClient({}), secrets: new SecretsManagerClient({}) };
}

function print(lines: readonly string[]): void {
  for (const line of lines) process.stdout.write(`${line}\n`);
}

async function main(args: string[]): Promise<void> {
  const [command, file, ...rest] = args;
  if (command === 'schema') {
    for (const [name, schema] of Object.entries(schemaFiles())) {
      writeFileSync(join(REPO_ROOT, name), `${JSON.stringify(schema, null, 2)}\n`);
      print([`wrote ${name}`]);
    }
    return;
  }
  if (!command || !file) throw new ConfigCommandError(USAGE);
  switch (command) {
    case 'validate': {
      print([validateCommand([file, ...rest])]);
      return;
    }
    case 'diff': {
      const result = await diff(file, await clients());
      print([
        `against the deployed version ${result.version ?? '(none)'}:`,
        ...(result.changes.length > 0 ? result.changes : ['no change']),
      ]);
      return;
    }
    case 'push': {
      const result = await push(file, await clients());
      print([
        ...result.changes,
        `version ${result.version} deployed (deployment ${result.deployment}); functions use it within a minute`,
        ...result.createdSecrets.map(
          (name) => `created secret ${name}: fill in its keys (they hold ${SECRET_PLACEHOLDER})`,
        ),
      ]);
      return;
    }
    case 'rollback': {
      const toIndex = rest.indexOf('--to');
      const to = toIndex >= 0 ? rest[toIndex + 1] : undefined;
      const result = await rollback(file, await clients(), to);
      print([
        ...result.changes,
        `rolled back from version ${result.from ?? '(none)'} to ${result.to} (deployment ${result.deployment})`,
      ]);
      return;
    }
    default:
      throw new ConfigCommandError(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigCommandError || error instanceof DeployConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
