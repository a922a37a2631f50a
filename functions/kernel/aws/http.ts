/**
 * The functions' way to AWS's HTTP APIs: requests signed with Signature Version 4 by `aws4` (a
 * small, well-kept signer on node:crypto) and sent with node:http(s) (transport.ts), retried exactly as the
 * AWS SDK's standard retry mode does (retry.ts: attempts, back-off, Retry-After, the retry
 * quota, which errors), signed at the clock the service's answers say (clock-skew.ts), sent to
 * the endpoint the SDK would pick (endpoints.ts: partition, FIPS, dual-stack), and failures
 * turned into one error class, `AwsError`, named as the SDK names them
 * (`ConditionalCheckFailedException`, `NoSuchKey`, `QueueDoesNotExist`).
 *
 * Why not the AWS SDK: its clients are most of a function's cold start (docs/performance.md:
 * DynamoDB, SQS and S3 clients bundled take 50-75 ms to load; these modules and aws4 a few
 * ms), and every webhook platform waits on the first request after a quiet period. Nothing here
 * imports the SDK at run time; the tests run the SDK's own clients beside these on the same
 * answers (test/kernel/aws-*-differential.test.ts). The SDK stays where it is cheap to keep or
 * asked for: Secrets Manager (loaded at the first secret read) and AppConfig (through
 * Powertools, at the first settings read).
 *
 * Credentials come from the environment Lambda sets (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN, AWS_REGION), read at each request so a test or a runtime that changes them
 * is followed. `endpoint` points a client at dynalite, a test server or another endpoint.
 *
 * Beyond the SDK: each attempt has a deadline (`attemptTimeoutMs`, the response's body
 * included), which the SDK leaves unset; an attempt that passes it fails as a `TimeoutError`,
 * which the standard mode retries.
 */
import { createHash } from 'node:crypto';
import { ClockSkew } from './clock-skew.ts';
import { type EndpointOptions, type EndpointSettings, endpointSettings } from './endpoints.ts';
import {
  classifyError,
  isRetryableType,
  RetryQuota,
  retryAfterAt,
  retryDelayMs,
  retrySettings,
  STANDARD_RETRY,
  waitBeforeRetry,
} from './retry.ts';
import { type AwsHeaders, type AwsResponse, exchange, signRequest } from './transport.ts';

export type { AwsHeaders, AwsResponse } from './transport.ts';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface AwsHttpOptions extends EndpointOptions {
  /** @default process.env.AWS_REGION */
  region?: string;
  /** Where requests go instead of the service's regional endpoint (no trailing slash). */
  endpoint?: string;
  /** @default the AWS_* variables of the environment */
  credentials?: AwsCredentials;
  /**
   * Attempts per request, the first included.
   * @default AWS_MAX_ATTEMPTS, else the SDK's for the service (3; DynamoDB 4)
   */
  maxAttempts?: number;
  /**
   * How long one attempt may take, its response's body included, before it is abandoned and
   * tried again like a dropped connection. Without it a connection that hangs holds the caller
   * until the function's own timeout. @default 3000 (DynamoDB and SQS answer in milliseconds)
   */
  attemptTimeoutMs?: number;
  /** For tests: the wait between attempts. */
  sleep?: (ms: number) => Promise<void>;
}

export interface AwsRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD';
  /** Full URL of the request. */
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** What the SDK's errors carry in `$metadata`. */
export interface AwsErrorMetadata {
  httpStatusCode: number;
  requestId?: string;
  extendedRequestId?: string;
  /** Attempts made, the first included (set when the error is returned). */
  attempts?: number;
  /** The time waited between them, in ms. */
  totalRetryDelay?: number;
  /** The answer corrected the clock: the error is tried again (clock-skew.ts). */
  clockSkewCorrected?: boolean;
}

/** A failed AWS call: `name` is the service's error code, `status` the HTTP status. */
export class AwsError extends Error {
  override readonly name: string;
  readonly status: number;
  readonly requestId: string | undefined;
  /** The error body's other fields (DynamoDB's `Item` on a failed condition, for example). */
  readonly details: Record<string, unknown>;
  /** Shaped as the SDK's, for code and logs that read `$metadata.httpStatusCode`. */
  readonly $metadata: AwsErrorMetadata;
  /** Set on the errors the service's model marks retryable, as the SDK's are. */
  $retryable?: { throttling?: boolean };

  constructor(
    code: string,
    message: string,
    status: number,
    requestId?: string,
    details: Record<string, unknown> = {},
  ) {
    super(message || code);
    this.name = code;
    this.status = status;
    this.requestId = requestId;
    this.details = details;
    this.$metadata = { httpStatusCode: status, ...(requestId && { requestId }) };
  }
}

/** How a request's answer is read: a 2xx into its output, anything else into an AwsError. */
export interface AwsReader<T> {
  ok(response: AwsResponse): Promise<T>;
  error(response: AwsResponse): Promise<AwsError>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function regionOf(options: AwsHttpOptions = {}): string {
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) throw new Error('AWS_REGION is not set');
  return region;
}

function credentialsOf(options: AwsHttpOptions): AwsCredentials {
  if (options.credentials) return options.credentials;
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('AWS credentials are not set (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)');
  }
  const sessionToken = process.env.AWS_SESSION_TOKEN;
  return { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
}

export interface AwsHttp {
  readonly service: string;
  readonly region: string;
  /** The region's endpoint settings (partition, FIPS, dual-stack). */
  readonly settings: EndpointSettings;
  /** The endpoint requests go to (the regional one unless `endpoint` was given); both are
   * resolved at first use and throw then if AWS_REGION is not set. */
  readonly endpoint: string;
  /** Whether `endpoint` was given (a local server): no partition rules apply then. */
  readonly custom: boolean;
  /** The client's retry quota (the SDK's token bucket), for tests and logs. */
  readonly quota: RetryQuota;
  /** The client's clock-skew correction. */
  readonly clock: ClockSkew;
  /**
   * Sends a signed request, retrying what the SDK retries; resolves with what `read.ok` makes of
   * the 2xx answer (read within the attempt), rejects with the `AwsError` of `read.error`, or the
   * transport's error, with `$metadata.attempts` and `totalRetryDelay` set.
   */
  send<T>(request: AwsRequest, read: AwsReader<T>): Promise<T>;
}

const sha256 = (body: string | Uint8Array) => createHash('sha256').update(body).digest('hex');
/** SigV4's date form: 20260126T101500Z. */
const amzDate = (date: Date) => date.toISOString().replace(/[:-]|\.\d{3}/g, '');

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown; headers?: AwsHeaders };

interface Transport {
  service: string;
  region: string;
  credentials: AwsCredentials;
  clock: ClockSkew;
  attemptTimeoutMs: number;
}

/** One attempt: signed at the corrected clock, sent, and its answer read. */
async function attempt<T>(
  t: Transport,
  request: AwsRequest,
  payloadHash: string,
  read: AwsReader<T>,
): Promise<Outcome<T>> {
  const signedOffset = t.clock.offsetMs;
  const at = t.clock.now();
  // Signing is not retried: a malformed URL fails the same every time.
  const signed = signRequest({
    method: request.method,
    url: request.url,
    // The payload's hash, sent as the SDK sends it (S3 wants it; the others accept it).
    headers: { ...request.headers, 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate(at) },
    ...(request.body !== undefined && { body: request.body }),
    service: t.service,
    region: t.region,
    credentials: t.credentials,
  });
  const sentAt = Date.now();
  try {
    // Redirects are answers, as in the SDK (S3's 301/307 name the bucket's region): not followed.
    const response = await exchange(signed, t.attemptTimeoutMs);
    if (response.ok) {
      t.clock.sample(response.headers, sentAt, signedOffset);
      return { ok: true, value: await read.ok(response) };
    }
    const error = await read.error(response);
    const serverTime = error.details.ServerTime;
    const corrected = t.clock.sample(
      response.headers,
      sentAt,
      signedOffset,
      typeof serverTime === 'string' ? serverTime : undefined,
    );
    if (corrected) error.$metadata.clockSkewCorrected = true;
    return { ok: false, error, headers: response.headers };
  } catch (error) {
    // No answer: the connection failed or was reset (ECONNRESET...), or the attempt timed
    // out (a TimeoutError). Tried again as the SDK does, although the first attempt may have
    // landed: the ledger's writes are conditional (a landed one makes the retry fail its
    // condition, which callers handle), a repeated wake-up message is ignored.
    return { ok: false, error };
  }
}

/** The error a request ends with, carrying its attempts as the SDK's do. */
function finalError(error: unknown, attempts: number, totalRetryDelay: number): unknown {
  if (error && typeof error === 'object') {
    const bearer = error as { $metadata?: Record<string, unknown> };
    bearer.$metadata = { ...bearer.$metadata, attempts, totalRetryDelay };
  }
  return error;
}

export function createAwsHttp(
  service: string,
  defaultEndpoint: (settings: EndpointSettings) => string,
  options: AwsHttpOptions = {},
): AwsHttp {
  // Resolved at the first request, as the SDK does: constructing a client never throws.
  let resolved: { settings: EndpointSettings; endpoint: string } | undefined;
  const where = () => {
    if (!resolved) {
      const settings = endpointSettings(regionOf(options), options);
      resolved = { settings, endpoint: options.endpoint ?? defaultEndpoint(settings) };
    }
    return resolved;
  };
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 3_000;
  const sleep = options.sleep ?? wait;
  const quota = new RetryQuota();
  const clock = new ClockSkew();

  async function send<T>(request: AwsRequest, read: AwsReader<T>): Promise<T> {
    // Signing is not retried: missing credentials or a malformed URL fail the same every time.
    const credentials = credentialsOf(options);
    const { maxAttempts, baseDelayMs } = retrySettings(service, options.maxAttempts);
    const transport: Transport = {
      service,
      region: where().settings.region,
      credentials,
      clock,
      attemptTimeoutMs,
    };
    const payloadHash = sha256(request.body ?? '');
    let lastRetryCost: number | undefined;
    let totalRetryDelay = 0;
    for (let attempts = 1; ; attempts++) {
      const outcome = await attempt(transport, request, payloadHash, read);
      if (outcome.ok) {
        quota.succeeded(lastRetryCost);
        return outcome.value;
      }
      const type = classifyError(outcome.error);
      const cost = isRetryableType(type) && attempts < maxAttempts ? quota.take(type) : undefined;
      if (cost === undefined) throw finalError(outcome.error, attempts, totalRetryDelay);
      lastRetryCost = cost;
      const base = type === 'THROTTLING' ? STANDARD_RETRY.throttlingBaseDelayMs : baseDelayMs;
      const backoff = retryDelayMs(attempts - 1, base);
      const delay = waitBeforeRetry(backoff, outcome.headers && retryAfterAt(outcome.headers));
      totalRetryDelay += delay;
      await sleep(delay);
    }
  }

  return {
    service,
    get region() {
      return where().settings.region;
    },
    get settings() {
      return where().settings;
    },
    get endpoint() {
      return where().endpoint;
    },
    custom: options.endpoint !== undefined,
    quota,
    clock,
    send,
  };
}
