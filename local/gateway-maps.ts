/**
 * API Gateway's pairs of maps in a REST API (v1) proxy event: `headers` with
 * `multiValueHeaders`, and `queryStringParameters` with `multiValueQueryStringParameters`. The
 * single map keeps the last value of a key, the multi map all of them in order; header names are
 * grouped case-insensitively under the sender's first casing. local/gateway-event.ts builds the
 * event with these, and the headers API Gateway adds to a request.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header } from '../functions/kernel/apigateway-event.ts';

export type HeaderMaps = Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>;

/** API Gateway's pair of maps: `single` keeps the last value of a key, `multi` all, in order. */
function addValue(
  single: Record<string, string>,
  multi: Record<string, string[]>,
  key: string,
  value: string,
): void {
  single[key] = value;
  const values = multi[key];
  if (values) values.push(value);
  else multi[key] = [value];
}

/** Headers grouped case-insensitively under the sender's first casing; the last value wins. */
export function collectHeaders(rawHeaders: readonly string[]): HeaderMaps {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const names = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const raw = rawHeaders[i] as string;
    const value = rawHeaders[i + 1] as string;
    const name = names.get(raw.toLowerCase()) ?? raw;
    names.set(raw.toLowerCase(), name);
    addValue(headers, multiValueHeaders, name, value);
  }
  return { headers, multiValueHeaders };
}

function findHeader(maps: HeaderMaps, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.keys(maps.headers).find((key) => key.toLowerCase() === wanted);
}

/** Replaces a header (whatever its casing) with one value, as API Gateway does for X-Forwarded-*. */
function setHeader(maps: HeaderMaps, name: string, value: string): void {
  const existing = findHeader(maps, name);
  if (existing) {
    delete maps.headers[existing];
    delete maps.multiValueHeaders[existing];
  }
  maps.headers[name] = value;
  maps.multiValueHeaders[name] = [value];
}

/** The query string's pair of maps, decoded; both null when the URL has no parameter. */
export function queryParameters(
  url: string,
): Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    addValue(single, multi, key, value);
  }
  const none = Object.keys(single).length === 0;
  return {
    queryStringParameters: none ? null : single,
    multiValueQueryStringParameters: none ? null : multi,
  };
}

/**
 * The X-Forwarded-* headers API Gateway sets (replacing the sender's, X-Forwarded-For extended
 * with the caller's address) and an X-Amzn-Trace-Id when the request has none.
 */
export function addGatewayHeaders(
  maps: HeaderMaps,
  sourceIp: string,
  host: string,
  epochMs: number,
): void {
  const forwardedFor = header(maps, 'x-forwarded-for');
  setHeader(maps, 'X-Forwarded-For', forwardedFor ? `${forwardedFor}, ${sourceIp}` : sourceIp);
  setHeader(maps, 'X-Forwarded-Port', /:(\d+)$/.exec(host)?.[1] ?? '80');
  setHeader(maps, 'X-Forwarded-Proto', 'http');
  if (header(maps, 'x-amzn-trace-id') === undefined) {
    setHeader(maps, 'X-Amzn-Trace-Id', traceId(epochMs));
  }
}

function traceId(epochMs: number): string {
  const seconds = Math.floor(epochMs / 1000).toString(16);
  return `Root=1-${seconds}-${randomBytes(12).toString('hex')}`;
}
