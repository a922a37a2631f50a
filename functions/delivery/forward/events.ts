/**
 * Delivery's log lines and EMF metrics (Powertools): lead ids, profiles, statuses, attempt
 * numbers and error kinds, never personal data nor the upstream's messages: the use case's
 * (forward.ts ForwardEvents), and those about the queue's messages.
 */

import { METRICS } from '../../kernel/metrics.ts';
import { count, logger, seconds } from '../../kernel/observability.ts';
import type { ForwardEvents } from './attempt.ts';

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

/** An error as these lines log it: its name. */
const errorName = (error: unknown) => (error instanceof Error ? error.name : String(error));

/**
 * About the lead queue's messages, the forwarder Lambda's (handler.ts) and the local worker's
 * (worker-local.ts), and the upstream key's permission the Lambda checks.
 */
export const queueEvents = {
  /** The account's key may not look prospects up: an ambiguous POST cannot be resolved. */
  lookupForbidden(event: { upstream: string; lookupPermission: string }) {
    logger.warn('the upstream key may not look prospects up: exactly-once is not assured', event);
    count(METRICS.upstreamLookupForbidden);
  },
  visibilityUnchanged({ messageId, error }: { messageId: string; error: unknown }) {
    logger.warn('could not change a lead message visibility', {
      messageId,
      error: errorName(error),
    });
  },
  poisonDropped(event: { messageId: string }) {
    logger.error('poison message on the lead queue: acknowledged and dropped', event);
  },
  /** An unexpected error (the ledger unreachable): the record fails, untouched. */
  failed({ leadId, messageId, error }: { leadId: string; messageId: string; error: unknown }) {
    logger.error('lead delivery failed; the message comes back after its visibility timeout', {
      leadId,
      messageId,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  },
  resendFailed({
    leadId,
    messageId,
    error,
  }: {
    leadId: string;
    messageId: string;
    error: unknown;
  }) {
    logger.warn('could not re-send a waiting lead; its message is delayed instead', {
      leadId,
      messageId,
      error: errorName(error),
    });
  },
};
