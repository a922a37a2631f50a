/**
 * Every HTML page the gateway serves, through the local runtime as a browser gets it: the
 * console, the dashboard (and its page for a query it does not understand), the sign-in
 * challenge's page and a refusal's page. None may run an inline script: its CSP allows scripts
 * from this site only and every `<script>` is a file or the page's JSON data
 * (test/helpers/page-scripts.ts). The files the pages link answer with their script, cached for
 * a year, and only to the callers the page itself is for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';
import { expectNoInlineScript } from '../helpers/page-scripts.ts';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const OPS = basic('ops', 'ops-secret');
const READER = basic('reporter', 'reporter-secret');
const WRITER = basic('writer', 'writer-secret');
const HTML = { accept: 'text/html,application/xhtml+xml', 'accept-language': 'pt-BR' };

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [
      { username: 'ops', password: 'ops-secret', roles: ['admin', 'report:read'] },
      { username: 'reporter', password: 'reporter-secret', roles: ['report:read'] },
      { username: 'writer', password: 'writer-secret', roles: ['prospects:write'] },
    ],
    profiles: { site: { source: 'form', token: 'site-token', defaults: { idBranch: 1 } } },
    report: { branches: [1], refreshSeconds: 900 },
  });
}, 60_000);

afterAll(async () => {
  await rt?.stop();
});

/** The page as a browser asks for it, and its policy (the header, else its `<meta>`). */
async function page(path: string, authorization?: string) {
  const response = await fetch(new URL(path, rt.url), {
    headers: { ...HTML, ...(authorization && { authorization }) },
  });
  const html = await response.text();
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/i.exec(html)?.[1];
  const csp = response.headers.get('content-security-policy') ?? meta;
  expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
  return { status: response.status, html, csp, url: response.url };
}

/** The dashboard, once the first report is built (503 with its own page until then). */
async function dashboard() {
  const until = Date.now() + 30_000;
  for (;;) {
    const shown = await page('/reports/debtors.html', READER);
    if (shown.status === 200 || Date.now() > until) return shown;
    expectNoInlineScript(shown.csp, shown.html, `the dashboard while ${shown.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the pages the gateway serves', () => {
  it('run no inline script: their CSP allows this site’s files only, their scripts are files', async () => {
    // Act
    const pages = {
      console: await page('/admin/', OPS),
      dashboard: await dashboard(),
      'dashboard, a query it does not understand': await page(
        '/reports/debtors.html?sort=x',
        READER,
      ),
      'the sign-in challenge': await page('/admin/'),
      'a refusal (no report:read role)': await page('/reports/debtors.html', WRITER),
    };

    // Assess
    expect(pages.console.status).toBe(200);
    expect(pages.dashboard.status).toBe(200);
    expect(pages['dashboard, a query it does not understand'].status).toBe(400);
    expect(pages['the sign-in challenge'].status).toBe(401);
    expect(pages['a refusal (no report:read role)'].status).toBe(403);
    for (const [name, shown] of Object.entries(pages)) {
      expectNoInlineScript(shown.csp, shown.html, name);
    }
    expect(pages.console.html).toContain('<script type="application/json" id="page-data">');
  });

  it('link scripts served for a year by their hashed name, to the page’s own readers only', async () => {
    // Prepare
    const console = await page('/admin/', OPS);
    const report = await dashboard();
    const [consoleSrc] = expectNoInlineScript(console.csp, console.html, 'console');
    const [dashboardSrc] = expectNoInlineScript(report.csp, report.html, 'dashboard');
    const consoleUrl = new URL(consoleSrc as string, console.url);
    const dashboardUrl = new URL(dashboardSrc as string, report.url);

    // Act
    const get = (url: URL, authorization?: string) =>
      fetch(url, { headers: authorization ? { authorization } : {} });
    const answers = {
      console: await get(consoleUrl, OPS),
      dashboard: await get(dashboardUrl, READER),
      consoleToReader: await get(consoleUrl, READER),
      consoleToNobody: await get(consoleUrl),
      dashboardToNobody: await get(dashboardUrl),
    };

    // Assess
    expect(consoleUrl.pathname).toMatch(/^\/admin\/assets\/console\.[0-9a-f]{16}\.js$/);
    expect(dashboardUrl.pathname).toMatch(/^\/reports\/assets\/dashboard\.[0-9a-f]{16}\.js$/);
    for (const answer of [answers.console, answers.dashboard]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await answer.text()).length).toBeGreaterThan(1000);
    }
    expect(answers.consoleToReader.status).toBe(403);
    expect(answers.consoleToNobody.status).toBe(401);
    expect(answers.dashboardToNobody.status).toBe(401);
  });
});
