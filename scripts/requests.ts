/**
 * `npm run requests`: writes docs/requests.http, a collection for VS Code's REST Client and
 * JetBrains' HTTP Client with one request per route of the route table and one per lead source,
 * built from the test fixtures (test/fixtures/leads/) and the demo configuration
 * (config/demo.json), so that every request works against `npm start` as it is. `--check` writes
 * nothing and exits 1 when the committed file is not the one the code makes.
 *
 * Like the OpenAPI document, it is keyed by the route table: a route without an entry in
 * routeRequests stops the build with its name. The lead sources need nothing here: each
 * declares its request in its own file (`docs().request`, functions/sources/docs.ts: a fixture,
 * a title, the variable of its credential), sent to its profile in config/demo.json and
 * authenticated as its set-up kit's sample is; signed platforms (Meta, Typeform, Webflow...)
 * carry a signature computed here with the demo secret over the exact one-line body written
 * below it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'lossless-json';
import { ROUTES, type RouteSpec } from '../functions/kernel/routes.ts';
import type { RequestFixture, SourceRequestDoc } from '../functions/sources/docs.ts';
import { SOURCES, type SourceName } from '../functions/sources/registry.ts';
import { hmacHeaders, type SampleAuth } from '../functions/sources/setup.ts';
import type { Source } from '../functions/sources/source.ts';
import { TOKEN_QUERY } from '../functions/sources/token.ts';

const ROOT = join(import.meta.dirname, '..');
export const REQUESTS_FILE = join(ROOT, 'docs', 'requests.http');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'leads');
const DEMO_CONFIG = join(ROOT, 'config', 'demo.json');

/**
 * When the signed requests say they were signed (ms). Webflow and HubSpot take a signature only
 * within 5 minutes of its timestamp, so theirs are answered 403 stale_timestamp (their notes say
 * so); the other platforms sign no time.
 */
const SIGNED_AT = '1767225600000';

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

export interface DemoConfig {
  clients: { username: string; password?: string; roles: string[] }[];
  profiles: Record<string, DemoProfile>;
}

/** A source as the collection reads it (a `Source` of the registry). */
export type DocumentedSource = Pick<Source, 'name' | 'docs' | 'setup'>;

/** What a collection is made from; the registry, config/demo.json and the fixtures by default. */
export interface CollectionInputs {
  sources?: readonly DocumentedSource[];
  config?: DemoConfig;
  /** The text of `test/fixtures/leads/<source>/<file>.json`. */
  readFixture?: (source: string, file: string) => string;
}

/** A fixture's text: `test/fixtures/leads/<source>/<file>.json`. */
export const readLeadFixture = (source: string, file: string) =>
  readFileSync(join(FIXTURES, source, `${file}.json`), 'utf8');

function demoConfig(): DemoConfig {
  return JSON.parse(readFileSync(DEMO_CONFIG, 'utf8')) as DemoConfig;
}

function contentTypeOf(headers: Record<string, string>): string {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === 'content-type');
  return found?.[1] ?? 'application/json';
}

/**
 * A source's fixture as sent: a request fixture (`{headers, body}`, test/helpers/lead-fixtures.ts)
 * as it is, or a platform's payload re-written on one line (signatures cover exact bytes), its
 * numbers exactly as written (Meta's ids are beyond 2^53).
 */
function fixtureBody(
  source: string,
  fixture: RequestFixture,
  read: (source: string, file: string) => string,
): { contentType: string; body: string } {
  if ('request' in fixture) {
    const { headers, body } = JSON.parse(read(source, fixture.request)) as {
      headers: Record<string, string>;
      body: string;
    };
    return { contentType: contentTypeOf(headers), body };
  }
  const value = parse(read(source, fixture.payload)) as object;
  return {
    contentType: 'application/json',
    body: stringify({ ...value, ...fixture.change }) as string,
  };
}

/** A source's demo profile: its name, its settings, how its request authenticates. */
interface SourceProfile {
  name: string;
  settings: DemoProfile;
  auth: SampleAuth;
  request: SourceRequestDoc;
}

/** The demo configuration's profile of a source: its name and its settings. */
function demoProfile(config: DemoConfig, source: string): [string, DemoProfile] {
  const found = Object.entries(config.profiles).find(([, p]) => p.source === source);
  if (!found) throw new Error(`config/demo.json has no profile of source ${source}`);
  return found;
}

/** A demo setting's value (the demo secret), for signatures and variables. */
function settingOf(source: string, settings: DemoProfile, key: string): string {
  const value = settings[key];
  if (typeof value !== 'string') throw new Error(`config/demo.json: ${source} has no ${key}`);
  return value;
}

function sourceProfile(source: DocumentedSource, config: DemoConfig): SourceProfile {
  const [name, settings] = demoProfile(config, source.name);
  const request = source.docs().request;
  const auth = request.auth ?? source.setup?.auth(settings as never);
  if (!auth) throw new Error(`source ${source.name} has no setup.auth: give its request an auth`);
  return { name, settings, auth, request };
}

/** The credential a request carries as it is: its variable's name and value (none if signed). */
function credentialVariable(source: string, profile: SourceProfile): [string, string] | undefined {
  const { auth, request } = profile;
  if (auth.kind === 'hmac' || auth.kind === 'basic') return undefined;
  if (!request.variable) {
    throw new Error(
      `source ${source}: its request carries its ${auth.setting} as is: name its variable`,
    );
  }
  return [request.variable, settingOf(source, profile.settings, auth.setting)];
}

const BASIC = { Authorization: 'Basic {{user}} {{password}}' };

/** How the request carries its credentials: in its query, in headers. */
function credentials(
  source: string,
  profile: SourceProfile,
  body: string,
): { query?: string; headers: Record<string, string> } {
  const { auth } = profile;
  const variable = `{{${profile.request.variable}}}`;
  switch (auth.kind) {
    case 'token':
      return auth.in === 'query'
        ? { query: `${TOKEN_QUERY}=${variable}`, headers: {} }
        : { headers: { 'X-Lead-Token': variable } };
    case 'header':
      return { headers: { [auth.header]: variable } };
    case 'body':
      // The fixture's `change` writes the variable where the platform sends the key.
      return { headers: {} };
    case 'hmac':
      return {
        headers: hmacHeaders(
          auth,
          settingOf(source, profile.settings, auth.setting),
          body,
          SIGNED_AT,
        ),
      };
    case 'basic':
      return { headers: BASIC };
  }
}

/** A source's request (its `docs().request`), to its demo profile. */
function sourceRequest(
  source: DocumentedSource,
  config: DemoConfig,
  read: (source: string, file: string) => string,
): HttpRequestSpec {
  const profile = sourceProfile(source, config);
  const { request } = profile;
  const { contentType, body } = fixtureBody(source.name, request.fixture, read);
  const carried = credentials(source.name, profile, body);
  return {
    title: `${request.title} (source ${source.name})`,
    ...(request.note && { note: request.note }),
    method: 'POST',
    target: `/leads/${profile.name}${carried.query ? `?${carried.query}` : ''}`,
    headers: { 'Content-Type': contentType, ...request.headers, ...carried.headers },
    body,
  };
}

/** The variables at the top of the file: what a person changes for another gateway. */
interface Variables {
  lines: string[];
  /** Profile name of each source in the demo configuration. */
  profileOf(source: SourceName): string;
}

/**
 * The demo credentials, then one variable per source whose request carries its credential as
 * it is (`@siteToken`...), in the registry's order, then the ones of the routes below.
 */
function variables(config: DemoConfig, sources: readonly DocumentedSource[]): Variables {
  const profileOf = (source: SourceName): string => demoProfile(config, source)[0];
  const admin = config.clients.find((c) => c.roles.includes('admin') && c.password);
  if (!admin?.password) throw new Error('config/demo.json has no admin client with a password');
  const credentialLines = sources.flatMap((source) => {
    const variable = credentialVariable(source.name, sourceProfile(source, config));
    return variable ? [`@${variable[0]} = ${variable[1]}`] : [];
  });
  const lines = [
    '@baseUrl = http://127.0.0.1:3000',
    `@user = ${admin.username}`,
    `@password = ${admin.password}`,
    ...credentialLines,
    // Meta's subscription handshake (GET /leads/{profile}, below).
    `@metaVerifyToken = ${settingOf('meta', demoProfile(config, 'meta')[1], 'verifyToken')}`,
    '# A lead id from an answer above (the admin requests below use it).',
    '@leadId = ld_0000000000000000000000',
    "# The pages' scripts, as the console and the dashboard link them (their <script src>).",
    '@consoleScript = console.0000000000000000.js',
    '@dashboardScript = dashboard.0000000000000000.js',
  ];
  return { lines, profileOf };
}

/** The gateway's own routes and the routes leads come in by; POST /leads/{profile} is the sources'. */
function intakeRequests(
  v: Variables,
  { sources, config, readFixture }: Required<CollectionInputs>,
): Record<string, HttpRequestSpec[]> {
  const prospect = fixtureBody('prospect', { request: 'valid' }, readFixture);
  return {
    'GET /health': [{ title: 'is the gateway up', method: 'GET', target: '/health' }],
    'GET /openapi.json': [
      { title: 'the OpenAPI document', method: 'GET', target: '/openapi.json' },
    ],
    'POST /leads/{profile}': sources.map((source) => sourceRequest(source, config, readFixture)),
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
        headers: { 'Content-Type': prospect.contentType, ...BASIC },
        body: prospect.body,
      },
    ],
  };
}

/** The debtors routes: the upstream's own operation and the cached report. */
function reportRequests(): Record<string, HttpRequestSpec[]> {
  return {
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
    'GET /reports/assets/{file}': [
      {
        title: 'the dashboard’s script (its name from the page)',
        method: 'GET',
        target: '/reports/assets/{{dashboardScript}}',
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
  };
}

/** The operators' routes under /admin. */
function adminRequests(v: Variables): Record<string, HttpRequestSpec[]> {
  return {
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
    'GET /admin/assets/{file}': [
      {
        title: 'the console’s script (its name from the page)',
        method: 'GET',
        target: '/admin/assets/{{consoleScript}}',
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
    'POST /admin/setup/{profile}/reveal': [
      {
        title: 'show a profile’s secrets and the URL to paste (audited, never cached)',
        method: 'POST',
        target: '/admin/setup/site/reveal',
        headers: BASIC,
      },
    ],
    'POST /admin/setup/{profile}/rotate': [
      {
        title: 'a new token for a profile; the old one works 7 more days',
        method: 'POST',
        target: '/admin/setup/rd/rotate',
        headers: { 'Content-Type': 'application/json', ...BASIC },
        body: '{"key": "token"}',
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

/** One request per route of the table; POST /leads/{profile} is the sources' (above). */
function routeRequests(
  v: Variables,
  inputs: Required<CollectionInputs>,
): Record<string, HttpRequestSpec[]> {
  return { ...intakeRequests(v, inputs), ...reportRequests(), ...adminRequests(v) };
}

const routeKey = (route: Pick<RouteSpec, 'method' | 'path'>) => `${route.method} ${route.path}`;

function withDefaults(inputs: CollectionInputs): Required<CollectionInputs> {
  return {
    sources: inputs.sources ?? SOURCES,
    config: inputs.config ?? demoConfig(),
    readFixture: inputs.readFixture ?? readLeadFixture,
  };
}

/**
 * The requests by route, in the route table's order, `POST /leads/{profile}` one per source;
 * throws when a route has none.
 */
export function collection(
  routes: readonly RouteSpec[] = ROUTES,
  inputs: CollectionInputs = {},
): { route: string; requests: HttpRequestSpec[] }[] {
  const made = withDefaults(inputs);
  const byRoute = routeRequests(variables(made.config, made.sources), made);
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
export function requestsText(inputs: CollectionInputs = {}): string {
  const made = withDefaults(inputs);
  const header = [
    '# The leads gateway, one request per route and per lead source, for VS Code REST Client and',
    '# JetBrains HTTP Client. Generated by `npm run requests` from test/fixtures/leads and',
    '# config/demo.json: do not edit by hand. With `npm start` running, every request works as it is',
    '# (the demo credentials below); for a deployed stage set baseUrl to its ApiUrl and the',
    '# credentials to yours. The routes and answers are described in docs/openapi.json.',
    '',
    ...variables(made.config, made.sources).lines,
  ].join('\n');
  const blocks = collection(ROUTES, made).flatMap(({ route, requests }) =>
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
