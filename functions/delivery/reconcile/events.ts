/**
 * The reconciler's log lines and metrics (Powertools): lead ids, counts and states only; the
 * hourly personal-data retention's too (retention.ts).
 */
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

/** The personal-data retention's (retention.ts), run by the reconciler once an hour. */
export const retentionEvents = {
  redacted(event: { leadId: string; status: string }) {
    logger.info('lead personal data removed (retention)', event);
    count(METRICS.leadRedacted);
  },
  /** A run's counts, when it removed anything or has more to do. */
  ran(event: { redacted: number; more: boolean; days: number }) {
    if (event.redacted > 0 || event.more) logger.info('personal data retention run', event);
  },
};
