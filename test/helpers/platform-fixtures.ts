/**
 * Platform payloads for the ad-platform and form-builder source tests (Meta, Google, Typeform,
 * RD Station), stored as the raw bodies the platforms send under test/fixtures/leads/<source>/
 * (`.json` for payloads, `.txt` for deliberately broken bodies), so that they read like the
 * platforms' documentation. Requests are built around them here, and signed here with demo
 * secrets, independently of the code under test. Never commit a real secret.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';

/** Demo secrets of the test profiles: never real ones. */
export const PLATFORM_SECRETS = {
  metaAppSecret: 'demo-meta-app-secret',
  metaVerifyToken: 'demo-meta-verify-token',
  metaPageToken: 'demo-meta-page-token',
  google: 'demo-google-key',
  typeform: 'demo-typeform-secret',
  rdstation: 'demo-rd-token',
} as const;

/** When the fixtures' requests arrive, unless a test says otherwise. */
export const RECEIVED_AT = new Date('2025-05-02T13:10:20.000Z');

/*
 * The people the platform fixtures carry, as every mapping of them must find them: the Prospect
 * fields that come from the person. Branch, step and origin depend on the profile, and gender on
 * whether the platform asks, so tests state those.
 */

/**
 * meta/graph-lead.json, typeform/form-response.json and the first lead of
 * rdstation/legacy-two-leads.json (born 12 May 1990, written day-first or month-first).
 */
export const MARIA_SOUZA = {
  name: 'Maria',
  lastName: 'Souza',
  email: 'maria.souza@example.com',
  ddi: '55',
  cellphone: '11987654321',
  cpf: '52998224725',
  birthday: '1990-05-12T00:00:00.000Z',
} as const;

/** The second lead of rdstation/legacy-two-leads.json. */
export const CARLOS_PEREIRA = {
  name: 'Carlos',
  lastName: 'Pereira',
  email: 'carlos.pereira@example.com',
  ddi: '55',
  cellphone: '21998765432',
} as const;

/** rdstation/current.json: the mobile phone is the cellphone, cf_cpf the CPF; Ana Paula is compound. */
export const ANA_LIMA = {
  name: 'Ana Paula',
  lastName: 'Lima',
  email: 'ana.lima@example.com',
  ddi: '55',
  cellphone: '48991234567',
  cpf: '52998224725',
  birthday: '1990-05-12T00:00:00.000Z',
} as const;

/** google/lead.json: no CPF; the birthday comes from a custom question, DD/MM/YYYY. */
export const JOAO_SILVA = {
  name: 'João',
  lastName: 'da Silva',
  email: 'joao.silva@example.com',
  ddi: '55',
  cellphone: '21998765432',
  birthday: '1990-05-12T00:00:00.000Z',
} as const;

/** google/test-lead.json: Google's "Send test data" placeholders, CPF column included. */
export const GOOGLE_TEST_PERSON = {
  name: 'FirstName',
  lastName: 'LastName',
  email: 'test@example.com',
  ddi: '1',
  cellphone: '6505550123',
  cpf: '52998224725',
} as const;

const ROOT = new URL('../fixtures/leads/', import.meta.url);

/** The exact bytes of `test/fixtures/leads/<source>/<file>`. */
export function platformBody(source: string, file: string): Buffer {
  return readFileSync(new URL(`${source}/${file}`, ROOT));
}

/** A fixture parsed with JSON.parse (for registering Graph leads, building variants). */
export function platformJson(source: string, file: string): unknown {
  return JSON.parse(platformBody(source, file).toString('utf8'));
}

/** A JSON body with one change made to its parsed form: a variant of a fixture, re-serialised. */
export function changedBody<T = Record<string, unknown>>(
  body: Buffer,
  change: (payload: T) => void,
): Buffer {
  const payload = JSON.parse(body.toString('utf8')) as T;
  change(payload);
  return Buffer.from(JSON.stringify(payload));
}

export interface PlatformRequestOptions {
  method?: string;
  /** Header names are lower-cased, as the gateway does. */
  headers?: Record<string, string>;
  query?: Record<string, string[]>;
  contentType?: string;
  receivedAt?: Date;
}

/** An IntakeRequest carrying `body` as a platform would post it (JSON unless told otherwise). */
export function platformRequest(
  body: Buffer | string,
  options: PlatformRequestOptions = {},
): IntakeRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  const contentType = options.contentType ?? 'application/json';
  if (contentType) headers['content-type'] ??= contentType;
  return {
    method: options.method ?? 'POST',
    headers,
    query: options.query ?? {},
    body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    contentType,
    receivedAt: options.receivedAt ?? RECEIVED_AT,
  };
}

/** Adds headers to a request (lower-cased names). */
export function withHeaders(
  request: IntakeRequest,
  headers: Record<string, string>,
): IntakeRequest {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { ...request, headers: { ...request.headers, ...lower } };
}

/** `sha256=<hex>` (or `sha1=<hex>`) of the body, as Meta's X-Hub-Signature(-256) carries it. */
export function metaSignature(body: Buffer, secret: string, algorithm: 'sha256' | 'sha1'): string {
  return `${algorithm}=${createHmac(algorithm, secret).update(body).digest('hex')}`;
}

/** `sha256=<base64>` of the body, as Typeform-Signature carries it. */
export function typeformSignature(body: Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('base64')}`;
}

/** The same bytes with one byte changed (a character inside the JSON, not its syntax). */
export function flipOneByte(body: Buffer, at = Math.floor(body.length / 2)): Buffer {
  const copy = Buffer.from(body);
  copy[at] = (copy[at] ?? 0) ^ 0x01;
  return copy;
}

export type ProfileOf<S extends Profile['source']> = Extract<Profile, { source: S }>;
