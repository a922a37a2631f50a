/**
 * The report's log lines and metrics (its use case's ReportEvents): routes, statuses and codes
 * only, no query values (they may hold names), no credentials.
 */
import { METRICS } from '../../kernel/metrics.ts';
import { count, logger } from '../../kernel/observability.ts';
import type { ReportEvents } from './serve.ts';

export const reportEvents: ReportEvents = {
  served(event) {
    if (event.status >= 400) logger.info('report request refused', event);
    count(event.status === 304 ? METRICS.reportNotModified : METRICS.reportServed);
  },
  refused(event) {
    logger.info('report request refused', event);
    count(event.code === 'report_not_ready' ? METRICS.reportNotReady : METRICS.reportRefused);
  },
  refreshRequested(event) {
    logger.info('report refresh requested', event);
    count(METRICS.reportRefreshRequested);
  },
  failed({ route, error }) {
    logger.error('report dependency failed', { route, error: String(error) });
    count(METRICS.reportUnavailable);
  },
};
