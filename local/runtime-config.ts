/**
 * The configuration on this machine: the file's configuration pointed at the local upstream
 * (effectiveConfig: the sandbox, or UPSTREAM_URL), the sandbox's accepted credentials
 * (sandboxUsers), and the live configuration the in-process handlers read, reloaded when its
 * file changes (a broken file is refused and the previous configuration keeps running). A reload
 * that drops a profile which received leads in the last 30 days warns, in Portuguese, how many
 * of its leads are waiting (functions/ledger/profile-removal.ts; a read-only look at the ledger).
 * A reload that brings a profile back wakes the leads waiting for it at once
 * (functions/delivery/waiting.ts `wakeReturnedProfiles`), instead of their next recheck.
 */

import { unwatchFile, watchFile } from 'node:fs';
import { ConfigError, loadConfigFile, setLocalConfig } from '../functions/config/config-local.ts';
import type { Config } from '../functions/config/config-schema.ts';
import { currentProfileName } from '../functions/config/profile-names.ts';
import { wakeReturnedProfiles } from '../functions/delivery/waiting.ts';
import { localServices } from '../functions/kernel/local-services.ts';
import type { LeadLedger } from '../functions/ledger/lead-ledger.ts';
import { localLeadQueue, localLedger } from '../functions/ledger/ledger-local.ts';
import { leavingProfiles, profileRemovalWarnings } from '../functions/ledger/profile-removal.ts';

/** Where the local upstream is: the sandbox's URL, or UPSTREAM_URL. */
export interface LocalUpstream {
  sandboxUrl?: string | undefined;
  upstreamUrl?: string | undefined;
}

/** The platform API a source's `complete()` step calls, by source: the sandbox stands in for it. */
const SANDBOXED_APIS: Readonly<Record<string, string>> = {
  meta: 'graphBaseUrl',
  tiktok: 'apiBaseUrl',
  kommo: 'apiBaseUrl',
};

/**
 * The configuration handlers see. With a sandbox, the upstream is the sandbox: the account
 * `default` and every other account on the same origin point at it (each keeps its credentials,
 * which the sandbox accepts), and so does a platform API the sandbox stands in for (Meta's Graph
 * URL, TikTok's and Kommo's API URLs) configured at that origin. UPSTREAM_URL replaces those base URLs
 * instead. An account on another origin (a second local sandbox, say) is left as configured.
 */
export function effectiveConfig(config: Config, upstream: LocalUpstream): Config {
  const target = upstream.upstreamUrl ?? upstream.sandboxUrl;
  if (!target) return config;
  const baseUrl = target.replace(/\/+$/, '');
  const configuredOrigin = new URL(config.upstream.baseUrl).origin;
  const redirect = <T extends { baseUrl: string }>(account: T): T =>
    new URL(account.baseUrl).origin === configuredOrigin ? { ...account, baseUrl } : account;
  const upstreams =
    config.upstreams &&
    Object.fromEntries(
      Object.entries(config.upstreams).map(([name, account]) => [name, redirect(account)]),
    );
  const withAccounts: Config = {
    ...config,
    upstream: { ...config.upstream, baseUrl },
    ...(upstreams ? { upstreams } : {}),
  };
  if (upstream.upstreamUrl || !upstream.sandboxUrl) return withAccounts;
  const sandbox = new URL(upstream.sandboxUrl);
  const profiles = Object.fromEntries(
    Object.entries(config.profiles).map(([name, profile]) => {
      const setting = SANDBOXED_APIS[profile.source];
      const value = setting ? (profile as Record<string, unknown>)[setting] : undefined;
      if (!setting || typeof value !== 'string') return [name, profile];
      const api = new URL(value);
      if (api.origin !== configuredOrigin) return [name, profile];
      const rewritten = `${sandbox.origin}${api.pathname}${api.search}`;
      return [name, { ...profile, [setting]: rewritten }];
    }),
  );
  return { ...withAccounts, profiles };
}

/** The credentials of every account the sandbox stands in for (see effectiveConfig). */
export function sandboxUsers(
  config: Config,
  sandboxUrl: string,
): { username: string; password: string }[] {
  const origin = new URL(sandboxUrl).origin;
  return [config.upstream, ...Object.values(config.upstreams ?? {})]
    .filter((account) => new URL(account.baseUrl).origin === origin)
    .map(({ username, password }) => ({ username, password }));
}

/** The configuration handlers use now, and where it comes from. */
export interface LiveConfig {
  /** Secrets included: never print it. */
  config: Config;
  readonly configPath: string;
  readonly upstream: LocalUpstream;
  /** Tells the sandbox which accounts to accept; undefined without a sandbox. */
  readonly acceptUsers: ((config: Config) => void) | undefined;
}

/** Makes `config` the one the sandbox accepts and the handlers see. */
export function applyConfig(live: LiveConfig, config: Config): void {
  live.acceptUsers?.(config);
  live.config = config;
  setLocalConfig(config);
}

/**
 * Reads the configuration file again. A valid file takes effect at once; a broken one is refused
 * with start-up's messages (the ConfigError returned) and the previous configuration stays.
 */
export function reloadConfig(live: LiveConfig): ConfigError | undefined {
  let next: Config;
  try {
    next = effectiveConfig(loadConfigFile(live.configPath), live.upstream);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  applyConfig(live, next);
  return undefined;
}

/** What a reload of the watched file came to: refused (`error`), or in use, with its warnings. */
export interface ReloadOutcome {
  error?: ConfigError;
  /** Profiles the new version dropped that received leads in the last 30 days (Portuguese). */
  warnings?: string[];
  /** Leads waiting for a profile the new version brought back, woken by it. */
  woken?: number;
}

/** A second look this long after a reload: a lead that met the gap just as it closed. */
export const WAKE_AGAIN_MS = 1_000;

/**
 * Wakes the leads waiting for a profile `config` has (none without the local services: a
 * runtime without stores). Returns how many; never throws (the recheck stays the safety net).
 */
export async function wakeForConfig(config: Config): Promise<number> {
  let services: ReturnType<typeof localServices>;
  try {
    services = localServices();
  } catch {
    return 0;
  }
  try {
    return await wakeReturnedProfiles(
      { ledger: localLedger(), queue: localLeadQueue() },
      // A lead waiting under a former name (`formerly`) is woken too.
      (profile) => currentProfileName(config.profiles, profile) !== undefined,
      { now: () => new Date(), wakeGraceMs: services.wakeGraceMs ?? 0 },
    );
  } catch {
    return 0;
  }
}

/**
 * The warnings about the profiles `after` drops from `before` (none when it drops none, or only
 * unused ones); a ledger that cannot be read says so in the one warning.
 */
export async function removalWarnings(
  before: Config,
  after: Config,
  ledger?: Pick<LeadLedger, 'listRecent'>,
  now = new Date(),
): Promise<string[]> {
  const change = leavingProfiles(before, after);
  if (change.leaving.length === 0) return [];
  try {
    return await profileRemovalWarnings(ledger ?? localLedger(), change, now);
  } catch (error) {
    const names = change.leaving.map((name) => `'${name}'`).join(', ');
    return [
      `aviso: sai(em) da configuração o(s) perfil(is) ${names}; a consulta aos leads deles falhou (${(error as Error).message})`,
    ];
  }
}

/**
 * Reloads the configuration whenever its file changes, telling `onReload` the outcome (once the
 * ledger was read when profiles left); returns how to stop watching. Polling the file's stat sees
 * an editor's in-place write and its write-and-rename alike.
 */
export function watchConfigFile(
  live: LiveConfig,
  intervalMs: number,
  onReload: ((outcome: ReloadOutcome) => void) | undefined,
): () => void {
  const onFileChange = (now: { mtimeMs: number }, before: { mtimeMs: number }) => {
    if (now.mtimeMs === before.mtimeMs || now.mtimeMs === 0) return;
    const previous = live.config;
    const error = reloadConfig(live);
    if (error) {
      onReload?.({ error });
      return;
    }
    const next = live.config;
    const returned = Object.keys(next.profiles).some(
      (name) => !Object.hasOwn(previous.profiles, name),
    );
    const woken = returned
      ? wakeForConfig(next).then(async (first) => {
          // A lead claimed under the old version may start its wait just after the first look.
          await new Promise((resolve) => setTimeout(resolve, WAKE_AGAIN_MS));
          return first + (live.config === next ? await wakeForConfig(next) : 0);
        })
      : Promise.resolve(0);
    void Promise.all([removalWarnings(previous, next), woken]).then(([warnings, count]) =>
      onReload?.({
        ...(warnings.length > 0 && { warnings }),
        ...(count > 0 && { woken: count }),
      }),
    );
  };
  watchFile(live.configPath, { interval: intervalMs }, onFileChange);
  return () => unwatchFile(live.configPath, onFileChange);
}
