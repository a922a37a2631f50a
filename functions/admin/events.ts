/**
 * The admin's log lines and metrics (its use case's AdminEvents): lead ids, statuses, counts and
 * the operator's username, never lead content.
 */
import { METRICS } from '../kernel/metrics.ts';
import { count, logger } from '../kernel/observability.ts';
import type { AdminEvents } from './admin.ts';

export const adminEvents: AdminEvents = {
  refused(event) {
    logger.info('admin request refused', event);
    count(METRICS.adminRefused);
  },
  retried(event) {
    logger.info('lead retried by an operator', event);
    count(METRICS.leadRetried);
  },
  replayed(event) {
    logger.info('dead leads replayed', event);
    count(METRICS.leadReplayed, event.requeued);
  },
  backfilled(event) {
    logger.info('platform leads backfilled', event);
    count(METRICS.leadBackfilled, event.new);
    if (event.erased > 0) count(METRICS.erasedLeadDropped, event.erased);
  },
  erased(event) {
    // Counts and the operator only: never the e-mail, phone or CPF that was asked for.
    logger.info('personal data erased on request', event);
    count(METRICS.leadErased, event.found);
  },
  failed({ route, error }) {
    logger.error('admin dependency failed', { route, error: String(error) });
    count(METRICS.adminUnavailable);
  },
  corrected(event) {
    logger.info('lead corrected by an operator', event);
    count(METRICS.leadCorrected);
  },
  testLeadSent(event) {
    logger.info('test lead sent by an operator', event);
    count(METRICS.testLeadSent);
  },
};
