/**
 * What every AWS SDK v3 client of the functions is made with (kernel/dynamodb-aws.ts,
 * sqs-aws.ts, s3-aws.ts): the SDK's own default credential chain and Region (Lambda's
 * environment on AWS; profiles, SSO, container or instance credentials elsewhere), its
 * `AWS_ENDPOINT_URL` / `AWS_ENDPOINT_URL_<SERVICE>` settings, its standard retry mode, and its
 * node:https handler with keep-alive (the SDK's default agent) and a deadline per attempt.
 *
 * `endpoint`, `region` and `credentials` are only passed to the SDK when a caller gives them (a
 * local dynalite or s3rver): otherwise nothing here overrides what the SDK resolves.
 */

/** Fixed credentials (a local server's); AWS itself is reached with the default chain. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface AwsClientOptions {
  /** @default the SDK's (AWS_REGION, the profile's `region`...) */
  region?: string;
  /** @default the SDK's (AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL, else the service's) */
  endpoint?: string;
  /** @default the SDK's default credential chain */
  credentials?: AwsCredentials;
  /** Attempts per request, the first included. @default the SDK's (AWS_MAX_ATTEMPTS, 3; DynamoDB 4) */
  maxAttempts?: number;
  /**
   * How long one attempt may wait for its answer (the socket idle, NodeHttpHandler's
   * `requestTimeout`) before it fails as a `TimeoutError`, which the standard mode retries:
   * without it a connection that hangs holds the caller until the function's own timeout.
   * @default 3000 (DynamoDB and SQS answer in milliseconds)
   */
  attemptTimeoutMs?: number;
}

/** How long a connection may take to open before the attempt fails (and is retried). */
export const CONNECTION_TIMEOUT_MS = 1_000;
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 3_000;

/** The SDK client configuration for these options (spread into `new XClient(...)`). */
export function sdkClientConfig(options: AwsClientOptions = {}) {
  return {
    retryMode: 'standard',
    ...(options.maxAttempts !== undefined && { maxAttempts: options.maxAttempts }),
    ...(options.region !== undefined && { region: options.region }),
    ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
    ...(options.credentials !== undefined && { credentials: options.credentials }),
    // NodeHttpHandler's options (the SDK makes the handler from them; its agent keeps alive).
    // Without throwOnRequestTimeout the handler only logs a warning at requestTimeout and the
    // attempt goes on waiting (test/kernel/sdk-aws.test.ts).
    requestHandler: {
      requestTimeout: options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
  } as const;
}
