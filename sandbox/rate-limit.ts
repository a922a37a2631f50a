/**
 * Production's rate limit as a strict sliding-window log, per key (the Basic username).
 *
 * A request arriving at `t` is admitted only if fewer than `perSecond` admitted requests lie in
 * (t - 1000 ms, t] and fewer than `perMinute` in (t - 60000 ms, t]; so no 1000 ms window ever holds
 * more than `perSecond` admitted requests, and no 60000 ms window more than `perMinute`. Refused
 * requests are not logged (they do not use up the quota).
 */

export interface RateLimits {
  perSecond: number;
  perMinute: number;
}

/** Production's limits (5 per second is observed; 40 per minute is quoted from its docs). */
export const PRODUCTION_RATE_LIMITS: Readonly<RateLimits> = Object.freeze({
  perSecond: 5,
  perMinute: 40,
});

export type Admission =
  | { admitted: true }
  | {
      admitted: false;
      /** The window that refused: `1s` or `1m` (the one named in the message). */
      period: '1s' | '1m';
      limit: number;
      /** Milliseconds until a request would be admitted again (every full window has a slot). */
      retryAfterMs: number;
      /** Production's text: `API calls quota exceeded! maximum admitted 5 per 1s.` */
      message: string;
    };

const SECOND_MS = 1_000;
const MINUTE_MS = 60_000;

/** First index in the ascending `log` whose timestamp is greater than `bound`. */
function firstAfter(log: readonly number[], bound: number): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((log[mid] ?? 0) > bound) high = mid;
    else low = mid + 1;
  }
  return low;
}

export class SlidingWindowRateLimiter {
  readonly #logs = new Map<string, number[]>();

  /**
   * Admits (and logs) the request or tells how long to wait. `nowMs` must not go backwards
   * (use a monotonic clock such as `performance.now()`).
   */
  tryAcquire(key: string, nowMs: number, limits: RateLimits): Admission {
    let log = this.#logs.get(key);
    if (!log) {
      log = [];
      this.#logs.set(key, log);
    }
    const expired = firstAfter(log, nowMs - MINUTE_MS);
    if (expired > 0) log.splice(0, expired);

    const refusals: { period: '1s' | '1m'; limit: number; waitMs: number }[] = [];
    const check = (period: '1s' | '1m', windowMs: number, limit: number) => {
      const start = firstAfter(log, nowMs - windowMs);
      const inWindow = log.length - start;
      if (inWindow < limit) return;
      // The window has room again once its (inWindow - limit + 1) oldest entries have left it.
      const freeing = log[start + inWindow - limit] ?? nowMs;
      refusals.push({ period, limit, waitMs: Math.max(1, freeing + windowMs - nowMs) });
    };
    check('1s', SECOND_MS, limits.perSecond);
    check('1m', MINUTE_MS, limits.perMinute);

    const first = refusals[0];
    if (!first) {
      log.push(nowMs);
      return { admitted: true };
    }
    return {
      admitted: false,
      period: first.period,
      limit: first.limit,
      retryAfterMs: Math.max(...refusals.map((refusal) => refusal.waitMs)),
      message: `API calls quota exceeded! maximum admitted ${first.limit} per ${first.period}.`,
    };
  }

  /** Forgets every key's log. */
  reset(): void {
    this.#logs.clear();
  }
}
