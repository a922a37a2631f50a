/**
 * `npm run requests`: writes docs/requests.http, a collection for VS Code's REST Client and
 * JetBrains' HTTP Client with one request per route of the route table and one per lead source,
 * built from the test fixtures (test/fixtures/leads/) and the demo configuration
 * (config/demo.json), so that every request works against `npm start` as it is. `--check` writes
 * nothing and exits 1 when the committed file is not the one the code makes.
 *
 * Like the OpenAPI document, it is keyed by the route table: a route without an entry in
 * ROUTE_REQUESTS, or a source without one in SOURCE_REQUESTS, stops the build with its name.
 * Signed platforms (Meta, Typeform, Webflow) carry a signature computed here with the demo
 * secret over the exact one-line body written below it.
 */
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'lossless-json';
import { ROUTES, type RouteSpec } from '../functions/kernel/routes.ts';
import { hubspotSignature } from '../functions/sources/hubspot.ts';
import { SOURCES, type SourceName } from '../functions/sources/registry.ts';
import { webflowSignature } from '../functions/sources/webflow.ts';

const ROOT = join(import.meta.dirname, '..');
export const REQUESTS_FILE = join(ROOT, 'docs', 'requests.http');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'leads');
const DEMO_CONFIG = join(ROOT, 'config', 'demo.json');

/** A Webflow signature is only accepted within 5 minutes of its timestamp (see the comment). */
const WEBFLOW_TIMESTAMP = '1767225600000';
/** Likewise a HubSpot v3 signature. */
const HUBSPOT_TIMESTAMP = '1767225600000';

export interface HttpRequestSpec {
  title: string;
  /** A line or two for people, written as `#` comments above the request. */
  note?: string;
  method: string;
  /** After `{{baseUrl}}`: the path and query, variables allowed. */
  target: string;
  headers?: Record<string, string>;
  body?: string;
}

interface DemoProfile {
  source: string;
  [key: string]: unknown;
}

interface DemoConfig {
  clients: { username: string; password?: string; roles: string[] }[];
  profiles: Record<string, DemoProfile>;
}

/** A request fixture: `{headers, query?, body}` (test/helpers/lead-fixtures.ts). */
interface RequestFixture {
  headers: Record<string, string>;
  query?: Record<string, string>;
  body: string;
}

function fixture(source: string, name: string): RequestFixture {
  return JSON.parse(readFileSync(join(FIXTURES, source, `${name}.json`), 'utf8')) as RequestFixture;
}

/**
 * A platform's own payload fixture, re-written on one line (signatures cover exact bytes), its
 * numbers exactly as written (Meta's ids are beyond 2^53).
 */
function payload(source: string, name: string, change: Record<string, unknown> = {}): string {
  const value = parse(readFileSync(join(FIXTURES, source, `${name}.json`), 'utf8')) as object;
  return stringify({ ...value, ...change }) as string;
}

function contentTypeOf(headers: Record<string, string>): string {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === 'content-type');
  return found?.[1] ?? 'application/json';
}

/** The variables at the top of the file: what a person changes for another gateway. */
interface Variables {
  lines: string[];
  /** Profile name of each source in the demo configuration. */
  profileOf(source: SourceName): string;
  /** Its setting's value (the demo secret), for signatures. */
  secretOf(source: SourceName, key: string): string;
}

function variables(config: DemoConfig): Variables {
  const profileOf = (source: SourceName): string => {
    const found = Object.entries(config.profiles).find(([, p]) => p.source === source);
    if (!found) throw new Error(`config/demo.json has no profile of source ${source}`);
    return found[0];
  };
  const secretOf = (source: SourceName, key: string): string => {
    const value = config.profiles[profileOf(source)]?.[key];
    if (typeof value !== 'string') throw new Error(`config/demo.json: ${source} has no ${key}`);
    return value;
  };
  const admin = config.clients.find((c) => c.roles.includes('admin') && c.password);
  if (!admin?.password) throw new Error('config/demo.json has no admin client with a password');
  const lines = [
    '@baseUrl = http://127.0.0.1:3000',
    `@user = ${admin.username}`,
    `@password = ${admin.password}`,
    `@siteToken = ${secretOf('form', 'token')}`,
    `@rdToken = ${secretOf('rdstation', 'token')}`,
    `@unbounceToken = ${secretOf('unbounce', 'token')}`,
    `@elementorToken = ${secretOf('elementor', 'token')}`,
    `@googleKey = ${secretOf('google', 'key')}`,
    `@metaVerifyToken = ${secretOf('meta', 'verifyToken')}`,
    `@tiktokToken = ${secretOf('tiktok', 'token')}`,
    `@jotformToken = ${secretOf('jotform', 'token')}`,
    `@hotmartHottok = ${secretOf('hotmart', 'hottok')}`,
    `@kommoToken = ${secretOf('kommo', 'token')}`,
    `@wordpressToken = ${secretOf('wordpress', 'token')}`,
    `@wixToken = ${secretOf('wix', 'token')}`,
    '# A lead id from an answer above (the admin requests below use it).',
    '@leadId = ld_0000000000000000000000',
  ];
  return { lines, profileOf, secretOf };
}

const BASIC = { Authorization: 'Basic {{user}} {{password}}' };

/** One request per lead source: its own profile, credentials and a real payload. */
function sourceRequests(v: Variables): Record<SourceName, HttpRequestSpec> {
  const lead = (source: SourceName, query = '') =>
    `/leads/${v.profileOf(source)}${query ? `?${query}` : ''}`;
  const form = fixture('form', 'valid-urlencoded');
  const unbounce = fixture('unbounce', 'valid');
  const elementor = fixture('elementor', 'default-mode');
  const webflow = fixture('webflow', 'valid');
  const prospect = fixture('prospect', 'valid');
  const meta = payload('meta', 'webhook-two-entries');
  const typeform = payload('typeform', 'form-response');
  const google = payload('google', 'lead', { google_key: '{{googleKey}}' });
  const whatsapp = payload('whatsapp', 'ctwa-first-message');
  const tiktok = payload('tiktok', 'webhook-lead');
  const hmac = (secret: string, body: string, encoding: 'hex' | 'base64') =>
    createHmac('sha256', secret).update(body).digest(encoding);
  const googleForms = payload('googleforms', 'form-response');
  const tally = payload('tally', 'form-response');
  const hubspot = payload('hubspot', 'contact-all-properties');
  const jotform = fixture('jotform', 'submission');
  const kommo = fixture('kommo', 'lead-added');
  const wordpress = fixture('wordpress', 'contact-form-7');
  return {
    form: {
      title: 'a landing-page form (source form)',
      method: 'POST',
      target: lead('form', 'token={{siteToken}}'),
      headers: { 'Content-Type': contentTypeOf(form.headers), Origin: 'https://lp.example.com' },
      body: form.body,
    },
    meta: {
      title: 'a Meta Lead Ads webhook (source meta)',
      note: 'Signed with config/demo.json’s appSecret over this exact body; the leads are looked up in Graph at delivery.',
      method: 'POST',
      target: lead('meta'),
      headers: {
        'Content-Type': 'application/json',
        'X-Hub-Signature-256': `sha256=${hmac(v.secretOf('meta', 'appSecret'), meta, 'hex')}`,
      },
      body: meta,
    },
    google: {
      title: 'a Google Ads lead form webhook (source google)',
      method: 'POST',
      target: lead('google'),
      headers: { 'Content-Type': 'application/json' },
      body: google,
    },
    typeform: {
      title: 'a Typeform webhook (source typeform)',
      note: 'Signed with config/demo.json’s secret over this exact body.',
      method: 'POST',
      target: lead('typeform'),
      headers: {
        'Content-Type': 'application/json',
        'Typeform-Signature': `sha256=${hmac(v.secretOf('typeform', 'secret'), typeform, 'base64')}`,
      },
      body: typeform,
    },
    webflow: {
      title: 'a Webflow form webhook (source webflow)',
      note: 'Signed with config/demo.json’s secret, but Webflow signatures expire after 5 minutes: this one is answered 403 stale_timestamp. It shows the shape; sign a fresh one as test/helpers/lead-fixtures.ts signWebflow does.',
      method: 'POST',
      target: lead('webflow'),
      headers: {
        'Content-Type': contentTypeOf(webflow.headers),
        'x-webflow-timestamp': WEBFLOW_TIMESTAMP,
        'x-webflow-signature': webflowSignature(
          v.secretOf('webflow', 'secret'),
          WEBFLOW_TIMESTAMP,
          Buffer.from(webflow.body),
        ),
      },
      body: webflow.body,
    },
    rdstation: {
      title: 'an RD Station Marketing webhook (source rdstation)',
      method: 'POST',
      target: lead('rdstation', 'token={{rdToken}}'),
      headers: { 'Content-Type': 'application/json' },
      body: payload('rdstation', 'current'),
    },
    unbounce: {
      title: 'an Unbounce form webhook (source unbounce)',
      method: 'POST',
      target: lead('unbounce', 'token={{unbounceToken}}'),
      headers: { 'Content-Type': contentTypeOf(unbounce.headers) },
      body: unbounce.body,
    },
    elementor: {
      title: 'an Elementor Pro form webhook (source elementor)',
      method: 'POST',
      target: lead('elementor', 'token={{elementorToken}}'),
      headers: { 'Content-Type': contentTypeOf(elementor.headers) },
      body: elementor.body,
    },
    whatsapp: {
      title: 'a Click-to-WhatsApp ad conversation (source whatsapp)',
      note: 'Signed with config/demo.json’s appSecret over this exact body; one conversation (wa_id) is one lead.',
      method: 'POST',
      target: lead('whatsapp'),
      headers: {
        'Content-Type': 'application/json',
        'X-Hub-Signature-256': `sha256=${hmac(v.secretOf('whatsapp', 'appSecret'), whatsapp, 'hex')}`,
      },
      body: whatsapp,
    },
    tiktok: {
      title: 'a TikTok Lead Generation webhook (source tiktok)',
      note: 'TikTok signs nothing on this webhook: the token is in the callback URL.',
      method: 'POST',
      target: lead('tiktok', 'token={{tiktokToken}}'),
      headers: { 'Content-Type': 'application/json' },
      body: tiktok,
    },
    googleforms: {
      title: 'a Google Forms response from the Apps Script (source googleforms)',
      note: 'Signed with config/demo.json’s secret over this exact body, as the Apps Script of docs/sources.md signs it.',
      method: 'POST',
      target: lead('googleforms'),
      headers: {
        'Content-Type': 'application/json',
        'X-Lead-Signature': `sha256=${hmac(v.secretOf('googleforms', 'secret'), googleForms, 'base64')}`,
      },
      body: googleForms,
    },
    tally: {
      title: 'a Tally webhook (source tally)',
      note: 'Signed with config/demo.json’s secret over this exact body.',
      method: 'POST',
      target: lead('tally'),
      headers: {
        'Content-Type': 'application/json',
        'Tally-Signature': hmac(v.secretOf('tally', 'secret'), tally, 'base64'),
      },
      body: tally,
    },
    jotform: {
      title: 'a Jotform webhook (source jotform)',
      note: 'Jotform signs nothing: the token is in the URL.',
      method: 'POST',
      target: lead('jotform', 'token={{jotformToken}}'),
      headers: { 'Content-Type': contentTypeOf(jotform.headers) },
      body: jotform.body,
    },
    hotmart: {
      title: 'a Hotmart purchase webhook (source hotmart)',
      method: 'POST',
      target: lead('hotmart'),
      headers: { 'Content-Type': 'application/json', 'X-HOTMART-HOTTOK': '{{hotmartHottok}}' },
      body: payload('hotmart', 'purchase-approved'),
    },
    hubspot: {
      title: 'a HubSpot workflow webhook (source hubspot)',
      note: 'Signed with config/demo.json’s secret and url, but HubSpot signatures expire after 5 minutes: this one is answered 403 stale_timestamp. It shows the shape; docs/sources.md shows how to sign a fresh one.',
      method: 'POST',
      target: lead('hubspot'),
      headers: {
        'Content-Type': 'application/json',
        'X-HubSpot-Request-Timestamp': HUBSPOT_TIMESTAMP,
        'X-HubSpot-Signature-v3': hubspotSignature(
          v.secretOf('hubspot', 'secret'),
          v.secretOf('hubspot', 'url'),
          Buffer.from(hubspot),
          HUBSPOT_TIMESTAMP,
        ),
      },
      body: hubspot,
    },
    kommo: {
      title: 'a Kommo webhook, ids only (source kommo)',
      note: 'The lead is read from Kommo’s API at delivery: register it in the sandbox first (POST /_sandbox/kommo-leads, docs/sources.md), or it is parked.',
      method: 'POST',
      target: lead('kommo', 'token={{kommoToken}}'),
      headers: { 'Content-Type': contentTypeOf(kommo.headers) },
      body: kommo.body,
    },
    wordpress: {
      title: 'a Contact Form 7 webhook, profile plugin contact-form-7 (source wordpress)',
      method: 'POST',
      target: lead('wordpress', 'token={{wordpressToken}}'),
      headers: { 'Content-Type': contentTypeOf(wordpress.headers) },
      body: wordpress.body,
    },
    wix: {
      title: 'a Wix Automations HTTP request (source wix)',
      method: 'POST',
      target: lead('wix', 'token={{wixToken}}'),
      headers: { 'Content-Type': 'application/json' },
      body: payload('wix', 'form-submitted'),
    },
    prospect: {
      title: 'a Prospect through a profile (source prospect)',
      method: 'POST',
      target: lead('prospect'),
      headers: { 'Content-Type': 'application/json', ...BASIC },
      body: prospect.body,
    },
  };
}

/** One request per route of the table; POST /leads/{profile} is the sources' (above). */
function routeRequests(v: Variables): Record<string, HttpRequestSpec[]> {
  const sources = sourceRequests(v);
  const prospect = fixture('prospect', 'valid');
  return {
    'GET /health': [{ title: 'is the gateway up', method: 'GET', target: '/health' }],
    'GET /openapi.json': [
      { title: 'the OpenAPI document', method: 'GET', target: '/openapi.json' },
    ],
    'POST /leads/{profile}': SOURCES.map((source) => sources[source.name]),
    'GET /leads/{profile}': [
      {
        title: 'Meta’s subscription handshake',
        method: 'GET',
        target: `/leads/${v.profileOf('meta')}?hub.mode=subscribe&hub.verify_token={{metaVerifyToken}}&hub.challenge=1158201444`,
      },
    ],
    'OPTIONS /leads/{profile}': [
      {
        title: 'a landing page’s CORS preflight',
        method: 'OPTIONS',
        target: `/leads/${v.profileOf('form')}`,
        headers: {
          Origin: 'https://lp.example.com',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      },
    ],
    'POST /api/v1/prospects': [
      {
        title: 'create a prospect as the upstream’s own operation',
        note: 'Waits up to 8 s for the delivery: 200 {"idProspect"} when delivered in time, else 202.',
        method: 'POST',
        target: '/api/v1/prospects',
        headers: { 'Content-Type': contentTypeOf(prospect.headers), ...BASIC },
        body: prospect.body,
      },
    ],
    'GET /api/v1/receivables/debtors': [
      {
        title: 'the debtors list as the upstream answers it (from the snapshot)',
        method: 'GET',
        target: '/api/v1/receivables/debtors?idBranch=1&take=5',
        headers: BASIC,
      },
    ],
    'GET /reports/debtors': [
      {
        title: 'the debtors report as JSON',
        method: 'GET',
        target: '/reports/debtors?sort=-daysOverdue&take=10',
        headers: BASIC,
      },
    ],
    'GET /reports/debtors.csv': [
      {
        title: 'the debtors report as CSV',
        method: 'GET',
        target: '/reports/debtors.csv',
        headers: BASIC,
      },
    ],
    'GET /reports/debtors.html': [
      {
        title: 'the debtors dashboard',
        method: 'GET',
        target: '/reports/debtors.html',
        headers: BASIC,
      },
    ],
    'POST /admin/reports/debtors/refresh': [
      {
        title: 'refresh the debtors report now',
        method: 'POST',
        target: '/admin/reports/debtors/refresh',
        headers: BASIC,
      },
    ],
    'GET /admin/leads': [
      {
        title:
          'the most recent leads, of every status (status=, profile=, q= search, since=, until=)',
        method: 'GET',
        target: '/admin/leads?q=ana&limit=20',
        headers: BASIC,
      },
    ],
    'GET /admin/leads/{leadId}': [
      {
        title: 'one lead: its status, what the person sent, the Prospect',
        method: 'GET',
        target: '/admin/leads/{{leadId}}',
        headers: BASIC,
      },
    ],
    'PATCH /admin/leads/{leadId}': [
      {
        title: 'correct a parked lead (then retry it)',
        method: 'PATCH',
        target: '/admin/leads/{{leadId}}',
        headers: { 'Content-Type': 'application/json', ...BASIC },
        body: '{"prospect": {"cellphone": "(11) 98765-4321"}}',
      },
    ],
    'GET /admin/leads.csv': [
      {
        title: 'the parked leads as a CSV for the sales team',
        method: 'GET',
        target: '/admin/leads.csv?status=parked',
        headers: BASIC,
      },
    ],
    'GET /admin': [
      {
        title: 'the operator console (open it in a browser)',
        method: 'GET',
        target: '/admin/',
        headers: BASIC,
      },
    ],
    'POST /admin/preview/{profile}': [
      {
        title: 'preview what a form body becomes (nothing stored)',
        method: 'POST',
        target: '/admin/preview/site',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...BASIC },
        body: 'nome=Ana+Souza&email=ana.souza%40example.com',
      },
    ],
    'POST /admin/test-lead/{profile}': [
      {
        title: 'send the profile’s sample lead through the real path',
        method: 'POST',
        target: '/admin/test-lead/site',
        headers: BASIC,
      },
    ],
    'GET /admin/setup': [
      {
        title: 'how to connect each platform',
        method: 'GET',
        target: '/admin/setup',
        headers: BASIC,
      },
    ],
    'POST /admin/leads/{leadId}/retry': [
      {
        title: 'retry one lead',
        method: 'POST',
        target: '/admin/leads/{{leadId}}/retry',
        headers: BASIC,
      },
    ],
    'GET /admin/upstream': [
      {
        title: 'the upstream: circuit, pacer, backlog',
        method: 'GET',
        target: '/admin/upstream',
        headers: BASIC,
      },
    ],
    'POST /admin/replay': [
      {
        title: 'replay every dead lead',
        method: 'POST',
        target: '/admin/replay',
        headers: BASIC,
      },
    ],
    'POST /admin/backfill/{profile}': [
      {
        title: 'recover the Meta leads of a period that never reached the webhook',
        note: 'Lists the profile’s forms’ leads in Graph (the sandbox’s stand-in locally); leads that did arrive are not posted twice. At most 90 days; until not in the future.',
        method: 'POST',
        target: `/admin/backfill/${v.profileOf('meta')}`,
        headers: { 'Content-Type': 'application/json', ...BASIC },
        body: '{"since": "2026-01-01T00:00:00Z", "until": "2026-01-08T00:00:00Z"}',
      },
    ],
    'POST /admin/erasure': [
      {
        title: 'erase a person’s data (LGPD): by e-mail, phone or CPF',
        note: 'Irreversible. The answer lists the upstream prospects to erase there (docs/privacy.md).',
        method: 'POST',
        target: '/admin/erasure',
        headers: { ...BASIC, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'ana.souza@example.com' }),
      },
    ],
  };
}

const routeKey = (route: Pick<RouteSpec, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** The requests by route, in the route table's order; throws when a route has none. */
export function collection(
  routes: readonly RouteSpec[] = ROUTES,
): { route: string; requests: HttpRequestSpec[] }[] {
  const config = JSON.parse(readFileSync(DEMO_CONFIG, 'utf8')) as DemoConfig;
  const byRoute = routeRequests(variables(config));
  const keys = new Set(routes.map(routeKey));
  const problems = [
    ...[...keys]
      .filter((key) => !(key in byRoute))
      .map((key) => `route ${key} has no request in scripts/requests.ts`),
    ...Object.keys(byRoute)
      .filter((key) => !keys.has(key))
      .map(
        (key) => `scripts/requests.ts has a request for ${key}, which is not in the route table`,
      ),
  ];
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return routes.map((route) => ({
    route: routeKey(route),
    requests: byRoute[routeKey(route)] as HttpRequestSpec[],
  }));
}

function render(route: string, request: HttpRequestSpec): string {
  const lines = [`### ${route}: ${request.title}`];
  if (request.note) lines.push(`# ${request.note}`);
  lines.push(`${request.method} {{baseUrl}}${request.target}`);
  for (const [name, value] of Object.entries(request.headers ?? {}))
    lines.push(`${name}: ${value}`);
  if (request.body !== undefined) lines.push('', request.body);
  return lines.join('\n');
}

/** The file's text. */
export function requestsText(): string {
  const config = JSON.parse(readFileSync(DEMO_CONFIG, 'utf8')) as DemoConfig;
  const header = [
    '# The leads gateway, one request per route and per lead source, for VS Code REST Client and',
    '# JetBrains HTTP Client. Generated by `npm run requests` from test/fixtures/leads and',
    '# config/demo.json: do not edit by hand. With `npm start` running, every request works as it is',
    '# (the demo credentials below); for a deployed stage set baseUrl to its ApiUrl and the',
    '# credentials to yours. The routes and answers are described in docs/openapi.json.',
    '',
    ...variables(config).lines,
  ].join('\n');
  const blocks = collection().flatMap(({ route, requests }) =>
    requests.map((request) => render(route, request)),
  );
  return `${[header, ...blocks].join('\n\n')}\n`;
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) {
  const text = requestsText();
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(REQUESTS_FILE, 'utf8');
    } catch {}
    if (committed !== text) {
      process.stderr.write('docs/requests.http is out of date: run npm run requests\n');
      process.exit(1);
    }
  } else {
    writeFileSync(REQUESTS_FILE, text);
    process.stdout.write(`wrote ${REQUESTS_FILE}\n`);
  }
}
