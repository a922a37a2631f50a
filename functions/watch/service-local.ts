/**
 * The quiet-profile watch under `npm start`: what EventBridge Scheduler does on AWS (every
 * WATCH_INTERVAL_MINUTES), a timer here, over the local configuration and ledger. There is no
 * alarm topic on one machine: an alert is a warning line in the log (profile names and counts,
 * no lead content), and `onAlert` for whoever started it.
 */
import { localConfigSource } from '../config/config-local.ts';
import { logger } from '../kernel/observability.ts';
import { localLedger } from '../ledger/ledger-local.ts';
import { watchEvents } from './events.ts';
import { type Alert, WATCH_INTERVAL_MINUTES, watchQuietProfiles } from './quiet-profiles.ts';

export interface LocalWatchOptions {
  /** Between runs; default WATCH_INTERVAL_MINUTES. */
  intervalMs?: number;
  /** The watch's clock (tests). */
  now?: () => Date;
  onAlert?: (alert: Alert) => void;
  /** The console's URL, for the alert's text. */
  consoleUrl?: string;
}

export function startLocalWatch(options: LocalWatchOptions = {}): { stop(): Promise<void> } {
  const intervalMs = options.intervalMs ?? WATCH_INTERVAL_MINUTES * 60_000;
  const deps = {
    config: localConfigSource(),
    ledger: localLedger(),
    intervalMinutes: intervalMs / 60_000,
    ...(options.now && { now: options.now }),
    ...(options.consoleUrl && { consoleUrl: options.consoleUrl }),
    async notify(alert: Alert) {
      watchEvents.alertLogged(alert);
      options.onAlert?.(alert);
    },
  };
  let run: Promise<void> | undefined;
  const timer = setInterval(() => {
    run ??= watchQuietProfiles(deps)
      .then(() => undefined)
      .catch((error: unknown) => {
        logger.error('local quiet-profile watch failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        run = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await run;
    },
  };
}
