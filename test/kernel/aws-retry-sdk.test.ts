/**
 * The retry policy of functions/kernel/aws/retry.ts against the installed AWS SDK's, read at test
 * time from the copy of `@smithy/core/retry` the SDK's clients load (its util-retry constants,
 * the 2026 `Retry` settings, service-error-classification's lists and classifiers, the retry
 * middleware's Retry-After reading, StandardRetryStrategy itself) and from the clients' own
 * resolved configuration (DynamoDB's attempts and base delay). An SDK that changes one of them
 * fails here until retry.ts follows; the differential tests (aws-*-differential.test.ts) check
 * the same policy end to end.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RETRYABLE_ERRORS } from '../../functions/kernel/aws/dynamodb.ts';
import { AwsError, createAwsHttp } from '../../functions/kernel/aws/http.ts';
import {
  classifyError,
  NODEJS_NETWORK_ERROR_CODES,
  NODEJS_TIMEOUT_ERROR_CODES,
  type RetryErrorType,
  retryAfterAt,
  retrySettings,
  STANDARD_RETRY,
  THROTTLING_ERROR_CODES,
  TRANSIENT_ERROR_CODES,
  TRANSIENT_ERROR_STATUS_CODES,
} from '../../functions/kernel/aws/retry.ts';
import { DIFF_CREDENTIALS, PINNED_NOW } from '../helpers/aws-differential.ts';
import { stubFetch } from '../helpers/aws-fetch-stub.ts';

/** `@smithy/core` as the SDK's clients resolve it (a dependency of theirs, not of ours). */
const fromSdk = createRequire(createRequire(import.meta.url).resolve('@aws-sdk/client-dynamodb'));
const SdkRetry = fromSdk('@smithy/core/retry') as typeof import('@smithy/core/retry');
const SdkProtocols = fromSdk('@smithy/core/protocols') as typeof import('@smithy/core/protocols');

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('the standard mode settings', () => {
  it("are the installed SDK's (util-retry's constants and its 2026 Retry settings)", async () => {
    const { Retry } = SdkRetry;
    const retryAfterExtraMs = await sdkRetryAfterExtraMs();
    expect(Retry.modifiedCostType()).toBe('THROTTLING');
    expect(STANDARD_RETRY).toEqual({
      maxAttempts: SdkRetry.DEFAULT_MAX_ATTEMPTS,
      baseDelayMs: Retry.delay(),
      throttlingBaseDelayMs: Retry.throttlingDelay(),
      maxDelayMs: SdkRetry.MAXIMUM_RETRY_DELAY,
      retryAfterExtraMs,
      quota: SdkRetry.INITIAL_RETRY_TOKENS,
      retryCost: Retry.cost(),
      throttlingRetryCost: Retry.throttlingCost(),
      successRefund: SdkRetry.NO_RETRY_INCREMENT,
    });
  });

  it.each([
    ['dynamodb', () => new DynamoDBClient({ region: 'sa-east-1' })],
    ['sqs', () => new SQSClient({ region: 'sa-east-1' })],
    ['s3', () => new S3Client({ region: 'sa-east-1' })],
  ] as const)("%s: attempts and base delay are its SDK client's", async (service, make) => {
    vi.stubEnv('AWS_MAX_ATTEMPTS', undefined);
    const client = make();
    const strategy = (await client.config.retryStrategy()) as unknown as { baseDelay: number };
    expect(retrySettings(service)).toEqual({
      maxAttempts: await client.config.maxAttempts(),
      baseDelayMs: strategy.baseDelay,
    });
  });

  it.each(['dynamodb', 'sqs', 's3'])(
    '%s: AWS_MAX_ATTEMPTS overrides as in the SDK',
    async (service) => {
      vi.stubEnv('AWS_MAX_ATTEMPTS', '6');
      const sdk = new DynamoDBClient({ region: 'sa-east-1' });
      expect(retrySettings(service).maxAttempts).toBe(await sdk.config.maxAttempts());
      expect(retrySettings(service, 2).maxAttempts).toBe(2);
      vi.stubEnv('AWS_MAX_ATTEMPTS', 'many');
      expect(() => retrySettings(service)).toThrow('AWS_MAX_ATTEMPTS');
    },
  );
});

/** StandardRetryStrategy's cap on a Retry-After: a far hint with no back-off gives the cap. */
async function sdkRetryAfterExtraMs(): Promise<number> {
  const waits: number[] = [];
  vi.spyOn(Math, 'random').mockReturnValue(0);
  vi.spyOn(Date, 'now').mockReturnValue(PINNED_NOW);
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms: number) => {
    waits.push(ms);
    queueMicrotask(callback);
  }) as never);
  const strategy = new SdkRetry.StandardRetryStrategy(3);
  const token = await strategy.acquireInitialRetryToken('');
  await strategy.refreshRetryTokenForRetry(token, {
    errorType: 'TRANSIENT',
    retryAfterHint: new Date(PINNED_NOW + 3_600_000),
  });
  vi.restoreAllMocks();
  return waits[0] ?? Number.NaN;
}

/** A `const NAME = [...]` list of the installed service-error-classification. */
function sdkList(name: string): Array<string | number> {
  const source = readFileSync(fromSdk.resolve('@smithy/core/retry'), 'utf8');
  const match = new RegExp(`const ${name} = \\[([^\\]]*)\\]`).exec(source);
  if (!match) throw new Error(`${name} is no longer in @smithy/core/retry: look again`);
  return [...(match[1] ?? '').matchAll(/"([^"]+)"|(\d+)/g)].map(([, text, number]) =>
    text !== undefined ? text : Number(number),
  );
}

describe('the error classification', () => {
  it("lists service-error-classification's codes and statuses", () => {
    expect(THROTTLING_ERROR_CODES).toEqual(sdkList('THROTTLING_ERROR_CODES'));
    expect(TRANSIENT_ERROR_CODES).toEqual(sdkList('TRANSIENT_ERROR_CODES'));
    expect(TRANSIENT_ERROR_STATUS_CODES).toEqual(sdkList('TRANSIENT_ERROR_STATUS_CODES'));
    expect(NODEJS_TIMEOUT_ERROR_CODES).toEqual(sdkList('NODEJS_TIMEOUT_ERROR_CODES'));
    expect(NODEJS_NETWORK_ERROR_CODES).toEqual(sdkList('NODEJS_NETWORK_ERROR_CODES'));
  });

  /** The retry middleware's getRetryErrorType, over the SDK's own classifiers. */
  function sdkType(error: never): RetryErrorType {
    if (SdkRetry.isThrottlingError(error)) return 'THROTTLING';
    if (SdkRetry.isTransientError(error)) return 'TRANSIENT';
    if (SdkRetry.isServerError(error)) return 'SERVER_ERROR';
    return 'CLIENT_ERROR';
  }

  /** Every error name the three clients model, and every code the lists know. */
  function knownNames(): string[] {
    const names = new Set<string>([
      ...THROTTLING_ERROR_CODES,
      ...TRANSIENT_ERROR_CODES,
      ...sdkList('THROTTLING_ERROR_CODES').map(String),
      ...sdkList('CLOCK_SKEW_ERROR_CODES').map(String),
      'AbortError',
      'InvalidSignatureException',
      'InternalServerError',
      'ServiceUnavailable',
      'Unknown',
      'SyntaxError',
    ]);
    for (const pkg of ['@aws-sdk/client-dynamodb', '@aws-sdk/client-sqs', '@aws-sdk/client-s3']) {
      const module = createRequire(import.meta.url)(pkg) as Record<string, unknown>;
      for (const [key, schema] of Object.entries(module)) {
        if (key.endsWith('$') && Array.isArray(schema) && schema[0] === -3) names.add(schema[2]);
      }
    }
    return [...names];
  }

  it('classifies every error as the SDK does: names × statuses, traits, transports', () => {
    const statuses = [
      undefined,
      200,
      301,
      400,
      403,
      404,
      413,
      429,
      500,
      501,
      502,
      503,
      504,
      505,
      599,
    ];
    const errors: object[] = [];
    for (const name of knownNames()) {
      for (const status of statuses) {
        errors.push({ name, message: 'm', $metadata: { httpStatusCode: status } });
      }
    }
    errors.push(
      { name: 'InvalidSignatureException', message: 'Signature expired: 2026', $metadata: {} },
      { name: 'X', $metadata: { httpStatusCode: 403, clockSkewCorrected: true } },
      { name: 'X', $retryable: {}, $metadata: { httpStatusCode: 400 } },
      { name: 'X', $retryable: { throttling: true }, $metadata: { httpStatusCode: 400 } },
      { name: 'AbortError', $retryable: {}, $metadata: {} },
      ...[...NODEJS_TIMEOUT_ERROR_CODES, ...NODEJS_NETWORK_ERROR_CODES, 'EOTHER'].map((code) => ({
        name: 'Error',
        code,
      })),
      { name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNRESET' } },
      { name: 'TypeError', message: 'fetch failed', cause: { cause: { code: 'EPIPE' } } },
      { name: 'TypeError', message: 'fetch failed', cause: { code: 'EOTHER' } },
      { name: 'TimeoutError', message: 'The operation was aborted due to timeout' },
    );
    const differing = errors.filter((e) => classifyError(e) !== sdkType(e as never));
    expect(differing).toEqual([]);
    expect(errors.length).toBeGreaterThan(1000);
  });

  it("marks retryable what DynamoDB's model marks retryable ($retryable)", () => {
    const module = createRequire(import.meta.url)('@aws-sdk/client-dynamodb') as Record<
      string,
      unknown
    >;
    const retryable: string[] = [];
    for (const [key, value] of Object.entries(module)) {
      if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
      const error = new (value as new (o: object) => { $retryable?: unknown; name: string })({
        $metadata: {},
        message: '',
      });
      if (error.$retryable !== undefined) retryable.push(key);
    }
    expect(RETRYABLE_ERRORS).toEqual(retryable);
  });

  it.each(['@aws-sdk/client-sqs', '@aws-sdk/client-s3'])('%s models no retryable error', (pkg) => {
    const module = createRequire(import.meta.url)(pkg) as Record<string, unknown>;
    const retryable = Object.values(module).filter(
      (value) =>
        typeof value === 'function' &&
        value.prototype instanceof Error &&
        new (value as new (o: object) => { $retryable?: unknown })({ $metadata: {}, message: '' })
          .$retryable !== undefined,
    );
    expect(retryable).toEqual([]);
  });
});

describe('Retry-After', () => {
  it.each([
    ['retry-after', '3'],
    ['retry-after', '0'],
    ['retry-after', '1.5'],
    ['retry-after', '120'],
    ['retry-after', new Date(PINNED_NOW + 7_000).toUTCString()],
    ['retry-after', new Date(PINNED_NOW - 7_000).toUTCString()],
    ['retry-after', `${new Date(PINNED_NOW).toUTCString()}, 4`],
    ['retry-after', new Date(PINNED_NOW + 9_000).toISOString()],
    ['retry-after', 'soon'],
    ['retry-after', '-1'],
    ['x-amz-retry-after', '1500'],
    ['x-amz-retry-after', '0'],
    ['x-amz-retry-after', 'later'],
  ])('reads %s: %s as the SDK does', (header, value) => {
    vi.spyOn(Date, 'now').mockReturnValue(PINNED_NOW);
    const sdk = SdkRetry.getRetryAfterHint(
      new SdkProtocols.HttpResponse({ statusCode: 503, headers: { [header]: value } }),
    );
    expect(retryAfterAt(new Headers({ [header]: value }))).toBe(sdk?.getTime());
  });
});

describe('StandardRetryStrategy, step for step', () => {
  type Step = 'ok' | 'THROTTLING' | 'TRANSIENT' | 'SERVER_ERROR' | 'CLIENT_ERROR';
  /** An answer that our transport classifies as the step says. */
  const ANSWERS: Record<Step, () => Response> = {
    ok: () => Response.json({}),
    THROTTLING: () => new Response('', { status: 429 }),
    TRANSIENT: () => new Response('', { status: 503 }),
    SERVER_ERROR: () => new Response('', { status: 501 }),
    CLIENT_ERROR: () => new Response('', { status: 400 }),
  };

  /**
   * The SDK's strategy, driven as its retry middleware drives it: each call takes a token,
   * renews it after each failure until refused, records a success. Returns per call the
   * attempts, the waits, and the tokens left.
   */
  async function sdkRun(calls: Step[][], service: string) {
    const client =
      service === 'dynamodb'
        ? new DynamoDBClient({ region: 'sa-east-1' })
        : new SQSClient({ region: 'sa-east-1' });
    const strategy = (await client.config.retryStrategy()) as InstanceType<
      typeof SdkRetry.StandardRetryStrategy
    >;
    const waits: number[] = [];
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms: number) => {
      waits.push(ms);
      queueMicrotask(callback);
    }) as never);
    const result = [];
    for (const steps of calls) {
      let token = await strategy.acquireInitialRetryToken('');
      let attempts = 0;
      for (const step of [...steps, 'ok' as const]) {
        attempts += 1;
        if (step === 'ok') {
          strategy.recordSuccess(token);
          break;
        }
        try {
          token = await strategy.refreshRetryTokenForRetry(token, { errorType: step });
        } catch {
          break;
        }
      }
      result.push({ attempts, tokens: strategy.getCapacity() });
    }
    vi.restoreAllMocks();
    return { result, waits };
  }

  /** Ours, through createAwsHttp's real send loop, answers from a stubbed fetch. */
  async function ourRun(calls: Step[][], service: string) {
    const waits: number[] = [];
    const http = createAwsHttp(service, () => 'https://aws.example', {
      region: 'sa-east-1',
      credentials: DIFF_CREDENTIALS,
      sleep: async (ms) => void waits.push(ms),
    });
    const result = [];
    for (const steps of calls) {
      const queue = [...steps, 'ok' as const];
      let attempts = 0;
      stubFetch(async () => {
        attempts += 1;
        return ANSWERS[queue.shift() ?? 'ok']();
      });
      await http
        .send(
          { method: 'POST', url: 'https://aws.example/' },
          {
            ok: async () => undefined,
            error: async (r) => new AwsError('Failed', '', r.status),
          },
        )
        .catch(() => undefined);
      result.push({ attempts, tokens: http.quota.tokens });
    }
    vi.unstubAllGlobals();
    return { result, waits };
  }

  const step = fc.constantFrom<Step>(
    'THROTTLING',
    'TRANSIENT',
    'TRANSIENT',
    'SERVER_ERROR',
    'CLIENT_ERROR',
  );
  const calls = fc.array(fc.array(step, { maxLength: 5 }), { minLength: 1, maxLength: 120 });

  it.each(['dynamodb', 'sqs'])(
    '%s: the same attempts, waits and tokens after any sequence of answers',
    async (service) => {
      await fc.assert(
        fc.asyncProperty(
          calls,
          fc.double({ min: 0, max: 0.999, noNaN: true }),
          async (plan, random) => {
            vi.spyOn(Math, 'random').mockReturnValue(random);
            const sdk = await sdkRun(plan, service);
            vi.spyOn(Math, 'random').mockReturnValue(random);
            const ours = await ourRun(plan, service);
            vi.restoreAllMocks();
            expect(ours).toEqual(sdk);
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it('drains the quota on a long outage and refills it on successes (a sequence that shows it)', async () => {
    const plan: Step[][] = [
      ...Array.from({ length: 30 }, () => ['TRANSIENT', 'TRANSIENT', 'TRANSIENT'] as Step[]),
      ...Array.from({ length: 50 }, () => [] as Step[]),
      ['THROTTLING', 'THROTTLING'],
    ];
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const sdk = await sdkRun(plan, 'sqs');
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const ours = await ourRun(plan, 'sqs');
    expect(ours).toEqual(sdk);
    expect(Math.min(...ours.result.map((r) => r.tokens))).toBeLessThan(STANDARD_RETRY.retryCost);
    expect(ours.result.slice(0, 30).map((r) => r.attempts)).toContain(1);
    expect(ours.result.at(-2)?.tokens).toBeGreaterThan(
      Math.min(...ours.result.map((r) => r.tokens)),
    );
  });
});
