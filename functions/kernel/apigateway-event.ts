/**
 * The API Gateway (REST, v1) proxy event, read: the request it carries as the use cases see it
 * (http.ts), its exact body bytes, a header by name. Handlers call it; use cases never see the
 * event.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { HttpRequest } from './http.ts';

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
  const context = event.requestContext?.authorizer;
  const sourceIp = event.requestContext?.identity?.sourceIp;
  return {
    method: event.httpMethod.toUpperCase(),
    headers,
    query,
    body: rawBody(event),
    contentType: (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '',
    receivedAt: typeof epoch === 'number' && epoch > 0 ? new Date(epoch) : now,
    ...(sourceIp && { sourceIp }),
    ...(context && {
      authorizer: Object.fromEntries(
        Object.entries(context)
          .filter(([, value]) => value !== undefined && value !== null)
          .map(([key, value]) => [key, String(value)]),
      ),
    }),
  };
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
