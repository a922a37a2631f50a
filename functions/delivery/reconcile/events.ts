/** The reconciler's log lines and metrics (Powertools): lead ids, counts and states only. */
import { count, logger } from '../../kernel/observability.ts';
import type { ReconcileEvents } from './reconcile.ts';

export const reconcileEvents: ReconcileEvents = {
  woke(event) {
    logger.info('lead woken by the reconciler', event);
    count('LeadWoken');
  },
  finished(event) {
    if (event.due > 0 || event.more) logger.info('reconciler run', { ...event });
  },
};
