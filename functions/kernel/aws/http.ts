/**
 * The functions' way to AWS's HTTP APIs: requests signed with Signature Version 4 by aws4fetch
 * (a small, well-kept signer on WebCrypto) and sent with Node's `fetch`, retried as the AWS SDK's
 * standard retry mode does, and failures turned into one error class, `AwsError`, named after the
 * service's error code (`ConditionalCheckFailedException`, `NoSuchKey`, `QueueDoesNotExist`).
 *
 * Why not the AWS SDK: its clients are most of a function's cold start (docs/performance.md:
 * DynamoDB, SQS and S3 clients bundled take 50-75 ms to load; this module and aws4fetch about
 * 2 ms), and every webhook platform waits on the first request after a quiet period. The SDK
 * stays where it is cheap to keep or asked for: Secrets Manager (loaded at the first secret read)
 * and AppConfig (through Powertools, at the first settings read).
 *
 * Credentials come from the environment Lambda sets (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN, AWS_REGION), read at each request so a test or a runtime that changes them
 * is followed. `endpoint` points a client at dynalite, a test server or another endpoint.
 */
import { AwsClient } from 'aws4fetch';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface AwsHttpOptions {
  /** @default process.env.AWS_REGION */
  region?: string;
  /** Where requests go instead of the service's regional endpoint (no trailing slash). */
  endpoint?: string;
  /** @default the AWS_* variables of the environment */
  credentials?: AwsCredentials;
  /** Attempts per request, the first included. @default 3 (the SDK's standard mode) */
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

/** A failed AWS call: `name` is the service's error code, `status` the HTTP status. */
export class AwsError extends Error {
  override readonly name: string;
  readonly status: number;
  readonly requestId: string | undefined;
  /** The error body's other fields (DynamoDB's `Item` on a failed condition, for example). */
  readonly details: Record<string, unknown>;
  /** Shaped as the SDK's, for code and logs that read `$metadata.httpStatusCode`. */
  readonly $metadata: { httpStatusCode: number; requestId?: string };

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

/** Error codes the SDK's standard mode retries besides 5xx and 429 (throttling, transient). */
const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'TransactionInProgressException',
  'RequestLimitExceeded',
  'BandwidthLimitExceeded',
  'LimitExceededException',
  'RequestThrottled',
  'SlowDown',
  'PriorRequestNotComplete',
  'EC2ThrottledException',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalError',
  'ServiceUnavailable',
]);

/** Whether the SDK's standard mode would try an answered request again. */
export function isRetryable(error: AwsError): boolean {
  return error.status >= 500 || error.status === 429 || RETRYABLE_CODES.has(error.name);
}

/** The SDK's standard back-off: full jitter over 100 ms × 2^attempt, at most 20 s. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(20_000, 100 * 2 ** attempt));
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
  /** The endpoint requests go to (the regional one unless `endpoint` was given); both are
   * resolved at first use and throw then if AWS_REGION is not set. */
  readonly endpoint: string;
  /**
   * Sends a signed request, retrying what the SDK retries; resolves with a 2xx response,
   * rejects with the `AwsError` that `parseError` makes of anything else.
   */
  send(
    request: AwsRequest,
    parseError: (response: Response) => Promise<AwsError>,
  ): Promise<Response>;
}

export function createAwsHttp(
  service: string,
  defaultEndpoint: (region: string) => string,
  options: AwsHttpOptions = {},
): AwsHttp {
  // Resolved at the first request, as the SDK does: constructing a client never throws.
  let resolved: { region: string; endpoint: string } | undefined;
  const where = () => {
    if (!resolved) {
      const region = regionOf(options);
      resolved = { region, endpoint: options.endpoint ?? defaultEndpoint(region) };
    }
    return resolved;
  };
  const maxAttempts = options.maxAttempts ?? 3;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 3_000;
  const sleep = options.sleep ?? wait;
  let signer: { key: string; client: AwsClient } | undefined;
  const signerFor = (credentials: AwsCredentials) => {
    const key = `${credentials.accessKeyId}\n${credentials.sessionToken ?? ''}`;
    if (signer?.key !== key) {
      const { region } = where();
      signer = { key, client: new AwsClient({ ...credentials, service, region, retries: 0 }) };
    }
    return signer.client;
  };

  return {
    service,
    get region() {
      return where().region;
    },
    get endpoint() {
      return where().endpoint;
    },
    async send(request, parseError) {
      // Signing is not retried: missing credentials or a malformed URL fail the same every time.
      const credentials = credentialsOf(options);
      for (let attempt = 0; ; attempt++) {
        const signed = await signerFor(credentials).sign(request.url, {
          method: request.method,
          headers: request.headers ?? {},
          ...(request.body !== undefined && { body: request.body }),
        });
        let failure: AwsError;
        try {
          const response = await fetch(signed, { signal: AbortSignal.timeout(attemptTimeoutMs) });
          if (response.ok) return response;
          failure = await parseError(response);
        } catch (error) {
          // No answer: the connection failed or was reset (fetch's TypeError), or the attempt
          // timed out (a TimeoutError). Tried again, as the SDK does, although the first attempt
          // may have landed: the ledger's writes are conditional (a landed one makes the retry
          // fail its condition, which callers handle), a repeated wake-up message is ignored.
          if (attempt + 1 >= maxAttempts) throw error;
          await sleep(retryDelayMs(attempt));
          continue;
        }
        if (attempt + 1 >= maxAttempts || !isRetryable(failure)) throw failure;
        await sleep(retryDelayMs(attempt));
      }
    },
  };
}

/**
 * The JSON protocol of DynamoDB and SQS: POST `/` with `X-Amz-Target: <prefix>.<operation>`;
 * errors carry `__type` (`com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException`).
 */
export function createJsonProtocol(
  http: AwsHttp,
  targetPrefix: string,
): <T = Record<string, unknown>>(operation: string, input: object) => Promise<T> {
  return async (operation, input) => {
    const response = await http.send(
      {
        method: 'POST',
        url: `${http.endpoint}/`,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `${targetPrefix}.${operation}`,
        },
        body: JSON.stringify(input),
      },
      parseJsonError,
    );
    const text = await response.text();
    return (text ? JSON.parse(text) : {}) as never;
  };
}

export async function parseJsonError(response: Response): Promise<AwsError> {
  const requestId =
    response.headers.get('x-amzn-requestid') ?? response.headers.get('x-amz-request-id');
  const text = await response.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      body = parsed as Record<string, unknown>;
    }
  } catch {
    // Not JSON (a proxy's page): the status names the failure.
  }
  const { __type, message, Message, ...details } = body;
  const type = typeof __type === 'string' ? __type : response.headers.get('x-amzn-errortype');
  const code = type ? (type.split('#').pop()?.split(':')[0] ?? type) : `Http${response.status}`;
  const said = typeof message === 'string' ? message : typeof Message === 'string' ? Message : '';
  return new AwsError(code, said, response.status, requestId ?? undefined, details);
}
