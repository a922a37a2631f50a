/**
 * The authorizer's log lines and metrics: why a sign-in was refused or throttled, and where
 * (method, resource, the gateway's request id), never the credentials nor the user name that was
 * tried (a person may type a password into it), nor the address (`lockedBy` says only which
 * counter locked). Metrics: `AuthFailure` per wrong password, `AuthThrottled` per locked sign-in.
 */
import { METRICS } from '../kernel/metrics.ts';
import { count, logger } from '../kernel/observability.ts';

/** Where a request came in: never who, never from which address. */
export interface AuthorizerWhere {
  method: string;
  resource: string;
  apiRequestId: string | undefined;
}

export const authorizerEvents = {
  /** The clients could not be read: the request fails (API Gateway answers 500). */
  clientsUnreadable(error: unknown): void {
    logger.error('authorizer cannot read the API clients', { error: String(error) });
  },
  /** The failed-sign-in counters could not be read or written: checked without them. */
  throttleUnavailable(error: unknown): void {
    logger.error('auth throttle unavailable; sign-in checked without it', {
      error: String(error),
    });
    count(METRICS.authThrottleUnavailable);
  },
  /** Credentials refused (missing, malformed or wrong): API Gateway answers 401. */
  refused(reason: string, where: AuthorizerWhere): void {
    logger.info('basic credentials refused', { reason, ...where });
    if (reason === 'invalid') count(METRICS.authFailure);
  },
  /** A sign-in locked by earlier failures: let through flagged, the function answers 429. */
  throttled(event: { retryAfterSeconds: number; lockedBy: string }, where: AuthorizerWhere): void {
    logger.warn('basic sign-in throttled', { ...event, ...where });
    count(METRICS.authThrottled);
  },
};
