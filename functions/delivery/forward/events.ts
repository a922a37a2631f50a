/**
 * Delivery's log lines and EMF metrics (Powertools): lead ids, profiles, statuses, attempt
 * numbers and error kinds, never personal data nor the upstream's messages.
 */

import { METRICS } from '../../kernel/metrics.ts';
import { count, logger, seconds } from '../../kernel/observability.ts';
import type { ForwardEvents } from './forward.ts';

export const forwardEvents: ForwardEvents = {
  finished(event) {
    const failed = event.errorKind !== undefined;
    if (failed || event.status === 'dead') logger.warn('lead delivery attempt', { ...event });
    else logger.info('lead delivery attempt', { ...event });
    // Every retry, counted or not (WaitingLeadsAlarm): a held-back lead is re-sent as a new
    // message, so the queue's age of oldest message no longer tells how long a lead has waited.
    if (event.waitingSeconds !== undefined)
      seconds(METRICS.leadWaitingSeconds, event.waitingSeconds);
  },
  metric(name) {
    count(name);
  },
  lookupSkipped(event) {
    logger.warn('prospect lookup not possible after an ambiguous POST', event);
  },
  circuitChanged(event) {
    if (event.state === 'open')
      logger.warn('upstream circuit opened: leads wait for a probe', event);
    else logger.info('upstream circuit closed: delivery resumes', event);
  },
  leaseLost(event) {
    logger.error('lead changed under the delivery attempt', event);
  },
};
