/**
 * HTTP plumbing for Lambda proxy handlers: responses in the contract's error shape, the raw
 * body, header lookup and Basic credentials. No AWS SDK imports.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { IssueDetail } from '../domain/json.ts';

export type Headers = Record<string, string>;

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
}

/** The request an API Gateway (REST, v1) proxy event carries. */
export function requestFromEvent(event: APIGatewayProxyEvent, now = new Date()): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    const last = values?.at(-1);
    if (last !== undefined) headers[name.toLowerCase()] = last;
  }
  const query: Record<string, readonly string[]> = {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined) query[name] = [value];
  }
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values?.length) query[name] = values;
  }
  const epoch = event.requestContext?.requestTimeEpoch;
  return {
    method: event.httpMethod.toUpperCase(),
    headers,
    query,
    body: rawBody(event),
    contentType: (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '',
    receivedAt: typeof epoch === 'number' && epoch > 0 ? new Date(epoch) : now,
  };
}

export function json(
  statusCode: number,
  body: unknown,
  headers: Headers = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

/** `{"error": {"code", "message", "details"}}`, the contract's error body. */
export function problem(
  statusCode: number,
  code: string,
  message: string,
  details: readonly (IssueDetail | string)[] = [],
  headers: Headers = {},
): APIGatewayProxyResult {
  return json(statusCode, { error: { code, message, details } }, headers);
}

/** The request body's exact bytes (API Gateway base64-encodes binary media types). */
export function rawBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>): Buffer {
  if (event.body == null) return Buffer.alloc(0);
  return event.isBase64Encoded
    ? Buffer.from(event.body, 'base64')
    : Buffer.from(event.body, 'utf8');
}

/** Case-insensitive header lookup (API Gateway keeps the sender's casing). */
export function header(
  event: Pick<APIGatewayProxyEvent, 'headers'>,
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
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
