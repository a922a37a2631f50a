/**
 * The harness of the differential tests of the signed-fetch AWS clients (functions/kernel/aws/):
 * the official client (@aws-sdk/client-*) and ours are sent to the same recording server
 * (scripted-server.ts) with the same recorded answers, one after the other, and what each did is
 * put in one comparable form: the requests as the service sees what matters of them (method,
 * path, query, the `content-*` and `x-amz*` headers but the date and the user agent, the body,
 * the signature's scope, and whether the signature is one AWS would accept), the waits between
 * attempts, and the result or the error (name, message, status, request id, attempts, total
 * retry delay).
 *
 * Waits are recorded, not waited: ours through the `sleep` option, the SDK's by wrapping its
 * retry strategy's `refreshRetryTokenForRetry` (where StandardRetryStrategy waits). Randomness
 * and the clock are pinned while a test runs (`pinRandomAndClock`), so equal policies give equal
 * waits and Retry-After is read at the same instant on both sides.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, vi } from 'vitest';
import type { AwsCredentials } from '../../functions/kernel/aws/http.ts';
import type { Answer, Received, ScriptedServer } from './scripted-server.ts';
import { checkSignature, parseAuthorization } from './sigv4.ts';

export const DIFF_CREDENTIALS: AwsCredentials = {
  accessKeyId: 'AKIDDIFFTEST',
  secretAccessKey: 'diff-test-secret',
};
export const DIFF_REGION = 'sa-east-1';

/** What the service sees of a request, in a form both clients' requests can be compared in. */
export interface WireView {
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body: unknown;
  /** `yyyymmdd/region/service/aws4_request` without the date. */
  scope: string | undefined;
  /** Whether the signature is the one the secret makes of what was received. */
  signatureValid: boolean;
  /** Whether `x-amz-content-sha256`, when sent, is the body's hash. */
  payloadHashValid: boolean;
}

/** Signature-dependent (the date, the payload's hash: the JSON bodies are compared as JSON, not
 * byte for byte) or the SDK's own. The hash is checked against the body instead. */
const DROPPED_HEADERS = new Set(['x-amz-date', 'x-amz-user-agent', 'x-amz-content-sha256']);
const KEPT_HEADERS = new Set(['content-type', 'content-encoding', 'cache-control']);

const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');

export function wireView(request: Received): WireView {
  const url = new URL(request.url, 'http://recorder');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    if (name.startsWith('x-amz') || KEPT_HEADERS.has(name)) {
      headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
  }
  const type = String(request.headers['content-type'] ?? '');
  const text = request.body.toString('utf8');
  const scope = parseAuthorization(request.headers.authorization)?.scope;
  return {
    method: request.method,
    path: url.pathname,
    query: [...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    headers,
    body: type.includes('json') && text ? JSON.parse(text) : request.body.toString('base64'),
    scope: scope?.replace(/^\d{8}\//, ''),
    signatureValid: checkSignature(request, DIFF_CREDENTIALS.secretAccessKey).ok,
    payloadHashValid: [undefined, 'UNSIGNED-PAYLOAD', sha256(request.body)].includes(
      request.headers['x-amz-content-sha256'] as string | undefined,
    ),
  };
}

/** An error as a caller sees it. */
export interface ErrorView {
  name: string;
  message: string;
  status?: number;
  requestId?: string;
  attempts?: number;
  totalRetryDelay?: number;
  /** The error's fields that say more: DynamoDB's `Item`, S3's `Code`, SQS's `Code` and `Type`
   * (the SDK's on the error, ours in `details`). */
  fields: Record<string, unknown>;
}

const ERROR_FIELDS = ['Item', 'Code', 'Type'];

export type Outcome = { ok: true; value: unknown } | { ok: false; error: ErrorView };

interface ErrorLike {
  name?: string;
  message?: string;
  details?: Record<string, unknown>;
  $metadata?: {
    httpStatusCode?: number;
    requestId?: string;
    attempts?: number;
    totalRetryDelay?: number;
  };
}

export function errorView(error: unknown): ErrorView {
  const e = (error ?? {}) as ErrorLike;
  const m = e.$metadata ?? {};
  const source = (e.details ?? e) as Record<string, unknown>;
  const fields = Object.fromEntries(
    ERROR_FIELDS.filter((name) => source[name] !== undefined).map((name) => [name, source[name]]),
  );
  return {
    fields,
    name: String(e.name),
    message: String(e.message),
    ...(m.httpStatusCode !== undefined && { status: m.httpStatusCode }),
    ...(m.requestId !== undefined && { requestId: m.requestId }),
    ...(m.attempts !== undefined && { attempts: m.attempts }),
    ...(m.totalRetryDelay !== undefined && { totalRetryDelay: m.totalRetryDelay }),
  };
}

export async function outcomeOf(call: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error: errorView(error) };
  }
}

interface RetryStrategyLike {
  refreshRetryTokenForRetry(token: unknown, info: unknown): Promise<unknown>;
}

/**
 * Makes an SDK client record its retry waits instead of waiting them: StandardRetryStrategy
 * waits inside `refreshRetryTokenForRetry` with the global `setTimeout`, which is swapped for a
 * recording one only while that call runs (nothing else runs then: the tests send one request
 * at a time).
 */
export async function recordSdkWaits(client: {
  config: { retryStrategy: () => Promise<unknown> };
}): Promise<number[]> {
  const strategy = (await client.config.retryStrategy()) as RetryStrategyLike;
  const waits: number[] = [];
  const refresh = strategy.refreshRetryTokenForRetry.bind(strategy);
  strategy.refreshRetryTokenForRetry = async (token, info) => {
    const real = globalThis.setTimeout;
    globalThis.setTimeout = ((callback: () => void, ms?: number) => {
      waits.push(ms ?? 0);
      return real(callback, 0);
    }) as typeof setTimeout;
    try {
      return await refresh(token, info);
    } finally {
      globalThis.setTimeout = real;
    }
  };
  return waits;
}

/** What one client did with a script. */
export interface Run {
  requests: WireView[];
  waits: number[];
  outcome: Outcome;
}

/** One side of a comparison: a call, and where its waits are recorded. */
export interface Side {
  call: () => Promise<unknown>;
  waits: number[];
}

/**
 * An answer dated at the pinned clock unless it carries its own Date: the clock-skew correction
 * of both clients reads every answer's Date, which would otherwise drift from the pinned clock
 * as the file runs.
 */
const dated = (answer: Answer): Answer =>
  typeof answer === 'string' || answer.headers?.date !== undefined
    ? answer
    : { ...answer, headers: { ...answer.headers, date: httpDate() } };

export async function runSide(
  server: ScriptedServer,
  script: Answer[] | ((request: Received, index: number) => Answer),
  side: Side,
): Promise<Run> {
  if (typeof script === 'function')
    server.respond((request, index) => dated(script(request, index)));
  else server.script(...script.map(dated));
  side.waits.length = 0;
  const outcome = await outcomeOf(side.call);
  return { requests: server.received.map(wireView), waits: [...side.waits], outcome };
}

/** The instant the clock is pinned to (a real one: the server's Date headers are real). */
export const PINNED_NOW = Date.now();

/**
 * Pins Math.random (0.5: a back-off of half its cap) and Date.now for every test of the file,
 * on both sides alike.
 */
export function pinRandomAndClock(random = 0.5): void {
  beforeEach(() => {
    vi.spyOn(Math, 'random').mockReturnValue(random);
    vi.spyOn(Date, 'now').mockReturnValue(PINNED_NOW);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
}

/** An HTTP date `ms` from the pinned now (Date and Retry-After headers). */
export const httpDate = (ms = 0) => new Date(PINNED_NOW + ms).toUTCString();
