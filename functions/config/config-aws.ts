/**
 * The AWS adapter of the ConfigSource port (config-source.ts).
 *
 * - Non-secret settings come from the `LEADS_SETTINGS` environment variable: JSON written by the
 *   stack from the deploy config (infra/config.ts), the configuration file minus its secrets.
 * - Secrets come from AWS Secrets Manager, named from `LEADS_SECRETS_PREFIX` (secretNames, secrets-aws.ts),
 *   through Powertools' cached `getSecret` (300 s); `refresh()` bypasses the cache once, for
 *   use after the upstream or a sender rejects a credential that may have been rotated.
 *
 * Each part is validated with config-schema.ts after merging. Errors name the environment
 * variable or the secret and key at fault, never a secret's value.
 */
import * as z from 'zod/mini';
import { issuePath } from '../domain/json.ts';
import { ENV } from '../kernel/env.ts';
import {
  DEFAULT_DELIVERY,
  type DeliveryConfig,
  deliveryConfigSchema,
  reportConfigSchema,
  upstreamConfigSchema,
} from './config-parts.ts';
import type { Client, Config, Profile, SourceName, UpstreamConfig } from './config-schema.ts';
import type { ConfigSource } from './config-source.ts';
import {
  AwsConfigError,
  clientsFromSecret,
  describeConfigIssue,
  type Locate,
  pickKeys,
  secretNamesFrom,
  secretReader,
  validate,
} from './secrets-aws.ts';

/** Environment variable holding the non-secret settings as JSON (see `Settings`). */
export const SETTINGS_ENV = ENV.settings;

/** The keys of the upstream secret; the clients secret is a JSON array of clients. */
export const UPSTREAM_SECRET_KEYS = ['username', 'password'] as const;

/**
 * The non-secret settings: the configuration file without `clients` and without any secret key.
 * Profiles are checked loosely here and fully once merged with their secret.
 */
export const settingsSchema = z.object({
  upstream: z.omit(upstreamConfigSchema, { username: true, password: true }),
  profiles: z.record(z.string(), z.looseObject({ source: z.string() })),
  delivery: z._default(deliveryConfigSchema, DEFAULT_DELIVERY),
  report: z._default(reportConfigSchema, {
    branches: [],
    refreshSeconds: 900,
    timeZone: 'America/Sao_Paulo',
  }),
});
export type Settings = z.infer<typeof settingsSchema>;
export type SettingsInput = z.input<typeof settingsSchema>;

export interface AwsConfigSource extends ConfigSource {
  /** The next read of each secret goes to Secrets Manager instead of the cache (once). */
  refresh(): void;
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

/**
 * What reading a profile takes: the sources' profile schemas and secret keys (profile-rules.ts).
 * Passed in by the functions that read profiles (intake, delivery), so that the others (admin,
 * report, refresher) carry none of the sources' code.
 */
export interface ProfileRules {
  profileSchema: z.ZodMiniType<Profile, unknown>;
  secretKeysOf(source: string): readonly string[];
}

/**
 * A ConfigSource over LEADS_SETTINGS and the Secrets Manager secrets under LEADS_SECRETS_PREFIX.
 * Without `rules`, `profile()` refuses: give them where profiles are read.
 */
export function createAwsConfigSource(
  env: NodeJS.ProcessEnv = process.env,
  rules?: ProfileRules,
): AwsConfigSource {
  let settings: Settings | undefined;
  const current = (): Settings => {
    settings ??= parseSettings(env);
    return settings;
  };
  const names = () => secretNamesFrom(env);
  const secrets = secretReader();

  return {
    async upstream(): Promise<UpstreamConfig> {
      const name = names().upstream;
      const secret = pickKeys(name, await secrets.read(name), UPSTREAM_SECRET_KEYS);
      return validate(
        upstreamConfigSchema,
        { ...current().upstream, ...secret },
        'upstream',
        locateIn(name, UPSTREAM_SECRET_KEYS, 'upstream'),
      );
    },

    async clients(): Promise<Client[]> {
      const name = names().clients;
      return clientsFromSecret(name, await secrets.read(name));
    },

    async profile(name: string): Promise<Profile | undefined> {
      const profiles = current().profiles;
      if (!Object.hasOwn(profiles, name)) return undefined;
      const base = profiles[name] as Settings['profiles'][string];
      if (!rules) throw new AwsConfigError('this function reads no profiles (no ProfileRules)');
      const { profileSchema, secretKeysOf } = rules;
      const keys = secretKeysOf(base.source);
      const settingsPath = `profiles.${name}`;
      if (keys.length === 0) {
        return validate(profileSchema, base, `profile ${name}`, locateIn('', [], settingsPath));
      }
      const secretName = names().profile(name);
      const secret = pickKeys(secretName, await secrets.read(secretName), keys);
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

    async profileSettings() {
      return current().profiles;
    },

    async report(): Promise<Config['report']> {
      return current().report;
    },

    async delivery(): Promise<DeliveryConfig> {
      return current().delivery;
    },

    refresh(): void {
      secrets.refresh();
    },
  };
}
