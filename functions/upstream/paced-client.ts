/**
 * The one way delivery and the report refresher reach an upstream account: a client for the
 * account's current settings, paced by the account's pacer. The client is built again when the
 * settings change (a rotated secret, new limits); the pacer only when the limits change, so its
 * local state (a pause it could not write yet) survives a secret rotation. Accounts never share
 * a client or a pacer.
 */
import type { ConfigSource } from '../config/config-source.ts';
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import type { FlushablePacer } from './pacer.ts';
import { type UpstreamClient, upstreamClientFor } from './upstream-client.ts';

/** The limits a pacer is built for. */
export interface PacerLimits {
  maxPerSecond: number;
  maxPerMinute: number;
}

/** Builds the pacer for an account and its limits (pacer-dynamodb.ts's `sharedPacerFactory`). */
export type PacerFactory = (limits: PacerLimits, account: string) => FlushablePacer;

/** The upstream as its callers use it. */
export interface UpstreamAccess {
  client: UpstreamClient;
  pacer: FlushablePacer;
  /** The client's per-call timeout (sizes a delivery attempt's lease). */
  timeoutMs: number;
}

/** A function that answers an account's UpstreamAccess for the configuration as it is now. */
export function pacedUpstream(
  config: Pick<ConfigSource, 'upstream'>,
  pacerFor: PacerFactory,
  options: { fetch?: typeof fetch } = {},
): (account?: string) => Promise<UpstreamAccess> {
  const cached = new Map<string, { key: string; access: UpstreamAccess }>();
  const pacers = new Map<string, FlushablePacer>();
  return async (account = DEFAULT_ACCOUNT) => {
    const upstream = await config.upstream(account);
    const key = JSON.stringify([
      upstream.baseUrl,
      upstream.username,
      upstream.password,
      upstream.maxPerSecond,
      upstream.maxPerMinute,
      upstream.timeoutMs,
      upstream.partnerTokenField,
    ]);
    const hit = cached.get(account);
    if (hit?.key === key) return hit.access;
    const limits = `${account}/${upstream.maxPerSecond}/${upstream.maxPerMinute}`;
    let pacer = pacers.get(limits);
    if (!pacer) {
      pacer = pacerFor(upstream, account);
      pacers.set(limits, pacer);
    }
    const client = upstreamClientFor(upstream, pacer, options.fetch);
    const access = { client, pacer, timeoutMs: upstream.timeoutMs };
    cached.set(account, { key, access });
    return access;
  };
}
