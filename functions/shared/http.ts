/**
 * HTTP plumbing for Lambda proxy handlers: responses in the contract's error shape, the raw
 * body, header lookup and Basic credentials. No AWS SDK imports.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { IssueDetail } from '../domain/json.ts';

export type Headers = Record<string, string>;

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
