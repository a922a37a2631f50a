/**
 * Virtual time for the pacer: `now` and `sleep` to inject, and `runUntilIdle` to move the
 * clock from timer to timer, letting every promise settle in between.
 */
export interface FakeClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Pending sleeps. */
  readonly pending: number;
  /** Lets promise callbacks run without moving the clock. */
  settle(): Promise<void>;
  /** Fires due timers up to `now() + ms`, then sets the clock there. */
  advance(ms: number): Promise<void>;
  /** Fires timers in time order until none is left (or `limitMs` of virtual time passed). */
  runUntilIdle(limitMs?: number): Promise<void>;
}

interface Timer {
  at: number;
  seq: number;
  fire(): void;
}

export function createFakeClock(start = 0): FakeClock {
  let time = start;
  let seq = 0;
  const timers: Timer[] = [];

  function settle(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  function nextDue(until: number): Timer | undefined {
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const first = timers[0];
    if (!first || first.at > until) return undefined;
    timers.shift();
    return first;
  }

  async function runTo(until: number): Promise<void> {
    await settle();
    for (let timer = nextDue(until); timer; timer = nextDue(until)) {
      time = Math.max(time, timer.at);
      timer.fire();
      await settle();
    }
  }

  return {
    now: () => time,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const timer: Timer = {
          at: time + Math.max(0, ms),
          seq: seq++,
          fire() {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = (): void => {
          const index = timers.indexOf(timer);
          if (index >= 0) timers.splice(index, 1);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        timers.push(timer);
      });
    },
    get pending() {
      return timers.length;
    },
    settle,
    async advance(ms) {
      const until = time + ms;
      await runTo(until);
      time = Math.max(time, until);
      await settle();
    },
    async runUntilIdle(limitMs = 24 * 3_600_000) {
      await runTo(time + limitMs);
    },
  };
}
