/**
 * What one delivery attempt is made of (forward.ts runs it): the outcome it hands the queue
 * consumer, the events it reports, its options and their defaults (the lease, the backoff), the
 * ports it is given (`ForwardDeps`), and the context every step shares (`Attempt`, then `Held`
 * once the lead is claimed). Types and small pure functions only: no step lives here.
 */
import type { Profile } from '../../config/config-schema.ts';
import type { ConfigSource } from '../../config/config-source.ts';
import type { LeadStatus } from '../../domain/lead-lifecycle.ts';
import type { METRICS } from '../../kernel/metrics.ts';
import type { LeadLedger, LeadRecord } from '../../ledger/lead-ledger.ts';
import type { CompletionContext } from '../../sources/source.ts';
import type { BranchDirectory } from '../../upstream/branch-directory.ts';
import type { Circuit } from '../../upstream/circuit.ts';
import type { UpstreamAccess } from '../../upstream/paced-client.ts';

export type ForwardOutcome =
  | { kind: 'done'; reason: string; delayMs?: undefined }
  /** Look at the lead again after `delayMs`, for its chain `version`. */
  | { kind: 'retry'; delayMs: number; reason: string; version: number };

/** The metrics an attempt counts (kernel/metrics.ts names them). */
export type ForwardMetric = (typeof METRICS)[
  | 'leadDelivered'
  | 'leadRejected'
  | 'leadRetried'
  | 'leadDead'
  | 'leadParked'
  | 'leadTest'
  | 'upstreamAuthFailure'
  | 'upstreamCircuitOpened'
  | 'upstreamCircuitClosed'
  | 'upstreamLookupForbidden'];

/** One event per forwardLead call: ids, statuses and kinds only. */
export interface ForwardEvent {
  leadId: string;
  profile?: string;
  /** The lead's status after this attempt. */
  status?: LeadStatus;
  /** 1-based: this attempt's number since the lead was (re)queued. */
  attempt?: number;
  /** Failures counted against the lead so far. */
  counted?: number;
  outcome: ForwardOutcome['kind'];
  reason: string;
  delayMs?: number;
  /** The upstream / lookup error kind, when there was one. */
  errorKind?: string;
  /** HTTP status of that error, when the upstream answered. */
  errorStatus?: number;
  /** Anything worth a note (`probe`, `found-by-lookup`, `lookup-no-match`). */
  note?: string;
  /** On a retry: seconds since the lead was received (the `LeadWaitingSeconds` metric). */
  waitingSeconds?: number;
}

/** Where delivery reports what it did (events.ts: logs and EMF metrics). */
export interface ForwardEvents {
  finished(event: ForwardEvent): void;
  metric(name: ForwardMetric): void;
  /** A prospect lookup after an ambiguous POST was not possible. */
  lookupSkipped(event: {
    leadId: string;
    profile: string;
    errorKind: string;
    errorStatus?: number;
    outcome: 'posted-again' | 'parked';
  }): void;
  /** A transition was refused because another attempt took the lead (our lease ran out). */
  leaseLost(event: { leadId: string; transition: string; status: LeadStatus | undefined }): void;
  /** The circuit opened or closed (the attempt that made it). */
  circuitChanged(event: { state: 'open' | 'closed'; reason?: string; leadId: string }): void;
}

export interface ForwardOptions {
  /** Failures of a lead's own before it is dead. Default: the configuration's (8). */
  maxAttempts?: number;
  /** How long a lead may wait to be delivered before it is dead. Default: the configuration's. */
  horizonMs?: number;
  /** Longest pacing wait an attempt accepts before handing the lead back. Default 5 000 ms. */
  maxPacingWaitMs?: number;
  /** Lease on the lead; default: lookup timeout + 2 × (upstream timeout + pacing wait) + 5 s. */
  leaseMs?: number;
  /** Backoff after a lead's own failure: full jitter over min(cap, base × 2^(n−1)). 2 s, 15 min. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Wait after an ambiguous POST before looking the prospect up. Default 2 000 ms. */
  lookupDelayMs?: number;
  /**
   * After a POST that timed out (it may still be in progress upstream), how long after it the
   * last lookup comes before posting again. Default 20 000 ms.
   */
  settleMs?: number;
  /**
   * How far before the ambiguous attempt the lookup searches: it covers any time zone the
   * upstream may read `registerDateStart` in (UTC−12 … UTC+14). Default 15 hours.
   */
  lookupMarginMs?: number;
  /** Wait when a 429 names no Retry-After. Default 1 s (production's window). */
  rateLimitFallbackMs?: number;
  /** A source lookup's (`complete()`) per-call timeout (sizes the lease). Default 10 s. */
  lookupTimeoutMs?: number;
  /** Retries that wait for the same moment (a probe) are spread over this much. Default 5 s. */
  spreadMs?: number;
}

export interface ForwardDeps {
  ledger: LeadLedger;
  /** Profiles, and the configured delivery settings (maxAttempts, horizonHours). */
  config: Pick<ConfigSource, 'profile' | 'delivery' | 'accounts'>;
  /** An upstream account's client, shared pacer and circuit, as configured now. */
  upstream: (account: string) => Promise<UpstreamAccess & { circuit: Circuit }>;
  /** What the sources' `complete()` steps use (their HTTP client). */
  lookups?: CompletionContext;
  /** Each account's named branches (configured, then learned); absent: none. */
  branches?: BranchDirectory;
  events?: ForwardEvents;
  /** Called after the upstream refused the key (AwsConfigSource.refresh: re-read the secret). */
  onUnauthorized?: () => void;
  /** [0, 1); Math.random by default (jitter). */
  random?: () => number;
  options?: ForwardOptions;
}

export const DEFAULT_MAX_ATTEMPTS = 8;
export const DEFAULT_HORIZON_MS = 72 * 3_600_000;
export const DEFAULT_MAX_PACING_WAIT_MS = 5_000;
export const DEFAULT_BACKOFF_BASE_MS = 2_000;
export const DEFAULT_BACKOFF_CAP_MS = 15 * 60_000;
export const DEFAULT_LOOKUP_DELAY_MS = 2_000;
export const DEFAULT_SETTLE_MS = 20_000;
export const DEFAULT_LOOKUP_MARGIN_MS = 15 * 3_600_000;
export const DEFAULT_LOOKUP_TIMEOUT_MS = 10_000;
const LEASE_MARGIN_MS = 5_000;

export type ResolvedOptions = Required<Omit<ForwardOptions, 'leaseMs'>> & { leaseMs?: number };

export function resolveOptions(options: ForwardOptions = {}): ResolvedOptions {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new RangeError('maxAttempts must be a whole number ≥ 1');
  }
  return {
    maxAttempts,
    horizonMs: options.horizonMs ?? DEFAULT_HORIZON_MS,
    maxPacingWaitMs: options.maxPacingWaitMs ?? DEFAULT_MAX_PACING_WAIT_MS,
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    backoffBaseMs: options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
    backoffCapMs: options.backoffCapMs ?? DEFAULT_BACKOFF_CAP_MS,
    lookupDelayMs: options.lookupDelayMs ?? DEFAULT_LOOKUP_DELAY_MS,
    settleMs: options.settleMs ?? DEFAULT_SETTLE_MS,
    lookupMarginMs: options.lookupMarginMs ?? DEFAULT_LOOKUP_MARGIN_MS,
    rateLimitFallbackMs: options.rateLimitFallbackMs ?? 1_000,
    lookupTimeoutMs: options.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS,
    spreadMs: options.spreadMs ?? 5_000,
  };
}

/** The lease an attempt takes: longer than all it may wait for. */
export function leaseMsFor(upstreamTimeoutMs: number, options: ForwardOptions = {}): number {
  const o = resolveOptions(options);
  return (
    o.leaseMs ?? o.lookupTimeoutMs + 2 * (upstreamTimeoutMs + o.maxPacingWaitMs) + LEASE_MARGIN_MS
  );
}

/** Full jitter: uniform in [0, min(cap, base × 2^(attempt − 1))). */
export function backoffMs(attempt: number, random: () => number, base: number, cap: number) {
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Events that go nowhere: the default when `deps.events` is not given. */
export const SILENT: ForwardEvents = {
  finished() {},
  metric() {},
  lookupSkipped() {},
  leaseLost() {},
  circuitChanged() {},
};

/** What every step of one attempt shares. */
export interface Attempt {
  leadId: string;
  deps: ForwardDeps;
  options: ResolvedOptions;
  events: ForwardEvents;
  random: () => number;
  now: () => Date;
  /** The event this attempt reports when it finishes (filled in as it goes). */
  event: ForwardEvent;
}

/** The lead this attempt holds, once claimed. */
export interface Held extends Attempt {
  /** The upstream account of the lead's profile: its client, pacer and circuit. */
  access: UpstreamAccess & { circuit: Circuit };
  /** The lead as claimed: `version` is this attempt's chain. */
  lead: LeadRecord;
  /** This attempt is the circuit's probe. */
  probe: boolean;
  profile: Profile;
}
