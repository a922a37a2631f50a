/**
 * The AWS adapter of the ConfigSource port (config-source.ts).
 *
 * - Non-secret settings come from the `LEADS_SETTINGS` environment variable: JSON written by the
 *   stack from the deploy config (infra/config.ts), the configuration file minus its secrets.
 * - Secrets come from AWS Secrets Manager, named from `LEADS_SECRETS_PREFIX` (secretNames below),
 *   through Powertools' cached `getSecret` (300 s); `refresh()` bypasses the cache once, for
 *   use after the upstream or a sender rejects a credential that may have been rotated.
 *
 * Each part is validated with config-schema.ts after merging. Errors name the environment
 * variable or the secret and key at fault, never a secret's value.
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import * as z from 'zod/mini';
import { describeIssue, issuePath } from '../domain/json.ts';
import {
  type Client,
  type Config,
  clientSchema,
  PROFILE_SECRET_KEYS,
  type Profile,
  profileSchema,
  reportConfigSchema,
  SOURCES,
  type SourceName,
  type UpstreamConfig,
  upstreamConfigSchema,
} from './config-schema.ts';
import type { ConfigSource } from './config-source.ts';

/** Environment variable holding the non-secret settings as JSON (see `Settings`). */
export const SETTINGS_ENV = 'LEADS_SETTINGS';
/** Environment variable holding the prefix of the secret names (`leads/prod`). */
export const SECRETS_PREFIX_ENV = 'LEADS_SECRETS_PREFIX';
/** What every key of a secret holds until an operator fills it in (docs/deploy.md). */
export const SECRET_PLACEHOLDER = 'REPLACE_ME';
/** How long a fetched secret is reused before Secrets Manager is asked again. */
export const SECRET_MAX_AGE_SECONDS = 300;

/** The keys of the upstream secret; the clients secret is a JSON array of clients. */
export const UPSTREAM_SECRET_KEYS = ['username', 'password'] as const;

/** The one layout of secret names, shared by the stack that creates them and this reader. */
export function secretNames(prefix: string) {
  return {
    upstream: `${prefix}/upstream`,
    clients: `${prefix}/clients`,
    profile: (name: string) => `${prefix}/profiles/${name}`,
  };
}

/**
 * The non-secret settings: the configuration file without `clients` and without any secret key.
 * Profiles are checked loosely here and fully once merged with their secret.
 */
export const settingsSchema = z.object({
  upstream: z.omit(upstreamConfigSchema, { username: true, password: true }),
  profiles: z.record(z.string(), z.looseObject({ source: z.enum(SOURCES) })),
  report: z._default(reportConfigSchema, {
    branches: [],
    refreshSeconds: 900,
    timeZone: 'America/Sao_Paulo',
  }),
});
export type Settings = z.infer<typeof settingsSchema>;
export type SettingsInput = z.input<typeof settingsSchema>;

/** A configuration that cannot be used as deployed; the message names what to fix. */
export class AwsConfigError extends Error {
  override readonly name = 'AwsConfigError';
}

export interface AwsConfigSource extends ConfigSource {
  /** The next read of each secret goes to Secrets Manager instead of the cache (once). */
  refresh(): void;
}

const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

/**
 * A configuration issue in words that never quote the value that was checked (it may be a
 * secret). Parse with `reportInput: true` so a missing key reads "is required".
 */
export function describeConfigIssue(issue: z.core.$ZodIssue): string {
  const untouched = issue.message === 'Invalid input';
  if (issue.code === 'invalid_key' && issue.issues[0]) return describeConfigIssue(issue.issues[0]);
  if (issue.code === 'invalid_type' && untouched) {
    const expected = EXPECTED[issue.expected] ?? issue.expected;
    return issue.input === undefined ? `is required (${expected})` : `must be ${expected}`;
  }
  if (issue.code === 'too_small' && untouched && issue.origin === 'number') {
    return `must be ${issue.inclusive ? 'at least' : 'greater than'} ${String(issue.minimum)}`;
  }
  return describeIssue({ ...issue, input: undefined });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseSettings(env: NodeJS.ProcessEnv): Settings {
  const text = env[SETTINGS_ENV];
  if (!text) throw new AwsConfigError(`${SETTINGS_ENV} is not set`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AwsConfigError(`${SETTINGS_ENV} is not valid JSON`);
  }
  const result = settingsSchema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    const lines = result.error.issues.map(
      (i) => `  ${issuePath(i.path)}: ${describeConfigIssue(i)}`,
    );
    throw new AwsConfigError([`${SETTINGS_ENV} is invalid:`, ...lines].join('\n'));
  }
  return result.data;
}

/**
 * The given keys of a secret's JSON object. A missing key or one still holding the deploy-time
 * placeholder is an error naming the secret and the key.
 */
function pickKeys(
  secretName: string,
  value: unknown,
  keys: readonly string[],
): Record<string, unknown> {
  if (!isObject(value)) {
    throw new AwsConfigError(
      `secret ${secretName} must hold a JSON object with the keys ${keys.join(', ')}`,
    );
  }
  const problems: string[] = [];
  const picked: Record<string, unknown> = {};
  for (const key of keys) {
    if (!Object.hasOwn(value, key)) problems.push(`key "${key}" is missing`);
    else if (value[key] === SECRET_PLACEHOLDER) {
      problems.push(`key "${key}" still holds the placeholder set at deploy time`);
    } else picked[key] = value[key];
  }
  if (problems.length > 0) {
    throw new AwsConfigError(
      `secret ${secretName}: ${problems.join('; ')} (fill it in as docs/deploy.md describes)`,
    );
  }
  return picked;
}

/** Says where a problem at a path of the checked value comes from. */
type Locate = (path: readonly PropertyKey[]) => string;

/** Validates a merged part; `locate` names the secret key or setting behind each issue. */
function validate<T>(schema: z.ZodMiniType<T>, input: unknown, what: string, locate: Locate): T {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${locate(i.path)}: ${describeConfigIssue(i)}`);
  throw new AwsConfigError([`invalid ${what} configuration:`, ...lines].join('\n'));
}

/** Issues on a secret key belong to the secret; the others to the part of LEADS_SETTINGS. */
function locateIn(secretName: string, secretKeys: readonly string[], settingsPath: string): Locate {
  return (path) => {
    const head = path[0];
    if (typeof head === 'string' && secretKeys.includes(head)) {
      return `secret ${secretName} key "${issuePath(path)}"`;
    }
    return `${SETTINGS_ENV} ${[settingsPath, issuePath(path)].filter(Boolean).join('.')}`;
  };
}

/** A ConfigSource over LEADS_SETTINGS and the Secrets Manager secrets under LEADS_SECRETS_PREFIX. */
export function createAwsConfigSource(env: NodeJS.ProcessEnv = process.env): AwsConfigSource {
  let settings: Settings | undefined;
  const current = (): Settings => {
    settings ??= parseSettings(env);
    return settings;
  };
  const names = (): ReturnType<typeof secretNames> => {
    const prefix = env[SECRETS_PREFIX_ENV];
    if (!prefix) throw new AwsConfigError(`${SECRETS_PREFIX_ENV} is not set`);
    return secretNames(prefix);
  };

  // After refresh(), each secret is fetched once with forceFetch, then cached again.
  let refreshing = false;
  const refreshed = new Set<string>();

  async function readSecret(name: string): Promise<unknown> {
    const forceFetch = refreshing && !refreshed.has(name);
    let value: unknown;
    try {
      value = await getSecret(name, {
        transform: 'json',
        maxAge: SECRET_MAX_AGE_SECONDS,
        forceFetch,
      });
    } catch (error) {
      // A transform error quotes the text that failed to parse: never pass it on.
      if (error instanceof Error && error.name === 'TransformParameterError') {
        throw new AwsConfigError(`secret ${name} is not valid JSON`);
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new AwsConfigError(`cannot read secret ${name}: ${reason}`, { cause: error });
    }
    if (forceFetch) refreshed.add(name);
    if (value === undefined) throw new AwsConfigError(`secret ${name} has no value`);
    return value;
  }

  return {
    async upstream(): Promise<UpstreamConfig> {
      const name = names().upstream;
      const secret = pickKeys(name, await readSecret(name), UPSTREAM_SECRET_KEYS);
      return validate(
        upstreamConfigSchema,
        { ...current().upstream, ...secret },
        'upstream',
        locateIn(name, UPSTREAM_SECRET_KEYS, 'upstream'),
      );
    },

    async clients(): Promise<Client[]> {
      const name = names().clients;
      const value = await readSecret(name);
      if (isObject(value) && Object.values(value).includes(SECRET_PLACEHOLDER)) {
        throw new AwsConfigError(
          `secret ${name} still holds the placeholder set at deploy time (fill it in as docs/deploy.md describes)`,
        );
      }
      if (!Array.isArray(value)) {
        throw new AwsConfigError(`secret ${name} must hold a JSON array of clients`);
      }
      const clients = value.map((client, index) => {
        const parsed = validate(clientSchema, client, 'clients', (path) =>
          [`secret ${name} client ${index}`, issuePath(path)].filter(Boolean).join(' '),
        );
        if (parsed.password !== undefined || parsed.passwordHash === undefined) {
          throw new AwsConfigError(
            `secret ${name} client ${index}: a deployed stack keeps "passwordHash" only, never "password"`,
          );
        }
        return parsed;
      });
      return clients;
    },

    async profile(name: string): Promise<Profile | undefined> {
      const profiles = current().profiles;
      if (!Object.hasOwn(profiles, name)) return undefined;
      const base = profiles[name] as Settings['profiles'][string];
      const keys = PROFILE_SECRET_KEYS[base.source];
      const settingsPath = `profiles.${name}`;
      if (keys.length === 0) {
        return validate(profileSchema, base, `profile ${name}`, locateIn('', [], settingsPath));
      }
      const secretName = names().profile(name);
      const secret = pickKeys(secretName, await readSecret(secretName), keys);
      return validate(
        profileSchema,
        { ...base, ...secret },
        `profile ${name}`,
        locateIn(secretName, keys, settingsPath),
      );
    },

    async profileNameFor(source: SourceName): Promise<string | undefined> {
      return Object.entries(current().profiles).find(
        ([, profile]) => profile.source === source,
      )?.[0];
    },

    async report(): Promise<Config['report']> {
      return current().report;
    },

    refresh(): void {
      refreshing = true;
      refreshed.clear();
    },
  };
}
