/**
 * The debtors report through the local runtime: the refresher pages the sandbox once, then the
 * gateway serves every report route from the stored snapshot. Checks that the seed-shaped list
 * answers exactly what the upstream (the sandbox) answers for the same query, that serving
 * never calls the upstream, and the HTTP behaviour a client sees through the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const REPORTER = { authorization: basic('reporter', 'reporter-secret') };
const ADMIN = { authorization: basic('ops', 'ops-secret') };
const SANDBOX = { authorization: basic(TEST_UPSTREAM.username, TEST_UPSTREAM.password) };
const LIST = '/api/v1/receivables/debtors';

let rt: TestRuntime;

async function sandboxStats(): Promise<{ byRoute: Record<string, Record<string, number>> }> {
  const response = await fetch(new URL('/_sandbox/stats', rt.sandboxUrl));
  return (await response.json()) as { byRoute: Record<string, Record<string, number>> };
}

/** Upstream calls of the debtors list so far, whatever their status. */
async function upstreamListCalls(): Promise<number> {
  const counts = (await sandboxStats()).byRoute[`GET ${LIST}`] ?? {};
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

function get(path: string, headers: Record<string, string> = REPORTER): Promise<Response> {
  return fetch(new URL(path, rt.url), { headers });
}

/** Polls until `check` is truthy (the refresher works in the background). */
async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error('timed out waiting for the report');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Report {
  generatedAt: string;
  total: number;
  summary: Record<string, number>;
}

beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [
      { username: 'ops', password: 'ops-secret', roles: ['report:read', 'admin'] },
      { username: 'reporter', password: 'reporter-secret', roles: ['report:read'] },
      { username: 'writer', password: 'writer-secret', roles: ['prospects:write'] },
    ],
    profiles: {},
    report: { branches: [1, 2, 3], refreshSeconds: 900 },
  });
  // The comparison below asks the sandbox directly many times: lift its rate limits so that
  // those calls are never refused (they are not what this test is about).
  await fetch(new URL('/_sandbox/faults', rt.sandboxUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ perSecond: 10_000, perMinute: 1_000_000 }),
  });
  await waitFor(async () => (await get('/reports/debtors')).status === 200);
}, 60_000);
afterAll(() => rt?.stop());

describe('GET /api/v1/receivables/debtors through the gateway', () => {
  const queries = [
    '',
    'take=10',
    'take=50&skip=50',
    'take=500',
    'skip=170',
    'skip=1000',
    'idBranch=1',
    'idBranch=2&take=20&skip=20',
    'idBranch=3&skip=40',
    'idBranch=4',
    'debtStatus=1',
    'debtStatus=2',
    'debtStatus=Open&take=25&skip=25',
    'debtStatus=recovered',
    'memberStatus=1',
    'memberStatus=2',
    'memberStatus=3',
    'memberStatus=Active&idBranch=2',
    'memberStatus=freeze&debtStatus=open',
    'memberStatus=Inactive&debtStatus=2&idBranch=1',
    'IDBRANCH=2&DEBTSTATUS=1',
    'take=&skip=&idBranch=',
    'take=0',
  ];

  it.each(queries)('?%s answers exactly what the sandbox answers', async (query) => {
    const [ours, theirs] = await Promise.all([
      get(`${LIST}?${query}`),
      fetch(new URL(`${LIST}?${query}`, rt.sandboxUrl), { headers: SANDBOX }),
    ]);
    expect(theirs.status).toBe(200);
    expect(ours.status).toBe(200);
    expect(await ours.json()).toEqual(await theirs.json());
  });

  it('pages through every row exactly as the sandbox does', async () => {
    const ours: unknown[] = [];
    const theirs: unknown[] = [];
    for (let skip = 0; ; skip += 50) {
      const a = (await (await get(`${LIST}?take=50&skip=${skip}`)).json()) as {
        results: unknown[];
      };
      const b = (await (
        await fetch(new URL(`${LIST}?take=50&skip=${skip}`, rt.sandboxUrl), { headers: SANDBOX })
      ).json()) as { results: unknown[] };
      ours.push(...a.results);
      theirs.push(...b.results);
      if (b.results.length < 50) break;
    }
    expect(ours).toEqual(theirs);
    expect(ours.length).toBeGreaterThan(100);
  });

  it('refuses what the sandbox refuses, in the contract error shape', async () => {
    for (const query of [
      'take=-1',
      'skip=abc',
      'idBranch=x',
      'debtStatus=9',
      'memberStatus=nope',
    ]) {
      const ours = await get(`${LIST}?${query}`);
      const theirs = await fetch(new URL(`${LIST}?${query}`, rt.sandboxUrl), { headers: SANDBOX });
      expect(theirs.status).toBe(400);
      expect(ours.status).toBe(400);
      const body = (await ours.json()) as { error: { code: string; details: string[] } };
      expect(body.error.code).toBe('invalid_query');
      expect(body.error.details).toEqual(
        ((await theirs.json()) as { mensagens: string[] }).mensagens,
      );
    }
  });
});

describe('serving from the snapshot', () => {
  it('makes no upstream call however many report requests it answers', async () => {
    const before = await upstreamListCalls();
    expect(before).toBeGreaterThan(0);
    const paths = [
      LIST,
      `${LIST}?idBranch=2`,
      `${LIST}?debtStatus=1&take=5`,
      '/reports/debtors',
      '/reports/debtors?branch=1,2&sort=-daysOverdue',
      '/reports/debtors?q=maria&take=10',
      '/reports/debtors.csv',
      '/reports/debtors.csv?debtStatus=open',
      '/reports/debtors.html',
    ];
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(paths.map((path) => get(path)));
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        await answer.arrayBuffer();
      }
    }
    expect(await upstreamListCalls()).toBe(before);
  });

  it('answers the JSON report with the snapshot’s figures, matching the seed list', async () => {
    const report = (await (await get('/reports/debtors')).json()) as Report & { stale: boolean };
    const list = (await (await get(LIST)).json()) as {
      total: number;
      summary: Record<string, number>;
    };
    expect(report.stale).toBe(false);
    expect(report.total).toBe(list.total);
    expect(report.summary).toEqual(list.summary);
  });

  it('serves the CSV as an attachment in UTF-8 with BOM, in Portuguese unless intl is asked', async () => {
    const response = await get('/reports/debtors.csv');
    expect(response.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="devedores-todas-as-unidades-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect((await get('/reports/debtors.csv?branch=2')).headers.get('content-disposition')).toMatch(
      /^attachment; filename="devedores-unidade-moema-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const bytes = Buffer.from(await response.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.toString('utf8').split('\r\n');
    expect(lines[0]).toMatch(/^\uFEFFCódigo do aluno;Nome;Situação do aluno;/);
    const status = lines[0]?.split(';').indexOf('Situação') ?? -1;
    const statuses = new Set(lines.slice(1, -1).map((line) => line.split(';')[status]));
    expect(statuses).toEqual(new Set(['Em aberto', 'Recuperado']));

    const intl = (await (await get('/reports/debtors.csv?dialect=intl')).text()).split('\r\n');
    expect(intl[0]).toMatch(/^memberId,name,memberStatus,/); // text() drops the BOM
  });

  it('answers 304 to a matching If-None-Match, and gzip when asked', async () => {
    const first = await get('/reports/debtors?take=5');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\//);
    expect(first.headers.get('vary')).toBe('Accept-Encoding, Authorization');
    const again = await get('/reports/debtors?take=5', { ...REPORTER, 'if-none-match': etag });
    expect(again.status).toBe(304);

    const zipped = await get('/reports/debtors', { ...REPORTER, 'accept-encoding': 'gzip' });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(((await zipped.json()) as Report).total).toBeGreaterThan(0);
  });

  it('refuses missing credentials (401) and a client without the role (403)', async () => {
    const anonymous = await get('/reports/debtors.html', {});
    expect(anonymous.status).toBe(401);
    // The gateway's own challenge (the Basic-auth authorizer's 401), under its real name, so
    // a browser shows its login prompt.
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm="leads"/);
    expect(anonymous.headers.get('x-amzn-remapped-www-authenticate')).toBeNull();
    const writer = await get('/reports/debtors', {
      authorization: basic('writer', 'writer-secret'),
    });
    expect(writer.status).toBe(403);
    expect(((await writer.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });
});

describe('POST /admin/reports/debtors/refresh', () => {
  it('is for admin only, and starts a refresh that replaces the snapshot', async () => {
    const refresh = (headers: Record<string, string>) =>
      fetch(new URL('/admin/reports/debtors/refresh', rt.url), { method: 'POST', headers });
    expect((await refresh(REPORTER)).status).toBe(403);

    const before = (await (await get('/reports/debtors?take=0')).json()) as Report;
    const calls = await upstreamListCalls();
    const accepted = await refresh(ADMIN);
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ status: 'refresh_requested' });

    const after = await waitFor(async () => {
      const report = (await (await get('/reports/debtors?take=0')).json()) as Report;
      return report.generatedAt !== before.generatedAt ? report : undefined;
    });
    expect(after.total).toBe(before.total);
    expect(await upstreamListCalls()).toBeGreaterThan(calls);
  });
});
