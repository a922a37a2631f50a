/**
 * Delivery on one machine (what `npm start` runs): the worker that drains the local lead queue
 * with the forwarder's use case (forward/worker-local.ts), the reconciler on a timer (what
 * EventBridge Scheduler does every minute on AWS), and at start a check that the upstream key
 * may look prospects up. Local-only tuning knobs (`LEADS_*_MS`, whole milliseconds, for tests
 * and demos; nothing deployed reads them) are listed in docs/operations.md ("Local delivery
 * worker") and read by `localDeliveryOptionsFromEnv`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { localConfigSource } from '../config/config-local.ts';
import { localServices } from '../kernel/local-services.ts';
import { logger } from '../kernel/observability.ts';
import { localLeadQueue, localLedger } from '../ledger/ledger-local.ts';
import { type CircuitOptions, DEFAULT_CIRCUIT_OPTIONS } from '../upstream/circuit.ts';
import { checkLookupPermission, type LookupPermission } from './forward/ambiguity.ts';
import { type ForwardOptions, leaseMsFor } from './forward/attempt.ts';
import { queueEvents } from './forward/events.ts';
import { localDeliveryDeps } from './forward/wiring-local.ts';
import { type LocalWorker, startLocalWorker } from './forward/worker-local.ts';
import { reconcileEvents } from './reconcile/events.ts';
import { reconcile } from './reconcile/reconcile.ts';
import { redactExpired } from './reconcile/retention.ts';

export interface LocalDeliveryOptions {
  /** Pause between polls of an empty queue. Default 250 ms. */
  pollMs?: number;
  /** How long a received message stays hidden. Default lease + 30 s. */
  visibilityMs?: number;
  /** How often the reconciler runs. Default 5 s. */
  reconcileMs?: number;
  /** Workers draining the queue at once. Default: one per configured account, at least 2. */
  concurrency?: number;
  forward?: ForwardOptions;
  circuit?: Partial<CircuitOptions>;
}

export interface LocalDelivery extends LocalWorker {
  /** Whether every account's key may look prospects up (checked at start). */
  lookupPermission: LookupPermission;
  /** The accounts whose key may not. */
  lookupForbidden: string[];
}

/** The environment variables of the module comment, as LocalDeliveryOptions. */
export function localDeliveryOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): LocalDeliveryOptions {
  const read = (name: string, min = 0): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < min) {
      throw new Error(`${name} must be a whole number of milliseconds ≥ ${min}, got "${raw}"`);
    }
    return Number(raw);
  };
  const pick = <K extends string>(
    names: Record<K, [string, number?]>,
  ): Partial<Record<K, number>> => {
    const out: Partial<Record<K, number>> = {};
    for (const [key, [name, min]] of Object.entries(names) as [K, [string, number?]][]) {
      const value = read(name, min);
      if (value !== undefined) out[key] = value;
    }
    return out;
  };
  return {
    ...pick({
      pollMs: ['LEADS_WORKER_POLL_MS'],
      visibilityMs: ['LEADS_VISIBILITY_MS', 1],
      reconcileMs: ['LEADS_RECONCILE_MS', 1],
      concurrency: ['LEADS_WORKER_CONCURRENCY', 1],
    }),
    forward: pick({
      backoffBaseMs: ['LEADS_RETRY_BASE_MS'],
      backoffCapMs: ['LEADS_RETRY_CAP_MS'],
      lookupDelayMs: ['LEADS_LOOKUP_DELAY_MS'],
      settleMs: ['LEADS_SETTLE_MS'],
      leaseMs: ['LEADS_LEASE_MS', 1],
      spreadMs: ['LEADS_SPREAD_MS'],
      profileRecheckMs: ['LEADS_PROFILE_RECHECK_MS', 1],
      circuitRecheckMs: ['LEADS_CIRCUIT_RECHECK_MS', 1],
    }),
    circuit: pick({
      probeBaseMs: ['LEADS_PROBE_BASE_MS', 1],
      probeCapMs: ['LEADS_PROBE_CAP_MS', 1],
    }),
  };
}

/** The most delivery workers the local runtime starts by itself (LEADS_WORKER_CONCURRENCY: more). */
export const LOCAL_MAX_WORKERS = 16;

/**
 * The local runtime's delivery service (local/runtime.ts). `options` win over the environment
 * knobs of the module comment, which win over the defaults.
 */
export async function startLocalDelivery(
  options: LocalDeliveryOptions = {},
): Promise<LocalDelivery> {
  const fromEnv = localDeliveryOptionsFromEnv();
  const forward: ForwardOptions = { ...fromEnv.forward, ...options.forward };
  const circuitOptions: CircuitOptions = {
    ...DEFAULT_CIRCUIT_OPTIONS,
    ...fromEnv.circuit,
    ...options.circuit,
  };
  const config = localConfigSource();
  const accounts = await config.accounts();
  const upstreams = await Promise.all(accounts.map((name) => config.upstream(name)));
  const leaseMs = leaseMsFor(Math.max(...upstreams.map((u) => u.timeoutMs)), forward);
  // Hidden for longer than an attempt may take, as the queue's visibility timeout on AWS.
  const visibilityMs = options.visibilityMs ?? fromEnv.visibilityMs ?? leaseMs + 30_000;
  if (visibilityMs <= leaseMs) {
    throw new Error(
      `the lead queue's visibility (${visibilityMs} ms) must be longer than the lease (${leaseMs} ms)`,
    );
  }
  const deps = localDeliveryDeps(forward, circuitOptions);
  // One check per upstream key, not per account: a chain's 300 accounts on one sandbox (or one
  // key) would otherwise spend the upstream's minute of requests before the first lead.
  const checks = new Map<string, Promise<LookupPermission>>();
  const permissions = await Promise.all(
    accounts.map(async (name, index) => {
      const { baseUrl, username, password } = upstreams[index] as (typeof upstreams)[number];
      const key = JSON.stringify([baseUrl, username, password]);
      if (!checks.has(key)) {
        checks.set(key, (async () => checkLookupPermission((await deps.upstream(name)).client))());
      }
      return checks.get(key) as Promise<LookupPermission>;
    }),
  );
  const lookupForbidden = accounts.filter((_, index) => permissions[index] === 'forbidden');
  for (const upstream of lookupForbidden) {
    queueEvents.lookupForbidden({ upstream, lookupPermission: 'forbidden' });
  }
  const lookupPermission: LookupPermission =
    lookupForbidden.length > 0
      ? 'forbidden'
      : permissions.every((p) => p === 'permitted')
        ? 'permitted'
        : 'unknown';

  const queue = localLeadQueue();
  // The attempt that closes a circuit wakes the leads that waited for it (delivery/waiting.ts).
  deps.queue = queue;
  // Each worker takes one message at a time: one per account lets every account's sequence run
  // beside the others, as the forwarder's batches do on AWS (its concurrency: concurrency.ts),
  // up to LOCAL_MAX_WORKERS: a chain's 300 accounts would be 300 loops polling one machine's
  // queue (the queue's fair order still takes the accounts in turn).
  const concurrency =
    options.concurrency ??
    fromEnv.concurrency ??
    Math.max(2, Math.min(accounts.length, LOCAL_MAX_WORKERS));
  const workers = Array.from({ length: concurrency }, () =>
    startLocalWorker({
      queue,
      deps,
      visibilityMs,
      pollMs: options.pollMs ?? fromEnv.pollMs ?? 250,
    }),
  );

  // The reconciler: at once (leads left by a previous run), then every reconcileMs.
  const reconcileMs = options.reconcileMs ?? fromEnv.reconcileMs ?? 5_000;
  const { wakeGraceMs } = localServices();
  const stopping = new AbortController();
  const circuits = (account: string) => ({
    read: async () => (await deps.upstream(account)).circuit.read(),
    release: async (now: number, leadId: string) =>
      (await deps.upstream(account)).circuit.release(now, leadId),
  });
  const reconciler = (async () => {
    const ledger = localLedger();
    let retentionAt = 0;
    while (!stopping.signal.aborted) {
      try {
        await reconcile({
          ledger,
          queue,
          circuitOf: (account) => circuits(account),
          accountOf: (profile) => config.accountOf(profile),
          accounts: () => config.accounts(),
          profileNames: () => config.profileNames(),
          events: reconcileEvents,
          options: { wakeGraceMs },
        });
        // The personal-data retention, once a minute (hourly on AWS: reconcile/handler.ts).
        if (Date.now() - retentionAt >= 60_000) {
          retentionAt = Date.now();
          const { personalDataDays } = await config.delivery();
          await redactExpired({ ledger, days: personalDataDays });
        }
      } catch (error) {
        logger.error('local reconciler run failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      await delay(reconcileMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  })();

  return {
    lookupPermission,
    lookupForbidden,
    async stop(deadlineMs) {
      stopping.abort();
      await reconciler;
      await Promise.all(workers.map((worker) => worker.stop(deadlineMs)));
    },
  };
}
