/**
 * What an upstream failure is: `UpstreamError` and its `kind` (the table in upstream-client.ts
 * says what a caller does with each), the kind of an HTTP status, the upstream's own messages
 * read out of an error body, and a network failure described for a message. Pure: no fetch.
 */
import { parseJson } from '../domain/json.ts';

export type UpstreamErrorKind = 'rejected' | 'unauthorized' | 'rate-limited' | 'unavailable';

export interface UpstreamErrorDetails {
  status?: number;
  messages?: string[];
  retryAfterMs?: number;
  cause?: unknown;
}

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly kind: UpstreamErrorKind;
  /** The HTTP status, when the upstream answered. */
  readonly status?: number;
  /** The upstream's own messages (`mensagens`, `message`, `errors`, or its text). */
  readonly messages: string[];
  /** From a 429's Retry-After, when present. */
  readonly retryAfterMs?: number;

  constructor(kind: UpstreamErrorKind, message: string, details: UpstreamErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    if (details.status !== undefined) this.status = details.status;
    this.messages = details.messages ?? [];
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }
}

/** Longest piece of an upstream body quoted in a message. */
const MAX_QUOTE = 300;

const REJECTED = new Set([400, 409, 413, 415, 422]);
const ENDPOINT_MISSING = new Set([404, 405, 410]);

/** Kind of a non-2xx status (429's details are added by the caller). */
export function classifyStatus(status: number): UpstreamErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429) return 'rate-limited';
  if (REJECTED.has(status)) return 'rejected';
  if (ENDPOINT_MISSING.has(status) || status === 408 || status === 425) return 'unavailable';
  if (status >= 400 && status < 500) return 'rejected';
  return 'unavailable';
}

export function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_QUOTE ? `${flat.slice(0, MAX_QUOTE)}…` : flat;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return value.trim() ? [value.trim()] : [];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if ('message' in record) return strings(record.message);
    // ASP.NET validation problem: {"errors": {"Email": ["..."]}}
    return Object.entries(record).flatMap(([field, inner]) =>
      strings(inner).map((text) => (/^\d+$/.test(field) ? text : `${field}: ${text}`)),
    );
  }
  return [];
}

/**
 * The upstream's messages from an error body: `{"mensagens": [...]}` (production's model),
 * `{"message"}`, `{"errors"}` (array or ASP.NET's per-field object), `{"error"}`, `{"title"}`,
 * a JSON string, or plain text.
 */
export function errorMessages(body: string): string[] {
  if (!body.trim()) return [];
  let parsed: unknown;
  try {
    parsed = parseJson(body);
  } catch {
    return [quote(body)];
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const record = parsed as Record<string, unknown>;
    for (const key of ['mensagens', 'messages', 'message', 'errors', 'error', 'title', 'detail']) {
      const found = strings(record[key]);
      if (found.length > 0) return found.map(quote);
    }
    return [quote(body)];
  }
  const found = strings(parsed);
  return (found.length > 0 ? found : [body]).map(quote);
}

export function describeFailure(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code)
      ? `${code}: ${cause.message}`
      : cause.message;
  }
  return String(cause);
}
