/**
 * The configuration port. Functions ask for the part they need, when they need it:
 * - AWS adapter (config-aws.ts): non-secret settings from the `LEADS_SETTINGS` environment
 *   variable, secrets from Secrets Manager through Powertools' cached `getSecret`.
 * - Local adapter (config-local.ts): the validated `LEADS_CONFIG` file.
 */
import type {
  Client,
  Config,
  DeliveryConfig,
  Profile,
  SourceName,
  UpstreamConfig,
} from './config-schema.ts';

/**
 * A configuration that cannot be used as it stands. Its message names the file, setting or
 * secret and key at fault, never a secret's value, so it may be logged and shown.
 */
export class ConfigurationError extends Error {
  override readonly name: string = 'ConfigurationError';
}

/** A profile's non-secret settings: its source and whatever else it sets. */
export type ProfileSettings = { source: string } & Record<string, unknown>;

export interface ConfigSource {
  upstream(): Promise<UpstreamConfig>;
  clients(): Promise<Client[]>;
  /** The named profile with its keys, or undefined when there is no such profile. */
  profile(name: string): Promise<Profile | undefined>;
  /** The name of the first profile with this source (`POST /api/v1/prospects` uses `prospect`'s). */
  profileNameFor(source: SourceName): Promise<string | undefined>;
  /**
   * Every profile's settings without its secrets, by name, in the configuration's order: what
   * the console lists and the quiet-profile watch reads, with no Secrets Manager read.
   */
  profileSettings(): Promise<Record<string, ProfileSettings>>;
  report(): Promise<Config['report']>;
  /** How delivery gives up on a lead. */
  delivery(): Promise<DeliveryConfig>;
}
