/**
 * The upstream's health, shared by every instance (one item per account beside the pacer's):
 * a circuit breaker. Failures that say nothing about a lead (the connection refused, DNS,
 * timeouts, 5xx, 401/403) open it for the account; while it is open nothing posts and no lead's
 * attempt is counted, and one probe (a real delivery attempt) is let through at a growing
 * interval, capped; the first success closes it and the backlog drains at the rate limit.
 *
 * This module is the pure part: the state, the decisions and the transitions (`nextCircuit`).
 * The adapter (circuit-dynamodb.ts) keeps the state in one item and applies transitions with an
 * optimistic compare-and-set, so that any number of processes agree on it.
 */

export interface CircuitState {
  /** `open`: nothing posts but the probe. */
  state: 'closed' | 'open';
  /** Consecutive account-level failures since the last success. */
  failures: number;
  /** Epoch ms. */
  openedAt?: number;
  /** Epoch ms: when the next probe may go (open only). */
  probeAt?: number;
  /** The current probe interval, ms (open only); it doubles after each failed probe. */
  probeIntervalMs?: number;
  /** Epoch ms of the last successful POST (a lead's failure is its own only if others succeed). */
  lastSuccessAt?: number;
  lastFailureAt?: number;
  /** Why it opened: a kind, never the upstream's text. */
  reason?: string;
  /**
   * While open: the one waiting lead that keeps a message due at the next probe (the carrier),
   * until `carrierUntil` (epoch ms); the account's other waiting leads hold no message at all
   * (delivery/waiting.ts). Closing the circuit forgets it.
   */
  carrier?: string;
  carrierUntil?: number;
}

export const CLOSED: CircuitState = { state: 'closed', failures: 0 };

export interface CircuitOptions {
  /** Consecutive failures that open the circuit (an `immediate` failure opens it at once). 3. */
  threshold: number;
  /** The first probe interval after opening. 1 s. */
  probeBaseMs: number;
  /**
   * The longest probe interval. 20 s: after an outage of any length the first probe comes at most
   * 20 s after the upstream is back, so the backlog is delivered within its rate floor + 30 s
   * (issue 25; `npm run bench -- outage`), for 3 probes a minute while it lasts.
   */
  probeCapMs: number;
  /** A success within this long after the last recorded one changes nothing (no write). 1 s. */
  successResolutionMs: number;
}

export const DEFAULT_CIRCUIT_OPTIONS: CircuitOptions = {
  threshold: 3,
  probeBaseMs: 1_000,
  probeCapMs: 20_000,
  successResolutionMs: 1_000,
};

export type CircuitEvent =
  | { kind: 'success' }
  | {
      kind: 'failure';
      /** Opens the circuit at once (the connection was never made, the key was refused). */
      immediate: boolean;
      /** Recorded as the reason when it opens. */
      reason: string;
      /** This failure was the probe's. */
      probe: boolean;
    }
  /** A caller takes the probe (only while open and due). */
  | { kind: 'probe' }
  /**
   * Lead `leadId` carries the probe until `until` (only while open, and when no other lead
   * carries it or its carrier's time ran out).
   */
  | { kind: 'carry'; leadId: string; until: number }
  /** Lead `leadId` no longer carries the probe (it was settled another way). */
  | { kind: 'release'; leadId: string };

/** The state after `event`, or undefined when nothing changes (no write needed). */
export function nextCircuit(
  current: CircuitState,
  event: CircuitEvent,
  now: number,
  options: CircuitOptions = DEFAULT_CIRCUIT_OPTIONS,
): CircuitState | undefined {
  switch (event.kind) {
    case 'success': {
      const recent =
        current.lastSuccessAt !== undefined &&
        now - current.lastSuccessAt < options.successResolutionMs;
      if (current.state === 'closed' && current.failures === 0 && recent) return undefined;
      const { lastFailureAt } = current;
      return {
        state: 'closed',
        failures: 0,
        lastSuccessAt: now,
        ...(lastFailureAt !== undefined && { lastFailureAt }),
      };
    }
    case 'failure': {
      const failures = current.failures + 1;
      const base = { ...current, failures, lastFailureAt: now };
      if (current.state === 'open') {
        if (!event.probe) return base;
        // The probe failed: the next one waits twice as long, up to the cap.
        const interval = Math.min(
          options.probeCapMs,
          Math.max(options.probeBaseMs, (current.probeIntervalMs ?? options.probeBaseMs) * 2),
        );
        return { ...base, probeIntervalMs: interval, probeAt: now + interval };
      }
      if (!event.immediate && failures < options.threshold) return base;
      return {
        ...base,
        state: 'open',
        openedAt: now,
        probeIntervalMs: options.probeBaseMs,
        probeAt: now + options.probeBaseMs,
        reason: event.reason,
      };
    }
    case 'probe': {
      if (current.state !== 'open' || (current.probeAt ?? 0) > now) return undefined;
      // Whoever takes the probe moves the next one out by the interval: one probe at a time.
      const interval = current.probeIntervalMs ?? options.probeBaseMs;
      return { ...current, probeAt: now + interval };
    }
    case 'carry': {
      if (current.state !== 'open') return undefined;
      const free = current.carrier === event.leadId || (current.carrierUntil ?? 0) <= now;
      if (!free || (current.carrier === event.leadId && current.carrierUntil === event.until)) {
        return undefined;
      }
      return { ...current, carrier: event.leadId, carrierUntil: event.until };
    }
    case 'release': {
      if (current.carrier !== event.leadId) return undefined;
      const { carrier: _carrier, carrierUntil: _until, ...rest } = current;
      return rest;
    }
  }
}

/** The state a transition found and the one it left. */
export interface CircuitChange {
  before: CircuitState;
  after: CircuitState;
}

/** What the circuit lets an attempt do now. */
export type CircuitGate =
  | { kind: 'closed' }
  /** This attempt is the probe: go, and report how it went. */
  | { kind: 'probe' }
  /** Wait until `retryAt` (epoch ms), counted against nothing. */
  | { kind: 'open'; retryAt: number };

/** The circuit of one upstream account (circuit-dynamodb.ts; an in-memory one in tests). */
export interface Circuit {
  /** The state as stored now (a consistent read). */
  read(): Promise<CircuitState>;
  /** Lets an attempt through, makes it the probe, or says how long to wait. */
  gate(now: number): Promise<CircuitGate>;
  /** A POST the upstream answered (created, or refused for the lead's own reasons). */
  succeeded(now: number): Promise<CircuitChange>;
  /** A failure that says nothing about the lead. */
  failed(
    now: number,
    failure: { immediate: boolean; reason: string; probe: boolean },
  ): Promise<CircuitChange>;
  /**
   * While open, makes `leadId` the lead that carries the probe until `until` (epoch ms), if no
   * other lead does: true when it is the carrier now.
   */
  carry(now: number, leadId: string, until: number): Promise<boolean>;
  /** `leadId` stops carrying the probe, if it does (the reconciler: it was settled another way). */
  release(now: number, leadId: string): Promise<void>;
}

/**
 * Applies the transitions to a stored state with compare-and-set; the adapters only say how to
 * read and how to write "if unchanged".
 */
export function createCircuit(
  store: {
    read(): Promise<{ state: CircuitState; revision: number }>;
    /** Writes `next` if the stored revision is still `revision`; false when it changed. */
    write(next: CircuitState, revision: number): Promise<boolean>;
  },
  options: CircuitOptions = DEFAULT_CIRCUIT_OPTIONS,
): Circuit {
  async function apply(event: CircuitEvent, now: number): Promise<CircuitChange> {
    for (let round = 0; round < 20; round += 1) {
      const { state, revision } = await store.read();
      const next = nextCircuit(state, event, now, options);
      if (!next) return { before: state, after: state };
      if (await store.write(next, revision)) return { before: state, after: next };
    }
    throw new Error('the upstream circuit kept changing; try again');
  }

  return {
    async read() {
      return (await store.read()).state;
    },
    async gate(now) {
      const { state } = await store.read();
      if (state.state === 'closed') return { kind: 'closed' };
      if ((state.probeAt ?? 0) > now) return { kind: 'open', retryAt: state.probeAt ?? now };
      const taken = await apply({ kind: 'probe' }, now);
      if (taken.after !== taken.before) return { kind: 'probe' };
      return taken.after.state === 'closed'
        ? { kind: 'closed' }
        : { kind: 'open', retryAt: taken.after.probeAt ?? now };
    },
    succeeded(now) {
      return apply({ kind: 'success' }, now);
    },
    failed(now, failure) {
      return apply({ kind: 'failure', ...failure }, now);
    },
    async carry(now, leadId, until) {
      const { after } = await apply({ kind: 'carry', leadId, until }, now);
      return after.state === 'open' && after.carrier === leadId;
    },
    async release(now, leadId) {
      await apply({ kind: 'release', leadId }, now);
    },
  };
}

/** An in-memory circuit (one process): tests, and anywhere sharing is not needed. */
export function createMemoryCircuit(options?: CircuitOptions): Circuit {
  let state: CircuitState = CLOSED;
  let revision = 0;
  return createCircuit(
    {
      async read() {
        return { state, revision };
      },
      async write(next, seen) {
        if (seen !== revision) return false;
        state = next;
        revision += 1;
        return true;
      },
    },
    options,
  );
}
