/**
 * The environment `npm start` reads (see CONTRACT.md), with its defaults: the ports, the upstream
 * (the sandbox, or UPSTREAM_URL), the configuration file and the data folder, and the switches
 * for the delivery worker and the ledger's wake grace. A value the user must fix is a
 * StartupError whose message says which variable and why.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DEMO_CONFIG = resolve(REPO_ROOT, 'config/demo.json');

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

/**
 * The ledger's wake grace on this machine (LEADS_WAKE_GRACE_MS, default 10 s): how long a lead
 * may sit without anyone picking it up before the local reconciler wakes it. Shorter than on
 * AWS (2 minutes): one machine has no slow queue to wait for.
 */
export const LOCAL_WAKE_GRACE_MS = 10_000;

export function localWakeGraceMs(env: NodeJS.ProcessEnv = process.env): number {
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
