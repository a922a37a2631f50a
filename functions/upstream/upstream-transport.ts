/**
 * How every upstream call travels: Basic auth, the pacer awaited before each call (and paused
 * after a 429, until Retry-After), a per-call timeout, no redirects followed, and each answer
 * that is not a 2xx turned into an `UpstreamError` of the right kind (upstream-errors.ts), with
 * the credentials redacted from every message. The operations (upstream-prospects.ts,
 * upstream-debtors.ts) call `call` and `parseBody` over a `UpstreamTransport` made once by
 * `createTransport`.
 */
import { parseJson } from '../domain/json.ts';
import { parseRetryAfter } from '../kernel/http.ts';
import type { Pacer } from './pacer.ts';
import {
  classifyStatus,
  describeFailure,
  errorMessages,
  quote,
  UpstreamError,
  type UpstreamErrorDetails,
  type UpstreamErrorKind,
} from './upstream-errors.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
/** Pacer pause after a 429 that carries no usable Retry-After (production's window is 1 s). */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 1_000;
/** Longest pacer pause a Retry-After can impose (production's widest quota is hourly). */
export const MAX_RATE_LIMIT_PAUSE_MS = 3_600_000;

export interface CallOptions {
  signal?: AbortSignal;
}

export interface UpstreamTransportOptions {
  baseUrl: string;
  username: string;
  password: string;
  /** Per call, from the moment the pacer lets it through. Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * Awaited before every call; paused after a 429. Its clock must be epoch ms (`Date.now`, the
   * pacer's default), since pauses are computed from Retry-After against `Date.now()`.
   */
  pacer?: Pacer;
  fetch?: typeof fetch;
}

/** What every call of one client shares (made once by `createTransport`). */
export interface UpstreamTransport {
  base: URL;
  /** The base URL's path without its trailing slashes; call paths are appended to it. */
  basePath: string;
  timeoutMs: number;
  fetch: typeof fetch;
  pacer?: Pacer;
  /** The Authorization header's value. */
  authorization: string;
  /** Every form of the credentials that must never reach a message. */
  secrets: string[];
}

/** A 2xx answer, its body read. */
export interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

/** Checks the base URL and prepares the credentials; throws when the URL carries credentials. */
export function createTransport(opts: UpstreamTransportOptions): UpstreamTransport {
  const base = new URL(opts.baseUrl);
  if (base.username || base.password) {
    throw new Error('baseUrl must not carry credentials; pass username and password instead');
  }
  const credentials = Buffer.from(`${opts.username}:${opts.password}`, 'utf8').toString('base64');
  const authorization = `Basic ${credentials}`;
  return {
    base,
    basePath: base.pathname.replace(/\/+$/, ''),
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    fetch: opts.fetch ?? globalThis.fetch,
    ...(opts.pacer && { pacer: opts.pacer }),
    authorization,
    secrets: [authorization, credentials, opts.password].filter((s) => s.length > 0),
  };
}

/** Removes anything secret from text that reaches an error message. */
function redact(transport: UpstreamTransport, text: string): string {
  let out = text;
  for (const secret of transport.secrets) out = out.split(secret).join('[redacted]');
  return out;
}

/** An UpstreamError whose message and messages carry no credentials. */
export function fail(
  transport: UpstreamTransport,
  kind: UpstreamErrorKind,
  message: string,
  details: UpstreamErrorDetails = {},
): UpstreamError {
  return new UpstreamError(kind, redact(transport, message), {
    ...details,
    messages: (details.messages ?? []).map((m) => redact(transport, m)),
  });
}

/** One paced, timed call; resolves with any 2xx answer, throws UpstreamError otherwise. */
export async function call(
  transport: UpstreamTransport,
  method: 'GET' | 'POST',
  path: string,
  init: { search?: URLSearchParams; body?: string; signal?: AbortSignal },
): Promise<Answer> {
  const route = `${method} ${path}`;
  const url = new URL(transport.base.toString());
  url.pathname = `${transport.basePath}${path}`;
  url.search = init.search?.toString() ?? '';
  const headers: Record<string, string> = {
    Authorization: transport.authorization,
    Accept: 'application/json',
  };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json-patch+json';

  init.signal?.throwIfAborted();
  await transport.pacer?.acquire(init.signal);

  const timeout = AbortSignal.timeout(transport.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  let status: number | undefined;
  try {
    const response = await transport.fetch(url, {
      method,
      headers,
      body: init.body,
      signal,
      redirect: 'manual',
    });
    status = response.status;
    const body = await response.text();
    if (status >= 200 && status < 300) return { status, headers: response.headers, body };
    throw answerError(transport, route, status, response.headers, body);
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    if (init.signal?.aborted) throw init.signal.reason;
    const during = status === undefined ? '' : ` ao ler a resposta ${status}`;
    // A POST that reached the upstream may have taken effect even though we saw no answer.
    const effect = method === 'POST' ? '; pode ter sido feito mesmo assim' : '';
    const details = { ...(status === undefined ? {} : { status }), cause: error };
    if (timeout.aborted) {
      throw fail(
        transport,
        'unavailable',
        `${route} ficou sem resposta por ${transport.timeoutMs} ms${during}${effect}`,
        details,
      );
    }
    throw fail(
      transport,
      'unavailable',
      `${route} falhou${during}: ${describeFailure(error)}${effect}`,
      details,
    );
  }
}

/** The error of an answer that is not a 2xx; a 429 also pauses the pacer. */
function answerError(
  transport: UpstreamTransport,
  route: string,
  status: number,
  headers: Headers,
  body: string,
): UpstreamError {
  const kind = classifyStatus(status);
  const messages = errorMessages(body);
  const said = messages.length > 0 ? `: ${messages.join('; ')}` : ' com o corpo vazio';
  if (kind === 'rate-limited') {
    const now = Date.now();
    const retryAfter = parseRetryAfter(headers.get('retry-after'), now);
    transport.pacer?.pauseUntil(
      retryAfter === undefined
        ? now + DEFAULT_RATE_LIMIT_PAUSE_MS
        : Math.min(retryAfter.untilMs, now + MAX_RATE_LIMIT_PAUSE_MS),
    );
    const wait = retryAfter ? ` (tente de novo em ${retryAfter.afterMs} ms)` : '';
    return fail(transport, kind, `${route} passou do limite de pedidos (${status})${wait}${said}`, {
      status,
      messages,
      ...(retryAfter ? { retryAfterMs: retryAfter.afterMs } : {}),
    });
  }
  if (status >= 300 && status < 400) {
    const location = headers.get('location');
    const to = location ? ` para ${quote(location)}` : '';
    return fail(
      transport,
      kind,
      `${route} respondeu com um redirecionamento inesperado (${status})${to}`,
      {
        status,
        messages,
      },
    );
  }
  const verb = {
    rejected: 'foi recusado',
    unauthorized: 'não foi autorizado',
    unavailable: 'falhou',
  }[kind];
  return fail(transport, kind, `${route} ${verb} (${status})${said}`, { status, messages });
}

/** A 2xx answer's body as JSON; `unavailable` when it is empty or not JSON (`what` was due). */
export function parseBody(
  transport: UpstreamTransport,
  route: string,
  answer: Answer,
  what: string,
): unknown {
  if (!answer.body.trim()) {
    throw fail(
      transport,
      'unavailable',
      `${route} respondeu ${answer.status} com o corpo vazio; ${what}`,
      {
        status: answer.status,
      },
    );
  }
  try {
    return parseJson(answer.body);
  } catch {
    throw fail(
      transport,
      'unavailable',
      `${route} respondeu ${answer.status} com um corpo que não é JSON ("${quote(answer.body)}"); ${what}`,
      { status: answer.status },
    );
  }
}
