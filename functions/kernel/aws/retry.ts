/**
 * The AWS SDK's standard retry mode, as the installed SDK has it (`@smithy/core/retry`: its
 * `StandardRetryStrategy`, the 2026 retry settings, the error classification of
 * `service-error-classification`), without loading it: which failures are tried again, how long
 * to wait, and the retry quota that stops a client from retrying while a service is down.
 *
 * test/kernel/aws-retry-sdk.test.ts reads the installed SDK's values and lists at test time and
 * asserts these equal them, and the differential tests (test/kernel/aws-*-differential.test.ts)
 * run the SDK's own clients beside ours on the same answers: an SDK that changes one of them
 * fails those tests until this file follows.
 *
 * - Attempts: 3, the first included (DEFAULT_MAX_ATTEMPTS); DynamoDB 4 (its client's
 *   `defaultMaxAttempts`). `AWS_MAX_ATTEMPTS` overrides both, as the SDK reads it.
 * - Back-off: full jitter, `random × min(base × 2^retry, 20 s)`, the base 50 ms (`Retry.delay()`;
 *   DynamoDB 25 ms, its client's `defaultBaseDelay`), 1,000 ms after a throttling error
 *   (`Retry.throttlingDelay()`).
 * - `Retry-After` (seconds or an HTTP date) or `x-amz-retry-after` (milliseconds) on the failed
 *   answer: the wait is at least the back-off, and the server's time when it is longer, up to
 *   the back-off + 5 s.
 * - Quota: 500 tokens per client; a retry after a throttling error costs 5, any other retry 14
 *   (timeouts, dropped connections, 5xx); when the tokens left do not pay for a retry, the
 *   failure is returned at once. A success gives back what its last retry cost, or 1.
 * - What is retried: THROTTLING (429, the throttling codes) and TRANSIENT (500, 502, 503, 504,
 *   the transient codes, timeouts, dropped or refused connections, errors the service's model
 *   marks retryable, an error answered after the clock-skew correction changed the clock).
 *   Not retried: other 5xx (SERVER_ERROR: 501, 505...) and every other 4xx (CLIENT_ERROR).
 */

import type { AwsHeaders } from './transport.ts';

/** The standard mode's settings (`@smithy/core/retry`). */
export const STANDARD_RETRY = {
  /** DEFAULT_MAX_ATTEMPTS */
  maxAttempts: 3,
  /** Retry.delay() */
  baseDelayMs: 50,
  /** Retry.throttlingDelay() */
  throttlingBaseDelayMs: 1_000,
  /** MAXIMUM_RETRY_DELAY */
  maxDelayMs: 20_000,
  /** How much longer than the back-off a Retry-After may make the wait (StandardRetryStrategy). */
  retryAfterExtraMs: 5_000,
  /** INITIAL_RETRY_TOKENS */
  quota: 500,
  /** Retry.cost(): a retry of anything but a throttling error */
  retryCost: 14,
  /** Retry.throttlingCost() */
  throttlingRetryCost: 5,
  /** NO_RETRY_INCREMENT: what a success on the first attempt gives back */
  successRefund: 1,
} as const;

/** Where a service's client sets other defaults (resolveRetryConfig's defaults in its client). */
export const SERVICE_RETRY: Readonly<
  Record<string, { maxAttempts: number; baseDelayMs: number } | undefined>
> = {
  // @aws-sdk/client-dynamodb: resolveRetryConfig(..., { defaultBaseDelay: 25, defaultMaxAttempts: 4 })
  dynamodb: { maxAttempts: 4, baseDelayMs: 25 },
};

/** service-error-classification's THROTTLING_ERROR_CODES. */
export const THROTTLING_ERROR_CODES: readonly string[] = [
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
];
/** TRANSIENT_ERROR_CODES (`TimeoutError` is also the name of an attempt that timed out). */
export const TRANSIENT_ERROR_CODES: readonly string[] = [
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
];
/** TRANSIENT_ERROR_STATUS_CODES */
export const TRANSIENT_ERROR_STATUS_CODES: readonly number[] = [500, 502, 503, 504];
/** NODEJS_TIMEOUT_ERROR_CODES */
export const NODEJS_TIMEOUT_ERROR_CODES: readonly string[] = [
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
];
/** NODEJS_NETWORK_ERROR_CODES */
export const NODEJS_NETWORK_ERROR_CODES: readonly string[] = [
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
];
/**
 * Node's fetch (undici) names a dropped connection or a socket timeout with its own codes where
 * the SDK's node:http transport sees ECONNRESET or ETIMEDOUT: the same events, classified the same.
 */
const UNDICI_CODES: Readonly<Record<string, string>> = {
  UND_ERR_SOCKET: 'ECONNRESET',
  UND_ERR_CONNECT_TIMEOUT: 'ETIMEDOUT',
  UND_ERR_HEADERS_TIMEOUT: 'ETIMEDOUT',
  UND_ERR_BODY_TIMEOUT: 'ETIMEDOUT',
};

export type RetryErrorType = 'THROTTLING' | 'TRANSIENT' | 'SERVER_ERROR' | 'CLIENT_ERROR';

/** What the classification reads of an error: the SDK's fields, as AwsError carries them. */
interface Classified {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
  $retryable?: { throttling?: boolean };
  $metadata?: { httpStatusCode?: number; clockSkewCorrected?: boolean };
}

const fields = (error: unknown): Classified =>
  error && typeof error === 'object' ? (error as Classified) : {};

function isThrottling(error: Classified): boolean {
  return (
    error.$metadata?.httpStatusCode === 429 ||
    THROTTLING_ERROR_CODES.includes(String(error.name)) ||
    error.$retryable?.throttling === true
  );
}

function isTransient(error: Classified, depth = 0): boolean {
  if (error.name === 'AbortError') return false;
  const code = typeof error.code === 'string' ? (UNDICI_CODES[error.code] ?? error.code) : '';
  return (
    error.$retryable !== undefined ||
    error.$metadata?.clockSkewCorrected === true ||
    (error.name === 'InvalidSignatureException' &&
      String(error.message).includes('Signature expired')) ||
    TRANSIENT_ERROR_CODES.includes(String(error.name)) ||
    NODEJS_TIMEOUT_ERROR_CODES.includes(code) ||
    NODEJS_NETWORK_ERROR_CODES.includes(code) ||
    TRANSIENT_ERROR_STATUS_CODES.includes(error.$metadata?.httpStatusCode ?? 0) ||
    (error.cause !== undefined && depth <= 10 && isTransient(fields(error.cause), depth + 1))
  );
}

/** The SDK's retry error type of a failure (its retry middleware's getRetryErrorType). */
export function classifyError(error: unknown): RetryErrorType {
  const e = fields(error);
  if (isThrottling(e)) return 'THROTTLING';
  if (isTransient(e)) return 'TRANSIENT';
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500 && status <= 599) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}

export const isRetryableType = (type: RetryErrorType) =>
  type === 'THROTTLING' || type === 'TRANSIENT';

/** The standard back-off: full jitter over base × 2^retry, at most 20 s (retry 0 is the first). */
export function retryDelayMs(
  retry: number,
  baseDelayMs: number = STANDARD_RETRY.baseDelayMs,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * Math.min(baseDelayMs * 2 ** retry, STANDARD_RETRY.maxDelayMs));
}

/**
 * When the server asks to be tried again (epoch ms), from `Retry-After` (delta seconds, or an
 * HTTP date) or `x-amz-retry-after` (milliseconds), as the SDK's parseRetryAfterHeader reads
 * them; undefined when neither is there or readable.
 */
export function retryAfterAt(headers: AwsHeaders, now: number = Date.now()): number | undefined {
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null) {
    let seconds = Number.NaN;
    if (retryAfter.endsWith('GMT')) seconds = (Date.parse(retryAfter) - now) / 1000;
    else if (/ GMT, ((\d+)|(\d+\.\d+))$/.test(retryAfter)) {
      seconds = Number(/ GMT, ([\d.]+)$/.exec(retryAfter)?.[1]);
    } else if (/^((\d+)|(\d+\.\d+))$/.test(retryAfter)) seconds = Number(retryAfter);
    else if (Date.parse(retryAfter) >= now) seconds = (Date.parse(retryAfter) - now) / 1000;
    return Number.isNaN(seconds) ? undefined : now + seconds * 1000;
  }
  const amzRetryAfter = headers.get('x-amz-retry-after');
  if (amzRetryAfter === null) return undefined;
  const ms = Number(amzRetryAfter);
  return Number.isNaN(ms) ? undefined : now + ms;
}

/** The wait before a retry: the back-off, lengthened (up to 5 s more) to a Retry-After. */
export function waitBeforeRetry(backoffMs: number, retryAt?: number, now = Date.now()): number {
  if (retryAt === undefined) return backoffMs;
  return Math.max(backoffMs, Math.min(retryAt - now, backoffMs + STANDARD_RETRY.retryAfterExtraMs));
}

/** The retry quota of one client (the SDK's retry token bucket). */
export class RetryQuota {
  #tokens: number = STANDARD_RETRY.quota;

  get tokens(): number {
    return this.#tokens;
  }

  static costOf(type: RetryErrorType): number {
    return type === 'THROTTLING' ? STANDARD_RETRY.throttlingRetryCost : STANDARD_RETRY.retryCost;
  }

  /** Takes the cost of a retry after a failure of this type; undefined (nothing taken) if short. */
  take(type: RetryErrorType): number | undefined {
    const cost = RetryQuota.costOf(type);
    if (this.#tokens < cost) return undefined;
    this.#tokens -= cost;
    return cost;
  }

  /** After a success: gives back what its last retry cost, or 1 when it was not a retry. */
  succeeded(lastRetryCost?: number): void {
    this.#tokens = Math.min(
      STANDARD_RETRY.quota,
      this.#tokens + (lastRetryCost ?? STANDARD_RETRY.successRefund),
    );
  }
}

/** Attempts and base delay for a service: AWS_MAX_ATTEMPTS, else the service's, else standard. */
export function retrySettings(
  service: string,
  maxAttempts?: number,
): { maxAttempts: number; baseDelayMs: number } {
  const own = SERVICE_RETRY[service];
  const fromEnv = process.env.AWS_MAX_ATTEMPTS;
  let attempts = maxAttempts;
  if (attempts === undefined && fromEnv) {
    attempts = Number.parseInt(fromEnv, 10);
    if (Number.isNaN(attempts)) {
      throw new Error(`Environment variable AWS_MAX_ATTEMPTS must be a number, got "${fromEnv}"`);
    }
  }
  return {
    maxAttempts: attempts ?? own?.maxAttempts ?? STANDARD_RETRY.maxAttempts,
    baseDelayMs: own?.baseDelayMs ?? STANDARD_RETRY.baseDelayMs,
  };
}
