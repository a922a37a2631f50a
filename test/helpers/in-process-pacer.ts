/**
 * Client-side pacing for the upstream: a sliding-window log per process.
 *
 * `acquire` resolves when starting a request now keeps every 1 000 ms window at or under
 * `maxPerSecond` and every 60 000 ms window at or under `maxPerMinute` (counting the start
 * times of the requests this pacer let through). Waiting callers are served strictly in
 * arrival order (FIFO): one loop grants the head of the queue and sleeps until the earliest
 * moment the next start fits. `pauseUntil` (after a 429's Retry-After, or an auth failure)
 * holds every caller until that moment; a later call can only extend a pause.
 *
 * Limits need not be integers:
 * - a limit L ≥ 1 allows floor(L) starts per window (a window can only hold whole requests,
 *   so 2.5/s means at most 2 in any 1 000 ms);
 * - a limit L < 1 allows one start per window / L (0.5/s: one start in any 2 000 ms, which
 *   is the only reading of "half a request per second" a schedule can honour).
 *
 * A test stand-in for the shared pacer (functions/upstream/pacer-dynamodb.ts): per process, it
 * knows nothing of other instances. Clock and sleep are injectable so tests can run on virtual
 * time.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Pacer } from '../../functions/upstream/pacer.ts';

export interface PacerOptions {
  maxPerSecond: number;
  maxPerMinute: number;
  /** Current time in ms; `Date.now` by default. */
  now?: () => number;
  /** Resolves after `ms`; should reject (or resolve early) when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Extra milliseconds added to each window (default 0). The upstream counts a request when
   * it arrives, a little after it was granted here; uneven latency can squeeze two grants
   * that are exactly one window apart into one of the upstream's windows. A margin of a few
   * tens of ms absorbs that jitter at almost no cost in throughput.
   */
  marginMs?: number;
}

interface Window {
  /** Starts allowed in any span. */
  limit: number;
  spanMs: number;
}

interface Waiter {
  grant(): void;
  fail(error: unknown): void;
}

const SECOND_MS = 1_000;
const MINUTE_MS = 60_000;
/** Node's timers overflow above 2^31 - 1 ms (and then fire at once); the loop re-checks anyway. */
const MAX_SLEEP_MS = 2_147_483_647;

function windowOf(name: string, perWindow: number, windowMs: number, marginMs: number): Window {
  if (!Number.isFinite(perWindow) || perWindow <= 0) {
    throw new RangeError(`${name} must be a positive number, got ${String(perWindow)}`);
  }
  return perWindow >= 1
    ? { limit: Math.floor(perWindow), spanMs: windowMs + marginMs }
    : { limit: 1, spanMs: windowMs / perWindow + marginMs };
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, signal ? { signal } : {});
}

export function createPacer(opts: PacerOptions): Pacer {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const marginMs = opts.marginMs ?? 0;
  if (!Number.isFinite(marginMs) || marginMs < 0) {
    throw new RangeError(`marginMs must be a non-negative number, got ${String(marginMs)}`);
  }
  const windows = [
    windowOf('maxPerSecond', opts.maxPerSecond, SECOND_MS, marginMs),
    windowOf('maxPerMinute', opts.maxPerMinute, MINUTE_MS, marginMs),
  ];
  /** Only the last `limit` starts of a window can hold up the next one. */
  const keep = Math.max(...windows.map((w) => w.limit));

  /** Start times of granted requests, oldest first, at most `keep` of them. */
  const log: number[] = [];
  const queue: Waiter[] = [];
  let pausedUntil = Number.NEGATIVE_INFINITY;
  let pumping = false;
  /** Aborts the loop's current sleep (when the queue empties). */
  let sleeper: AbortController | undefined;

  /** Milliseconds until a request may start at time `t` (≤ 0: now). */
  function waitAt(t: number): number {
    let wait = pausedUntil - t;
    for (const { limit, spanMs } of windows) {
      const oldest = log[log.length - limit];
      if (oldest === undefined) continue;
      // The oldest of the last `limit` starts must leave the window. Capped at one span so a
      // clock stepping backwards cannot stall the queue for longer than a window.
      wait = Math.max(wait, Math.min(oldest + spanMs - t, spanMs));
    }
    return wait;
  }

  function failAll(error: unknown): void {
    const waiting = queue.splice(0);
    for (const waiter of waiting) waiter.fail(error);
  }

  async function pump(): Promise<void> {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0) {
        const t = now();
        const wait = waitAt(t);
        if (wait <= 0) {
          const waiter = queue.shift() as Waiter;
          log.push(t);
          if (log.length > keep) log.splice(0, log.length - keep);
          waiter.grant();
          continue;
        }
        const controller = new AbortController();
        sleeper = controller;
        try {
          await sleep(Math.min(wait, MAX_SLEEP_MS), controller.signal);
        } catch (error) {
          if (!controller.signal.aborted) {
            failAll(error);
            return;
          }
        } finally {
          sleeper = undefined;
        }
      }
    } finally {
      pumping = false;
    }
  }

  function acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const index = queue.indexOf(waiter);
        if (index < 0) return;
        queue.splice(index, 1);
        if (queue.length === 0) sleeper?.abort();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant() {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        fail(error) {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      void pump();
    });
  }

  function pauseUntil(epochMs: number): void {
    if (Number.isNaN(epochMs)) return;
    pausedUntil = Math.max(pausedUntil, epochMs);
  }

  return { acquire, pauseUntil };
}
