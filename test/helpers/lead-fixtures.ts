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
import type { IntakeRequest } from '../../functions/sources/source.ts';

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

/**
 * The API clients of the e2e configurations that post the prospect fixtures: their
 * Authorization header is ops:demo-ops-password. Demo values, like every secret here.
 */
export const DEMO_CLIENTS = [
  { username: 'ops', password: 'demo-ops-password', roles: ['prospects:write', 'admin'] },
  { username: 'reporter', password: 'demo-reporter-password', roles: ['report:read'] },
] as const;

/** When the fixtures' requests arrive, unless a test says otherwise. */
export const RECEIVED_AT = new Date('2025-01-15T17:35:20.000Z');

/*
 * The people the fixtures carry, as every mapping of them must find them: the Prospect fields
 * that come from the person. Branch, step and origin depend on the profile, so tests state those.
 */

/** form/valid-urlencoded.json (Maria José: a compound first name) */
export const MARIA_CONCEICAO = {
  name: 'Maria José',
  lastName: 'da Conceição',
  email: 'maria.conceicao@exemplo.com.br',
  ddi: '55',
  cellphone: '11987654321',
  cpf: '52998224725',
  birthday: '1990-05-12T00:00:00.000Z',
  gender: 'F',
} as const;

/** unbounce/valid.json (Ana Beatriz: a compound first name) */
export const ANA_GONCALVES = {
  name: 'Ana Beatriz',
  lastName: 'Gonçalves',
  email: 'ana.goncalves@exemplo.com.br',
  ddi: '55',
  cellphone: '31988887777',
  cpf: '12345678909',
  birthday: '1992-11-23T00:00:00.000Z',
  gender: 'F',
} as const;

/** elementor/default-mode.json and elementor/advanced-mode.json (Carlos Eduardo: compound) */
export const CARLOS_LIMA = {
  name: 'Carlos Eduardo',
  lastName: 'Lima',
  email: 'carlos.lima@exemplo.com',
  ddi: '55',
  cellphone: '41991234567',
  cpf: '39053344705',
  birthday: '1987-04-19T00:00:00.000Z',
  gender: 'M',
} as const;

/** webflow/valid.json (the phone sent as a JSON number) */
export const FERNANDA_SANTOS = {
  name: 'Fernanda',
  lastName: 'Oliveira Santos',
  email: 'fernanda.santos@exemplo.com',
  ddi: '55',
  cellphone: '21998765432',
  cpf: '85351346893',
  birthday: '1995-08-30T00:00:00.000Z',
  gender: 'F',
} as const;

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

/**
 * prospect/valid.json without its lastName, and with another e-mail (so that it is not a
 * redelivery): a Prospect the intake accepts and parks for the missing field.
 */
export function prospectWithoutLastName(email: string): LeadFixture {
  const fixture = loadLeadFixture('prospect', 'valid');
  const { lastName: _none, ...prospect } = JSON.parse(fixture.body) as Record<string, unknown>;
  return { ...fixture, body: JSON.stringify({ ...prospect, email }) };
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
