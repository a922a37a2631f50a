/**
 * The refresher's log lines and metrics (Powertools): ids, counts and error kinds only: the use
 * case's (refresh.ts RefreshEvents), and the Lambda's about its queue's messages (handler.ts).
 */

import { METRICS } from '../../kernel/metrics.ts';
import { count, logger, ratio, seconds } from '../../kernel/observability.ts';
import type { RefreshEvents } from './context.ts';
import type { LeasedRefreshDeps } from './lease.ts';

/** Log lines and metrics of the refresher: ids, counts and error kinds only. */
export const refreshEvents: RefreshEvents = {
  started(event) {
    logger.info('debtors report refresh started', event);
  },
  skipped(event) {
    logger.info('debtors report refresh skipped', event);
  },
  checkpointDropped(event) {
    logger.warn('refresh checkpoint dropped: starting over', event);
  },
  continued(event) {
    logger.info('debtors report refresh continues in the next invocation', event);
  },
  interrupted(event) {
    logger.info('debtors report refresh stopped; its checkpoint is kept', event);
  },
  succeeded(event) {
    logger.info('debtors report refreshed', event);
    count(METRICS.reportRefreshSucceeded);
  },
  failed({ cause, ...event }) {
    logger.error('debtors report refresh failed: the previous snapshot stays served', {
      ...event,
      ...(cause !== undefined && { cause }),
    });
    count(METRICS.reportRefreshFailed);
  },
  age(ageSeconds) {
    if (ageSeconds !== undefined) {
      seconds(METRICS.reportAgeSeconds, Math.round(ageSeconds));
    }
  },
  ageRatio(value) {
    // The stale alarm's metric: the oldest report's age over its account's refreshSeconds.
    ratio(METRICS.reportAgeRatio, Math.round(value * 100) / 100);
  },
  scheduled(event) {
    if (event.accounts.length > 0) logger.info('debtors report refreshes requested', event);
  },
  branchNamesFailed(event) {
    logger.warn('branch names learned by the refresh not recorded: the last ones stay', event);
  },
};

/** The refresh lease's log lines (lease.ts): who waits, and a lease left to expire. */
export const leaseEvents: NonNullable<LeasedRefreshDeps['events']> = {
  deferred(event) {
    logger.info('another refresh holds the lease: request sent again for later', event);
  },
  releaseFailed(error) {
    logger.warn('refresh lease not released: it expires by itself', { error });
  },
};

/** The refresher Lambda's (handler.ts), about the `refresh` queue's messages. */
export const refreshQueueEvents = {
  notARefresh(event: { messageId: string }) {
    logger.warn('not a refresh message: dropped', event);
  },
  /** Recording the outcome failed: the message goes back to the queue. */
  notRecorded(event: { messageId: string; error: unknown }) {
    logger.error('refresh outcome not recorded: the message goes back to the queue', event);
  },
};
