/**
 * Who may use the sandbox's EVO API (`/api/*`), checked in production's order: HTTP Basic
 * credentials (401 with `WWW-Authenticate: Basic realm="Evo-integracao"` otherwise; compared in
 * constant time), then the rate limit of that username (rate-limit.ts: 429 in plain text with
 * Retry-After), then the errorRate fault (faults.ts: `errorStatus` with an empty body).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { basicCredentials } from '../functions/kernel/http.ts';
import { type Exchange, json, send } from './exchange.ts';
import { drawsError, type FaultState } from './faults.ts';
import type { SlidingWindowRateLimiter } from './rate-limit.ts';

export interface Credentials {
  username: string;
  password: string;
}

/** What admission reads of the sandbox's state. */
export interface AdmissionRoom extends FaultState {
  /** Every accepted credential; each username has its own rate-limit windows. */
  users: readonly Credentials[];
  /** Rate limits always run on real (monotonic) time, whatever the sandbox's clock. */
  readonly limiter: SlidingWindowRateLimiter;
}

const UNAUTHORIZED = { status: 401, error: 'Unauthorized' };
const WWW_AUTHENTICATE = 'Basic realm="Evo-integracao"';

function sameSecret(actual: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(actual), digest(expected));
}

/** Auth, rate limit and the error fault; true when the request may proceed (else answered). */
export async function admit(room: AdmissionRoom, ex: Exchange): Promise<boolean> {
  const credentials = basicCredentials(ex.req.headers.authorization);
  const valid =
    credentials !== undefined &&
    room.users
      .map(
        (user) =>
          sameSecret(credentials.username, user.username) &&
          sameSecret(credentials.password, user.password),
      )
      .includes(true);
  if (!credentials || !valid) {
    await json(ex, 401, UNAUTHORIZED, { 'www-authenticate': WWW_AUTHENTICATE });
    return false;
  }
  const admission = room.limiter.tryAcquire(credentials.username, performance.now(), room.faults);
  if (!admission.admitted) {
    await send(ex, 429, admission.message, {
      'content-type': 'text/plain',
      'retry-after': String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000))),
    });
    return false;
  }
  if (drawsError(room)) {
    await send(ex, room.faults.errorStatus, undefined);
    return false;
  }
  return true;
}
