/**
 * Demo secrets and request signers of the issue-17 form and CRM sources (Google Forms, Tally,
 * Jotform, Hotmart, HubSpot, Kommo, WordPress, Wix), for their unit tests
 * (test/sources/<source>.test.ts), the mapping corpus (mapping-corpus.ts) and the end-to-end test
 * (test/e2e/intake-more-sources.test.ts). Signatures are computed here with node:crypto, from
 * each platform's documented recipe, independently of the code under test. Never a real secret.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import { mediaType } from './lead-fixtures.ts';
import { RECEIVED_AT } from './platform-fixtures.ts';

export const MORE_SECRETS = {
  googleforms: 'demo-googleforms-secret',
  tally: 'demo-tally-secret',
  jotform: 'demo-jotform-token',
  hotmart: 'demo-hotmart-hottok',
  hubspot: 'demo-hubspot-client-secret',
  kommo: 'demo-kommo-token',
  kommoAccessToken: 'demo-kommo-access-token',
  wordpress: 'demo-wordpress-token',
  wix: 'demo-wix-token',
} as const;

/** `X-Lead-Signature` as the Apps Script of docs/sources.md computes it. */
export function googleFormsSignature(body: Buffer, secret: string = MORE_SECRETS.googleforms) {
  return `sha256=${createHmac('sha256', secret).update(body).digest('base64')}`;
}

/** `Tally-Signature`: base64 HMAC-SHA256 of the raw body. */
export function tallySignatureOf(body: Buffer, secret: string = MORE_SECRETS.tally): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

/**
 * `X-HubSpot-Signature-v3` and `X-HubSpot-Request-Timestamp`: base64 HMAC-SHA256 of
 * `POST` + URI + body + timestamp (HubSpot's "Validating requests", v3).
 */
export function hubspotHeaders(
  body: Buffer,
  url: string,
  timestamp: number,
  secret: string = MORE_SECRETS.hubspot,
): Record<string, string> {
  const signature = createHmac('sha256', secret)
    .update(`POST${url}`)
    .update(body)
    .update(String(timestamp))
    .digest('base64');
  return {
    'x-hubspot-signature-v3': signature,
    'x-hubspot-request-timestamp': String(timestamp),
  };
}

/** A request fixture of test/fixtures/leads (`{description, headers, query?, body}`). */
export interface WireFixture {
  headers: Record<string, string>;
  query?: Record<string, string>;
  body: string;
}

const ROOT = new URL('../fixtures/leads/', import.meta.url);

export function wireFixture(source: string, name: string): WireFixture {
  return JSON.parse(readFileSync(new URL(`${source}/${name}.json`, ROOT), 'utf8')) as WireFixture;
}

/** A wire fixture as the intake sees it, with `query` replacing the fixture's own when given. */
export function wireRequest(
  fixture: WireFixture,
  over: { query?: Record<string, string[]>; body?: Buffer; headers?: Record<string, string> } = {},
): IntakeRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...fixture.headers, ...over.headers })) {
    headers[name.toLowerCase()] = value;
  }
  const query =
    over.query ?? Object.fromEntries(Object.entries(fixture.query ?? {}).map(([k, v]) => [k, [v]]));
  return {
    method: 'POST',
    headers,
    query,
    body: over.body ?? Buffer.from(fixture.body, 'utf8'),
    contentType: mediaType(headers['content-type']),
    receivedAt: RECEIVED_AT,
  };
}
