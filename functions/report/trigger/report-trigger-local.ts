/**
 * The report trigger on one machine: an in-process stand-in for the `refresh` queue and its
 * consumer. Requests are run one at a time, in order, by the `run` function the local refresher
 * gives (functions/report/refresh/wiring-local.ts), as reserved concurrency 1 does on AWS.
 * A request made while the same kind of request is already waiting is merged into it: the
 * waiting run starts after both were made, so it satisfies both.
 *
 * `requestRefresh` only queues (like SendMessage): it resolves before the refresh runs. A run
 * that throws is reported to `onError` and the next request still runs.
 *
 * The local runtime registers the trigger (setLocalReportTrigger) so that other handlers' local
 * wiring (the admin refresh route) reach it through localReportTrigger().
 */
import {
  type RefreshMessage,
  type RefreshRequest,
  type ReportTrigger,
  refreshMessage,
} from './report-trigger.ts';

export interface LocalReportTriggerOptions {
  run: (message: RefreshMessage) => Promise<unknown>;
  onError?: (error: unknown, message: RefreshMessage) => void;
  now?: () => Date;
}

export interface LocalReportTrigger extends ReportTrigger {
  /** Resolves when nothing is waiting (delayed requests included) or running. */
  idle(): Promise<void>;
  /** Refuses further requests (they are dropped) and waits for the run in progress. */
  close(): Promise<void>;
}

export function createLocalReportTrigger(options: LocalReportTriggerOptions): LocalReportTrigger {
  const now = options.now ?? (() => new Date());
  const waiting: RefreshMessage[] = [];
  let draining: Promise<void> | undefined;
  let closed = false;

  async function drain(): Promise<void> {
    // Like a queue's consumer, the run starts after the request has returned.
    await new Promise((resolve) => setImmediate(resolve));
    for (let message = waiting.shift(); message; message = waiting.shift()) {
      try {
        await options.run(message);
      } catch (error) {
        options.onError?.(error, message);
      }
      if (closed) waiting.length = 0;
    }
  }

  function kick(): void {
    if (draining) return;
    draining = drain().finally(() => {
      draining = undefined;
      if (waiting.length > 0 && !closed) kick();
    });
  }

  /** Requests made with a delay, until they are queued; and how to cut their wait short. */
  const delayed = new Set<Promise<void>>();
  const stops = new Set<() => void>();

  async function requestRefresh(request: RefreshRequest = {}): Promise<void> {
    if (closed) return;
    const { delaySeconds, ...asked } = request;
    if (delaySeconds !== undefined && delaySeconds > 0) {
      // Later (a continuation that yields to leads), as SQS's DelaySeconds does.
      let stop = () => {};
      const later: Promise<void> = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delaySeconds * 1000);
        timer.unref();
        stop = () => {
          clearTimeout(timer);
          resolve();
        };
        stops.add(stop);
      }).then(() => {
        delayed.delete(later);
        stops.delete(stop);
        return requestRefresh(asked);
      });
      delayed.add(later);
      return;
    }
    const message = refreshMessage(asked, now());
    if (!waiting.some((queued) => queued.kind === message.kind)) waiting.push(message);
    kick();
  }

  return {
    requestRefresh,
    async idle() {
      while (draining || delayed.size > 0) await (draining ?? Promise.race(delayed));
    },
    async close() {
      closed = true;
      waiting.length = 0;
      for (const stop of stops) stop();
      while (draining) await draining;
    },
  };
}

let registered: LocalReportTrigger | undefined;

/** Registers the local runtime's trigger (undefined clears it). */
export function setLocalReportTrigger(trigger: LocalReportTrigger | undefined): void {
  registered = trigger;
}

/**
 * The registered trigger (tests may await its `idle()`); throws when the local runtime has not
 * started the refresher.
 */
export function localReportTrigger(): LocalReportTrigger {
  if (!registered) throw new Error('the local runtime has not started the report refresher');
  return registered;
}
