/**
 * HTTP as the use cases see it, independent of API Gateway: the request, the response, answers
 * in the contract's error shape (its `message` in the request's language: language.ts),
 * Basic credentials, Retry-After. The API Gateway event adapter is apigateway-event.ts.
 */
import type { IssueDetail } from '../domain/json.ts';
import { say, type Text } from './language.ts';

export type Headers = Record<string, string>;

/** An HTTP response (the same shape as API Gateway's proxy result). */
export interface HttpResponse {
  statusCode: number;
  headers?: Record<string, string | number | boolean>;
  body: string;
  isBase64Encoded?: boolean;
}

/** An HTTP request independent of API Gateway: what use cases see. */
export interface HttpRequest {
  method: string;
  /** Header names lower-cased; the last value of a repeated header. */
  headers: Readonly<Record<string, string>>;
  /** Query parameters, every value of a repeated key in order. */
  query: Readonly<Record<string, readonly string[]>>;
  /** The exact bytes received: signatures are computed over these. */
  body: Buffer;
  /** Media type, lower-cased, without parameters; `''` when absent. */
  contentType: string;
  receivedAt: Date;
  /**
   * What the gateway's authorizer said about the caller (API Gateway's
   * `requestContext.authorizer`, values as strings), on routes that have one.
   */
  authorizer?: Readonly<Record<string, string>>;
}

export function json(statusCode: number, body: unknown, headers: Headers = {}): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

/** A detail of an error body: a field and what is wrong with it, or a sentence. */
export type ProblemDetail = IssueDetail | { field: string; message: Text } | string | Text;

/**
 * `{"error": {"code", "message", "details"}}`, the contract's error body: the `code` stable and
 * English for programs, the message and details in the request's language (language.ts `say`;
 * a plain string, such as a lead's own reason from the domain, is said as it is).
 */
export function problem(
  statusCode: number,
  code: string,
  message: string | Text,
  details: readonly ProblemDetail[] = [],
  headers: Headers = {},
): HttpResponse {
  const said = details.map((detail) =>
    typeof detail === 'string' || !('field' in detail)
      ? say(detail)
      : { field: detail.field, message: say(detail.message) },
  );
  return json(statusCode, { error: { code, message: say(message), details: said } }, headers);
}

export interface BasicCredentials {
  username: string;
  password: string;
}

/** Decodes `Authorization: Basic ...`; undefined when absent or malformed. */
export function basicCredentials(authorization: string | undefined): BasicCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Retry-After as delta seconds or an HTTP date. Returns when the wait ends and how long it is
 * from `now`; undefined when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number,
): { untilMs: number; afterMs: number } | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const afterMs = Math.round(Number(text) * 1_000);
    return { untilMs: now + afterMs, afterMs };
  }
  const untilMs = Date.parse(text);
  if (Number.isNaN(untilMs)) return undefined;
  return { untilMs, afterMs: Math.max(0, untilMs - now) };
}
