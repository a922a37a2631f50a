/**
 * The quiet-profile watch's log lines and metric: profile names and counts only. The Lambda's
 * (handler.ts) and the local runtime's (service-local.ts), which logs its alerts the way a
 * deployment without an alarm topic does.
 */
import { METRICS } from '../kernel/metrics.ts';
import { count, logger } from '../kernel/observability.ts';
import type { Alert, WatchResult } from './quiet-profiles.ts';

export const watchEvents = {
  /** A run: how many profiles were watched and scanned, which are quiet (ProfilesQuiet). */
  ran(result: WatchResult) {
    logger.info('quiet-profile watch ran', {
      watched: result.watched,
      scanned: result.scanned,
      quiet: result.quiet.map((q) => q.profile),
    });
    if (result.quiet.length > 0) count(METRICS.profilesQuiet, result.quiet.length);
  },
  /** An alert with no topic to publish to: a warning line instead (its subject only). */
  alertLogged(alert: Alert) {
    logger.warn('quiet profiles (no alert topic configured)', { subject: alert.subject });
  },
};
