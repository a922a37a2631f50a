/**
 * The whole system on one machine (what `npm start` runs): the sandbox upstream, the effective
 * configuration registered for in-process handlers, the local DynamoDB, the delivery worker, the
 * report refresher, the quiet-profile watch and the gateway. Each part is a service that is
 * started in order and stopped in reverse order (the steps: local/runtime-services.ts).
 *
 * This file is the runtime's entry point; its parts (import their names from them):
 * - runtime-env.ts: the environment `npm start` reads, and StartupError;
 * - runtime-config.ts: the configuration pointed at the local upstream, reloaded on change;
 * - runtime-services.ts: the start-up steps and the running list that stops them.
 */

import { type ConfigError, loadConfigFile } from '../functions/config/config-local.ts';
import type { Config } from '../functions/config/config-schema.ts';
import type { LookupPermission } from '../functions/delivery/forward/ambiguity.ts';
import type { LocalWatchOptions } from '../functions/watch/service-local.ts';
import { type ReloadOutcome, reloadConfig } from './runtime-config.ts';
import type { LocalEnv } from './runtime-env.ts';
import {
  prepareProcess,
  type Running,
  startBackground,
  startConfig,
  startGateway,
  startSandbox,
  startStores,
  stopAll,
} from './runtime-services.ts';

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
  /**
   * Told when the watched configuration file was reloaded (with warnings about profiles it
   * dropped that received leads in the last 30 days), or refused (with the reasons).
   */
  onConfigReload?: (outcome: ReloadOutcome) => void;
  /** How often the configuration file is checked for changes; default 500 ms. */
  configPollMs?: number;
  /** The quiet-profile watch (hourly by default); tests shorten it and listen for alerts. */
  watch?: LocalWatchOptions;
}

/**
 * Starts sandbox (unless disabled) and gateway. Throws ConfigError for a bad configuration
 * file, StartupError for a port in use; whatever was started is stopped again first.
 */
export async function startLocalRuntime(
  env: LocalEnv,
  options: StartOptions = {},
): Promise<LocalRuntime> {
  const fileConfig = loadConfigFile(env.configPath);
  prepareProcess(env.dataDir);
  const running: Running = [];
  let ready = false;
  try {
    const sandbox =
      env.sandboxPort === undefined
        ? undefined
        : await startSandbox(env.sandboxPort, fileConfig, running);
    const live = startConfig(
      env,
      fileConfig,
      sandbox,
      { pollMs: options.configPollMs ?? 500, onReload: options.onConfigReload },
      running,
    );
    await startStores(env.dataDir, running);
    // The delivery worker and the report refresher start here, before the gateway takes traffic.
    const lookupPermission = await startBackground(env.dataDir, options, running);
    const gatewayUrl = await startGateway(env.port, options.log, () => ready, running);
    ready = true;
    return {
      gatewayUrl,
      sandboxUrl: sandbox?.url,
      lookupPermission,
      get config() {
        return live.config;
      },
      reloadConfig: () => reloadConfig(live),
      configPath: env.configPath,
      dataDir: env.dataDir,
      stop: async () => {
        ready = false;
        await stopAll(running);
      },
    };
  } catch (error) {
    await stopAll(running).catch(() => {});
    throw error;
  }
}
