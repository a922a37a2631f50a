/**
 * The local adapter of the ConfigSource port: the whole `LEADS_CONFIG` file, secrets included,
 * validated once at start-up. Pure Node (fs): no AWS.
 *
 * local/start.ts loads the file, adjusts it (sandbox URL) and registers it with setLocalConfig();
 * handlers running in the local gateway then read it through localConfigSource().
 */
import { readFileSync } from 'node:fs';
import { describeIssues, type IssueDetail, parseJson } from '../domain/json.ts';
import { secretKeysOf } from '../sources/registry.ts';
import { type Config, configSchema } from './config-schema.ts';
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

/** Validates already-parsed configuration; `file` only names the source in errors. */
export function parseConfig(input: unknown, file = 'configuration'): Config {
  const result = configSchema.safeParse(input, { reportInput: true });
  if (!result.success) throw new ConfigError(file, describeIssues(result.error.issues));
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
  return {
    upstream: async () => config.upstream,
    clients: async () => config.clients,
    profile: async (name) =>
      Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined,
    profileNameFor: async (source) =>
      Object.entries(config.profiles).find(([, profile]) => profile.source === source)?.[0],
    profileSettings: async () =>
      Object.fromEntries(
        Object.entries(config.profiles).map(([name, profile]) => {
          const secrets = new Set(secretKeysOf(profile.source));
          const settings = Object.entries(profile).filter(([key]) => !secrets.has(key));
          return [name, Object.fromEntries(settings) as ProfileSettings];
        }),
      ),
    report: async () => config.report,
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
    upstream: async () => current().upstream(),
    clients: async () => current().clients(),
    profile: async (name) => current().profile(name),
    profileNameFor: async (source) => current().profileNameFor(source),
    profileSettings: async () => current().profileSettings(),
    report: async () => current().report(),
    delivery: async () => current().delivery(),
  };
}
