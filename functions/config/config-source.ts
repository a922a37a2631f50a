/**
 * The configuration port. Functions ask for the part they need, when they need it:
 * - AWS adapter (config-aws.ts): non-secret settings from the configuration store (AppConfig),
 *   secrets from Secrets Manager through Powertools' cached `getSecret`.
 * - Local adapter (config-local.ts): the validated `LEADS_CONFIG` file, reloaded when it changes.
 * Upstream accounts are named (kernel/accounts.ts); `default` when none is given.
 */
import type { NamedBranch } from '../domain/branch-match.ts';
import type { Client } from '../kernel/client-schema.ts';
import type { SourceName } from '../sources/registry.ts';
import type { DeliveryConfig, ReportConfig, UpstreamConfig } from './config-parts.ts';
import type { Profile } from './config-schema.ts';

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
  /** An account's upstream settings and credentials (ConfigurationError for an unknown one). */
  upstream(account?: string): Promise<UpstreamConfig>;
  /** The configured accounts' names, `default` first. */
  accounts(): Promise<string[]>;
  clients(): Promise<Client[]>;
  /**
   * The named profile with its keys, or undefined when there is no such profile. A former name
   * (`formerly`, profile-names.ts) names the renamed profile.
   */
  profile(name: string): Promise<Profile | undefined>;
  /** The current name of the profile called `name` now or before (`formerly`). */
  currentName?(name: string): Promise<string | undefined>;
  /**
   * The named profile read again past any cache of its keys, because a credential it holds was
   * just refused: a value rotated a moment ago (secret-rotation.ts). Absent where every read is
   * fresh (the local file); the AWS adapter reads a secret again at most every few seconds.
   */
  recheckProfile?(name: string): Promise<Profile | undefined>;
  /** Every profile's name. */
  profileNames(): Promise<string[]>;
  /** The upstream account of a profile (`default` for a profile that is not configured). */
  accountOf(profile: string): Promise<string>;
  /**
   * The name of the first profile with this source, of `upstream` when given
   * (`POST /api/v1/prospects` uses the `prospect` profile of the client's account).
   */
  profileNameFor(source: SourceName, upstream?: string): Promise<string | undefined>;
  /** An account's debtors report settings. */
  report(account?: string): Promise<ReportConfig>;
  /**
   * Every profile's settings without its secrets, by name, in the configuration's order: what
   * the console lists and the quiet-profile watch reads, with no Secrets Manager read.
   */
  profileSettings(): Promise<Record<string, ProfileSettings>>;
  /** How delivery gives up on a lead. */
  delivery(): Promise<DeliveryConfig>;
  /** Every account's named branches (`branches` of each account), configured names only. */
  branches(): Promise<NamedBranch[]>;
}
