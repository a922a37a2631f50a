/**
 * Reading secrets on AWS (Powertools' cached `getSecret`) and the API clients secret: the part of
 * the AWS configuration adapter (config-aws.ts) that the Basic-auth authorizer also needs. Kept
 * apart so that the authorizer's cold start does not build the profile and Prospect schemas.
 * Errors name the secret and key at fault, never a secret's value.
 */
import type * as z from 'zod/mini';
import { issuePath } from '../domain/json.ts';
import { type Client, clientSchema } from '../kernel/client-schema.ts';
import { ENV } from '../kernel/env.ts';
import { describeConfigIssue } from './config-messages.ts';
import type { ConfigSource } from './config-source.ts';
import { ConfigurationError } from './config-source.ts';

/** Environment variable holding the prefix of the secret names (`leads/prod`). */
export const SECRETS_PREFIX_ENV = ENV.secretsPrefix;
/** What every key of a secret holds until an operator fills it in (docs/deploy.md). */
export const SECRET_PLACEHOLDER = 'REPLACE_ME';
/** How long a fetched secret is reused before Secrets Manager is asked again. */
export const SECRET_MAX_AGE_SECONDS = 300;

/** The one layout of secret names, shared by the stack that creates them and this reader. */
export function secretNames(prefix: string) {
  return {
    /** The account `default` keeps `<prefix>/upstream`; others `<prefix>/upstreams/<name>`. */
    upstream: (account = 'default') =>
      account === 'default' ? `${prefix}/upstream` : `${prefix}/upstreams/${account}`,
    clients: `${prefix}/clients`,
    /** A profile's keys: `<prefix>/profiles/<its secretName, or its name>`. */
    profile: (name: string) => `${prefix}/profiles/${name}`,
    /** What a grant covers for secrets that may appear without a deploy. */
    profilesPattern: `${prefix}/profiles/*`,
    upstreamsPattern: `${prefix}/upstreams/*`,
  };
}

/** A configuration that cannot be used as deployed; the message names what to fix. */
export class AwsConfigError extends ConfigurationError {
  override readonly name = 'AwsConfigError';
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The given keys of a secret's JSON object. A missing key or one still holding the deploy-time
 * placeholder is an error naming the secret and the key.
 */
export function pickKeys(
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
export type Locate = (path: readonly PropertyKey[]) => string;

/**
 * Validates a merged part; `what` says which (`do perfil "site"`), `locate` names the secret
 * key or setting behind each issue (config-messages.ts words the issue).
 */
export function validate<T>(
  schema: z.ZodMiniType<T>,
  input: unknown,
  what: string,
  locate: Locate,
): T {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${locate(i.path)}: ${describeConfigIssue(i)}`);
  throw new AwsConfigError([`Configuração inválida ${what}:`, ...lines].join('\n'));
}

export interface SecretReader {
  /** The secret's JSON value (cached for SECRET_MAX_AGE_SECONDS). */
  read(name: string): Promise<unknown>;
  /** The next read of each secret goes to Secrets Manager instead of the cache (once). */
  refresh(): void;
}

/** Reads JSON secrets through Powertools' cache; errors never quote the secret's text. */
export function secretReader(): SecretReader {
  // After refresh(), each secret is fetched once with forceFetch, then cached again.
  let refreshing = false;
  const refreshed = new Set<string>();

  async function read(name: string): Promise<unknown> {
    const forceFetch = refreshing && !refreshed.has(name);
    let value: unknown;
    try {
      // Loaded at the first secret read: a request that reads no secret never loads the client.
      const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
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
    read,
    refresh(): void {
      refreshing = true;
      refreshed.clear();
    },
  };
}

/** The secret names under LEADS_SECRETS_PREFIX; an error when the variable is missing. */
export function secretNamesFrom(env: NodeJS.ProcessEnv): ReturnType<typeof secretNames> {
  const prefix = env[SECRETS_PREFIX_ENV];
  if (!prefix) throw new AwsConfigError(`${SECRETS_PREFIX_ENV} is not set`);
  return secretNames(prefix);
}

/**
 * The clients secret's value checked: a JSON array of clients holding password hashes only.
 */
export function clientsFromSecret(name: string, value: unknown): Client[] {
  if (isObject(value) && Object.values(value).includes(SECRET_PLACEHOLDER)) {
    throw new AwsConfigError(
      `secret ${name} still holds the placeholder set at deploy time (fill it in as docs/deploy.md describes)`,
    );
  }
  if (!Array.isArray(value)) {
    throw new AwsConfigError(`secret ${name} must hold a JSON array of clients`);
  }
  const clients = value.map((client, index) => {
    const parsed = validate(clientSchema, client, 'dos clientes', (path) =>
      [`segredo ${name}, cliente ${index}`, issuePath(path)].filter(Boolean).join(' '),
    );
    if (parsed.password !== undefined || parsed.passwordHash === undefined) {
      throw new AwsConfigError(
        `secret ${name} client ${index}: a deployed stack keeps "passwordHash" only, never "password"`,
      );
    }
    return parsed;
  });
  return clients;
}

/** The API clients from Secrets Manager: all the authorizer reads of the configuration. */
export function createAwsClientsSource(
  env: NodeJS.ProcessEnv = process.env,
  reader: SecretReader = secretReader(),
): Pick<ConfigSource, 'clients'> {
  return {
    async clients(): Promise<Client[]> {
      const name = secretNamesFrom(env).clients;
      return clientsFromSecret(name, await reader.read(name));
    },
  };
}
