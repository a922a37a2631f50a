/**
 * Realistic lead requests for the bench and the soak: the fixtures of test/fixtures/leads, one
 * per source, made unique per request (the e-mail, and the platform's own lead id where the
 * ledger deduplicates on it: Meta leadgen_id, Google lead_id, Typeform token, RD Station uuid,
 * Webflow id), so that each one is a new lead rather than a redelivery, then authenticated the
 * way the platform does it (signatures computed over the final bytes by the test helpers). Also
 * the configuration the local runtime runs them with.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../functions/config/config-schema.ts';
import { basicHeader } from '../test/helpers/abuse-kit.ts';
import {
  DEMO_SECRETS,
  type LeadFixture,
  loadLeadFixture,
  signWebflow,
  toIntakeRequest,
} from '../test/helpers/lead-fixtures.ts';
import {
  metaSignature,
  PLATFORM_SECRETS,
  platformBody,
  platformJson,
  typeformSignature,
} from '../test/helpers/platform-fixtures.ts';

export const BENCH_SOURCES = [
  'form',
  'meta',
  'google',
  'typeform',
  'rdstation',
  'unbounce',
  'elementor',
  'webflow',
  'prospect',
] as const;
export type BenchSource = (typeof BENCH_SOURCES)[number];

/**
 * The sources the soak mixes (scripts/soak.ts). It matches each delivered Prospect to its lead
 * by the e-mail of the request and needs the lead id in the answer, so it leaves out Meta (the
 * e-mail comes from the sandbox's Graph store, not the request), Google (answers `{}`) and the
 * Prospect API (answers `{"idProspect"}` once delivered, after a wait of up to 8 s).
 */
export const SOAK_SOURCES = [
  'form',
  'unbounce',
  'elementor',
  'webflow',
] as const satisfies readonly BenchSource[];

/** One HTTP request of a lead source, ready for the gateway or for an in-process event. */
export interface LeadHttpRequest {
  method: string;
  /** Path and query (`/leads/site?token=...`, `/api/v1/prospects`). */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The client the bench's Prospect API requests authenticate as (Basic auth). */
const API_CLIENT = {
  username: 'bench-api',
  password: 'demo-bench-api-password',
  roles: ['prospects:write'],
} as const;

/** What makes request `n` of run `tag` unique: texts for the e-mail and the platforms' ids. */
interface Unique {
  /** `<tag><n>`, inserted into the e-mail's local part. */
  text: string;
  /** 8 hex digits of the tag's hash, so different tags give different ids. */
  tagHex: string;
  n: number;
}

function uniqueOf(tag: string, n: number): Unique {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`lead number ${n}`);
  const tagHex = createHash('sha256').update(tag).digest('hex').slice(0, 8);
  return { text: `${tag}${n}`, tagHex, n };
}

/** `text` with `from` replaced once; throws when a fixture no longer holds it. */
function replaceOnce(text: string, from: string, to: string, what: string): string {
  if (!text.includes(from)) throw new Error(`bench lead: the ${what} fixture has no "${from}"`);
  return text.replace(from, to);
}

/** `local@domain` (or `local%40domain`) → `local.<tag><n>@domain`. */
function uniqueEmail(body: string, local: string, u: Unique, what: string): string {
  const at = local.endsWith('%40') ? '%40' : '@';
  const name = local.slice(0, -at.length);
  return replaceOnce(body, local, `${name}.${u.text}${at}`, what);
}

function searchOf(query: LeadFixture['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, v);
  }
  return params.size > 0 ? `?${params}` : '';
}

// ---------------------------------------------------------------------------------------------
// Sources stored as whole requests (test/helpers/lead-fixtures.ts)

type RequestSource = 'form' | 'unbounce' | 'elementor' | 'webflow' | 'prospect';

const REQUEST_FIXTURES: Record<RequestSource, { fixture: string; path: string; email: string }> = {
  form: { fixture: 'valid-urlencoded', path: '/leads/site', email: 'Maria.Conceicao%40' },
  unbounce: { fixture: 'valid', path: '/leads/unbounce', email: 'Ana.Goncalves%40' },
  elementor: { fixture: 'default-mode', path: '/leads/elementor', email: 'Carlos.Lima%40' },
  webflow: { fixture: 'valid', path: '/leads/webflow', email: 'Fernanda.Santos@' },
  prospect: { fixture: 'valid', path: '/api/v1/prospects', email: 'rafael.pereira@' },
};
const WEBFLOW_ID = '6787f0a4c2b1d3e4f5a6b7c8';

const loaded = new Map<RequestSource, LeadFixture>();
function fixtureOf(source: RequestSource): LeadFixture {
  let fixture = loaded.get(source);
  if (!fixture) {
    fixture = loadLeadFixture(source, REQUEST_FIXTURES[source].fixture);
    loaded.set(source, fixture);
  }
  return fixture;
}

function fromRequestFixture(source: RequestSource, u: Unique): LeadHttpRequest {
  const spec = REQUEST_FIXTURES[source];
  const fixture = fixtureOf(source);
  let body = uniqueEmail(fixture.body, spec.email, u, source);
  let headers: Record<string, string> = { ...fixture.headers };
  if (source === 'webflow') {
    // The dedup key is `webflow:<payload.id>` (24 hex digits).
    const id = `${u.tagHex}${u.n.toString(16).padStart(8, '0')}${WEBFLOW_ID.slice(16)}`;
    body = replaceOnce(body, WEBFLOW_ID, id, source);
    // Signed over the final bytes, timestamped now (the source allows 5 minutes of skew).
    const signed = signWebflow(
      toIntakeRequest({ ...fixture, body }),
      DEMO_SECRETS.webflow,
      Date.now(),
    );
    headers = {
      ...headers,
      'x-webflow-timestamp': signed.headers['x-webflow-timestamp'] ?? '',
      'x-webflow-signature': signed.headers['x-webflow-signature'] ?? '',
    };
  }
  if (source === 'prospect') {
    // The fixture's credentials are the e2e tests' client; the bench configures its own.
    headers = { ...headers, Authorization: basicHeader(API_CLIENT.username, API_CLIENT.password) };
  }
  return {
    method: fixture.method ?? 'POST',
    url: `${spec.path}${searchOf(fixture.query)}`,
    headers,
    body: Buffer.from(body, 'utf8'),
  };
}

// ---------------------------------------------------------------------------------------------
// Platform payloads (test/helpers/platform-fixtures.ts): raw bodies, requests built here

/**
 * Meta's webhook carries ids only (the forwarder fetches the lead from Graph). One `leadgen`
 * change per request: the second entry of the two-entry fixture (its ids are strings, so
 * JSON.parse keeps them exact), compact as Meta sends it, with a placeholder for leadgen_id.
 */
const LEADGEN_PLACEHOLDER = '@@leadgen_id@@';
let metaTemplate: string | undefined;
function metaWebhook(leadgenId: string): string {
  if (metaTemplate === undefined) {
    const fixture = platformJson('meta', 'webhook-two-entries.json') as {
      object: string;
      entry: { changes: { field: string; value: Record<string, unknown> }[] }[];
    };
    const entry = fixture.entry[1];
    const change = entry?.changes.find((c) => c.field === 'leadgen');
    if (!entry || !change) throw new Error('bench lead: the meta fixture has no second leadgen');
    metaTemplate = JSON.stringify({
      object: fixture.object,
      entry: [
        {
          ...entry,
          changes: [{ ...change, value: { ...change.value, leadgen_id: LEADGEN_PLACEHOLDER } }],
        },
      ],
    });
  }
  return replaceOnce(metaTemplate, LEADGEN_PLACEHOLDER, leadgenId, 'meta');
}

const platformText = new Map<string, string>();
function platformFixture(source: string, file: string): string {
  const key = `${source}/${file}`;
  let text = platformText.get(key);
  if (text === undefined) {
    text = platformBody(source, file).toString('utf8');
    platformText.set(key, text);
  }
  return text;
}

function jsonRequest(url: string, body: string, headers: Record<string, string> = {}) {
  return {
    method: 'POST',
    url,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: Buffer.from(body, 'utf8'),
  } satisfies LeadHttpRequest;
}

function metaRequest(u: Unique): LeadHttpRequest {
  // The dedup key is `meta:<leadgen_id>`: 16 digits, as Meta's (above 2^53, sent as a string).
  const tagDigits = String(Number.parseInt(u.tagHex, 16) % 1_000_000).padStart(6, '0');
  const leadgenId = `9${tagDigits}${String(u.n).padStart(9, '0')}`;
  const body = metaWebhook(leadgenId);
  return jsonRequest('/leads/meta', body, {
    'X-Hub-Signature-256': metaSignature(
      Buffer.from(body, 'utf8'),
      PLATFORM_SECRETS.metaAppSecret,
      'sha256',
    ),
  });
}

function googleRequest(u: Unique): LeadHttpRequest {
  // The dedup key is `google:<lead_id>`; the key is the body's google_key (the fixture's).
  let body = platformFixture('google', 'lead.json');
  body = replaceOnce(body, 'Cj0KCQjw-lead-0001-BR', `Cj0KCQjw-lead-${u.text}-BR`, 'google');
  body = uniqueEmail(body, 'joao.silva@', u, 'google');
  return jsonRequest('/leads/google', body);
}

function typeformRequest(u: Unique): LeadHttpRequest {
  // The dedup key is `typeform:<form_response.token>` (32 hex); event_id is a ULID.
  let body = platformFixture('typeform', 'form-response.json');
  const token = `${u.tagHex}${u.n.toString(16).padStart(24, '0')}`;
  const eventId = `01HXZ3G7Q4${u.tagHex}${String(u.n).padStart(8, '0')}`.toUpperCase();
  body = replaceOnce(body, 'a3a12ec67a1365927098a606107fac15', token, 'typeform');
  body = replaceOnce(body, '01HXZ3G7Q4ZP0Q9Y8J5K2M1N3B', eventId, 'typeform');
  body = uniqueEmail(body, 'maria.souza@', u, 'typeform');
  const bytes = Buffer.from(body, 'utf8');
  return jsonRequest('/leads/typeform', body, {
    'Typeform-Signature': typeformSignature(bytes, PLATFORM_SECRETS.typeform),
  });
}

function rdstationRequest(u: Unique): LeadHttpRequest {
  // The dedup key is `rd:<contact.uuid>:<event_identifier>:<event_timestamp>`; RD signs
  // nothing, its webhook URL carries the profile token.
  let body = platformFixture('rdstation', 'current.json');
  const uuid = `c2f3d2b3-7a1e-4a6f-9b0e-${u.tagHex.slice(0, 4)}${u.n.toString(16).padStart(8, '0')}`;
  body = replaceOnce(body, 'c2f3d2b3-7a1e-4a6f-9b0e-5d4c3b2a1f00', uuid, 'rdstation');
  body = uniqueEmail(body, 'ana.lima@', u, 'rdstation');
  const token = new URLSearchParams({ token: PLATFORM_SECRETS.rdstation });
  return jsonRequest(`/leads/rdstation?${token}`, body);
}

/**
 * The fixture of `source` as lead number `n` of run `tag`: a distinct e-mail and platform lead
 * id, so the ledger records a new lead, signed or authenticated for its profile. The same
 * (tag, n) gives the same lead (a redelivery), though signatures may carry a new timestamp.
 */
export function leadRequest(source: BenchSource, tag: string, n: number): LeadHttpRequest {
  const u = uniqueOf(tag, n);
  switch (source) {
    case 'meta':
      return metaRequest(u);
    case 'google':
      return googleRequest(u);
    case 'typeform':
      return typeformRequest(u);
    case 'rdstation':
      return rdstationRequest(u);
    default:
      return fromRequestFixture(source, u);
  }
}

/** Profiles for the bench sources (demo secrets only). */
export const BENCH_PROFILES: Config['profiles'] = {
  site: {
    source: 'form',
    token: DEMO_SECRETS.form,
    allowedOrigins: ['https://lp.example.com'],
    defaults: { idBranch: 1, marketingType: 'Site' },
    fieldMap: { qual_seu_cpf: 'cpf' },
  },
  meta: {
    source: 'meta',
    appSecret: PLATFORM_SECRETS.metaAppSecret,
    verifyToken: PLATFORM_SECRETS.metaVerifyToken,
    pageAccessToken: PLATFORM_SECRETS.metaPageToken,
    // The upstream's origin: the local runtime points it at its sandbox's Graph stand-in.
    graphBaseUrl: 'http://127.0.0.1:4010/graph',
    defaults: { idBranch: 1, marketingType: 'Meta Ads' },
  },
  google: { source: 'google', key: PLATFORM_SECRETS.google, defaults: { idBranch: 1 } },
  typeform: { source: 'typeform', secret: PLATFORM_SECRETS.typeform, defaults: { idBranch: 1 } },
  rdstation: { source: 'rdstation', token: PLATFORM_SECRETS.rdstation, defaults: { idBranch: 1 } },
  unbounce: {
    source: 'unbounce',
    token: DEMO_SECRETS.unbounce,
    defaults: { idBranch: 1, currentStep: 'Lead' },
  },
  elementor: { source: 'elementor', token: DEMO_SECRETS.elementor, defaults: { idBranch: 1 } },
  webflow: { source: 'webflow', secret: DEMO_SECRETS.webflow, defaults: { idBranch: 1 } },
  // POST /api/v1/prospects: the one profile whose source is `prospect`.
  api: { source: 'prospect' },
} as Config['profiles'];

/** A whole configuration for the local runtime: the sandbox replaces the upstream's URL. */
export function benchConfig(limits: { maxPerSecond: number; maxPerMinute: number }): unknown {
  return {
    upstream: {
      baseUrl: 'http://127.0.0.1:4010',
      username: 'demo',
      password: 'demo',
      maxPerSecond: limits.maxPerSecond,
      maxPerMinute: limits.maxPerMinute,
      timeoutMs: 5000,
      partnerTokenField: 'tokenPartner',
    },
    clients: [
      { username: 'ops', password: 'ops-secret', roles: ['report:read', 'admin'] },
      { ...API_CLIENT, roles: [...API_CLIENT.roles] },
    ],
    profiles: BENCH_PROFILES,
    report: { branches: [1], refreshSeconds: 3600 },
  };
}
