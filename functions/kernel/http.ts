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
  /** The caller's address as the gateway saw it (`requestContext.identity.sourceIp`), if known. */
  sourceIp?: string;
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

/** The one form of a Basic token: standard base64 (RFC 4648 §4), padded, nothing after it. */
const BASIC_TOKEN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes `Authorization: Basic <token>`; undefined when absent or malformed. Strict (RFC 7617):
 * the scheme (any case), one or more spaces, then standard base64 with its padding and nothing
 * after it, whose bytes are UTF-8 holding a colon. Trailing garbage, the base64url alphabet
 * (`-`, `_`), missing padding, non-canonical last bits or invalid UTF-8 are malformed: the
 * route answers 401 as for wrong credentials. The user name is NFC-normalised (a name typed
 * with combining accents is the same name); the password is taken byte for byte.
 */
export function basicCredentials(authorization: string | undefined): BasicCredentials | undefined {
  const match = /^Basic +(\S+)$/i.exec(authorization ?? '');
  const token = match?.[1];
  if (!token || !BASIC_TOKEN.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64');
  // Padding bits that are not zero: another token decodes to the same bytes.
  if (bytes.toString('base64') !== token) return undefined;
  let decoded: string;
  try {
    decoded = strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return {
    username: normalUsername(decoded.slice(0, colon)),
    password: decoded.slice(colon + 1),
  };
}

/** A user name as names are compared (NFC): the configured name and the one sent alike. */
export function normalUsername(username: string): string {
  return username.normalize('NFC');
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
