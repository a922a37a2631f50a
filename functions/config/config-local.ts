/**
 * The local adapter of the ConfigSource port: the whole `LEADS_CONFIG` file, secrets included,
 * validated at start-up and again whenever it changes (local/runtime.ts watches it). Pure Node
 * (fs): no AWS.
 *
 * local/runtime.ts loads the file, adjusts it (sandbox URL) and registers it with
 * setLocalConfig(); handlers running in the local gateway then read it through
 * localConfigSource(), at each call, so a reloaded file takes effect at once; a profile's secret
 * rotated in the console lies over the file's value (rotated-secrets-local.ts).
 */

import { readFileSync } from 'node:fs';
import { parseJson } from '../domain/json.ts';
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import { secretKeysOf } from '../sources/registry.ts';
import { accountOfProfile, accountsOf, namedBranchesOf } from './config-accounts.ts';
import { checkConfiguration } from './config-check.ts';
import {
  type ConfigProblem,
  INVALID_JSON_HEADING,
  inFile,
  invalidHeading,
  jsonSyntaxMessage,
  problemReport,
  UNREADABLE_HEADING,
  unreadableReason,
} from './config-messages.ts';
import { type Config, configFileSchema, configSchema } from './config-schema.ts';
import { type ConfigSource, ConfigurationError, type ProfileSettings } from './config-source.ts';
import { currentProfileName, profileCalled } from './profile-names.ts';
import { PROFILE_RULES } from './profile-rules.ts';
import { withLocalRotations } from './rotated-secrets-local.ts';

/**
 * A configuration file that cannot be used; the message says where and why, one problem a line
 * (config-messages.ts), the same at start-up, at a reload and from `npm run config -- validate
 * --local`.
 */
export class ConfigError extends ConfigurationError {
  override readonly name = 'ConfigError';

  constructor(
    readonly file: string,
    readonly problems: readonly ConfigProblem[],
    heading = invalidHeading(inFile(file)),
  ) {
    super(problemReport(heading, problems));
  }
}

function parseConfigText(text: string, file: string): unknown {
  try {
    return parseJson(text);
  } catch (error) {
    const message = jsonSyntaxMessage(text, error);
    throw new ConfigError(file, [{ field: '', message }], INVALID_JSON_HEADING(file));
  }
}

/**
 * Validates already-parsed configuration (config-check.ts: unknown keys with the closest known
 * one, the schema, each profile against its source, the accounts' references and the branch
 * rule). `file` only names the source in errors.
 */
export function parseConfig(input: unknown, file = 'configuração'): Config {
  const checked = checkConfiguration(input, {
    keys: configSchema,
    shape: configFileSchema,
    rules: PROFILE_RULES,
    secrets: 'file',
  });
  if (!checked.ok) throw new ConfigError(file, checked.problems);
  return { ...checked.value, profiles: checked.profiles };
}

/** Reads and validates a JSON configuration file; throws ConfigError on any problem. */
export function loadConfigFile(path: string): Config {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const problem = { field: '', message: unreadableReason(error) };
    throw new ConfigError(path, [problem], UNREADABLE_HEADING(path));
  }
  return parseConfig(parseConfigText(text, path), path);
}

/** A ConfigSource over an in-memory configuration. */
export function createLocalConfigSource(config: Config): ConfigSource {
  const accounts = accountsOf(config);
  const account = (name: string) => {
    const found = accounts.get(name);
    if (!found) throw new ConfigurationError(`the upstream account "${name}" is not configured`);
    return found;
  };
  return {
    upstream: async (name = DEFAULT_ACCOUNT) => {
      const { report: _report, ...upstream } = account(name);
      return upstream;
    },
    accounts: async () => [...accounts.keys()],
    clients: async () => config.clients,
    profile: async (name) => profileCalled(config.profiles, name),
    currentName: async (name) => currentProfileName(config.profiles, name),
    profileNames: async () => Object.keys(config.profiles),
    accountOf: async (name) => {
      const profile = profileCalled(config.profiles, name);
      return profile ? accountOfProfile(profile) : DEFAULT_ACCOUNT;
    },
    profileNameFor: async (source, upstream) =>
      Object.entries(config.profiles).find(
        ([, profile]) =>
          profile.source === source &&
          (upstream === undefined || accountOfProfile(profile) === upstream),
      )?.[0],
    profileSettings: async () =>
      Object.fromEntries(
        Object.entries(config.profiles).map(([name, profile]) => {
          const secrets = new Set(secretKeysOf(profile.source));
          const settings = Object.entries(profile).filter(([key]) => !secrets.has(key));
          return [name, Object.fromEntries(settings) as ProfileSettings];
        }),
      ),
    report: async (name = DEFAULT_ACCOUNT) => account(name).report,
    delivery: async () => config.delivery,
    branches: async () => namedBranchesOf(config),
  };
}

let registered: Config | undefined;

/** Registers the effective configuration of this process (local/start.ts); undefined clears it. */
export function setLocalConfig(config: Config | undefined): void {
  registered = config;
}

/** The registered configuration; throws when local/start.ts (or a test) has not set one. */
export function localConfig(): Config {
  if (!registered) {
    throw new Error('no local configuration: call setLocalConfig() first (local/start.ts does)');
  }
  return registered;
}

/**
 * The named profile as the configuration file holds it, no rotation laid over it (the local
 * rotation of a secret replaces the file's value it knows: rotated-secrets-local.ts).
 */
export async function localFileProfile(name: string) {
  return createLocalConfigSource(localConfig()).profile(name);
}

/**
 * The ConfigSource handlers use when `LEADS_RUNTIME` is `local`. It reads the registered
 * configuration at each call, so it may be created at module scope before start-up finishes.
 */
export function localConfigSource(): ConfigSource {
  const current = () => createLocalConfigSource(localConfig());
  return {
    upstream: async (account) => current().upstream(account),
    accounts: async () => current().accounts(),
    clients: async () => current().clients(),
    // A secret rotated in the console lies over the file's value (rotated-secrets-local.ts).
    profile: async (name) => {
      const source = current();
      const named = (await source.currentName?.(name)) ?? name;
      return withLocalRotations(named, await source.profile(named));
    },
    currentName: async (name) => current().currentName?.(name),
    profileNames: async () => current().profileNames(),
    accountOf: async (name) => current().accountOf(name),
    profileNameFor: async (source, upstream) => current().profileNameFor(source, upstream),
    report: async (account) => current().report(account),
    profileSettings: async () => current().profileSettings(),
    delivery: async () => current().delivery(),
    branches: async () => current().branches(),
  };
}
