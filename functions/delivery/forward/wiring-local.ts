/**
 * Delivery on one machine: the same use case as the forwarder Lambda, with the ledger, the
 * lead queue and the shared pacer on the local DynamoDB, and the configuration file. The pacer
 * item lives in the local ledger table, so every process on this data dir paces together.
 *
 * Local-only tuning knobs, read from the environment by `startLocalDelivery` (unset or empty: the
 * defaults below and in forward.ts). They exist so that end-to-end tests and demos can see
 * retries within seconds instead of minutes; nothing deployed reads them (the Lambda's wiring is
 * wiring-aws.ts). Each is a whole number of milliseconds; anything else stops the start-up.
 * - `LEADS_WORKER_POLL_MS`: pause between polls of an empty queue (250).
 * - `LEADS_RETRY_BASE_MS`, `LEADS_RETRY_CAP_MS`: full-jitter backoff after `unavailable`
 *   (2 000 and 900 000).
 * - `LEADS_AMBIGUOUS_SETTLE_MS`: earliest retry after an ambiguous POST (30 000).
 * - `LEADS_LEASE_MS`: the lease an attempt takes on its lead (Graph timeout + 2 × (upstream
 *   timeout + pacing wait) + 5 s); shorter means a crashed attempt's lead is taken over sooner,
 *   but it must stay longer than one attempt may take.
 * - `LEADS_VISIBILITY_MS`: how long a received message stays hidden, so how soon a message
 *   whose worker was killed comes back (lease + 30 s); must be longer than the lease.
 */
import { localConfigSource } from '../config/config-local.ts';
import { localServices } from '../kernel/local-services.ts';
import { createDynamoLedger } from '../ledger/lead-ledger-dynamodb.ts';
import { createLocalLeadQueue, type LocalLeadQueue } from '../ledger/lead-queue-local.ts';
import { pacedUpstream } from '../upstream/paced-client.ts';
import { sharedPacerFactory } from '../upstream/pacer-dynamodb.ts';
import { forwardEvents } from './events.ts';
import {
  DEFAULT_MAX_PACING_WAIT_MS,
  type ForwardDeps,
  type ForwardOptions,
  leaseMsFor,
} from './forward.ts';
import { type LocalWorker, startLocalWorker } from './worker-local.ts';

/** The local adapters; the local runtime must have started its services. */
export function localDeliveryDeps(options: ForwardOptions = {}): ForwardDeps {
  const services = localServices();
  const config = localConfigSource();
  return {
    ledger: createDynamoLedger({ client: services.dynamo, tableName: services.ledgerTable }),
    config,
    upstream: pacedUpstream(
      config,
      sharedPacerFactory(
        { client: services.dynamo, tableName: services.ledgerTable },
        { maxWaitMs: options.maxPacingWaitMs ?? DEFAULT_MAX_PACING_WAIT_MS },
      ),
    ),
    events: forwardEvents,
    options,
  };
}

export function localLeadQueue(): LocalLeadQueue {
  const services = localServices();
  return createLocalLeadQueue({
    client: services.dynamo,
    tableName: services.queueTable,
    maxReceiveCount: services.maxReceiveCount,
  });
}

export interface LocalDeliveryOptions {
  /** Pause between polls of an empty queue. Default 250 ms (or LEADS_WORKER_POLL_MS). */
  pollMs?: number;
  /** How long a received message stays hidden. Default lease + 30 s (or LEADS_VISIBILITY_MS). */
  visibilityMs?: number;
  forward?: ForwardOptions;
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
  const forward: ForwardOptions = {};
  const backoffBaseMs = read('LEADS_RETRY_BASE_MS');
  const backoffCapMs = read('LEADS_RETRY_CAP_MS');
  const ambiguousSettleMs = read('LEADS_AMBIGUOUS_SETTLE_MS');
  const leaseMs = read('LEADS_LEASE_MS', 1);
  if (backoffBaseMs !== undefined) forward.backoffBaseMs = backoffBaseMs;
  if (backoffCapMs !== undefined) forward.backoffCapMs = backoffCapMs;
  if (ambiguousSettleMs !== undefined) forward.ambiguousSettleMs = ambiguousSettleMs;
  if (leaseMs !== undefined) forward.leaseMs = leaseMs;
  const options: LocalDeliveryOptions = { forward };
  const pollMs = read('LEADS_WORKER_POLL_MS');
  const visibilityMs = read('LEADS_VISIBILITY_MS', 1);
  if (pollMs !== undefined) options.pollMs = pollMs;
  if (visibilityMs !== undefined) options.visibilityMs = visibilityMs;
  return options;
}

/**
 * The local runtime's delivery service (local/runtime.ts). `options` win over the environment
 * knobs of the module comment, which win over the defaults.
 */
export async function startLocalDelivery(options: LocalDeliveryOptions = {}): Promise<LocalWorker> {
  const fromEnv = localDeliveryOptionsFromEnv();
  const forward: ForwardOptions = { ...fromEnv.forward, ...options.forward };
  const config = localConfigSource();
  const upstream = await config.upstream();
  const leaseMs = leaseMsFor(upstream.timeoutMs, forward);
  // Hidden for longer than an attempt may take, as the queue's visibility timeout on AWS.
  const visibilityMs = options.visibilityMs ?? fromEnv.visibilityMs ?? leaseMs + 30_000;
  if (visibilityMs <= leaseMs) {
    throw new Error(
      `the lead queue's visibility (${visibilityMs} ms) must be longer than the lease (${leaseMs} ms)`,
    );
  }
  return startLocalWorker({
    queue: localLeadQueue(),
    deps: localDeliveryDeps(forward),
    visibilityMs,
    pollMs: options.pollMs ?? fromEnv.pollMs ?? 250,
  });
}
