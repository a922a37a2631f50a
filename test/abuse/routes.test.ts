/**
 * Abuse suite: fast-check generated requests against every route of the local gateway (the same
 * handlers as on AWS), with the delivery worker on. Properties:
 * - no request gets a 5xx, and every request gets an answer (no crash, no hang);
 * - nothing unauthentic is stored in the ledger or created upstream (the worker is running, so a
 *   stored lead would reach the sandbox);
 * - `/health` is still 200 afterwards.
 * Generated credentials are never right for the route that would store something: no profile's
 * token/signature/key, no client with `prospects:write` on `POST /api/v1/prospects`.
 * The report is refreshed once before the suite, so a 503 `report_not_ready` is a failure too.
 */
import { Agent, validateHeaderName, validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ABUSE_SECRETS,
  abuseConfig,
  basicHeader,
  CLIENTS,
  PROFILE_NAMES,
  type RawRequest,
  rawRequest,
  sandboxProspects,
  sleep,
  waitFor,
} from '../helpers/abuse-kit.ts';
import type { TestRuntime } from '../helpers/local-runtime.ts';
import { reportResult } from '../helpers/results.ts';

let rt: TestRuntime;
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

beforeAll(async () => {
  // Thousands of refusals would flood the test output (WARN lines); errors still show.
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'ERROR');
  const { startTestRuntime } = await import('../helpers/local-runtime.ts');
  rt = await startTestRuntime(abuseConfig(), { worker: true });
  // The first snapshot, so that report routes answer from it (503 report_not_ready otherwise).
  await waitFor(
    'the first debtors report',
    async () => {
      const res = await fetch(new URL('/reports/debtors', rt.url), {
        headers: {
          authorization: basicHeader(CLIENTS.reporter.username, CLIENTS.reporter.password),
        },
      });
      await res.arrayBuffer();
      return res.status === 200 ? true : undefined;
    },
    25_000,
    250,
  );
  // Each client signs in once: the gateway then remembers its right password for a few minutes,
  // so the failed-sign-in lock this suite's wrong guesses put on 127.0.0.1 (429) does not hide
  // the routes' own answers (401, 403, 2xx) from the clients that are really signed in.
  for (const client of [CLIENTS.ops, CLIENTS.writer, CLIENTS.reporter]) {
    const res = await fetch(new URL('/admin/upstream', rt.url), {
      headers: { authorization: basicHeader(client.username, client.password) },
    });
    await res.arrayBuffer();
  }
}, 40_000);

afterAll(async () => {
  agent.destroy();
  await rt?.stop();
  vi.unstubAllEnvs();
});

// ---------------------------------------------------------------------------------------------
// Arbitraries

const hex = (maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), maxLength });
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** Printable ASCII without the characters that would end a path or make Node refuse it. */
const pathChar = fc.constantFrom(
  ..."abcXYZ019-_.~!$&'()*+,;=:@%".split(''),
  '%00',
  '%2F',
  '%2e',
  '%ZZ',
  '%',
  '%C3%A9',
  '%E2%80%AE',
  '%FF',
);
const oddSegment = fc.oneof(
  fc.array(pathChar, { maxLength: 12 }).map((parts) => parts.join('')),
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '..%2F..%2Fadmin',
    'site%2F..',
    'SITE',
    'site%09',
    'site%20',
    'site;x',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'a'.repeat(300),
    '%F0%9F%98%80',
    'native',
  ),
);
const profileSegment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROFILE_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('unknown', 'demo', 'site2', 'meta-', 'prospect') },
  { weight: 2, arbitrary: oddSegment },
);

const queryPart = fc.oneof(
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
  fc.string({ unit: 'grapheme', maxLength: 10 }).map((v) => `q=${encodeURIComponent(v)}`),
  fc.constantFrom(
    'token=',
    'token=wrong',
    `token=${encodeURIComponent(ABUSE_SECRETS.siteToken.slice(0, -1))}`,
    'token=a&token=b&token=',
    'status=queued',
    'status=dead&status=queued',
    'status=%ZZ',
    'status=__proto__',
    'limit=-1',
    'limit=1e309',
    'limit=999999999999999999999',
    'cursor=%00%00',
    'cursor=eyJ4IjoxfQ',
    'cursor=not-base64!!',
    'take=-5',
    'take=abc&take=2',
    'skip=1e9',
    'idBranch=1&idBranch=2&idBranch=x',
    'debtStatus=%E2%80%AE',
    'memberStatus=',
    'hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=123',
    'hub.mode=subscribe&hub.challenge=%3Cscript%3E',
    `hub.mode=subscribe&hub.verify_token=${encodeURIComponent(ABUSE_SECRETS.metaVerifyToken)}&hub.challenge=abc`,
    'hub_mode=subscribe&hub_verify_token=&hub_challenge=',
    '%',
    '%%%',
    '&&&==',
    'a[b][c]=1&a[]=2',
    '__proto__[polluted]=1',
    'constructor[prototype][x]=1',
    'format=csv&format=html',
    'q=%F0%9F%98%80%E2%80%AE',
  ),
);
const queryString = fc.oneof(
  fc.constant(''),
  fc.array(queryPart, { minLength: 1, maxLength: 5 }).map((parts) => `?${parts.join('&')}`),
);

/** `sends`: a route that would store a real lead (the console's test lead): never an admin's credentials. */
type Route = {
  method: string;
  path: string;
  kind: 'intake' | 'prospects' | 'basic' | 'sends' | 'other';
};

const LEAD_ID_LIKE = fc.oneof(fc.uuid(), fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), oddSegment);

const routeArb: fc.Arbitrary<Route> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.constantFrom('POST', 'POST', 'POST', 'GET', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'),
        profileSegment,
        fc.constantFrom('', '', '', '/', '/extra', '//'),
      )
      .map(([method, profile, tail]) => ({
        method,
        path: `/leads/${profile}${tail}`,
        kind: 'intake' as const,
      })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('POST', 'POST', 'GET', 'PUT', 'OPTIONS')
      .map((method) => ({ method, path: '/api/v1/prospects', kind: 'prospects' as const })),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom('GET', 'GET', 'GET', 'POST', 'HEAD', 'DELETE'),
        fc.constantFrom(
          '/api/v1/receivables/debtors',
          '/reports/debtors',
          '/reports/debtors.csv',
          '/reports/debtors.html',
          '/reports/debtors.xml',
          '/reports/debtors.',
        ),
      )
      .map(([method, path]) => ({ method, path, kind: 'basic' as const })),
  },
  {
    weight: 3,
    arbitrary: fc.oneof(
      LEAD_ID_LIKE.map((id) => ({
        method: 'GET',
        path: `/admin/leads/${id}`,
        kind: 'basic' as const,
      })),
      fc.constant({ method: 'GET', path: '/admin/leads', kind: 'basic' as const }),
      LEAD_ID_LIKE.map((id) => ({
        method: 'POST',
        path: `/admin/leads/${id}/retry`,
        kind: 'basic' as const,
      })),
      fc.constantFrom('POST', 'GET').map((method) => ({
        method,
        path: '/admin/replay',
        kind: 'basic' as const,
      })),
      fc.constantFrom('POST', 'POST', 'GET', 'DELETE').map((method) => ({
        method,
        path: '/admin/erasure',
        kind: 'basic' as const,
      })),
      fc.constantFrom('POST', 'GET').map((method) => ({
        method,
        path: '/admin/reports/debtors/refresh',
        kind: 'basic' as const,
      })),
      fc.tuple(fc.constantFrom('POST', 'POST', 'GET'), profileSegment).map(([method, profile]) => ({
        method,
        path: `/admin/backfill/${profile}`,
        kind: 'basic' as const,
      })),
      // The console and its routes.
      fc.tuple(fc.constantFrom('PATCH', 'GET', 'PUT'), LEAD_ID_LIKE).map(([method, id]) => ({
        method,
        path: `/admin/leads/${id}`,
        kind: 'basic' as const,
      })),
      fc.constantFrom('GET', 'POST').map((method) => ({
        method,
        path: '/admin/leads.csv',
        kind: 'basic' as const,
      })),
      fc.constantFrom('/admin', '/admin/', '/admin/setup', '/admin//').map((path) => ({
        method: 'GET',
        path,
        kind: 'basic' as const,
      })),
      fc.tuple(fc.constantFrom('POST', 'GET'), profileSegment).map(([method, profile]) => ({
        method,
        path: `/admin/preview/${profile}`,
        kind: 'basic' as const,
      })),
      fc.tuple(fc.constantFrom('POST', 'GET'), profileSegment).map(([method, profile]) => ({
        method,
        path: `/admin/test-lead/${profile}`,
        kind: 'sends' as const,
      })),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom('GET', 'POST', 'HEAD').map((method) => ({
        method,
        path: '/health',
        kind: 'other' as const,
      })),
      fc
        .tuple(fc.constantFrom('GET', 'POST', 'DELETE'), fc.array(oddSegment, { maxLength: 4 }))
        .map(([method, parts]) => ({
          method,
          path: `/${parts.join('/')}`,
          kind: 'other' as const,
        })),
      fc.constantFrom(
        { method: 'GET', path: '/', kind: 'other' as const },
        { method: 'GET', path: '/leads', kind: 'other' as const },
        { method: 'GET', path: '/admin', kind: 'other' as const },
        { method: 'DELETE', path: '/_sandbox/prospects', kind: 'other' as const },
        { method: 'GET', path: '//leads//site', kind: 'other' as const },
        { method: 'GET', path: '/api/v1/prospects/1', kind: 'other' as const },
      ),
    ),
  },
);

/** Credentials: never the right ones where a request could store a lead. */
function credentialsFor(route: Route): fc.Arbitrary<string[]> {
  const wrong = fc.oneof(
    fc.constant([] as string[]),
    fc
      .constantFrom(
        'Basic',
        'Basic ',
        'Basic ====',
        'Basic %%%',
        'basic b3Bz',
        `Basic ${b64('ops')}`,
        `Basic ${b64(':')}`,
        `Basic ${b64('ops:')}`,
        `Basic ${b64(`:${ABUSE_SECRETS.opsPassword}`)}`,
        `Basic ${b64('ops:wrong')}`,
        `Basic ${b64(`OPS:${ABUSE_SECRETS.opsPassword}`)}`,
        `Basic ${b64(`ops:${ABUSE_SECRETS.opsPassword} `)}`,
        `Basic ${b64(`ops:${ABUSE_SECRETS.writerPassword}`)}`,
        `Basic ${b64('\u0000:\u0000')}`,
        `Bearer ${ABUSE_SECRETS.opsPassword}`,
        'Digest username="ops"',
      )
      .map((value) => ['Authorization', value]),
    fc
      .tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }))
      .map(([u, p]) => ['Authorization', `Basic ${b64(`${u}:${p}`)}`]),
    fc.base64String({ maxLength: 40 }).map((s) => ['Authorization', `Basic ${s}`]),
  );
  // Right user with the wrong role for the route (or any role where nothing is stored).
  const reporter = basicHeader(CLIENTS.reporter.username, CLIENTS.reporter.password);
  const writer = basicHeader(CLIENTS.writer.username, CLIENTS.writer.password);
  const ops = basicHeader(CLIENTS.ops.username, CLIENTS.ops.password);
  const roleOptions =
    route.kind === 'prospects' || route.kind === 'intake'
      ? [reporter]
      : route.kind === 'sends'
        ? [reporter, writer]
        : route.path.startsWith('/admin')
          ? [reporter, writer, ops]
          : [reporter, writer, ops];
  const rightUser = fc.constantFrom(...roleOptions).map((value) => ['Authorization', value]);
  const duplicated = fc
    .tuple(wrong, rightUser)
    .map(([a, b]) => (route.kind === 'basic' ? [...a, ...b] : [...a, 'Authorization', reporter]));
  return fc.oneof(
    { weight: 4, arbitrary: wrong },
    { weight: 2, arbitrary: rightUser },
    { weight: 1, arbitrary: duplicated },
  );
}

/** Webhook authenticity headers, all wrong: tokens, signatures, timestamps. */
const webhookAuth: fc.Arbitrary<string[]> = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 40 }).map((v) => ['X-Lead-Token', v]),
      fc.constantFrom(
        ['X-Lead-Token', ABUSE_SECRETS.siteToken.toUpperCase()],
        ['X-Lead-Token', ` ${ABUSE_SECRETS.rdToken}x`],
        ['X-Hub-Signature-256', 'sha256='],
        ['X-Hub-Signature-256', `sha256=${'0'.repeat(64)}`],
        ['X-Hub-Signature', 'sha1=zz'],
        ['X-Hub-Signature-256', 'md5=abc'],
        ['Typeform-Signature', 'sha256=AAAA'],
        ['x-webflow-timestamp', String(Date.now())],
        ['x-webflow-timestamp', '-1'],
        ['x-webflow-timestamp', '1e400'],
        ['x-webflow-signature', 'f'.repeat(64)],
        ['X-Lead-Signature', 'sha256=AAAA'],
        ['Tally-Signature', ''],
        ['X-HOTMART-HOTTOK', ABUSE_SECRETS.hotmartHottok.slice(1)],
        ['X-HOTMART-HOTTOK', ABUSE_SECRETS.hotmartHottok.toUpperCase()],
        ['X-HubSpot-Request-Timestamp', String(Date.now())],
        ['X-HubSpot-Request-Timestamp', '99999999999999999999'],
        ['X-HubSpot-Signature-v3', 'AAAA'],
        ['X-Lead-Token', ABUSE_SECRETS.kommoToken.toLowerCase()],
        ['Origin', 'https://lp.example.com'],
        ['Origin', 'null'],
        ['Idempotency-Key', 'x'.repeat(300)],
        ['Idempotency-Key', ''],
      ),
      hex(70).map((h) => ['X-Hub-Signature-256', `sha256=${h}`]),
      fc.base64String({ maxLength: 60 }).map((s) => ['Typeform-Signature', `sha256=${s}`]),
      fc.base64String({ maxLength: 60 }).map((s) => ['Tally-Signature', s]),
      fc.base64String({ maxLength: 60 }).map((s) => ['X-Lead-Signature', `sha256=${s}`]),
      fc
        .tuple(fc.integer({ min: -1, max: 2 ** 42 }), fc.base64String({ maxLength: 60 }))
        .map(([t, s]) => ['X-HubSpot-Request-Timestamp', String(t), 'X-HubSpot-Signature-v3', s]),
      fc
        .tuple(fc.integer({ min: -1, max: 2 ** 42 }), hex(64))
        .map(([t, s]) => ['x-webflow-timestamp', String(t), 'x-webflow-signature', s]),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => pairs.flat());

const HEADER_NAME = fc
  .stringMatching(/^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,30}$/)
  .filter(
    (name) =>
      !['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade'].includes(
        name.toLowerCase(),
      ),
  );
/** Header values Node lets a client send (printable ASCII and tab). */
const HEADER_VALUE = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

function sendable([name, value]: [string, string]): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

const randomHeaders: fc.Arbitrary<string[]> = fc
  .array(
    fc.oneof(
      fc.tuple(HEADER_NAME, HEADER_VALUE).filter(sendable),
      fc.tuple(
        fc.constantFrom(
          'Origin',
          'Accept',
          'Accept-Charset',
          'If-None-Match',
          'If-Modified-Since',
          'X-Forwarded-For',
          'User-Agent',
          'Cookie',
          'Range',
          'X-Amzn-Trace-Id',
        ),
        HEADER_VALUE,
      ),
    ),
    { maxLength: 6 },
  )
  .map((pairs) => pairs.flat());

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=bogus-8',
  'application/json-patch+json',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=latin1',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=abc',
  'multipart/form-data; boundary="x y"',
  `multipart/form-data; boundary=${'b'.repeat(200)}`,
  'text/plain',
  'text/plain; charset=utf-16',
  'application/octet-stream',
  'text/html',
  ';;;',
  '*/*',
  'application/xml',
  'image/png',
];

const contentTypeHeader: fc.Arbitrary<string[]> = fc.oneof(
  fc.constant([] as string[]),
  fc.constantFrom(...CONTENT_TYPES).map((v) => ['Content-Type', v]),
  HEADER_VALUE.map((v) => ['Content-Type', v]),
  fc
    .tuple(fc.constantFrom(...CONTENT_TYPES), fc.constantFrom(...CONTENT_TYPES))
    .map(([a, b]) => ['Content-Type', a, 'Content-Type', b]),
);
const encodingHeader: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 4, arbitrary: fc.constant([] as string[]) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('gzip', 'deflate', 'br', 'gzip, gzip', 'identity', 'x-bogus')
      .map((v) => ['Content-Encoding', v]),
  },
);

function nested(depth: number, kind: number): string {
  if (kind === 0) return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  if (kind === 1) return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  // Unbalanced: opened and never closed.
  return `{"email":"x@y.z","a":${'['.repeat(depth)}`;
}

const jsonObjectish = fc
  .dictionary(
    fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        'email',
        'name',
        'nome',
        'lead_id',
        'google_key',
        'user_column_data',
        'form_response',
        'entry',
        'leads',
        'contact',
        'data.json',
        '__proto__',
        'constructor',
        'idBranch',
        'cellphone',
        'birthday',
        'cpf',
      ),
    ),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 8 },
  )
  .map((o) => JSON.stringify(o));

const urlencoded = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.string({ maxLength: 10 }).map(encodeURIComponent),
        fc.constantFrom(
          'a[b][c]',
          'a[]',
          '[',
          ']]',
          'a[[b]]',
          '__proto__[x]',
          'constructor[prototype][y]',
          'objetivo%5B%5D',
          'email',
          'nome',
          'token',
          'data.json',
          '%',
          '%E0%A4%A',
          'a[0][1][2][3][4][5][6][7][8][9][10]',
        ),
      ),
      fc.oneof(
        fc.string({ maxLength: 20 }).map(encodeURIComponent),
        fc.constantFrom('%ZZ', '%', '+++', '%00', '%7B%22a%22%3A', '%5B%5D'),
      ),
    ),
    { maxLength: 12 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

const multipart = fc
  .tuple(
    fc.constantFrom('abc', 'xyz', '', '----WebKitFormBoundary7MA4YWxkTrZu0gW'),
    fc.array(fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 30 })), {
      maxLength: 4,
    }),
    fc.boolean(),
  )
  .map(([boundary, parts, closed]) => {
    const body = parts
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      )
      .join('');
    return `${body}${closed ? `--${boundary}--\r\n` : ''}`;
  });

const bodyArb: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(Buffer.alloc(0)) },
  { weight: 3, arbitrary: fc.uint8Array({ maxLength: 2048 }).map((a) => Buffer.from(a)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 1000, max: 300_000 }))
      .map(([unit, size]) =>
        Buffer.from(unit.repeat(Math.ceil(size / unit.length)).slice(0, size)),
      ),
  },
  { weight: 3, arbitrary: fc.json({ maxDepth: 4 }).map((s) => Buffer.from(s)) },
  { weight: 3, arbitrary: jsonObjectish.map((s) => Buffer.from(s)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 50, max: 20_000 }), fc.integer({ min: 0, max: 2 }))
      .map(([depth, kind]) => Buffer.from(nested(depth, kind))),
  },
  { weight: 3, arbitrary: urlencoded.map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: multipart.map((s) => Buffer.from(s)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef]),
      Buffer.from('\ufeff{"email":"a@b.c"}'),
      Buffer.from('{"email":"\ud800"}'),
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1]),
      Buffer.from('null'),
      Buffer.from('"string"'),
      Buffer.from('1e999999'),
      Buffer.from('{"idBranch": 123456789012345678901234567890}'),
      Buffer.from('{"entry":[{"changes":[{"value":{"leadgen_id":"1"}}]}]}'),
      Buffer.from('{"google_key":"x","lead_id":"1","user_column_data":{}}'),
      Buffer.from('{"since":"2025-05-02T00:00:00Z","until":"2025-05-03T00:00:00Z"}'),
      Buffer.from('{"since":"2025-05-02T00:00:00Z","until":"9999-12-31T00:00:00Z"}'),
      Buffer.from('{"since":"2025-05-02","until":"2025-05-03","extra":1}'),
      Buffer.from(
        '{"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":{"contacts":[{"wa_id":"5511987654321"}],"messages":[{"from":"5511987654321","id":"x","type":"text","referral":{"source_id":"1"}}]}}]}]}',
      ),
      Buffer.from('{"object":1,"entry":[{"id":"7412345678901234567","page_id":"1"}]}'),
    ),
  },
);

const requestArb: fc.Arbitrary<RawRequest> = routeArb.chain((route) =>
  fc
    .record({
      query: queryString,
      creds: credentialsFor(route),
      webhook: route.kind === 'intake' ? webhookAuth : fc.constant([] as string[]),
      headers: randomHeaders,
      contentType: contentTypeHeader,
      encoding: encodingHeader,
      body: bodyArb,
    })
    .map(({ query, creds, webhook, headers, contentType, encoding, body }) => ({
      method: route.method,
      path: `${route.path}${query}`,
      headers: [...contentType, ...encoding, ...creds, ...webhook, ...headers],
      body: route.method === 'GET' || route.method === 'HEAD' ? Buffer.alloc(0) : body,
    })),
);

function describeRequest(req: RawRequest): string {
  const pairs: string[] = [];
  for (let i = 0; i + 1 < req.headers.length; i += 2)
    pairs.push(`${req.headers[i]}: ${req.headers[i + 1]}`);
  const body = req.body ?? Buffer.alloc(0);
  return `${req.method} ${req.path}\n${pairs.join('\n')}\nbody (${body.length} bytes): ${JSON.stringify(body.subarray(0, 200).toString('latin1'))}`;
}

// ---------------------------------------------------------------------------------------------

describe('abuse: generated requests against every route', () => {
  it('never answers 5xx, always answers, stores and delivers nothing unauthentic', async () => {
    const ledgerBefore = await rt.countLeads();
    const upstreamBefore = (await sandboxProspects(rt.sandboxUrl)).length;
    const statuses = new Map<number, number>();

    await fc.assert(
      fc.asyncProperty(requestArb, async (req) => {
        const result = await rawRequest(rt.url, req, { agent, timeoutMs: 35_000 });
        if (!result.ok) {
          throw new Error(`no answer (${result.error}) to\n${describeRequest(req)}`);
        }
        statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
        if (result.status >= 500) {
          throw new Error(
            `${result.status} ${result.body.toString('utf8').slice(0, 300)} for\n${describeRequest(req)}`,
          );
        }
      }),
      { seed: 20_251_121, numRuns: 1500, endOnFailure: true },
    );

    // The worker had its chance to deliver anything that was stored.
    await sleep(1500);
    expect(await rt.countLeads()).toBe(ledgerBefore);
    expect((await sandboxProspects(rt.sandboxUrl)).length).toBe(upstreamBefore);
    // Sanity: the generated mix reaches refusals and successes, not one gateway 403 only.
    const seen = Object.fromEntries(statuses);
    reportResult(`abuse status mix ${JSON.stringify(seen)}`);
    expect(seen, JSON.stringify(seen)).toHaveProperty('401');
    expect(seen, JSON.stringify(seen)).toHaveProperty('403');
    expect(
      [...statuses.keys()].some((s) => s >= 200 && s < 300),
      JSON.stringify(seen),
    ).toBe(true);

    const health = await fetch(new URL('/health', rt.url));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  }, 55_000);

  it('a burst of concurrent malformed requests leaves the gateway healthy', async () => {
    const samples = fc.sample(requestArb, { seed: 4242, numRuns: 40 });
    const results = await Promise.all(
      samples.map((req) => rawRequest(rt.url, req, { timeoutMs: 35_000 })),
    );
    const failures = results
      .map((result, i) => ({ result, req: samples[i] as RawRequest }))
      .filter(({ result }) => !result.ok || result.status >= 500)
      .map(({ result, req }) =>
        result.ok
          ? `${result.status} for ${describeRequest(req)}`
          : `${result.error} for ${describeRequest(req)}`,
      );
    expect(failures).toEqual([]);
    const health = await fetch(new URL('/health', rt.url));
    expect(health.status).toBe(200);
  }, 50_000);
});
