/**
 * The local adapter of the ConfigSource port: the whole `LEADS_CONFIG` file, secrets included,
 * validated at start-up and again whenever it changes (local/runtime.ts watches it). Pure Node
 * (fs): no AWS.
 *
 * local/runtime.ts loads the file, adjusts it (sandbox URL) and registers it with
 * setLocalConfig(); handlers running in the local gateway then read it through
 * localConfigSource(), at each call, so a reloaded file takes effect at once.
 */
import { readFileSync } from 'node:fs';
import { describeIssues, type IssueDetail, parseJson } from '../domain/json.ts';
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import { secretKeysOf } from '../sources/registry.ts';
import { unknownKeyProblems } from './config-keys.ts';
import {
  accountOfProfile,
  accountProblems,
  accountsOf,
  type Config,
  configSchema,
  profileSchema,
} from './config-schema.ts';
import { type ConfigSource, ConfigurationError, type ProfileSettings } from './config-source.ts';

/** A configuration file that cannot be used; the message says where and why, one problem a line. */
export class ConfigError extends ConfigurationError {
  override readonly name = 'ConfigError';

  constructor(
    readonly file: string,
    readonly problems: readonly IssueDetail[],
    summary = 'Invalid configuration',
  ) {
    super(
      [
        `${summary} in ${file}:`,
        ...problems.map((p) => (p.field ? `  ${p.field}: ${p.message}` : `  ${p.message}`)),
      ].join('\n'),
    );
  }
}

/** 1-based line and column of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

function parseConfigText(text: string, file: string): unknown {
  try {
    return parseJson(text);
  } catch (error) {
    let message = error instanceof Error ? error.message : String(error);
    const position = /\s*at position (\d+)/.exec(message);
    if (position?.[1]) {
      const { line, column } = lineAndColumn(text, Number(position[1]));
      message = `${message.replace(position[0], '')} (line ${line}, column ${column})`;
    }
    throw new ConfigError(file, [{ field: '', message }], 'Invalid JSON');
  }
}

/**
 * Validates already-parsed configuration: unknown keys (with the closest known one), the
 * schema, and the accounts' cross references. `file` only names the source in errors.
 */
export function parseConfig(input: unknown, file = 'configuration'): Config {
  const unknown = unknownKeyProblems(configSchema, input, { profileSchema });
  const result = configSchema.safeParse(input, { reportInput: true });
  const problems = [
    ...unknown,
    ...(result.success ? accountProblems(result.data) : describeIssues(result.error.issues)),
  ];
  if (problems.length > 0 || !result.success) throw new ConfigError(file, problems);
  return result.data;
}

/** Reads and validates a JSON configuration file; throws ConfigError on any problem. */
export function loadConfigFile(path: string): Config {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'the file does not exist'
        : code === 'EISDIR'
          ? 'it is a directory, not a file'
          : `the file cannot be read (${code ?? String(error)})`;
    throw new ConfigError(path, [{ field: '', message: reason }], 'Cannot read the configuration');
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
    profile: async (name) =>
      Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined,
    profileNames: async () => Object.keys(config.profiles),
    accountOf: async (name) =>
      Object.hasOwn(config.profiles, name)
        ? accountOfProfile(config.profiles[name] as { upstream?: string })
        : DEFAULT_ACCOUNT,
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
 * The ConfigSource handlers use when `LEADS_RUNTIME` is `local`. It reads the registered
 * configuration at each call, so it may be created at module scope before start-up finishes.
 */
export function localConfigSource(): ConfigSource {
  const current = () => createLocalConfigSource(localConfig());
  return {
    upstream: async (account) => current().upstream(account),
    accounts: async () => current().accounts(),
    clients: async () => current().clients(),
    profile: async (name) => current().profile(name),
    profileNames: async () => current().profileNames(),
    accountOf: async (name) => current().accountOf(name),
    profileNameFor: async (source, upstream) => current().profileNameFor(source, upstream),
    report: async (account) => current().report(account),
    profileSettings: async () => current().profileSettings(),
    delivery: async () => current().delivery(),
  };
}
