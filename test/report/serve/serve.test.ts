/**
 * The report use case (functions/report/serve/serve.ts) over an in-memory ReportStore: auth, the
 * seed-shaped list, the JSON report's filters, sort and paging, caching (ETag, 304, gzip), the
 * answers before the first snapshot and when the report is stale.
 */
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { computeSummary, type Debtor } from '../../../functions/domain/debtors.ts';
import { buildSnapshot, type DebtorsSnapshot } from '../../../functions/domain/debtors-report.ts';
import type { Client } from '../../../functions/kernel/client-schema.ts';
import type { HttpRequest } from '../../../functions/kernel/http.ts';
import { SCRIPT_FILE as DASHBOARD_SCRIPT } from '../../../functions/report/serve/browser/dist/dashboard-file.ts';
import { type ReportDeps, serveReport } from '../../../functions/report/serve/serve.ts';
import type {
  RefreshStatus,
  StoredSnapshot,
} from '../../../functions/report/store/report-store.ts';
import { generateDebtors } from '../../../sandbox/debtors-data.ts';
import { expectNoInlineScript } from '../../helpers/page-scripts.ts';

const NOW = new Date('2026-11-21T15:00:00.000Z');
const CLIENTS: Client[] = [
  { username: 'ops', password: 'ops-secret', roles: ['prospects:write', 'report:read', 'admin'] },
  { username: 'reporter', password: 'reporter-secret', roles: ['report:read'] },
  { username: 'writer', password: 'writer-secret', roles: ['prospects:write'] },
  { username: 'north', password: 'north-secret', roles: ['report:read'], branches: [1, 3] },
];
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const REPORTER = basic('reporter', 'reporter-secret');
const OPS = basic('ops', 'ops-secret');

/** Demo rows plus rows whose names test escaping, accents and search. */
function fixtureRows(): Debtor[] {
  const demo = generateDebtors({ count: 180, branches: [1, 2, 3], seed: 42 }, NOW);
  const template = demo.find((row) => row.debtStatus === 'Open' && row.branchId === 1);
  if (!template) throw new Error('the demo data has no open row in branch 1');
  const special = [
    'JOÃO DA CONCEIÇÃO',
    'ANA "ANINHA" SOUZA; FILHA',
    'MARIA\r\nDAS DORES',
    '=HYPERLINK("http://evil.example")',
    '</script><img src=x onerror=alert(1)>',
  ].map((name, i) => ({
    ...template,
    name,
    memberId: 990_000 + i,
    receivableId: 990_000 + i,
    dueDate: '2026-01-15T00:00:00',
  }));
  return [...demo, ...special];
}

function snapshotOf(rows: readonly Debtor[], generatedAt = NOW.toISOString()): DebtorsSnapshot {
  const branches = new Map<number, Debtor[]>();
  for (const row of rows) {
    const id = Number(row.branchId);
    branches.set(id, [...(branches.get(id) ?? []), row]);
  }
  return buildSnapshot({
    branches: [...branches].map(([branchId, list]) => ({
      branchId,
      rows: list,
      total: list.length,
      summary: computeSummary(list),
    })),
    startedAt: generatedAt,
    generatedAt,
    timeZone: 'America/Sao_Paulo',
    pageCalls: 4,
  });
}

const OK_STATUS: RefreshStatus = {
  lastStartedAt: NOW.toISOString(),
  lastSucceededAt: NOW.toISOString(),
  failures: 0,
};

interface Harness {
  deps: ReportDeps;
  /** The account `default`'s store, which every request here reads. */
  store: {
    readSnapshot: () => Promise<StoredSnapshot | undefined>;
    readStatus: () => Promise<RefreshStatus>;
  };
  requestRefresh: ReturnType<typeof vi.fn>;
  setSnapshot(snapshot: DebtorsSnapshot | undefined, etag?: string): void;
  setStatus(status: RefreshStatus): void;
  setNow(now: Date): void;
}

function harness(snapshot: DebtorsSnapshot | undefined = snapshotOf(fixtureRows())): Harness {
  let stored: StoredSnapshot | undefined = snapshot && { snapshot, etag: '"v1"' };
  let status = OK_STATUS;
  let now = NOW;
  const requestRefresh = vi.fn(async () => {});
  const store = { readSnapshot: async () => stored, readStatus: async () => status };
  return {
    store,
    deps: {
      config: {
        clients: async () => CLIENTS,
        accounts: async () => ['default'],
        report: async () => ({
          branches: [1, 2, 3],
          refreshSeconds: 900,
          timeZone: 'America/Sao_Paulo',
        }),
      },
      stores: () => store,
      trigger: { requestRefresh },
      now: () => now,
    },
    requestRefresh,
    setSnapshot(next, etag = '"v2"') {
      stored = next && { snapshot: next, etag };
    },
    setStatus(next) {
      status = next;
    },
    setNow(next) {
      now = next;
    },
  };
}

function request(
  method: string,
  url: string,
  headers: Record<string, string> = {},
): { resource: string; request: HttpRequest } {
  const parsed = new URL(url, 'http://localhost');
  const query: Record<string, string[]> = {};
  for (const [key, value] of parsed.searchParams) {
    query[key] = [...((Object.hasOwn(query, key) && query[key]) || []), value];
  }
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    resource: parsed.pathname,
    request: {
      method,
      headers: lower,
      query,
      body: Buffer.alloc(0),
      contentType: '',
      receivedAt: NOW,
    },
  };
}

async function call(
  h: Harness,
  method: string,
  url: string,
  headers: Record<string, string> = { authorization: REPORTER },
): Promise<APIGatewayProxyResult> {
  const { resource, request: req } = request(method, url, headers);
  return serveReport(resource, req, h.deps);
}

const get = (h: Harness, url: string, headers?: Record<string, string>) =>
  call(h, 'GET', url, headers ?? { authorization: REPORTER });

/** The body as text, gunzipped when it came compressed. */
function text(result: APIGatewayProxyResult): string {
  if (!result.isBase64Encoded) return result.body;
  const bytes = Buffer.from(result.body, 'base64');
  return result.headers?.['content-encoding'] === 'gzip'
    ? gunzipSync(bytes).toString('utf8')
    : bytes.toString('utf8');
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON answers are checked field by field
function body(result: APIGatewayProxyResult): any {
  return JSON.parse(text(result));
}

type Row = Debtor & { daysOverdue: number | null; ageingBucket: string | null };

/** Every row of the JSON report matching `query` (all pages). */
async function allRows(h: Harness, query: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (let skip = 0; ; skip += 1000) {
    const result = await get(h, `/reports/debtors?${query}&take=1000&skip=${skip}`);
    expect(result.statusCode).toBe(200);
    const page = body(result);
    rows.push(...page.results);
    if (rows.length >= page.total) return rows;
  }
}

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

const unescapeHtml = (s: string) =>
  s
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');

/** The dashboard's list, one entry per member, from their data attributes, in page order. */
function listed(page: string) {
  return [...page.matchAll(/<tbody (class="member"[^>]*)>/g)].map((m) => {
    const attr = (name: string) =>
      unescapeHtml(new RegExp(`data-${name}="([^"]*)"`).exec(m[1] ?? '')?.[1] ?? '');
    return {
      name: attr('name'),
      branch: attr('branch'),
      amount: Number(attr('amount')),
      days: attr('days') === '' ? null : Number(attr('days')),
      owes: attr('owes') === '1',
      debts: Number(attr('debts')),
      hidden: / hidden$/.test(m[1] ?? ''),
    };
  });
}

/** How many members these rows are of. */
const membersOf = (rows: readonly Debtor[]) => new Set(rows.map((r) => r.memberId)).size;

const ROUTES = [
  '/api/v1/receivables/debtors',
  '/reports/debtors',
  '/reports/debtors.csv',
  '/reports/debtors.html',
];

let h: Harness;
beforeEach(() => {
  h = harness();
});

describe('authentication and roles', () => {
  const JSON_ROUTES = ROUTES.filter((path) => !path.endsWith('.html'));
  const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const attempts: Record<string, string>[] = [
    {},
    { authorization: basic('reporter', 'wrong') },
    { authorization: 'Bearer x' },
  ];

  it.each(JSON_ROUTES)(
    '%s answers 401 with a Basic challenge without valid credentials',
    async (path) => {
      for (const headers of attempts) {
        const result = await get(h, path, headers);
        expect(result.statusCode).toBe(401);
        expect(result.headers?.['www-authenticate']).toMatch(/^Basic realm=/);
        expect(body(result)).toMatchObject({ error: { code: 'unauthorized' } });
      }
    },
  );

  it.each(JSON_ROUTES)('%s answers 403 to a client without report:read', async (path) => {
    const result = await get(h, path, { authorization: basic('writer', 'writer-secret') });
    expect(result.statusCode).toBe(403);
    expect(result.headers?.['www-authenticate']).toBeUndefined();
    expect(body(result)).toMatchObject({ error: { code: 'forbidden' } });
  });

  it.each([
    ['the dashboard', '/reports/debtors.html', {}],
    ['a browser opening the CSV', '/reports/debtors.csv', { accept: BROWSER }],
  ])(
    'answers %s 401 and 403 with a Portuguese page, keeping the challenge',
    async (_, path, extra) => {
      for (const headers of attempts) {
        const result = await get(h, path, { ...headers, ...extra });
        expect(result.statusCode).toBe(401);
        expect(result.headers?.['www-authenticate']).toMatch(/^Basic realm=/);
        expect(result.headers?.['content-type']).toBe('text/html; charset=utf-8');
        expect(result.headers?.['cache-control']).toBe('no-store');
        expect(text(result)).toContain('Entre com seu usuário e senha');
        expect(text(result)).toContain('<html lang="pt-BR">');
      }
      const forbidden = await get(h, path, {
        authorization: basic('writer', 'writer-secret'),
        ...extra,
      });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.headers?.['content-security-policy']).toContain("default-src 'none'");
      expect(text(forbidden)).toContain('Este usuário não tem acesso a esta página');
      expect(text(forbidden)).toContain('não tem permissão para ver o relatório de devedores');
    },
  );

  it('keeps the JSON for programs on every route, whatever else they accept', async () => {
    for (const accept of ['application/json', '*/*', 'application/json, text/html', '']) {
      const result = await get(h, '/reports/debtors.html', { accept });
      expect(result.statusCode).toBe(401);
      // The dashboard's address answers a page whatever Accept says: people open it.
      expect(text(result)).toContain('Entre com seu usuário e senha');
      const csv = await get(h, '/reports/debtors.csv', { accept });
      expect(body(csv)).toMatchObject({ error: { code: 'unauthorized' } });
    }
  });

  it('answers a sign-in locked by failed attempts with 429: a page that says when, or JSON', async () => {
    // Prepare: the gateway's authorizer flagged the sign-in as locked for 5 minutes
    const locked = (path: string, accept?: string) => {
      const { resource, request: req } = request('GET', path, {
        authorization: REPORTER,
        ...(accept && { accept }),
      });
      return serveReport(
        resource,
        { ...req, authorizer: { throttled: 'true', retryAfter: '300' } },
        h.deps,
      );
    };

    // Act
    const page = await locked('/reports/debtors.html', BROWSER);
    const json = await locked('/reports/debtors', 'application/json');

    // Assess
    expect(page.statusCode).toBe(429);
    expect(page.headers?.['retry-after']).toBe('300');
    expect(text(page)).toContain('Muitas tentativas erradas de entrar');
    expect(text(page)).toContain('Tente de novo daqui a 5 minutos.');
    expect(json.statusCode).toBe(429);
    expect(body(json)).toMatchObject({ error: { code: 'too_many_failures' } });
  });

  it('tells a client scoped to some branches, in Portuguese, which ones it sees', async () => {
    const north = { authorization: basic('north', 'north-secret') };
    const page = await get(h, '/reports/debtors.html?branch=2', north);
    expect(page.statusCode).toBe(403);
    expect(text(page)).toContain(
      'Este usuário vê só as unidades 1 e 3; o endereço pede a unidade 2.',
    );
    expect(text(page)).toContain('<a class="button" href="debtors.html">Abrir o relatório</a>');
    const json = await get(h, '/reports/debtors?branch=2', north);
    expect(body(json)).toMatchObject({ error: { code: 'branch_forbidden' } });
  });

  it('answers an account the dashboard’s address gets wrong with its Portuguese 400 page', async () => {
    const page = await get(h, '/reports/debtors.html?upstream=sul');
    expect(page.statusCode).toBe(400);
    expect(text(page)).toContain('Não entendemos o endereço desta página');
    expect(text(page)).toContain('não há conta “sul”; as contas são “default”');
    const json = await get(h, '/reports/debtors?upstream=sul');
    expect(body(json)).toMatchObject({ error: { code: 'unknown_upstream' } });
  });

  it('lets only admin ask for a refresh, and answers 202 once it is requested', async () => {
    const refused = await call(h, 'POST', '/admin/reports/debtors/refresh', {
      authorization: REPORTER,
    });
    expect(refused.statusCode).toBe(403);
    expect(h.requestRefresh).not.toHaveBeenCalled();
    const anonymous = await call(h, 'POST', '/admin/reports/debtors/refresh', {});
    expect(anonymous.statusCode).toBe(401);

    const accepted = await call(h, 'POST', '/admin/reports/debtors/refresh', {
      authorization: OPS,
    });
    expect(accepted.statusCode).toBe(202);
    expect(body(accepted)).toEqual({ status: 'refresh_requested' });
    expect(h.requestRefresh).toHaveBeenCalledTimes(1);
    expect(h.requestRefresh).toHaveBeenCalledWith({ reason: 'admin', upstream: 'default' });
  });

  it('answers 503 when the refresh cannot be requested, and 405 to a wrong method', async () => {
    h.requestRefresh.mockRejectedValueOnce(new Error('queue down'));
    const failed = await call(h, 'POST', '/admin/reports/debtors/refresh', { authorization: OPS });
    expect(failed.statusCode).toBe(503);
    expect(body(failed)).toMatchObject({ error: { code: 'refresh_unavailable' } });
    const wrong = await call(h, 'POST', '/reports/debtors', { authorization: OPS });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers?.allow).toBe('GET');
  });
});

describe('GET /reports/debtors.csv: the file’s name', () => {
  const fileName = (result: APIGatewayProxyResult) =>
    /filename="([^"]+)"/.exec(String(result.headers?.['content-disposition']))?.[1];
  const snapshot = snapshotOf(fixtureRows());
  const nameOf = (id: number) => snapshot.byBranch.find((b) => b.branchId === id)?.branchName;

  it('says which branches and which day (in the account’s time zone) it holds', async () => {
    expect(nameOf(2)).toBe('Unidade Moema');
    expect(fileName(await get(h, '/reports/debtors.csv'))).toBe(
      'devedores-todas-as-unidades-2026-11-21.csv',
    );
    expect(fileName(await get(h, '/reports/debtors.csv?branch=2'))).toBe(
      'devedores-unidade-moema-2026-11-21.csv',
    );
    expect(fileName(await get(h, '/reports/debtors.csv?branch=3,1&debtStatus=open'))).toBe(
      'devedores-unidades-1-3-2026-11-21.csv',
    );
    expect(fileName(await get(h, '/reports/debtors.csv?branch=9'))).toBe(
      'devedores-unidade-9-2026-11-21.csv',
    );
    // 02:30 in UTC is still the evening before in São Paulo.
    h.setSnapshot(snapshotOf(fixtureRows(), '2026-11-22T02:30:00.000Z'));
    expect(fileName(await get(h, '/reports/debtors.csv'))).toBe(
      'devedores-todas-as-unidades-2026-11-21.csv',
    );
  });

  it('names a client’s own branches when it sees only some of them', async () => {
    const north = { authorization: basic('north', 'north-secret') };
    expect(fileName(await get(h, '/reports/debtors.csv', north))).toBe(
      'devedores-unidades-1-3-2026-11-21.csv',
    );
    expect(fileName(await get(h, '/reports/debtors.csv?branch=3', north))).toBe(
      `devedores-${nameOf(3)?.toLowerCase().replaceAll(' ', '-')}-2026-11-21.csv`,
    );
  });
});

describe('links shared with tracking parameters', () => {
  const TRACKING = 'fbclid=IwAR2xYz&utm_source=whatsapp&UTM_MEDIUM=social&gclid=Cj0K&igshid=MzRl';

  it.each(ROUTES)('%s ignores them: the same answer and ETag as without them', async (path) => {
    // Prepare
    const branch = path.startsWith('/api/') ? 'idBranch=2' : 'branch=2';
    const plain = await get(h, `${path}?${branch}`);

    // Act
    const shared = await get(h, `${path}?${branch}&${TRACKING}`);

    // Assess
    expect(plain.statusCode).toBe(200);
    expect(shared.statusCode).toBe(200);
    expect(shared.headers?.etag).toBe(plain.headers?.etag);
    expect(text(shared)).toBe(text(plain));
  });

  it('still refuses a parameter that is no tracking parameter', async () => {
    const result = await get(h, `/reports/debtors.html?${TRACKING}&colour=red`);
    expect(result.statusCode).toBe(400);
    const page = text(result);
    expect(page).toContain('<code>colour</code>');
    expect(page).not.toContain('fbclid');
    expect(page).not.toContain('utm_');
  });
});

describe('before the first snapshot', () => {
  const JSON_ROUTES = ROUTES.filter((path) => !path.endsWith('.html'));

  it.each(JSON_ROUTES)('%s answers 503 report_not_ready with Retry-After', async (path) => {
    h.setSnapshot(undefined);
    const result = await get(h, path);
    expect(result.statusCode).toBe(503);
    expect(Number(result.headers?.['retry-after'])).toBeGreaterThan(0);
    expect(result.headers?.['cache-control']).toBe('no-store');
    expect(body(result)).toMatchObject({ error: { code: 'report_not_ready' } });
  });

  it('answers the dashboard with a Portuguese page that reloads itself, not JSON', async () => {
    // Prepare
    h.setSnapshot(undefined);

    // Act
    const result = await get(h, '/reports/debtors.html');

    // Assess
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(result.headers?.['content-security-policy']).toContain("default-src 'none'");
    expect(result.headers?.['cache-control']).toBe('no-store');
    const seconds = Number(result.headers?.['retry-after']);
    expect(seconds).toBeGreaterThan(0);
    const page = text(result);
    expect(page).toMatch(/^<!doctype html>\n<html lang="pt-BR">/);
    expect(page).toContain(`<meta http-equiv="refresh" content="${seconds}">`);
    expect(page).toContain('data-reason="report_not_ready"');
    expect(page).toContain('O relatório de devedores ainda está sendo preparado');
    expect(page).toContain(`a cada ${seconds} segundos`);
    expect(page).not.toMatch(/"error"|report_not_ready"?\s*[,}]|try again/);
  });

  it('says on that page when the first refresh failed, without the error’s text', async () => {
    h.setSnapshot(undefined);
    h.setStatus({
      failures: 2,
      lastFailedAt: NOW.toISOString(),
      lastError: 'upstream unauthorized (HTTP 401) listing branch 1 at skip 0',
    });
    const page = text(await get(h, '/reports/debtors.html'));
    expect(page).toContain('A primeira atualização ainda não deu certo');
    expect(page).toContain('Tentaremos de novo automaticamente');
    expect(page).not.toMatch(/upstream|unauthorized|HTTP 401|skip/);
  });

  it('answers 503 report_unavailable when the store cannot be read: JSON, or the page', async () => {
    h.store.readSnapshot = async () => {
      throw new Error('S3 down');
    };
    const result = await get(h, '/reports/debtors');
    expect(result.statusCode).toBe(503);
    expect(body(result)).toMatchObject({ error: { code: 'report_unavailable' } });
    const page = await get(h, '/reports/debtors.html');
    expect(page.statusCode).toBe(503);
    expect(page.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(text(page)).toContain('O relatório de devedores não pôde ser aberto agora');
    expect(text(page)).not.toContain('S3');
  });
});

describe('GET /api/v1/receivables/debtors (the seed list)', () => {
  // The upstream's answer over the rows in the order the snapshot keeps (the upstream's own),
  // worked out here independently of the code under test: filter, page, then the documented
  // summary formulas in cents (recovered / open amounts and their averages over the matches).
  const rows = snapshotOf(fixtureRows()).rows;
  interface Filter {
    idBranch?: number;
    debtStatus?: string;
    memberStatus?: string;
  }
  const cents = (list: readonly Debtor[]) =>
    list.reduce((sum, row) => sum + Math.round((row.debtAmount ?? 0) * 100), 0);
  const average = (list: readonly Debtor[]) =>
    list.length === 0 ? 0 : Math.round(cents(list) / list.length) / 100;
  function expected(filter: Filter, take: number, skip: number) {
    const matching = rows.filter(
      (row) =>
        (filter.idBranch === undefined || row.branchId === filter.idBranch) &&
        (filter.debtStatus === undefined || row.debtStatus === filter.debtStatus) &&
        (filter.memberStatus === undefined || row.memberStatus === filter.memberStatus),
    );
    const recovered = matching.filter((row) => row.debtStatus === 'Recovered');
    const open = matching.filter((row) => row.debtStatus === 'Open');
    return {
      results: JSON.parse(JSON.stringify(matching.slice(skip, skip + take))),
      total: matching.length,
      summary: {
        recoveredValue: cents(recovered) / 100,
        recoveryAverage: average(recovered),
        pendingValue: cents(open) / 100,
        pendingAverage: average(open),
      },
    };
  }
  const cases: [string, Filter, number, number][] = [
    ['', {}, 50, 0],
    ['take=10&skip=5', {}, 10, 5],
    ['take=500', {}, 50, 0],
    ['idBranch=2', { idBranch: 2 }, 50, 0],
    ['IDBRANCH=3&skip=20', { idBranch: 3 }, 50, 20],
    ['debtStatus=1', { debtStatus: 'Open' }, 50, 0],
    ['debtStatus=recovered&take=7', { debtStatus: 'Recovered' }, 7, 0],
    ['memberStatus=Freeze', { memberStatus: 'Freeze' }, 50, 0],
    [
      'memberStatus=2&idBranch=1&debtStatus=Open',
      { idBranch: 1, memberStatus: 'Inactive', debtStatus: 'Open' },
      50,
      0,
    ],
    ['idBranch=9', { idBranch: 9 }, 50, 0],
    ['skip=10000', {}, 50, 10_000],
    ['take=&idBranch=&unknown=1', {}, 50, 0],
  ];
  it.each(cases)('?%s answers what the upstream answers', async (query, filter, take, skip) => {
    const result = await get(h, `/api/v1/receivables/debtors?${query}`);
    expect(result.statusCode).toBe(200);
    const answer = body(result) as { results: unknown[]; total: number };
    expect(answer).toEqual(expected(filter, take, skip));
  });

  it('pages through every matching row in the upstream order', async () => {
    const all = rows.filter((row) => row.branchId === 1);
    const seen: unknown[] = [];
    for (let skip = 0; skip < all.length; skip += 50) {
      const page = body(await get(h, `/api/v1/receivables/debtors?idBranch=1&skip=${skip}`)) as {
        results: { receivableId: unknown }[];
      };
      seen.push(...page.results.map((row) => row.receivableId));
    }
    expect(seen).toEqual(all.map((row) => row.receivableId));
    expect(new Set(seen).size).toBe(all.length);
  });

  it('answers 400 with details for parameters the upstream refuses', async () => {
    const result = await get(
      h,
      '/api/v1/receivables/debtors?take=-1&skip=x&debtStatus=9&memberStatus=nope',
    );
    expect(result.statusCode).toBe(400);
    const { error } = body(result);
    expect(error.code).toBe('invalid_query');
    expect(error.details).toHaveLength(4);
    expect(error.details.join(' ')).toMatch(/take.*skip.*debtStatus.*memberStatus/s);
  });
});

describe('GET /reports/debtors', () => {
  it('answers the report with its figures, refresh status and the first page', async () => {
    const result = await get(h, '/reports/debtors');
    expect(result.statusCode).toBe(200);
    const report = body(result);
    const snapshot = snapshotOf(fixtureRows());
    expect(report).toMatchObject({
      generatedAt: NOW.toISOString(),
      ageSeconds: 0,
      stale: false,
      refreshStatus: {
        lastSucceededAt: NOW.toISOString(),
        lastFailedAt: null,
        lastError: null,
        failures: 0,
      },
      summary: snapshot.summary,
      summarySource: snapshot.summarySource,
      byBranch: snapshot.byBranch,
      byDebtStatus: snapshot.byDebtStatus,
      byMemberStatus: snapshot.byMemberStatus,
      ageing: snapshot.ageing,
      filters: {},
      total: snapshot.rows.length,
      take: 100,
      skip: 0,
    });
    expect(report.results).toHaveLength(100);
    // Each row is the upstream row, unchanged, plus daysOverdue and ageingBucket.
    const [first] = report.results;
    const { daysOverdue, ageingBucket, ...upstream } = first;
    expect(upstream).toEqual(snapshot.rows[0]);
    expect(daysOverdue).toBe(snapshot.daysOverdue[0]);
    expect(['current', '1-30', '31-60', '61-90', '91+']).toContain(ageingBucket);
  });

  it('filters by branch, repeated or as a comma list', async () => {
    const repeated = await allRows(h, 'branch=1&branch=3');
    const comma = await allRows(h, 'branch=1,3');
    expect(repeated).toEqual(comma);
    expect(new Set(repeated.map((r) => r.branchId))).toEqual(new Set([1, 3]));
    const all = snapshotOf(fixtureRows()).rows;
    expect(repeated).toHaveLength(all.filter((r) => r.branchId === 1 || r.branchId === 3).length);
  });

  it('filters by debtStatus and memberStatus, by name or code', async () => {
    const open = await allRows(h, 'debtStatus=open');
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((r) => r.debtStatus === 'Open')).toBe(true);
    expect(await allRows(h, 'debtStatus=1')).toEqual(open);
    const frozenOrInactive = await allRows(h, 'memberStatus=Freeze,2');
    expect(new Set(frozenOrInactive.map((r) => r.memberStatus))).toEqual(
      new Set(['Freeze', 'Inactive']),
    );
    const page = body(await get(h, '/reports/debtors?debtStatus=Recovered'));
    expect(page.filters).toEqual({ debtStatus: ['Recovered'] });
    expect(page.filteredSummary.pendingValue).toBe(0);
    expect(page.filteredSummary.recoveredValue).toBe(page.summary.recoveredValue);
  });

  it('filters by days overdue and by due date', async () => {
    const late = await allRows(h, 'daysOverdueMin=31&daysOverdueMax=90');
    expect(late.length).toBeGreaterThan(0);
    expect(
      late.every((r) => r.daysOverdue !== null && r.daysOverdue >= 31 && r.daysOverdue <= 90),
    ).toBe(true);
    expect(new Set(late.map((r) => r.ageingBucket))).toEqual(new Set(['31-60', '61-90']));

    const dated = await allRows(h, 'dueFrom=2026-01-01&dueTo=2026-03-31');
    expect(dated.length).toBeGreaterThan(0);
    for (const row of dated) {
      const due = row.dueDate?.slice(0, 10) ?? '';
      expect(due >= '2026-01-01' && due <= '2026-03-31').toBe(true);
    }
    const all = snapshotOf(fixtureRows()).rows;
    expect(dated).toHaveLength(
      all.filter((r) => (r.dueDate ?? '') >= '2026-01-01' && (r.dueDate ?? '') < '2026-04-01')
        .length,
    );
  });

  it('searches names ignoring case and accents, every word', async () => {
    const joao = await allRows(h, 'q=joao');
    expect(joao.length).toBeGreaterThan(0);
    expect(joao.every((r) => fold(r.name ?? '').includes('joao'))).toBe(true);
    expect(joao.map((r) => r.name)).toContain('JOÃO DA CONCEIÇÃO');
    const words = await allRows(h, `q=${encodeURIComponent('Conceicao  joão')}`);
    expect(words.map((r) => r.name)).toContain('JOÃO DA CONCEIÇÃO');
    expect(words.every((r) => fold(r.name ?? '').includes('conceicao'))).toBe(true);
  });

  it.each([
    ['name', (r: Row) => fold(r.name ?? '')],
    ['dueDate', (r: Row) => r.dueDate ?? ''],
    ['debtAmount', (r: Row) => r.debtAmount ?? 0],
    ['daysOverdue', (r: Row) => r.daysOverdue ?? 0],
    ['branchId', (r: Row) => Number(r.branchId)],
  ] as const)('sorts by %s, ascending and descending', async (field, key) => {
    for (const [prefix, sign] of [
      ['', 1],
      ['-', -1],
    ] as const) {
      const rows = await allRows(h, `sort=${prefix}${field}`);
      expect(rows).toHaveLength(snapshotOf(fixtureRows()).rows.length);
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [key(rows[i - 1] as Row), key(rows[i] as Row)];
        if (typeof a === 'string' && typeof b === 'string') {
          expect(sign * a.localeCompare(b, 'pt-BR', { sensitivity: 'base' })).toBeLessThanOrEqual(
            0,
          );
        } else {
          expect(sign * (Number(a) - Number(b))).toBeLessThanOrEqual(0);
        }
      }
    }
  });

  it('sorts by several keys and keeps the snapshot order for ties', async () => {
    const rows = await allRows(h, 'sort=branchId,-debtAmount');
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1] as Row, rows[i] as Row];
      expect(Number(a.branchId) <= Number(b.branchId)).toBe(true);
      if (a.branchId === b.branchId) expect((a.debtAmount ?? 0) >= (b.debtAmount ?? 0)).toBe(true);
    }
    expect(body(await get(h, '/reports/debtors?sort=branchId,-debtAmount')).filters).toEqual({
      sort: 'branchId,-debtAmount',
    });
  });

  it('pages with take (default 100, at most 1000) and skip', async () => {
    const all = await allRows(h, '');
    const page = body(await get(h, '/reports/debtors?take=20&skip=40'));
    expect(page).toMatchObject({ take: 20, skip: 40, total: all.length });
    expect(page.results).toEqual(all.slice(40, 60));
    const max = body(await get(h, '/reports/debtors?take=1000'));
    expect(max.results).toHaveLength(all.length);
  });

  it('answers 400 naming every bad parameter', async () => {
    const result = await get(
      h,
      '/reports/debtors?take=1001&skip=-1&branch=x&debtStatus=late&daysOverdueMin=a&dueFrom=2026-02-30&sort=price&colour=red&constructor=1',
    );
    expect(result.statusCode).toBe(400);
    const { error } = body(result);
    expect(error.code).toBe('invalid_query');
    const fields = error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'take',
        'skip',
        'branch',
        'debtStatus',
        'daysOverdueMin',
        'dueFrom',
        'sort',
        'colour',
        'constructor',
      ]),
    );
    for (const field of ['take', 'sort', 'colour']) expect(error.message).toContain(field);
    const ranges = body(
      await get(
        h,
        '/reports/debtors?dueFrom=2026-05-01&dueTo=2026-04-01&daysOverdueMin=9&daysOverdueMax=1',
      ),
    );
    expect(ranges.error.details.map((d: { field: string }) => d.field)).toEqual([
      'daysOverdueMin',
      'dueFrom',
    ]);
  });
});

describe('staleness', () => {
  it('is fresh within twice the refresh interval and after a success', async () => {
    h.setNow(new Date(NOW.getTime() + 1700 * 1000));
    const report = body(await get(h, '/reports/debtors'));
    expect(report).toMatchObject({ stale: false, ageSeconds: 1700 });
  });

  it('is stale when older than twice the refresh interval', async () => {
    h.setNow(new Date(NOW.getTime() + 1801 * 1000));
    expect(body(await get(h, '/reports/debtors')).stale).toBe(true);
  });

  it('is stale after a failed refresh, and says why', async () => {
    h.setStatus({
      ...OK_STATUS,
      lastFailedAt: NOW.toISOString(),
      lastError: 'upstream unavailable (503)',
      failures: 2,
    });
    const report = body(await get(h, '/reports/debtors'));
    expect(report.stale).toBe(true);
    expect(report.refreshStatus).toMatchObject({
      failures: 2,
      lastError: 'upstream unavailable (503)',
    });
  });

  it('shows a stale banner on the dashboard only when stale, in Portuguese', async () => {
    expect(text(await get(h, '/reports/debtors.html'))).not.toContain('id="stale-banner"');
    h.setStatus({
      ...OK_STATUS,
      failures: 3,
      lastFailedAt: '2026-11-21T16:30:00.000Z',
      lastError: 'upstream unavailable (HTTP 503) listing branch 2 at skip 50',
    });
    const page = text(await get(h, '/reports/debtors.html'));
    const banner = /<div class="banner stale"[^>]*>([\s\S]*?)<\/div>/.exec(page)?.[1] ?? '';
    expect(banner).toContain('Dados desatualizados');
    expect(banner).toContain(
      'Dados de 21/11/2026, 12:00; a atualização falhou 3 vezes seguidas (a última tentativa em 21/11/2026, 13:30); tentaremos de novo automaticamente.',
    );
    expect(banner).toContain('O sistema de gestão está fora do ar ou lento.');
    expect(banner).not.toMatch(/upstream|unavailable|HTTP|branch|skip/);
  });

  it.each([
    ['upstream unauthorized (HTTP 401) listing branch 1 at skip 0', 'recusou o acesso'],
    ['upstream rate-limited (HTTP 429) listing branch 1 at skip 0 after 5 attempts', 'limitando'],
    ['AwsConfigError: the secret leads/upstream has no password', 'configuração'],
    ["TypeError listing branch 1 at skip 0 (details in the refresher's log)", ''],
  ])('says what the failure “%s” means for the reader', async (lastError, meaning) => {
    h.setStatus({ ...OK_STATUS, failures: 1, lastError });
    const page = text(await get(h, '/reports/debtors.html'));
    const banner = /<div class="banner stale"[^>]*>([\s\S]*?)<\/div>/.exec(page)?.[1] ?? '';
    expect(banner).toContain('a atualização falhou; tentaremos de novo');
    if (meaning) expect(banner).toContain(meaning);
    expect(banner).not.toContain(lastError.slice(0, 12));
  });

  it('says when the data is old although no refresh failed', async () => {
    h.setNow(new Date(NOW.getTime() + 3 * 3600 * 1000));
    const page = text(await get(h, '/reports/debtors.html'));
    expect(page).toContain('nenhuma atualização foi concluída desde então');
    expect(page).toContain('>há 3 horas</span>)');
  });
});

describe('HTTP caching and compression', () => {
  it('sends ETag, Cache-Control and Vary on every GET, and 304 for a matching If-None-Match', async () => {
    for (const path of ROUTES) {
      const first = await get(h, path);
      expect(first.statusCode).toBe(200);
      const etag = first.headers?.etag as string;
      expect(etag).toMatch(/^W\/"[\w-]+"$/);
      expect(first.headers?.['cache-control']).toBe('private, max-age=60');
      expect(first.headers?.vary).toBe('Accept-Encoding, Authorization');

      const again = await get(h, path, {
        authorization: REPORTER,
        'if-none-match': `"other", ${etag}`,
      });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers?.etag).toBe(etag);
      expect(again.headers?.['cache-control']).toBe('private, max-age=60');
    }
  });

  it('changes the ETag with the query, the snapshot and the staleness, never with the encoding', async () => {
    const tag = async (path: string, headers: Record<string, string> = {}) =>
      (await get(h, path, { authorization: REPORTER, ...headers })).headers?.etag;
    const base = await tag('/reports/debtors');
    expect(await tag('/reports/debtors', { 'accept-encoding': 'gzip' })).toBe(base);
    expect(await tag('/reports/debtors?branch=1')).not.toBe(base);
    expect(await tag('/reports/debtors?branch=1,2')).toBe(
      await tag('/reports/debtors?branch=1&branch=2'),
    );
    expect(await tag('/reports/debtors.csv')).not.toBe(
      await tag('/reports/debtors.csv?dialect=intl'),
    );

    const html = await tag('/reports/debtors.html');
    h.setStatus({ ...OK_STATUS, failures: 1 });
    expect(await tag('/reports/debtors.html')).not.toBe(html);
    expect(await tag('/reports/debtors')).not.toBe(base);

    h.setStatus(OK_STATUS);
    h.setSnapshot(snapshotOf(fixtureRows()), '"v2"');
    const renewed = await get(h, '/reports/debtors', {
      authorization: REPORTER,
      'if-none-match': base as string,
    });
    expect(renewed.statusCode).toBe(200);
  });

  it('checks credentials before answering 304', async () => {
    const etag = (await get(h, '/reports/debtors')).headers?.etag as string;
    const result = await get(h, '/reports/debtors', { 'if-none-match': etag });
    expect(result.statusCode).toBe(401);
  });

  it('gzips when Accept-Encoding allows it, and the body round-trips', async () => {
    for (const path of ROUTES) {
      const plain = await get(h, path);
      const zipped = await get(h, path, {
        authorization: REPORTER,
        'accept-encoding': 'br, gzip;q=0.8',
      });
      expect(zipped.isBase64Encoded).toBe(true);
      expect(zipped.headers?.['content-encoding']).toBe('gzip');
      expect(plain.headers?.['content-encoding']).toBeUndefined();
      expect(text(zipped)).toBe(text(plain));
      expect(zipped.body.length).toBeLessThan(plain.body.length);
    }
    const refused = await get(h, '/reports/debtors', {
      authorization: REPORTER,
      'accept-encoding': 'gzip;q=0, br',
    });
    expect(refused.isBase64Encoded).toBeFalsy();
    const star = await get(h, '/reports/debtors', {
      authorization: REPORTER,
      'accept-encoding': '*',
    });
    expect(star.headers?.['content-encoding']).toBe('gzip');
  });
});

describe('the dashboard page', () => {
  it('is self-contained under a strict CSP: no inline script, its one script from this site', async () => {
    const result = await get(h, '/reports/debtors.html');
    expect(result.headers?.['content-type']).toBe('text/html; charset=utf-8');
    const csp = result.headers?.['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain('img-src data:');
    const page = text(result);
    expect(expectNoInlineScript(csp, page, 'the dashboard')).toEqual([
      `assets/${DASHBOARD_SCRIPT}`,
    ]);
    expect(page).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/i);
  });

  it('serves its script by the hashed name for a year, to a reader of the report only', async () => {
    // Act
    const asset = (file: string, authorization = REPORTER) => {
      const { request: req } = request('GET', '/reports/assets/x', { authorization });
      return serveReport('/reports/assets/{file}', req, h.deps, { file });
    };
    const script = await asset(DASHBOARD_SCRIPT);
    const stale = await asset('dashboard.0123456789abcdef.js');
    const stranger = await asset(DASHBOARD_SCRIPT, 'Basic bm9ib2R5Om5vdGhpbmc=');

    // Assess
    expect(script.statusCode).toBe(200);
    expect(script.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=31536000, immutable',
    });
    expect(script.body).toContain('match-count');
    expect(stale.statusCode).toBe(404);
    expect(stranger.statusCode).toBe(401);
  });

  it('lists every row with its name escaped: no name can break out of the page', async () => {
    const page = text(await get(h, '/reports/debtors.html'));
    expect(page.match(/<\/script>/g)).toHaveLength(1); // its one script's own tag
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    const rows = snapshotOf(fixtureRows()).rows;
    expect(listed(page)).toHaveLength(membersOf(rows));
    expect(listed(page).reduce((sum, m) => sum + m.debts, 0)).toBe(rows.length);
  });

  it('lists a member with three debts once, with their total and "Cobrar" with a WhatsApp message', async () => {
    // Prepare: three open debts of one member, one of them with the member's phone
    const demo = fixtureRows();
    const template = demo.find((row) => row.debtStatus === 'Open' && row.branchId === 2);
    if (!template) throw new Error('the demo data has no open row in branch 2');
    const debts = [149.9, 99.9, 110].map((debtAmount, i) => ({
      ...template,
      memberId: 880_001,
      name: 'CLÁUDIA "CACAU" RAMOS',
      receivableId: 880_100 + i,
      debtAmount,
      dueDate: `2026-0${7 + i}-10T00:00:00`,
      checkoutLink: `https://checkout.example/r/${880_100 + i}`,
      checkoutLinkFullDebt: 'https://checkout.example/m/880001?t=a&b=c',
      ...(i === 1 && { cellphone: '11 91234-5678' }),
    }));
    const own = harness(snapshotOf([...demo, ...debts]));

    // Act
    const page = text(await get(own, '/reports/debtors.html'));

    // Assess
    const entry = listed(page).filter((m) => m.name === 'CLÁUDIA "CACAU" RAMOS');
    expect(entry).toEqual([expect.objectContaining({ debts: 3, amount: 359.8, owes: true })]);
    const html =
      /<tbody class="member"[^>]*data-name="CLÁUDIA &quot;CACAU&quot; RAMOS"[^>]*>([\s\S]*?)<\/tbody>/.exec(
        page,
      )?.[1] ?? '';
    expect(html.match(/<tr class="debt"/g)).toHaveLength(3);
    expect(html).toContain('<td class="num amount">R$\u00a0359,80</td>');
    expect(html).toContain('value="https://checkout.example/m/880001?t=a&amp;b=c"');
    const wa = /<a class="button whatsapp" href="([^"]+)"/.exec(html)?.[1] ?? '';
    const link = new URL(unescapeHtml(wa));
    expect(link.origin + link.pathname).toBe('https://wa.me/5511912345678');
    expect(link.searchParams.get('text')).toBe(
      'Olá Cláudia, tudo bem? Aqui é da Unidade Moema. Identificamos 3 pagamentos em aberto no ' +
        'total de R$\u00a0359,80. Você pode regularizar por este link: https://checkout.example/m/880001?t=a&b=c',
    );
  });

  it('shows the four summary figures in R$ as pt-BR formats them', async () => {
    const page = text(await get(h, '/reports/debtors.html'));
    const { summary } = snapshotOf(fixtureRows());
    for (const [figure, value] of Object.entries(summary)) {
      const money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(
        value as number,
      );
      expect(page).toContain(`data-figure="${figure}" data-value="${value}">${money}<`);
    }
  });
});

describe('the dashboard’s filters, sort and search', () => {
  const snapshot = snapshotOf(fixtureRows());
  const figures = (page: string) =>
    Object.fromEntries(
      [...page.matchAll(/data-figure="(\w+)" data-value="([^"]*)"/g)].map((m) => [
        m[1],
        Number(m[2]),
      ]),
    );
  const cents = (rows: readonly Debtor[], status: string) =>
    rows
      .filter((r) => r.debtStatus === status)
      .reduce((sum, r) => sum + Math.round((r.debtAmount ?? 0) * 100), 0);

  it('narrows every figure to ?branch=, the upstream’s summary of that branch included', async () => {
    // Prepare
    const rows = snapshot.rows.filter((r) => r.branchId === 2);
    const branch = snapshot.byBranch.find((b) => b.branchId === 2);

    // Act
    const page = text(await get(h, '/reports/debtors.html?branch=2'));

    // Assess
    expect(figures(page)).toEqual(branch?.summary);
    expect(figures(page).pendingValue).toBe(cents(rows, 'Open') / 100);
    expect([...page.matchAll(/<tr data-branch="(\d+)"/g)].map((m) => m[1])).toEqual(['2']);
    const list = listed(page);
    expect(list).toHaveLength(membersOf(rows));
    expect(new Set(list.map((r) => r.branch))).toEqual(new Set([branch?.branchName]));
    const ageing = [...page.matchAll(/<li data-bucket="([^"]+)" data-amount="([^"]+)"/g)];
    const open = rows.filter((r) => r.debtStatus === 'Open');
    const overdue = (r: Debtor) => snapshot.daysOverdue[snapshot.rows.indexOf(r)] ?? 0;
    expect(Number(ageing.find((m) => m[1] === '91+')?.[2])).toBe(
      cents(
        open.filter((r) => overdue(r) > 90),
        'Open',
      ) / 100,
    );
    expect(page).toContain('<a href="debtors.csv?branch=2" download>');
    expect(page).toContain(`<strong id="scope-name">${branch?.branchName}</strong>`);
  });

  it('combines several branches as the snapshot does: values summed, averages over the rows', async () => {
    const page = text(await get(h, '/reports/debtors.html?branch=3&branch=1'));
    const rows = snapshot.rows.filter((r) => r.branchId === 1 || r.branchId === 3);
    const open = rows.filter((r) => r.debtStatus === 'Open').length;
    expect(figures(page).pendingValue).toBe(cents(rows, 'Open') / 100);
    expect(figures(page).pendingAverage).toBe(Math.round(cents(rows, 'Open') / open) / 100);
    expect(listed(page)).toHaveLength(membersOf(rows));
    expect(page).toContain('<option value="1,3" selected>');
  });

  it('says so when ?branch= names a branch the report does not hold', async () => {
    const result = await get(h, '/reports/debtors.html?branch=9');
    expect(result.statusCode).toBe(200);
    const page = text(result);
    expect(page).toContain('A unidade 9 não está');
    expect(Object.values(figures(page))).toEqual([0, 0, 0, 0]);
    expect(listed(page)).toEqual([]);
  });

  it('answers a Portuguese 400 page naming each parameter it does not understand', async () => {
    const result = await get(
      h,
      '/reports/debtors.html?branch=x&sort=price&debtStatus=late&colour=red',
    );
    expect(result.statusCode).toBe(400);
    expect(result.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(result.headers?.['cache-control']).toBe('no-store');
    const page = text(result);
    expect(page).toContain('Não entendemos o endereço desta página');
    for (const field of ['branch', 'sort', 'debtStatus', 'colour']) {
      expect(page).toContain(`<li><code>${field}</code>: `);
    }
    expect(page).toContain('recebido &quot;x&quot;');
  });

  it('sorts the members on the server, those who owe nothing last when sorting by days overdue', async () => {
    const byAmount = listed(text(await get(h, '/reports/debtors.html?sort=-debtAmount')));
    const owing = byAmount.filter((m) => m.owes).map((m) => m.amount);
    expect(byAmount.slice(0, owing.length).every((m) => m.owes)).toBe(true);
    expect(owing).toEqual([...owing].sort((a, b) => b - a));

    const byDays = listed(text(await get(h, '/reports/debtors.html?sort=-daysOverdue')));
    const firstPaid = byDays.findIndex((m) => !m.owes);
    expect(firstPaid).toBeGreaterThan(0);
    expect(byDays.slice(firstPaid).every((m) => m.days === null)).toBe(true);
    const days = byDays.slice(0, firstPaid).map((m) => m.days ?? -1);
    expect(days).toEqual([...days].sort((a, b) => b - a));
    const ascending = listed(text(await get(h, '/reports/debtors.html?sort=daysOverdue')));
    expect(ascending.at(-1)?.owes).toBe(false);
  });

  it('searches on the server, keeping the other members hidden for the browser to show again', async () => {
    const list = listed(text(await get(h, '/reports/debtors.html?q=conceicao&debtStatus=open')));
    const shown = list.filter((m) => !m.hidden);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.every((m) => fold(m.name).includes('conceicao') && m.owes)).toBe(true);
    expect(shown.map((m) => m.name)).toContain('JOÃO DA CONCEIÇÃO');
    expect(list).toHaveLength(membersOf(snapshot.rows.filter((r) => r.debtStatus === 'Open')));
  });

  it('lists only the debts of the chosen status, chosen on the server', async () => {
    const page = text(await get(h, '/reports/debtors.html?debtStatus=recovered'));
    const list = listed(page);
    expect(list).toHaveLength(membersOf(snapshot.rows.filter((r) => r.debtStatus === 'Recovered')));
    expect(list.every((m) => !m.owes)).toBe(true);
    expect(page).not.toContain('class="charge"');
    expect(page).toContain('<option value="recovered" selected>Recuperados</option>');
  });

  it('shows a recovered debt as paid, never as days overdue', async () => {
    const page = text(await get(h, '/reports/debtors.html'));
    const paid = [
      ...page.matchAll(/<tbody class="member"[^>]*data-owes="0"[^>]*>([\s\S]*?)<\/tbody>/g),
    ];
    const rows = [...page.matchAll(/<tr class="debt" data-status="recovered">([\s\S]*?)<\/tr>/g)];
    expect(paid.length).toBeGreaterThan(0);
    expect(rows.length).toBeGreaterThan(0);
    for (const [, cells] of [...paid, ...rows]) {
      expect(cells).toMatch(/<td class="num days paid">Pago em \d{2}\/\d{2}\/\d{4}<\/td>/);
      expect(cells).not.toContain('late');
    }
  });

  it('changes the ETag with the page’s query', async () => {
    const tag = async (path: string) => (await get(h, path)).headers?.etag;
    const base = await tag('/reports/debtors.html');
    expect(await tag('/reports/debtors.html?branch=2')).not.toBe(base);
    expect(await tag('/reports/debtors.html?sort=name')).not.toBe(base);
    expect(await tag('/reports/debtors.html?branch=2')).toBe(
      await tag('/reports/debtors.html?BRANCH=2'),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Size caps with a synthetic 50,000-row snapshot

/** 50,000 rows that compress like real ones: varied names, amounts and random link tokens. */
function bigRows(count: number): Debtor[] {
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const first = ['JOÃO', 'MARIA', 'JOSÉ', 'ANA', 'ANTÔNIO', 'FRANCISCA', 'LUÍS', 'CONCEIÇÃO'];
  const last = ['SILVA', 'SANTOS', 'OLIVEIRA', 'SOUZA', 'LIMA', 'GONÇALVES', 'ARAÚJO', 'MELO'];
  const token = () =>
    Math.floor(random() * 2 ** 48)
      .toString(36)
      .padStart(10, '0');
  return Array.from({ length: count }, (_, i) => {
    const day = 1 + Math.floor(random() * 28);
    const month = 1 + Math.floor(random() * 10);
    const due = `2026-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T00:00:00`;
    const open = random() < 0.8;
    return {
      memberId: 100_000 + i,
      name: `${first[i % 8]} ${last[Math.floor(random() * 8)]} ${last[Math.floor(random() * 8)]} ${i}`,
      memberStatus: random() < 0.7 ? 'Active' : 'Inactive',
      receivableId: 1_000_000 + i,
      receivableIdOrigin: null,
      branchId: 1 + (i % 3),
      branchName: `Unidade ${1 + (i % 3)}`,
      dueDate: due,
      paymentDate: open ? null : '2026-11-01T10:20:30',
      registerDate: due,
      originalDueDate: due,
      chargeDate: due,
      daysLate: Math.floor(random() * 300),
      debtAmount: Math.round(random() * 100_000) / 100,
      paymentType: 'Cartão de crédito',
      idPaymentType: 1,
      debtStatus: open ? 'Open' : 'Recovered',
      checkoutLink: `https://checkout.example/r/${1_000_000 + i}?t=${token()}${token()}`,
      checkoutLinkFullDebt: `https://checkout.example/m/${100_000 + i}?t=${token()}${token()}`,
      paymentOrigin: open ? null : 'Link de pagamento',
    };
  });
}

describe('size caps (50,000-row snapshot)', () => {
  const LIMIT = 5 * 1024 * 1024;
  const big = harness(snapshotOf(bigRows(50_000)));
  const size = (result: APIGatewayProxyResult) => Buffer.byteLength(JSON.stringify(result));

  it('refuses the whole CSV when it cannot fit, saying how to page, and the pages add up', async () => {
    for (const encoding of [undefined, 'gzip']) {
      const headers = { authorization: REPORTER, ...(encoding && { 'accept-encoding': encoding }) };
      const whole = await get(big, '/reports/debtors.csv', headers);
      expect(size(whole)).toBeLessThan(LIMIT);
      if (whole.statusCode === 200) continue; // small enough once compressed
      expect(whole.statusCode).toBe(400);
      const { error } = body(whole);
      expect(error.code).toBe('csv_too_large');
      expect(error.message).toMatch(/Baixe em partes: acrescente take=\d+ e skip=0/);
      const take = Number(/take=(\d+)/.exec(error.message)?.[1]);
      expect(take).toBeGreaterThan(0);

      const names: string[] = [];
      for (let skip = 0; ; skip += take) {
        const page = await get(big, `/reports/debtors.csv?take=${take}&skip=${skip}`, headers);
        expect(page.statusCode).toBe(200);
        expect(size(page)).toBeLessThan(LIMIT);
        const lines = text(page).split('\r\n').slice(1, -1);
        if (lines.length > 0) {
          expect(page.headers?.['content-disposition']).toBe(
            `attachment; filename="devedores-todas-as-unidades-2026-11-21-linhas-${skip + 1}-${skip + lines.length}.csv"`,
          );
        }
        names.push(...lines.map((line) => line.split(';')[1] ?? ''));
        if (lines.length < take) break;
      }
      expect(names).toHaveLength(50_000);
      expect(new Set(names).size).toBe(50_000);
    }
  }, 60_000);

  it('keeps every JSON page under the limit and refuses take above 1000', async () => {
    const page = await get(big, '/reports/debtors?take=1000&skip=49500');
    expect(page.statusCode).toBe(200);
    expect(body(page).results).toHaveLength(500);
    expect(size(page)).toBeLessThan(LIMIT);
    expect((await get(big, '/reports/debtors?take=5000')).statusCode).toBe(400);
    const seed = await get(big, '/api/v1/receivables/debtors?take=5000');
    expect(body(seed).results).toHaveLength(50);
  });

  it('lists at most 1,000 members in the dashboard and says so, linking the CSV', async () => {
    const result = await get(big, '/reports/debtors.html');
    expect(result.statusCode).toBe(200);
    expect(size(result)).toBeLessThan(LIMIT);
    const page = text(result);
    expect(page).toContain('Mostrando 1.000 de 50.000 devedores');
    expect(page).toMatch(/<a href="debtors.csv">Baixe o CSV<\/a>/);
    const members = listed(page);
    expect(members).toHaveLength(1000);
    // The most overdue members who owe come first.
    expect(members.every((m) => m.owes)).toBe(true);
    for (let i = 1; i < members.length; i++)
      expect((members[i - 1]?.days ?? 0) >= (members[i]?.days ?? 0)).toBe(true);
  });
});
