/**
 * The configuration port. Functions ask for the part they need, when they need it:
 * - AWS adapter (config-aws.ts): non-secret settings from the `LEADS_SETTINGS` environment
 *   variable, secrets from Secrets Manager through Powertools' cached `getSecret`.
 * - Local adapter (config-local.ts): the validated `LEADS_CONFIG` file.
 */
import type { Client, Config, Profile, SourceName, UpstreamConfig } from './config-schema.ts';

export interface ConfigSource {
  upstream(): Promise<UpstreamConfig>;
  clients(): Promise<Client[]>;
  /** The named profile with its keys, or undefined when there is no such profile. */
  profile(name: string): Promise<Profile | undefined>;
  /** The name of the first profile with this source (`POST /api/v1/prospects` uses `prospect`'s). */
  profileNameFor(source: SourceName): Promise<string | undefined>;
  report(): Promise<Config['report']>;
}
