/**
 * The AWS adapter of the ConfigSource port (config-source.ts).
 *
 * - Non-secret settings come from the configuration store: AWS AppConfig (a hosted JSON
 *   configuration validated before it is deployed; docs/configuration.md), read through
 *   Powertools' AppConfig provider and kept `SETTINGS_MAX_AGE_SECONDS`, so that a new version is
 *   seen within a minute without a deploy. A version that does not validate here (it passed
 *   the store's own JSON Schema validator but not these rules) is not used: the last good one
 *   stays, and `onInvalidSettings` says so.
 * - Secrets come from AWS Secrets Manager, named from `LEADS_SECRETS_PREFIX` (secretNames,
 *   secrets-aws.ts), through Powertools' cached `getSecret` (300 s); `refresh()` bypasses the
 *   cache once, for use after the upstream or a sender rejects a credential that may have been
 *   rotated. Accounts and profiles are entries of a few shard secrets (secret-shards.ts): a
 *   read fetches only the shard that holds the entry asked for, and the cache serves every other
 *   entry of it; each profile's entry carries the values a rotation replaced (its `previous`
 *   key, secret-rotation.ts), and
 *   `recheckProfile()` reads it past the cache when the intake refused one of its credentials (at
 *   most once per SECRET_RECHECK_SECONDS), so a value rotated a moment ago works at once.
 *
 * Each part is validated with config-schema.ts after merging. Errors name the store, the setting
 * or the secret and key at fault, never a secret's value.
 */
import * as z from 'zod/mini';
import { issuePath } from '../domain/json.ts';
import { accountName, DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import type { Client } from '../kernel/client-schema.ts';
import { ENV } from '../kernel/env.ts';
import type { SourceName } from '../sources/registry.ts';
import {
  accountOfProfile,
  accountProblems,
  accountsOf,
  namedBranchesOf,
} from './config-accounts.ts';
import { unknownKeyProblems } from './config-keys.ts';
import { describeConfigIssue, invalidHeading, problemReport } from './config-messages.ts';
import type { UpstreamConfig } from './config-parts.ts';
import {
  DEFAULT_DELIVERY,
  DEFAULT_REPORT,
  type DeliveryConfig,
  deliveryConfigSchema,
  profileEntrySchema,
  type ReportConfig,
  reportConfigSchema,
  upstreamConfigSchema,
} from './config-parts.ts';
import type { Profile } from './config-schema.ts';
import type { ConfigSource } from './config-source.ts';
import { currentProfileName, profileCalled } from './profile-names.ts';
import { previousFromSecret, withPreviousValues } from './secret-rotation.ts';
import {
  AwsConfigError,
  clientsFromSecret,
  entryLabel,
  entryOf,
  type Locate,
  pickKeys,
  type SecretReader,
  secretNamesFrom,
  secretReader,
  validate,
} from './secrets-aws.ts';

/** How long functions keep the store's settings before asking again: under a minute. */
export const SETTINGS_MAX_AGE_SECONDS = 45;

/** The keys of an account's secret; the clients secret is a JSON array of clients. */
export const UPSTREAM_SECRET_KEYS = ['username', 'password'] as const;

const accountSettings = z.omit(upstreamConfigSchema, { username: true, password: true });

/**
 * The non-secret settings: the configuration file without `clients` and without any secret key.
 * Profiles are checked loosely here and fully once merged with their secret.
 */
export const settingsSchema = z.object({
  upstream: accountSettings,
  upstreams: z.optional(
    z.record(
      accountName,
      z.extend(accountSettings, { report: z._default(reportConfigSchema, DEFAULT_REPORT) }),
    ),
  ),
  profiles: z.record(z.string(), profileEntrySchema),
  delivery: z._default(deliveryConfigSchema, DEFAULT_DELIVERY),
  report: z._default(reportConfigSchema, DEFAULT_REPORT),
});
export type Settings = z.infer<typeof settingsSchema>;
export type SettingsInput = z.input<typeof settingsSchema>;

/** The store's name for where the settings come from, in error messages. */
export const SETTINGS_WHERE = 'the configuration store (AppConfig)';
/** The same place in the heading of settings refused (config-messages.ts). */
export const SETTINGS_PLACE = 'no repositório de configurações (AppConfig)';

/**
 * Validates settings as functions use them: the schema, unknown keys (in profiles too when
 * `profileSchema` is given), and the accounts' cross references, worded as every check of the
 * configuration is (config-messages.ts). Throws AwsConfigError naming each problem.
 *
 * Looser than the store's validator (validator/validate.ts), which a new version must pass:
 * profiles are checked in full when read (`profile()`), and the branch rule is the validator's
 * only, so that a version stored before a rule existed keeps the functions running.
 */
export function parseSettings(
  raw: unknown,
  profileSchema?: ProfileRules['profileSchema'],
): Settings {
  const unknown = unknownKeyProblems(settingsSchema, raw, profileSchema ? { profileSchema } : {});
  const result = settingsSchema.safeParse(raw, { reportInput: true });
  const problems = [
    ...unknown,
    ...(result.success
      ? accountProblems(result.data)
      : result.error.issues.map((i) => ({
          field: issuePath(i.path),
          message: describeConfigIssue(i),
        }))),
  ];
  if (problems.length > 0 || !result.success) {
    throw new AwsConfigError(problemReport(invalidHeading(SETTINGS_PLACE), problems));
  }
  return result.data;
}

/** Where the raw settings come from: AppConfig on AWS (cached by the provider), or a test's. */
export type SettingsLoader = () => Promise<unknown>;

/** The AppConfig names the stack gives the functions (infra/constructs/config-store.ts). */
export function appConfigSettings(env: NodeJS.ProcessEnv = process.env): SettingsLoader {
  const application = env[ENV.appConfigApplication];
  const environment = env[ENV.appConfigEnvironment];
  const profile = env[ENV.appConfigProfile];
  return async () => {
    if (!application || !environment || !profile) {
      throw new AwsConfigError(
        `${ENV.appConfigApplication}, ${ENV.appConfigEnvironment} and ${ENV.appConfigProfile} must be set`,
      );
    }
    try {
      // Loaded at the first read, not at import: the AppConfig client stays out of cold init.
      const { getAppConfig } = await import('@aws-lambda-powertools/parameters/appconfig');
      return await getAppConfig(profile, {
        application,
        environment,
        maxAge: SETTINGS_MAX_AGE_SECONDS,
        transform: 'json',
      });
    } catch (error) {
      if (error instanceof Error && error.name === 'TransformParameterError') {
        throw new AwsConfigError(`${SETTINGS_WHERE} does not hold JSON`);
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new AwsConfigError(`cannot read ${SETTINGS_WHERE}: ${reason}`, { cause: error });
    }
  };
}

export interface AwsConfigSource extends ConfigSource {
  recheckProfile(name: string): Promise<Profile | undefined>;
  /** The next read of each secret goes to Secrets Manager instead of the cache (once). */
  refresh(): void;
}

/** Issues on a secret key belong to the secret; the others to the settings. */
function locateIn(secretName: string, secretKeys: readonly string[], settingsPath: string): Locate {
  return (path) => {
    const head = path[0];
    if (typeof head === 'string' && secretKeys.includes(head)) {
      return `segredo ${secretName}, chave "${issuePath(path)}"`;
    }
    return [settingsPath, issuePath(path)].filter(Boolean).join('.');
  };
}

/**
 * What reading a profile takes: the sources' profile schemas and secret keys (profile-rules.ts).
 * Passed in by the functions that read profiles (intake, delivery, admin), so that the others
 * (report, refresher) carry none of the sources' code.
 */
export interface ProfileRules {
  profileSchema: z.ZodMiniType<Profile, unknown>;
  secretKeysOf(source: string): readonly string[];
}

export interface AwsConfigOptions {
  /** The profile rules; without them `profile()` refuses. */
  rules?: ProfileRules;
  /** Where settings come from; default the AppConfig names in `env`. */
  settings?: SettingsLoader;
  /** A new version of the settings did not validate: the previous one stays in use. */
  onInvalidSettings?: (error: AwsConfigError) => void;
  /** How secrets are read; default Powertools' cache over Secrets Manager (secretReader). */
  reader?: SecretReader;
}

/**
 * A ConfigSource over the configuration store and the Secrets Manager secrets under
 * LEADS_SECRETS_PREFIX.
 */
export function createAwsConfigSource(
  env: NodeJS.ProcessEnv = process.env,
  options: AwsConfigOptions = {},
): AwsConfigSource {
  const { rules } = options;
  const load = options.settings ?? appConfigSettings(env);
  let last: { raw: unknown; settings: Settings } | undefined;
  const current = async (): Promise<Settings> => {
    const raw = await load();
    if (last && raw === last.raw) return last.settings;
    try {
      last = { raw, settings: parseSettings(raw, rules?.profileSchema) };
    } catch (error) {
      if (!(error instanceof AwsConfigError) || !last) throw error;
      options.onInvalidSettings?.(error);
      // Keep the last good version, and stop re-parsing the bad one at every call.
      last = { raw, settings: last.settings };
    }
    return last.settings;
  };
  const names = () => secretNamesFrom(env);
  const secrets = options.reader ?? secretReader();

  async function account(name: string) {
    const settings = await current();
    const found = accountsOf(settings).get(name);
    if (!found) throw new AwsConfigError(`the upstream account "${name}" is not configured`);
    return found;
  }

  /**
   * A profile merged with its secret's keys, carrying the values a rotation replaced
   * (secret-rotation.ts); `recheck`: past the cache, a credential of it was just refused.
   */
  async function readProfile(called: string, recheck: boolean): Promise<Profile | undefined> {
    const profiles = (await current()).profiles;
    // A former name (a rename) reads the profile under its current name.
    const name = currentProfileName(profiles, called);
    if (name === undefined) return undefined;
    const base = profiles[name] as Settings['profiles'][string];
    if (!rules) throw new AwsConfigError('this function reads no profiles (no ProfileRules)');
    const { profileSchema, secretKeysOf } = rules;
    const keys = secretKeysOf(base.source);
    const settingsPath = `profiles.${name}`;
    if (keys.length === 0) {
      return validate(profileSchema, base, `do perfil "${name}"`, locateIn('', [], settingsPath));
    }
    // Its shard only: one read (cached) serves every profile of that shard.
    const where = names().profile(base.secretName ?? name);
    const stored = entryOf(where, await secrets.read(where.secret, { recheck }));
    const secretName = entryLabel(where);
    const secret = pickKeys(secretName, stored, keys);
    const profile = validate(
      profileSchema,
      { ...base, ...secret },
      `do perfil "${name}"`,
      locateIn(secretName, keys, settingsPath),
    );
    return withPreviousValues(profile, previousFromSecret(stored));
  }

  return {
    async upstream(name = DEFAULT_ACCOUNT): Promise<UpstreamConfig> {
      const { report: _report, ...settings } = await account(name);
      const where = names().upstream(name);
      const stored = entryOf(where, await secrets.read(where.secret));
      const secretName = entryLabel(where);
      const secret = pickKeys(secretName, stored, UPSTREAM_SECRET_KEYS);
      const path = name === DEFAULT_ACCOUNT ? 'upstream' : `upstreams.${name}`;
      return validate(
        upstreamConfigSchema,
        { ...settings, ...secret },
        `da conta "${name}"`,
        locateIn(secretName, UPSTREAM_SECRET_KEYS, path),
      );
    },

    async accounts(): Promise<string[]> {
      return [...accountsOf(await current()).keys()];
    },

    async clients(): Promise<Client[]> {
      const name = names().clients;
      return clientsFromSecret(name, await secrets.read(name));
    },

    profile: (name: string) => readProfile(name, false),

    recheckProfile: (name: string) => readProfile(name, true),

    async profileNames(): Promise<string[]> {
      return Object.keys((await current()).profiles);
    },

    async currentName(name: string): Promise<string | undefined> {
      return currentProfileName((await current()).profiles, name);
    },

    async accountOf(profile: string): Promise<string> {
      const found = profileCalled((await current()).profiles, profile);
      return found ? accountOfProfile(found as Settings['profiles'][string]) : DEFAULT_ACCOUNT;
    },

    async profileNameFor(source: SourceName, upstream?: string): Promise<string | undefined> {
      return Object.entries((await current()).profiles).find(
        ([, profile]) =>
          profile.source === source &&
          (upstream === undefined || accountOfProfile(profile) === upstream),
      )?.[0];
    },

    async profileSettings() {
      return (await current()).profiles;
    },

    async report(name = DEFAULT_ACCOUNT): Promise<ReportConfig> {
      return (await account(name)).report;
    },

    async delivery(): Promise<DeliveryConfig> {
      return (await current()).delivery;
    },

    async branches() {
      return namedBranchesOf(await current());
    },

    refresh(): void {
      secrets.refresh();
    },
  };
}
