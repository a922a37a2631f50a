/**
 * Realistic lead requests for the source tests, stored as JSON under test/fixtures/leads/<source>/:
 * `{ "description", "method"?, "headers", "query"?, "body", "encoding"? }` where `body` is the raw
 * request body exactly as the platform sends it (urlencoded, multipart with CRLFs, JSON text), or
 * base64 when `encoding` is `base64` (bytes that are not UTF-8).
 *
 * Every secret here is a demo value. Webflow fixtures are stored unsigned: {@link signWebflow}
 * signs a request the way Webflow does, so no signature depends on a committed secret.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IntakeRequest } from '../../functions/intake/source.ts';

export interface LeadFixture {
  description: string;
  method?: string;
  headers: Record<string, string>;
  query?: Record<string, string | string[]>;
  body: string;
  encoding?: 'utf8' | 'base64';
}

/** Demo secrets of the test profiles: never real ones. */
export const DEMO_SECRETS = {
  form: 'demo-form-token',
  unbounce: 'demo-unbounce-token',
  elementor: 'demo-elementor-token',
  webflow: 'demo-webflow-client-secret',
} as const;

/** When the fixtures' requests arrive, unless a test says otherwise. */
export const RECEIVED_AT = new Date('2025-01-15T17:35:20.000Z');

const ROOT = new URL('../fixtures/leads/', import.meta.url);

export function loadLeadFixture(source: string, name: string): LeadFixture {
  const text = readFileSync(new URL(`${source}/${name}.json`, ROOT), 'utf8');
  return JSON.parse(text) as LeadFixture;
}

export interface RequestOverrides {
  headers?: Record<string, string | undefined>;
  query?: Record<string, string[] | undefined>;
  body?: Buffer | string;
  receivedAt?: Date;
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** An IntakeRequest as the gateway would build it from the fixture (header names lower-cased). */
export function toIntakeRequest(fixture: LeadFixture, over: RequestOverrides = {}): IntakeRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(fixture.headers)) headers[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(over.headers ?? {})) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  const query: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(fixture.query ?? {})) {
    query[name] = typeof value === 'string' ? [value] : [...value];
  }
  for (const [name, value] of Object.entries(over.query ?? {})) {
    if (value === undefined) delete query[name];
    else query[name] = value;
  }
  const body =
    over.body === undefined
      ? Buffer.from(fixture.body, fixture.encoding === 'base64' ? 'base64' : 'utf8')
      : Buffer.isBuffer(over.body)
        ? over.body
        : Buffer.from(over.body, 'utf8');
  return {
    method: fixture.method ?? 'POST',
    headers,
    query,
    body,
    contentType: mediaType(headers['content-type']),
    receivedAt: over.receivedAt ?? RECEIVED_AT,
  };
}

/** Loads `test/fixtures/leads/<source>/<name>.json` as an IntakeRequest. */
export function leadRequest(source: string, name: string, over?: RequestOverrides): IntakeRequest {
  return toIntakeRequest(loadLeadFixture(source, name), over);
}

/**
 * Signs a request as a Webflow OAuth app does: `x-webflow-timestamp` (ms) and
 * `x-webflow-signature` = hex HMAC-SHA256(secret, `<timestamp>:<raw body>`). Computed here
 * independently of the code under test.
 */
export function signWebflow(
  request: IntakeRequest,
  secret: string,
  timestampMs: number = request.receivedAt.getTime() - 2_000,
): IntakeRequest {
  const timestamp = String(timestampMs);
  const signature = createHmac('sha256', secret)
    .update(`${timestamp}:`)
    .update(request.body)
    .digest('hex');
  return {
    ...request,
    headers: {
      ...request.headers,
      'x-webflow-timestamp': timestamp,
      'x-webflow-signature': signature,
    },
  };
}
