/** The reconciler's log lines and metrics (Powertools): lead ids, counts and states only. */
import { METRICS } from '../../kernel/metrics.ts';
import { count, logger } from '../../kernel/observability.ts';
import type { ReconcileEvents } from './reconcile.ts';

export const reconcileEvents: ReconcileEvents = {
  woke(event) {
    logger.info('lead woken by the reconciler', event);
    count(METRICS.leadWoken);
  },
  finished(event) {
    if (event.due > 0 || event.more) logger.info('reconciler run', { ...event });
  },
};
