/**
 * One refresh at a time (use case): a refresh or a continuation runs only while it holds the
 * refresh lease; a request that finds the lease taken is not refused, throttled or returned to
 * the queue (each of those would cost a receive, and enough of them send it to the dead-letter
 * queue): it is sent again to arrive a little later, and this delivery is acknowledged. Ticks of
 * the schedule take no lease: they only ask for the refreshes now due, which is safe beside a
 * running refresh (an account being refreshed has just started, so it is not due).
 *
 * The lease expires by itself `ttlMs` after it was taken (the refresher's timeout and a margin):
 * an invocation that dies holding it (a timeout, a crash) blocks the others for at most that
 * long. A lease is released at the end of the run that took it. On AWS the lease is an item of
 * the ledger table (lease-dynamodb.ts) and the refresher's handler runs every message through
 * `leasedRefresh`; locally the in-process trigger already runs one request at a time.
 * No AWS imports.
 */
import type { RefreshMessage } from '../trigger/report-trigger.ts';

export type LeaseAnswer = { taken: true } | { taken: false; heldUntil: Date };

/** The refresh lease (one per stack, whatever the account). */
export interface RefreshLease {
  /** Takes the lease for `holder` until `now + ttlMs`, unless another holder's is still running. */
  acquire(holder: string, now: Date, ttlMs: number): Promise<LeaseAnswer>;
  /** Gives the lease back if `holder` still holds it (nothing otherwise). */
  release(holder: string): Promise<void>;
}

/** A deferred request waits at least this long, and at most this long before trying again. */
export const MIN_DEFER_SECONDS = 10;
export const MAX_DEFER_SECONDS = 60;

export interface LeasedRefreshDeps {
  lease: RefreshLease;
  /** Sends `message` again, to be delivered after `delaySeconds` (SQS DelaySeconds). */
  defer(message: RefreshMessage, delaySeconds: number): Promise<void>;
  /** How long a taken lease lasts unless released: the invocation's longest life and a margin. */
  ttlMs: number;
  now?: () => Date;
  events?: {
    deferred?(event: { kind: string; upstream?: string; delaySeconds: number }): void;
    releaseFailed?(error: unknown): void;
  };
}

export type Deferred = { status: 'deferred'; delaySeconds: number };

/** How long to wait before asking again: until the lease ends, within 10 to 60 seconds. */
export function deferSeconds(heldUntil: Date, now: Date): number {
  const seconds = Math.ceil((heldUntil.getTime() - now.getTime()) / 1000);
  return Math.min(MAX_DEFER_SECONDS, Math.max(MIN_DEFER_SECONDS, seconds));
}

/**
 * Runs `run` holding the lease as `holder` (a Lambda request id), or defers `message` when
 * another holder has it. A failed release is reported, not thrown: the lease then expires.
 */
export async function leasedRefresh<T>(
  deps: LeasedRefreshDeps,
  holder: string,
  message: RefreshMessage,
  run: () => Promise<T>,
): Promise<T | Deferred> {
  const now = (deps.now ?? (() => new Date()))();
  const answer = await deps.lease.acquire(holder, now, deps.ttlMs);
  if (!answer.taken) {
    const delaySeconds = deferSeconds(answer.heldUntil, now);
    await deps.defer(message, delaySeconds);
    deps.events?.deferred?.({
      kind: message.kind,
      ...(message.upstream !== undefined && { upstream: message.upstream }),
      delaySeconds,
    });
    return { status: 'deferred', delaySeconds };
  }
  try {
    return await run();
  } finally {
    await deps.lease.release(holder).catch((error: unknown) => deps.events?.releaseFailed?.(error));
  }
}
