/** The intake's log lines and metrics: lead ids, profiles, statuses and codes only. */

import { METRICS } from '../kernel/metrics.ts';
import { count, logger } from '../kernel/observability.ts';
import type { IntakeEvents } from './intake-deps.ts';

/** What ties a log line to the request that caused it (never the request's content). */
export interface IntakeRequestIds {
  /** API Gateway's `requestContext.requestId`: the access log's `requestId`. */
  apiRequestId?: string | undefined;
}

/**
 * The intake's events for one request: each line carries the gateway's request id, so that a
 * lead id in the logs leads to its access-log line and back. Made per request rather than
 * appended to the shared logger, which the local runtime's concurrent requests share.
 */
export function intakeEventsFor({ apiRequestId }: IntakeRequestIds = {}): IntakeEvents {
  const ids = apiRequestId ? { apiRequestId } : {};
  return {
    accepted(event) {
      logger.info('lead accepted', { ...event, ...ids });
      count(event.duplicate ? METRICS.leadDuplicate : METRICS.leadReceived);
      if (!event.duplicate && event.status === 'parked') count(METRICS.leadParked);
    },
    refused(event) {
      logger.warn('lead request refused', { ...event, ...ids });
      count(METRICS.leadRefused);
      // A wrong secret at a platform (alarmed: its leads are not reaching us).
      if (event.status === 401 || event.status === 403) count(METRICS.leadUnauthentic);
      // A wrong token from an address that keeps guessing (token-guessing.ts): unauthentic too.
      if (event.status === 429 && event.code === 'too_many_failures') {
        count(METRICS.leadUnauthentic);
      }
    },
    throttleUnavailable(error) {
      logger.error('token-guessing throttle unavailable; the refusal stands unthrottled', {
        error: error instanceof Error ? error.name : String(error),
        ...ids,
      });
      count(METRICS.authThrottleUnavailable);
    },
    erasedDropped(event) {
      // Counts only: an erased person's lead, sent again, is neither stored nor logged.
      logger.info('erased lead dropped', { ...event, ...ids });
      count(METRICS.erasedLeadDropped, event.leads);
    },
    wakeUpDeferred({ leadId, error }) {
      logger.warn('lead recorded but its queue message failed; the reconciler sends it', {
        leadId,
        error: error instanceof Error ? error.name : String(error),
        ...ids,
      });
      count(METRICS.leadWakeUpDeferred);
    },
  };
}

/** The events without a request id (callers outside an API Gateway request). */
export const intakeEvents: IntakeEvents = intakeEventsFor();
