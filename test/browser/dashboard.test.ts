/**
 * The dashboard in a real browser (Chromium through playwright-core), served by the local
 * runtime: the figures it shows are the JSON report's, the ageing chart has one bar per bucket,
 * the search filters the list ignoring accents, and the page runs under its CSP without a
 * single violation. The browser logs in with its own Basic prompt (httpCredentials only): the
 * gateway's 401 carries a real WWW-Authenticate. Leaves a screenshot in test/artifacts/dashboard.png.
 */
import { mkdirSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGEING_BUCKETS } from '../../functions/domain/debtors-report.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = new URL('../artifacts/', import.meta.url);
const CREDENTIALS = { username: 'reporter', password: 'reporter-secret' };
const AUTH = {
  authorization: `Basic ${Buffer.from(`${CREDENTIALS.username}:${CREDENTIALS.password}`).toString('base64')}`,
};

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const money = (value: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(value);

interface Report {
  total: number;
  summary: Record<string, number>;
  ageing: Record<string, { count: number; amount: number }>;
  byBranch: { branchId: number; open: { amount: number }; recovered: { amount: number } }[];
  results: { name: string }[];
}

let rt: TestRuntime;
let browser: Browser;
let page: Page;
let report: Report;
const problems: string[] = [];

beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [{ ...CREDENTIALS, roles: ['report:read'] }],
    profiles: {},
    report: { branches: [1, 2, 3], refreshSeconds: 900 },
  });
  const until = Date.now() + 30_000;
  for (;;) {
    const response = await fetch(new URL('/reports/debtors?take=1000', rt.url), { headers: AUTH });
    if (response.status === 200) {
      report = (await response.json()) as Report;
      break;
    }
    if (Date.now() > until) throw new Error(`the report never became ready (${response.status})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // Only httpCredentials, no Authorization header up front: the browser first gets the
  // gateway's 401 with a real WWW-Authenticate (the Basic-auth authorizer, as on API Gateway)
  // and answers that challenge with the credentials, as a person does at the login prompt.
  const context = await browser.newContext({
    httpCredentials: CREDENTIALS,
    viewport: { width: 1280, height: 900 },
    locale: 'pt-BR',
  });
  page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('request', (request) => {
    if (!request.url().startsWith(rt.url)) problems.push(`external request: ${request.url()}`);
  });
  const response = await page.goto(new URL('/reports/debtors.html', rt.url).href);
  expect(response?.status()).toBe(200);
  await page.waitForSelector('#debtors-body tr');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await rt?.stop();
});

describe('the debtors dashboard in Chromium', () => {
  it('shows the four summary figures of the JSON report, in R$', async () => {
    const figures = await page.$$eval('[data-figure]', (nodes) =>
      nodes.map((n) => ({
        figure: n.getAttribute('data-figure') ?? '',
        value: Number(n.getAttribute('data-value')),
        text: n.textContent ?? '',
      })),
    );
    expect(figures.map((f) => f.figure).sort()).toEqual([
      'pendingAverage',
      'pendingValue',
      'recoveredValue',
      'recoveryAverage',
    ]);
    for (const { figure, value, text } of figures) {
      expect(value).toBe(report.summary[figure]);
      expect(text).toBe(money(report.summary[figure] as number));
    }
  });

  it('draws one bar per ageing bucket, sized by the open amount', async () => {
    const bars = await page.$$eval('svg rect.bar', (nodes) =>
      nodes.map((n) => ({
        bucket: n.getAttribute('data-bucket') ?? '',
        amount: Number(n.getAttribute('data-amount')),
        height: Number(n.getAttribute('height')),
      })),
    );
    expect(bars.map((b) => b.bucket)).toEqual([...AGEING_BUCKETS]);
    for (const bar of bars) expect(bar.amount).toBe(report.ageing[bar.bucket]?.amount);
    const tallest = bars.reduce((a, b) => (b.amount > a.amount ? b : a));
    expect(bars.every((b) => b.height <= tallest.height)).toBe(true);
  });

  it('has a row per branch with its open and recovered amounts', async () => {
    const rows = await page.$$eval('#branches tbody tr', (nodes) =>
      nodes.map((n) => [...n.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(rows).toHaveLength(report.byBranch.length);
    report.byBranch.forEach((branch, i) => {
      expect(rows[i]?.[2]).toBe(money(branch.open.amount));
      expect(rows[i]?.[3]).toBe(money(branch.recovered.amount));
    });
  });

  it('lists every debtor and filters the list by name, ignoring accents and case', async () => {
    const all = await page.$$('#debtors-body tr');
    expect(all).toHaveLength(report.total);

    const accented =
      report.results.find((r) => /JOÃO/.test(r.name)) ??
      report.results.find((r) => fold(r.name) !== r.name.toLowerCase());
    expect(accented, 'the demo data has an accented name').toBeDefined();
    const word = fold(accented?.name.split(' ').find((w) => fold(w) !== w.toLowerCase()) ?? '');
    await page.fill('#search', word);
    const names = await page.$$eval('#debtors-body tr td.name', (nodes) =>
      nodes.map((n) => n.textContent ?? ''),
    );
    const expected = report.results.filter((r) => fold(r.name).includes(word)).map((r) => r.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.sort()).toEqual(expected.sort());
    expect(names).toContain(accented?.name);
    expect(await page.textContent('#match-count')).toMatch(new RegExp(`^${names.length} de `));

    const links = await page.$$eval('#debtors-body a', (nodes) =>
      nodes.map((n) => ({ rel: n.getAttribute('rel'), href: n.getAttribute('href') ?? '' })),
    );
    for (const link of links) {
      expect(link.rel).toBe('noopener noreferrer');
      expect(link.href).toMatch(/^https?:\/\//);
    }
  });

  it('is asked for credentials: a browser without them meets a real Basic challenge', async () => {
    // The page above loaded with httpCredentials alone (Playwright sends them only when
    // challenged). Without credentials Chromium takes the 401 as a login prompt it cannot
    // answer (an authentication error), not as a page to render, as it did while the challenge
    // reached it only as x-amzn-Remapped-WWW-Authenticate.
    const anonymous = await browser.newContext();
    try {
      const page = await anonymous.newPage();
      await expect(page.goto(new URL('/reports/debtors.html', rt.url).href)).rejects.toThrow(
        /ERR_INVALID_AUTH_CREDENTIALS/,
      );
    } finally {
      await anonymous.close();
    }
  });

  it('runs under its Content Security Policy with no violation, error or outside request', async () => {
    expect(problems).toEqual([]);
  });

  it('looks right: saves a screenshot', async () => {
    await page.fill('#search', '');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL('dashboard.png', ARTIFACTS).pathname, fullPage: false });
    await page.fill('#search', 'joao');
    await page.screenshot({ path: new URL('dashboard-search.png', ARTIFACTS).pathname });
  });
});
