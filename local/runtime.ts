/**
 * The whole system on one machine (what `npm start` runs): the sandbox upstream, the effective
 * configuration registered for in-process handlers, and the gateway. Each part is a service
 * that is started in order and stopped in reverse order; the delivery worker and the report
 * refresher join the list when they exist.
 */
import { mkdirSync, unwatchFile, watchFile } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LocalWatchOptions } from '../functions/admin/watch/service-local.ts';
import { ConfigError, loadConfigFile, setLocalConfig } from '../functions/config/config-local.ts';
import type { Config } from '../functions/config/config-schema.ts';
import type { LookupPermission } from '../functions/delivery/forward/forward.ts';
import { setLocalServices } from '../functions/kernel/local-services.ts';
import { BINARY_MEDIA_TYPES } from '../functions/kernel/routes.ts';
import { localErasureSalt } from '../functions/ledger/erasure-salt-local.ts';
import { LEDGER_TABLE_DEFINITION } from '../functions/ledger/lead-ledger-dynamodb.ts';
import { LOCAL_QUEUE_TABLE_DEFINITION } from '../functions/ledger/lead-queue-local.ts';
import { startLocalDynamo } from './dynamodb-local.ts';
import { createGateway, DEPLOYED_UNKNOWN_ROUTE, routesFromTable } from './gateway.ts';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DEMO_CONFIG = resolve(REPO_ROOT, 'config/demo.json');

/** Local table names (the deployed stack names its own). */
export const LOCAL_TABLES = { ledger: 'leads-ledger', queue: 'leads-queue' } as const;

/** Receives before a message moves to the local dead-letter queue, as on AWS (infra). */
export const LOCAL_MAX_RECEIVE_COUNT = 8;

/** A problem with the environment or the machine that the user fixes: its message is enough. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

export interface LocalEnv {
  port: number;
  /** Undefined: no sandbox (`SANDBOX_PORT=0` or `UPSTREAM_URL` set). */
  sandboxPort: number | undefined;
  upstreamUrl: string | undefined;
  configPath: string;
  dataDir: string;
}

function portFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) {
    throw new StartupError(`${name} must be a port number from 0 to 65535, got "${raw}"`);
  }
  return port;
}

/** The contract's `npm start` environment, with its defaults. */
export function readLocalEnv(env: NodeJS.ProcessEnv = process.env): LocalEnv {
  const upstreamUrl = env.UPSTREAM_URL?.trim() || undefined;
  if (upstreamUrl && !/^https?:\/\//.test(upstreamUrl)) {
    throw new StartupError(`UPSTREAM_URL must be an http(s) URL, got "${upstreamUrl}"`);
  }
  if (upstreamUrl && !URL.canParse(upstreamUrl)) {
    throw new StartupError(`UPSTREAM_URL is not a valid URL: "${upstreamUrl}"`);
  }
  const sandboxPort = portFrom(env, 'SANDBOX_PORT', 4010);
  return {
    port: portFrom(env, 'PORT', 3000),
    sandboxPort: upstreamUrl || sandboxPort === 0 ? undefined : sandboxPort,
    upstreamUrl,
    configPath: env.LEADS_CONFIG?.trim() || DEMO_CONFIG,
    dataDir: resolve(env.DATA_DIR?.trim() || '.data'),
  };
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
export function effectiveConfig(
  config: Config,
  upstream: { sandboxUrl?: string | undefined; upstreamUrl?: string | undefined },
): Config {
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

export interface LocalRuntime {
  gatewayUrl: string;
  /** Set when the sandbox runs. */
  sandboxUrl: string | undefined;
  /** Whether the upstream key may look prospects up (undefined without the worker). */
  lookupPermission: LookupPermission | undefined;
  /** The configuration handlers use now (secrets included: never print it). */
  readonly config: Config;
  /**
   * Reads the configuration file again (the file watcher calls this when it changes). A valid
   * file takes effect at once; a broken one is refused with start-up's messages (the ConfigError
   * returned) and the previous configuration keeps running.
   */
  reloadConfig(): ConfigError | undefined;
  configPath: string;
  dataDir: string;
  /** Stops every service, the last started first. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Request and error lines of the gateway; default silent. */
  log?: (line: string) => void;
  /** Run the delivery worker; default: on unless LEADS_WORKER is `off` (or `0`, `false`). */
  worker?: boolean;
  /** Told when the watched configuration file was reloaded, or refused (with the reasons). */
  onConfigReload?: (outcome: { error?: ConfigError }) => void;
  /** How often the configuration file is checked for changes; default 500 ms. */
  configPollMs?: number;
  /** The quiet-profile watch (hourly by default); tests shorten it and listen for alerts. */
  watch?: LocalWatchOptions;
}

/** How long stopping waits for the delivery in flight before handing its message back. */
export const WORKER_STOP_DEADLINE_MS = 10_000;

/**
 * The ledger's wake grace on this machine (LEADS_WAKE_GRACE_MS, default 10 s): how long a lead
 * may sit without anyone picking it up before the local reconciler wakes it. Shorter than on
 * AWS (2 minutes): one machine has no slow queue to wait for.
 */
export const LOCAL_WAKE_GRACE_MS = 10_000;

function localWakeGraceMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.LEADS_WAKE_GRACE_MS?.trim();
  if (!raw) return LOCAL_WAKE_GRACE_MS;
  if (!/^\d+$/.test(raw)) {
    throw new StartupError(
      `LEADS_WAKE_GRACE_MS must be a whole number of milliseconds, got "${raw}"`,
    );
  }
  return Number(raw);
}

/** LEADS_WORKER=off|0|false disables the local delivery worker. */
export function workerEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !/^(off|0|false|no)$/i.test(env.LEADS_WORKER?.trim() ?? '');
}

type Stop = () => Promise<void>;

/**
 * Starts sandbox (unless disabled) and gateway. Throws ConfigError for a bad configuration
 * file, StartupError for a port in use; whatever was started is stopped again first.
 */
export async function startLocalRuntime(
  env: LocalEnv,
  options: StartOptions = {},
): Promise<LocalRuntime> {
  const fileConfig = loadConfigFile(env.configPath);
  mkdirSync(env.dataDir, { recursive: true });
  process.env.LEADS_RUNTIME = 'local';
  // The AWS SDK warns on Node 20 about its releases from 2027; locally it only talks to dynalite,
  // and the deployed functions run on Node 24. The warning would be noise on every start.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // CloudWatch metrics (EMF lines) mean nothing on this machine; logs stay on.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

  const running: { name: string; stop: Stop }[] = [];
  const stop = async () => {
    const errors: Error[] = [];
    for (const service of running.splice(0).reverse()) {
      await service.stop().catch((error: unknown) => {
        errors.push(new Error(`${service.name} did not stop cleanly`, { cause: error }));
      });
    }
    if (errors.length > 0) {
      throw new AggregateError(errors, errors.map((e) => e.message).join('; '));
    }
  };
  let ready = false;
  let lookupPermission: LookupPermission | undefined;

  try {
    let sandboxUrl: string | undefined;
    let acceptUsers: ((config: Config) => void) | undefined;
    if (env.sandboxPort !== undefined) {
      const { createSandbox } = await import('../sandbox/server.ts');
      const sandbox = await createSandbox({
        port: env.sandboxPort,
        host: '127.0.0.1',
        username: fileConfig.upstream.username,
        password: fileConfig.upstream.password,
      }).catch((error: unknown) => rethrowListenError(error, 'SANDBOX_PORT', env.sandboxPort));
      running.push({ name: 'sandbox', stop: () => sandbox.close() });
      sandboxUrl = sandbox.url;
      const url = sandbox.url;
      acceptUsers = (config) => sandbox.acceptUsers(sandboxUsers(config, url));
      await seedSetupSamples(url);
    }

    let config = effectiveConfig(fileConfig, { sandboxUrl, upstreamUrl: env.upstreamUrl });
    acceptUsers?.(config);
    setLocalConfig(config);
    running.push({ name: 'config', stop: async () => setLocalConfig(undefined) });

    const reloadConfig = (): ConfigError | undefined => {
      let next: Config;
      try {
        next = effectiveConfig(loadConfigFile(env.configPath), {
          sandboxUrl,
          upstreamUrl: env.upstreamUrl,
        });
      } catch (error) {
        if (error instanceof ConfigError) return error;
        throw error;
      }
      acceptUsers?.(next);
      config = next;
      setLocalConfig(next);
      return undefined;
    };
    // Polling the file's stat sees an editor's in-place write and its write-and-rename alike.
    const onFileChange = (now: { mtimeMs: number }, before: { mtimeMs: number }) => {
      if (now.mtimeMs === before.mtimeMs || now.mtimeMs === 0) return;
      const error = reloadConfig();
      options.onConfigReload?.(error ? { error } : {});
    };
    watchFile(env.configPath, { interval: options.configPollMs ?? 500 }, onFileChange);
    running.push({
      name: 'config-watcher',
      stop: async () => unwatchFile(env.configPath, onFileChange),
    });

    // The ledger and the queue: the same DynamoDB code as on AWS, on dynalite kept in DATA_DIR.
    const dynamo = await startLocalDynamo({
      dataDir: env.dataDir,
      tables: [
        { name: LOCAL_TABLES.ledger, definition: LEDGER_TABLE_DEFINITION },
        { name: LOCAL_TABLES.queue, definition: LOCAL_QUEUE_TABLE_DEFINITION },
      ],
    }).catch((error: unknown) => {
      throw new StartupError(error instanceof Error ? error.message : String(error));
    });
    running.push({ name: 'dynamodb', stop: () => dynamo.close() });
    let erasureSalt: string;
    try {
      // Generated once, then kept in DATA_DIR with the ledger whose tombstones it salts.
      erasureSalt = localErasureSalt(env.dataDir);
    } catch (error) {
      throw new StartupError(error instanceof Error ? error.message : String(error));
    }
    setLocalServices({
      dynamo: dynamo.client,
      ledgerTable: LOCAL_TABLES.ledger,
      queueTable: LOCAL_TABLES.queue,
      maxReceiveCount: LOCAL_MAX_RECEIVE_COUNT,
      wakeGraceMs: localWakeGraceMs(),
      erasureSalt,
    });
    running.push({ name: 'services', stop: async () => setLocalServices(undefined) });

    // The delivery worker and the report refresher start here, before the gateway takes traffic.

    // Lead delivery: the local worker drains the lead queue with the forwarder's use case
    // (functions/delivery). Stopped right after the gateway, before the stores it uses.
    if (options.worker ?? workerEnabled()) {
      const { startLocalDelivery } = await import('../functions/delivery/service-local.ts');
      const worker = await startLocalDelivery();
      lookupPermission = worker.lookupPermission;
      running.push({ name: 'delivery-worker', stop: () => worker.stop(WORKER_STOP_DEADLINE_MS) });
    }

    // Debtors reports: a refresh at start of each account whose stored report is not fresh,
    // then each when due; they live in DATA_DIR/reports. Their upstream calls are paced on the
    // accounts' pacer items of the local ledger table, the delivery worker's.
    const { startLocalRefresher } = await import('../functions/report/refresh/wiring-local.ts');
    const refresher = await startLocalRefresher({ dataDir: env.dataDir });
    running.push({ name: 'report-refresher', stop: () => refresher.stop() });

    // The quiet-profile watch: an hourly look for profiles whose leads stopped (a log warning).
    const { startLocalWatch } = await import('../functions/admin/watch/service-local.ts');
    const watch = startLocalWatch(options.watch);
    running.push({ name: 'quiet-profile-watch', stop: () => watch.stop() });

    const gateway = createGateway({
      routes: routesFromTable(REPO_ROOT),
      binaryMediaTypes: BINARY_MEDIA_TYPES,
      health: () => ready,
      log: options.log,
      // An unknown route is answered as the deployed API answers it (404, the contract's shape).
      unknownRoute: DEPLOYED_UNKNOWN_ROUTE,
    });
    const gatewayUrl = await gateway
      .listen(env.port)
      .catch((error: unknown) => rethrowListenError(error, 'PORT', env.port));
    running.push({ name: 'gateway', stop: () => gateway.close() });

    ready = true;
    return {
      gatewayUrl,
      sandboxUrl,
      lookupPermission,
      get config() {
        return config;
      },
      reloadConfig,
      configPath: env.configPath,
      dataDir: env.dataDir,
      stop: async () => {
        ready = false;
        await stop();
      },
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}

function rethrowListenError(error: unknown, variable: string, port: number | undefined): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    throw new StartupError(`port ${port} is already in use: stop what uses it or set ${variable}`);
  }
  if (code === 'EACCES') {
    throw new StartupError(`port ${port} needs more privileges: set ${variable} to another port`);
  }
  throw error;
}

/**
 * What the set-up kits' samples need of the sandbox (sources/setup.ts `sandbox`: the Graph lead
 * behind Meta's sample webhook), so that every profile's sample lead completes locally.
 */
async function seedSetupSamples(sandboxUrl: string): Promise<void> {
  const { SOURCES } = await import('../functions/sources/registry.ts');
  for (const source of SOURCES) {
    for (const { path, body } of source.setup?.sandbox ?? []) {
      const response = await fetch(`${sandboxUrl.replace(/\/+$/, '')}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`the sandbox refused ${path}: ${response.status}`);
    }
  }
}
