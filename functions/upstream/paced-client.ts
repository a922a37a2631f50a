/**
 * The one way delivery and the report refresher reach the upstream: a client for the current
 * upstream settings, paced by the account's pacer. The client is built again when the settings
 * change (a rotated secret, new limits); the pacer only when the limits change, so its local
 * state (a pause it could not write yet) survives a secret rotation.
 */
import type { ConfigSource } from '../config/config-source.ts';
import type { FlushablePacer } from './pacer.ts';
import { type UpstreamClient, upstreamClientFor } from './upstream-client.ts';

/** The limits a pacer is built for. */
export interface PacerLimits {
  maxPerSecond: number;
  maxPerMinute: number;
}

/** Builds the pacer for an account's limits (pacer-dynamodb.ts's `sharedPacerFactory`). */
export type PacerFactory = (limits: PacerLimits) => FlushablePacer;

/** The upstream as its callers use it. */
export interface UpstreamAccess {
  client: UpstreamClient;
  pacer: FlushablePacer;
  /** The client's per-call timeout (sizes a delivery attempt's lease). */
  timeoutMs: number;
}

/** A function that answers the UpstreamAccess for the configuration as it is now. */
export function pacedUpstream(
  config: Pick<ConfigSource, 'upstream'>,
  pacerFor: PacerFactory,
  options: { fetch?: typeof fetch } = {},
): () => Promise<UpstreamAccess> {
  let cached: { key: string; access: UpstreamAccess } | undefined;
  const pacers = new Map<string, FlushablePacer>();
  return async () => {
    const upstream = await config.upstream();
    const key = JSON.stringify([
      upstream.baseUrl,
      upstream.username,
      upstream.password,
      upstream.maxPerSecond,
      upstream.maxPerMinute,
      upstream.timeoutMs,
      upstream.partnerTokenField,
    ]);
    if (cached?.key === key) return cached.access;
    const limits = `${upstream.maxPerSecond}/${upstream.maxPerMinute}`;
    let pacer = pacers.get(limits);
    if (!pacer) {
      pacer = pacerFor(upstream);
      pacers.set(limits, pacer);
    }
    const client = upstreamClientFor(upstream, pacer, options.fetch);
    cached = { key, access: { client, pacer, timeoutMs: upstream.timeoutMs } };
    return cached.access;
  };
}
