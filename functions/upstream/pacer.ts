/**
 * The pacing port: every upstream call waits for `acquire`, so that the account's rate limits
 * hold whatever the number of processes (the adapter is pacer-dynamodb.ts: one DynamoDB item
 * shared by every Lambda instance and local worker). `pauseUntil` holds every caller until a
 * moment (after a 429's Retry-After, or an auth failure); a later call can only extend a pause.
 */
export interface Pacer {
  /** Resolves when a request may start now; rejects with `signal.reason` if aborted first. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Holds every caller until `epochMs` (on the pacer's clock); never shortens a pause. */
  pauseUntil(epochMs: number): void;
}

/** Resolves after the pacer's pending pause writes are done (a Lambda may be frozen after). */
export type FlushablePacer = Pacer & { flush?: () => Promise<void> };

/** The pacer's next slot is further away than the caller accepts: nothing was reserved. */
export class PacerWaitError extends Error {
  override readonly name = 'PacerWaitError';
  /** How long the caller would have had to wait, ms. */
  readonly waitMs: number;

  constructor(waitMs: number, maxWaitMs: number) {
    super(
      `the upstream pacer's next slot is ${Math.ceil(waitMs)} ms away (more than ${maxWaitMs})`,
    );
    this.waitMs = waitMs;
  }
}
