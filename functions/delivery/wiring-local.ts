/**
 * Delivery on one machine: the same use case as the forwarder Lambda, with the ledger, the
 * lead queue and the shared pacer on the local DynamoDB, and the configuration file. The pacer
 * item lives in the local ledger table, so every process on this data dir paces together.
 */
import { localConfigSource } from '../shared/config-local.ts';
import { createDynamoLedger } from '../shared/lead-ledger-dynamodb.ts';
import { createLocalLeadQueue, type LocalLeadQueue } from '../shared/lead-queue-local.ts';
import { localServices } from '../shared/local-services.ts';
import { createMetaGraph } from '../shared/meta-graph.ts';
import { logger } from '../shared/observability.ts';
import { createDynamoPacer } from '../shared/pacer-dynamodb.ts';
import {
  DEFAULT_MAX_PACING_WAIT_MS,
  type ForwardDeps,
  type ForwardOptions,
  forwardEvents,
  leaseMsFor,
  upstreamAccess,
} from './forward.ts';
import { type LocalWorker, startLocalWorker } from './worker-local.ts';

/** The local adapters; the local runtime must have started its services. */
export function localDeliveryDeps(options: ForwardOptions = {}): ForwardDeps {
  const services = localServices();
  const config = localConfigSource();
  return {
    ledger: createDynamoLedger({ client: services.dynamo, tableName: services.ledgerTable }),
    config,
    upstream: upstreamAccess(config, (upstream) =>
      createDynamoPacer({
        client: services.dynamo,
        tableName: services.ledgerTable,
        maxPerSecond: upstream.maxPerSecond,
        maxPerMinute: upstream.maxPerMinute,
        maxWaitMs: options.maxPacingWaitMs ?? DEFAULT_MAX_PACING_WAIT_MS,
        onError: (error) =>
          logger.error('upstream pacer pause could not be written', {
            error: error instanceof Error ? error.message : String(error),
          }),
      }),
    ),
    graph: createMetaGraph(),
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
  /** Pause between polls of an empty queue. Default 250 ms. */
  pollMs?: number;
  forward?: ForwardOptions;
}

/** The local runtime's delivery service (local/runtime.ts). */
export async function startLocalDelivery(options: LocalDeliveryOptions = {}): Promise<LocalWorker> {
  const config = localConfigSource();
  const upstream = await config.upstream();
  // Hidden for longer than an attempt may take, as the queue's visibility timeout on AWS.
  const visibilityMs = leaseMsFor(upstream.timeoutMs, options.forward) + 30_000;
  return startLocalWorker({
    queue: localLeadQueue(),
    deps: localDeliveryDeps(options.forward),
    visibilityMs,
    pollMs: options.pollMs ?? 250,
  });
}
