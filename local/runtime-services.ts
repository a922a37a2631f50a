/**
 * The local runtime's start-up steps, in the order local/runtime.ts runs them: the process
 * settings, the sandbox upstream (seeded with the set-up kits' samples), the live configuration
 * and its file watcher, the stores (the ledger and the queue on dynalite in DATA_DIR), the
 * background services (the delivery worker, the report refresher, the quiet-profile watch) and
 * the gateway. Each step adds what it started to the running list, which stops them in reverse
 * order; a port in use or a store that cannot start is a StartupError.
 */
import { mkdirSync } from 'node:fs';
import { setLocalConfig } from '../functions/config/config-local.ts';
import type { Config } from '../functions/config/config-schema.ts';
import type { LookupPermission } from '../functions/delivery/forward/ambiguity.ts';
import { ENV } from '../functions/kernel/env.ts';
import { setLocalServices } from '../functions/kernel/local-services.ts';
import { BINARY_MEDIA_TYPES } from '../functions/kernel/routes.ts';
import { localErasureSalt } from '../functions/ledger/erasure-salt-local.ts';
import { LEDGER_TABLE_DEFINITION } from '../functions/ledger/lead-item-dynamodb.ts';
import { LOCAL_QUEUE_TABLE_DEFINITION } from '../functions/ledger/lead-queue-local.ts';
import type { LocalWatchOptions } from '../functions/watch/service-local.ts';
import { startLocalDynamo } from './dynamodb-local.ts';
import { createGateway, routesFromTable } from './gateway.ts';
import { DEPLOYED_UNKNOWN_ROUTE } from './gateway-responses.ts';
import {
  applyConfig,
  effectiveConfig,
  type LiveConfig,
  type ReloadOutcome,
  sandboxUsers,
  watchConfigFile,
} from './runtime-config.ts';
import {
  type LocalEnv,
  localWakeGraceMs,
  REPO_ROOT,
  StartupError,
  workerEnabled,
} from './runtime-env.ts';

/** Local table names (the deployed stack names its own). */
export const LOCAL_TABLES = { ledger: 'leads-ledger', queue: 'leads-queue' } as const;

/** Receives before a message moves to the local dead-letter queue, as on AWS (infra). */
export const LOCAL_MAX_RECEIVE_COUNT = 8;

/** How long stopping waits for the delivery in flight before handing its message back. */
export const WORKER_STOP_DEADLINE_MS = 10_000;

/** The services started so far, in order, each with how to stop it. */
export type Running = { name: string; stop: () => Promise<void> }[];

/** Stops every running service, the last started first; one failure does not stop the rest. */
export async function stopAll(running: Running): Promise<void> {
  const errors: Error[] = [];
  for (const service of running.splice(0).reverse()) {
    await service.stop().catch((error: unknown) => {
      errors.push(new Error(`${service.name} did not stop cleanly`, { cause: error }));
    });
  }
  if (errors.length > 0) {
    throw new AggregateError(errors, errors.map((e) => e.message).join('; '));
  }
}

/** The data folder, and the process settings the in-process handlers read. */
export function prepareProcess(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  process.env[ENV.runtime] = 'local';
  // CloudWatch metrics (EMF lines) mean nothing on this machine; logs stay on.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
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

export interface LocalSandbox {
  url: string;
  /** Accepts the credentials of every account of `config` the sandbox stands in for. */
  acceptUsers: (config: Config) => void;
}

/** The sandbox upstream on `port`, accepting the file's upstream account, seeded. */
export async function startSandbox(
  port: number,
  fileConfig: Config,
  running: Running,
): Promise<LocalSandbox> {
  const { createSandbox } = await import('../sandbox/server.ts');
  const sandbox = await createSandbox({
    port,
    host: '127.0.0.1',
    username: fileConfig.upstream.username,
    password: fileConfig.upstream.password,
  }).catch((error: unknown) => rethrowListenError(error, 'SANDBOX_PORT', port));
  running.push({ name: 'sandbox', stop: () => sandbox.close() });
  const url = sandbox.url;
  await seedSetupSamples(url);
  return { url, acceptUsers: (config) => sandbox.acceptUsers(sandboxUsers(config, url)) };
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

/** The configuration the handlers see, pointed at the local upstream and reloaded on change. */
export function startConfig(
  env: LocalEnv,
  fileConfig: Config,
  sandbox: LocalSandbox | undefined,
  watch: { pollMs: number; onReload: ((outcome: ReloadOutcome) => void) | undefined },
  running: Running,
): LiveConfig {
  const upstream = { sandboxUrl: sandbox?.url, upstreamUrl: env.upstreamUrl };
  const live: LiveConfig = {
    config: effectiveConfig(fileConfig, upstream),
    configPath: env.configPath,
    upstream,
    acceptUsers: sandbox?.acceptUsers,
  };
  applyConfig(live, live.config);
  running.push({ name: 'config', stop: async () => setLocalConfig(undefined) });
  const unwatch = watchConfigFile(live, watch.pollMs, watch.onReload);
  running.push({ name: 'config-watcher', stop: async () => unwatch() });
  return live;
}

/**
 * The ledger and the queue: the same DynamoDB code as on AWS, on dynalite kept in DATA_DIR, with
 * the salt of the ledger's erasure tombstones kept beside it (generated at the first start).
 */
export async function startStores(dataDir: string, running: Running): Promise<void> {
  const dynamo = await startLocalDynamo({
    dataDir,
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
    erasureSalt = localErasureSalt(dataDir);
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
    dataDir,
  });
  running.push({ name: 'services', stop: async () => setLocalServices(undefined) });
}

/**
 * The services that work without a request: the delivery worker (unless switched off), the
 * report refresher and the quiet-profile watch. Returns whether the upstream key may look
 * prospects up (undefined without the worker).
 */
export async function startBackground(
  dataDir: string,
  options: { worker?: boolean | undefined; watch?: LocalWatchOptions | undefined },
  running: Running,
): Promise<LookupPermission | undefined> {
  let lookupPermission: LookupPermission | undefined;
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
  const refresher = await startLocalRefresher({ dataDir });
  running.push({ name: 'report-refresher', stop: () => refresher.stop() });

  // The quiet-profile watch: an hourly look for profiles whose leads stopped (a log warning).
  const { startLocalWatch } = await import('../functions/watch/service-local.ts');
  const watch = startLocalWatch(options.watch);
  running.push({ name: 'quiet-profile-watch', stop: () => watch.stop() });
  return lookupPermission;
}

/**
 * The gateway on `port` with the deployed route table, answering an unknown route as the
 * deployed API does; `GET /health` says ok once `ready()`. Resolves its base URL.
 */
export async function startGateway(
  port: number,
  log: ((line: string) => void) | undefined,
  ready: () => boolean,
  running: Running,
): Promise<string> {
  const gateway = createGateway({
    routes: routesFromTable(REPO_ROOT),
    binaryMediaTypes: BINARY_MEDIA_TYPES,
    health: ready,
    log,
    // An unknown route is answered as the deployed API answers it (404, the contract's shape).
    unknownRoute: DEPLOYED_UNKNOWN_ROUTE,
  });
  const gatewayUrl = await gateway
    .listen(port)
    .catch((error: unknown) => rethrowListenError(error, 'PORT', port));
  running.push({ name: 'gateway', stop: () => gateway.close() });
  return gatewayUrl;
}
