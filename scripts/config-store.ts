/**
 * What `npm run config` does (scripts/config.ts), against a deployed stack's configuration store
 * (AWS AppConfig) and its secrets (Secrets Manager). The clients are passed in, so tests drive it
 * with aws-sdk-client-mock. See docs/configuration.md.
 *
 * - validate FILE: the deploy configuration checked with the configuration's own checks
 *   (functions/config/config-check.ts: unknown keys with the closest known one, the schema, every
 *   profile against its source, the accounts' references, the branch rule), worded as the
 *   store's validator function and `npm start` word them; nothing is sent anywhere.
 * - validate --local FILE: a local configuration file (LEADS_CONFIG, secrets included) checked
 *   exactly as `npm start` and its reloads check it, offline.
 * - push FILE: validate, write the secret entries a new account or profile needs into the packed
 *   store (scripts/secret-store.ts: placeholders to fill in, a generated token), store the
 *   settings as a new version and deploy it; AppConfig's validators check it
 *   again before any function sees it, and functions pick it up within a minute.
 * - diff FILE: what push would change, path by path, against the version now deployed.
 * Both diff and push warn first (`warnings`) when a profile that received leads in the last 30
 * days leaves the settings (removed or renamed), saying how many of its leads wait: a read-only
 * look at the stage's ledger (functions/ledger/profile-removal.ts), when a ledger is given.
 * - rollback FILE [--to N]: deploy an earlier version again (default: the one before).
 */
import {
  type AppConfigClient,
  CreateHostedConfigurationVersionCommand,
  DeleteHostedConfigurationVersionCommand,
  GetHostedConfigurationVersionCommand,
  ListApplicationsCommand,
  ListConfigurationProfilesCommand,
  ListDeploymentStrategiesCommand,
  ListDeploymentsCommand,
  ListEnvironmentsCommand,
  ListHostedConfigurationVersionsCommand,
  StartDeploymentCommand,
} from '@aws-sdk/client-appconfig';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { accountsOf } from '../functions/config/config-accounts.ts';
import { loadConfigFile } from '../functions/config/config-local.ts';
import type { Config } from '../functions/config/config-schema.ts';
import { PROFILE_RULES } from '../functions/config/profile-rules.ts';
import {
  InvalidSettingsError,
  validateSettingsText,
} from '../functions/config/validator/validate.ts';
import type { LeadLedger } from '../functions/ledger/lead-ledger.ts';
import { leavingProfiles, profileRemovalWarnings } from '../functions/ledger/profile-removal.ts';
import {
  type DeployConfig,
  DeployConfigError,
  loadDeployConfig,
  SECRET_VALUES_HEADING,
} from '../infra/config.ts';
import { configStoreNames, SETTINGS_PROFILE } from '../infra/constructs/config-store.ts';
import { neededEntries, type StoredEntry, storeEntries } from './secret-store.ts';

/** A refusal the user fixes; its message is enough (no stack trace). */
export class ConfigCommandError extends Error {
  override readonly name = 'ConfigCommandError';
}

export interface ConfigClients {
  appConfig: AppConfigClient;
  secrets: SecretsManagerClient;
  /**
   * The stage's lead ledger (read only), for the warnings about profiles leaving; undefined
   * when it could not be reached (`ledgerUnavailable` says why).
   */
  ledger?: Pick<LeadLedger, 'listRecent'> | undefined;
  /** Why the ledger could not be reached: printed as the warnings' stand-in. */
  ledgerUnavailable?: string | undefined;
}

/**
 * The warnings about profiles the new settings drop that received leads in the last 30 days
 * (functions/ledger/profile-removal.ts), or why they could not be checked.
 */
export async function removalWarnings(
  before: unknown,
  after: { profiles: Record<string, unknown> },
  clients: Pick<ConfigClients, 'ledger' | 'ledgerUnavailable'>,
  now = new Date(),
): Promise<string[]> {
  const previous = before as { profiles?: Record<string, unknown> } | undefined;
  const change = leavingProfiles({ profiles: previous?.profiles ?? {} }, after);
  if (change.leaving.length === 0) return [];
  const names = change.leaving.map((name) => `'${name}'`).join(', ');
  if (!clients.ledger) {
    return [
      `aviso: sai(em) da configuração o(s) perfil(is) ${names}; não foi possível consultar os leads deles no ledger (${clients.ledgerUnavailable ?? 'ledger indisponível'})`,
    ];
  }
  try {
    return await profileRemovalWarnings(clients.ledger, change, now);
  } catch (error) {
    return [
      `aviso: sai(em) da configuração o(s) perfil(is) ${names}; a consulta ao ledger falhou (${(error as Error).name})`,
    ];
  }
}

/** The deploy configuration in FILE, validated as the functions and the store's validator do. */
export function validateFile(file: string): DeployConfig {
  try {
    const deploy = loadDeployConfig(file);
    validateSettingsText(JSON.stringify(deploy.settings), PROFILE_RULES);
    return deploy;
  } catch (error) {
    if (error instanceof InvalidSettingsError) {
      throw new ConfigCommandError(`${file}: ${error.message}`);
    }
    if (
      error instanceof DeployConfigError &&
      error.message.startsWith(SECRET_VALUES_HEADING(file))
    ) {
      throw new ConfigCommandError(`${error.message}\n${LOCAL_HINT(file)}`);
    }
    throw error;
  }
}

/** What a refusal for secret values suggests: the file may be a local one. */
const LOCAL_HINT = (file: string) =>
  `Se ${file} é uma configuração local (a de npm start, com segredos): npm run config -- validate --local ${file}`;

/** One line about a valid deploy configuration: what it holds and its size in the store. */
export function summary(deploy: DeployConfig): string {
  const accounts = accountsOf(deploy.settings).size;
  const profiles = Object.keys(deploy.settings.profiles).length;
  const bytes = Buffer.byteLength(JSON.stringify(deploy.settings));
  return `stage ${deploy.stage}: ${accounts} conta(s), ${profiles} perfil(is), ${(bytes / 1024).toFixed(1)} KB de configurações`;
}

/** One line about a valid local configuration. */
export function localSummary(config: Config): string {
  const accounts = accountsOf(config).size;
  const profiles = Object.keys(config.profiles).length;
  return `${accounts} conta(s), ${profiles} perfil(is), ${config.clients.length} cliente(s)`;
}

export const VALIDATE_USAGE = `usage: npm run config -- validate FILE          (a deploy configuration)
       npm run config -- validate --local FILE  (a local configuration, as npm start reads it)`;

/**
 * `validate [--local] FILE`: the line to print for a valid file. A refusal throws: the local
 * file's ConfigError (the very message `npm start` prints), or the deploy file's.
 */
export function validateCommand(args: readonly string[]): string {
  const local = args.includes('--local');
  const files = args.filter((arg) => arg !== '--local');
  const [file] = files;
  if (files.length !== 1 || file === undefined || file.startsWith('--')) {
    throw new ConfigCommandError(VALIDATE_USAGE);
  }
  if (local) return `válida: ${localSummary(loadConfigFile(file))}`;
  return `válida: ${summary(validateFile(file))}`;
}

interface StoreIds {
  application: string;
  environment: string;
  profile: string;
  strategy: string;
}

async function findStore(client: AppConfigClient, stage: string): Promise<StoreIds> {
  const names = configStoreNames(stage);
  const missing = (what: string) =>
    new ConfigCommandError(
      `no ${what} for stage "${stage}" in this account and Region: deploy the stack first (npm run deploy -- -c config=FILE), or check AWS_PROFILE / AWS_REGION`,
    );
  const applications = await client.send(new ListApplicationsCommand({ MaxResults: 50 }));
  const application = applications.Items?.find((a) => a.Name === names.application)?.Id;
  if (!application) throw missing(`AppConfig application "${names.application}"`);
  const [environments, profiles, strategies] = await Promise.all([
    client.send(new ListEnvironmentsCommand({ ApplicationId: application, MaxResults: 50 })),
    client.send(
      new ListConfigurationProfilesCommand({ ApplicationId: application, MaxResults: 50 }),
    ),
    client.send(new ListDeploymentStrategiesCommand({ MaxResults: 50 })),
  ]);
  const environment = environments.Items?.find((e) => e.Name === names.environment)?.Id;
  const profile = profiles.Items?.find((p) => p.Name === names.profile)?.Id;
  const strategy = strategies.Items?.find((s) => s.Name === names.strategy)?.Id;
  if (!environment) throw missing(`environment "${names.environment}"`);
  if (!profile) throw missing(`configuration profile "${names.profile}"`);
  if (!strategy) throw missing(`deployment strategy "${names.strategy}"`);
  return { application, environment, profile, strategy };
}

/** The deployments of the settings, newest first. */
async function deployments(client: AppConfigClient, ids: StoreIds) {
  const answer = await client.send(
    new ListDeploymentsCommand({
      ApplicationId: ids.application,
      EnvironmentId: ids.environment,
      MaxResults: 50,
    }),
  );
  return (answer.Items ?? [])
    .filter((d) => d.ConfigurationName === SETTINGS_PROFILE)
    .sort((a, b) => (b.DeploymentNumber ?? 0) - (a.DeploymentNumber ?? 0));
}

async function versionContent(
  client: AppConfigClient,
  ids: StoreIds,
  version: string,
): Promise<unknown> {
  const answer = await client.send(
    new GetHostedConfigurationVersionCommand({
      ApplicationId: ids.application,
      ConfigurationProfileId: ids.profile,
      VersionNumber: Number(version),
    }),
  );
  return JSON.parse(new TextDecoder().decode(answer.Content ?? new Uint8Array()));
}

/** The settings deployed now and their version, if any deployment completed. */
async function deployedSettings(
  client: AppConfigClient,
  ids: StoreIds,
): Promise<{ version: string; settings: unknown } | undefined> {
  const done = (await deployments(client, ids)).find((d) => d.State === 'COMPLETE');
  if (!done?.ConfigurationVersion) return undefined;
  return {
    version: done.ConfigurationVersion,
    settings: await versionContent(client, ids, done.ConfigurationVersion),
  };
}

/** Leaves of a JSON value by path (`profiles.site.defaults.idBranch`); arrays are leaves. */
function leaves(value: unknown, path = '', into = new Map<string, string>()): Map<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && path) into.set(path, '{}');
    for (const [key, child] of entries) leaves(child, path ? `${path}.${key}` : key, into);
  } else {
    into.set(path, JSON.stringify(value));
  }
  return into;
}

/** `+ path: value`, `- path: value`, `~ path: old → new`, sorted by path. */
export function diffSettings(before: unknown, after: unknown): string[] {
  const a = leaves(before);
  const b = leaves(after);
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  const lines: string[] = [];
  for (const path of paths) {
    const was = a.get(path);
    const is = b.get(path);
    if (was === is) continue;
    if (was === undefined) lines.push(`+ ${path}: ${is}`);
    else if (is === undefined) lines.push(`- ${path}: ${was}`);
    else lines.push(`~ ${path}: ${was} → ${is}`);
  }
  return lines;
}

export interface PushResult {
  version: string;
  deployment: number;
  /** The secret entries a new account or profile got (scripts/secret-store.ts). */
  entries: StoredEntry[];
  changes: string[];
  /** About profiles leaving that received leads (removalWarnings); checked before storing. */
  warnings: string[];
}

/** validate, create missing secrets, store and deploy a new version. */
export async function push(file: string, clients: ConfigClients): Promise<PushResult> {
  const deploy = validateFile(file);
  const ids = await findStore(clients.appConfig, deploy.stage);
  const current = await deployedSettings(clients.appConfig, ids);
  const changes = diffSettings(current?.settings ?? {}, deploy.settings);
  const warnings = await removalWarnings(current?.settings, deploy.settings, clients);

  // The entries first: a function that sees the new version finds its profile's entry.
  const entries = await storeEntries(
    clients.secrets,
    neededEntries(deploy.secretsPrefix, deploy.settings),
  );

  const created = await clients.appConfig.send(
    new CreateHostedConfigurationVersionCommand({
      ApplicationId: ids.application,
      ConfigurationProfileId: ids.profile,
      ContentType: 'application/json',
      Content: new TextEncoder().encode(JSON.stringify(deploy.settings)),
      Description: `npm run config -- push ${file}`,
    }),
  );
  const version = String(created.VersionNumber);
  const started = await clients.appConfig.send(
    new StartDeploymentCommand({
      ApplicationId: ids.application,
      EnvironmentId: ids.environment,
      ConfigurationProfileId: ids.profile,
      ConfigurationVersion: version,
      DeploymentStrategyId: ids.strategy,
      Description: `npm run config -- push ${file}`,
    }),
  );
  return { version, deployment: started.DeploymentNumber ?? 0, entries, changes, warnings };
}

/**
 * What `npm run deploy` does once CloudFormation is done (scripts/cdk.ts): the deploy file's
 * settings stored and deployed as a version, through `push` (its validators, its history), unless
 * the version deployed now holds them already and no secret entry is missing (a redeploy of code
 * adds no version). `pushed` undefined: nothing was stored; `entries` still says what to fill in.
 */
export async function pushUnlessCurrent(
  file: string,
  clients: ConfigClients,
): Promise<{ pushed?: PushResult; entries: StoredEntry[] }> {
  const deploy = validateFile(file);
  const ids = await findStore(clients.appConfig, deploy.stage);
  const current = await deployedSettings(clients.appConfig, ids);
  const needed = neededEntries(deploy.secretsPrefix, deploy.settings);
  const entries = await storeEntries(clients.secrets, needed, { dryRun: true });
  const unchanged = current && diffSettings(current.settings, deploy.settings).length === 0;
  if (unchanged && !entries.some((entry) => entry.written)) return { entries };
  const pushed = await push(file, clients);
  return { pushed, entries: pushed.entries };
}

/** What push would change against the deployed version. */
export async function diff(
  file: string,
  clients: Pick<ConfigClients, 'appConfig' | 'ledger' | 'ledgerUnavailable'>,
): Promise<{ version: string | undefined; changes: string[]; warnings: string[] }> {
  const deploy = validateFile(file);
  const ids = await findStore(clients.appConfig, deploy.stage);
  const current = await deployedSettings(clients.appConfig, ids);
  return {
    version: current?.version,
    changes: diffSettings(current?.settings ?? {}, deploy.settings),
    warnings: await removalWarnings(current?.settings, deploy.settings, clients),
  };
}

/** Deploys version `to` (default: the version deployed before the current one) again. */
export async function rollback(
  file: string,
  clients: Pick<ConfigClients, 'appConfig'>,
  to?: string,
): Promise<{ from: string | undefined; to: string; deployment: number; changes: string[] }> {
  const deploy = loadDeployConfig(file);
  const ids = await findStore(clients.appConfig, deploy.stage);
  const history = (await deployments(clients.appConfig, ids)).filter((d) => d.State === 'COMPLETE');
  const from = history[0]?.ConfigurationVersion;
  const target = to ?? history.find((d) => d.ConfigurationVersion !== from)?.ConfigurationVersion;
  if (!target) {
    throw new ConfigCommandError(
      `stage "${deploy.stage}" has no earlier version to roll back to (deployed: ${from ?? 'none'})`,
    );
  }
  if (!/^\d+$/.test(target))
    throw new ConfigCommandError(`--to takes a version number, got "${target}"`);
  const [before, after] = await Promise.all([
    from ? versionContent(clients.appConfig, ids, from) : Promise.resolve({}),
    versionContent(clients.appConfig, ids, target),
  ]);
  const started = await clients.appConfig.send(
    new StartDeploymentCommand({
      ApplicationId: ids.application,
      EnvironmentId: ids.environment,
      ConfigurationProfileId: ids.profile,
      ConfigurationVersion: target,
      DeploymentStrategyId: ids.strategy,
      Description: `npm run config -- rollback to version ${target}`,
    }),
  );
  return {
    from,
    to: target,
    deployment: started.DeploymentNumber ?? 0,
    changes: diffSettings(before, after),
  };
}

/**
 * Before a stack deletion (`npm run destroy`): deletes every hosted version of the settings'
 * profile. The deploy script creates them, not the template, and AppConfig refuses to delete a
 * configuration profile that still has hosted versions, so CloudFormation's delete would stop
 * there (DELETE_FAILED). The version numbers deleted; none when the store is already gone.
 */
export async function deleteSettingsVersions(
  stage: string,
  client: Pick<AppConfigClient, 'send'>,
): Promise<number[]> {
  let ids: StoreIds;
  try {
    ids = await findStore(client as AppConfigClient, stage);
  } catch (error) {
    if (error instanceof ConfigCommandError) return [];
    throw error;
  }
  const deleted: number[] = [];
  let NextToken: string | undefined;
  do {
    const page = await client.send(
      new ListHostedConfigurationVersionsCommand({
        ApplicationId: ids.application,
        ConfigurationProfileId: ids.profile,
        MaxResults: 50,
        NextToken,
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.VersionNumber === undefined) continue;
      await client.send(
        new DeleteHostedConfigurationVersionCommand({
          ApplicationId: ids.application,
          ConfigurationProfileId: ids.profile,
          VersionNumber: item.VersionNumber,
        }),
      );
      deleted.push(item.VersionNumber);
    }
    NextToken = page.NextToken;
  } while (NextToken);
  return deleted;
}
