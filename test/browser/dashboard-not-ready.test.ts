/**
 * The dashboard before the first report, in Chromium at 1366 px and 390 px: the runtime runs
 * without a sandbox against an upstream address where nothing listens, so every refresh fails
 * and no snapshot is ever built. A person opening the page gets
 * a Portuguese page that says what is happening and reloads itself, not the JSON error the API
 * routes keep answering. Screenshots go to test/artifacts/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime.ts';
import { launchChromium, openPage, screenshot } from '../helpers/chromium.ts';
import { TEST_UPSTREAM } from '../helpers/local-runtime.ts';

const CREDENTIALS = { username: 'reporter', password: 'reporter-secret' };
const AUTH = {
  authorization: `Basic ${Buffer.from(`${CREDENTIALS.username}:${CREDENTIALS.password}`).toString('base64')}`,
};

let rt: LocalRuntime;
let url: string;
let browser: Browser;

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leads-not-ready-'));
  const configPath = join(dataDir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      upstream: TEST_UPSTREAM,
      clients: [{ ...CREDENTIALS, roles: ['report:read'] }],
      profiles: {},
      report: { branches: [1, 2, 3], refreshSeconds: 900 },
    }),
  );
  // Port 9 (discard) on this machine: the connection is refused, the refresh fails at once.
  rt = await startLocalRuntime(
    { port: 0, sandboxPort: undefined, upstreamUrl: 'http://127.0.0.1:9', configPath, dataDir },
    { worker: false },
  );
  url = rt.gatewayUrl;
  // Wait until the first refresh has failed: the page then says so.
  const until = Date.now() + 30_000;
  for (;;) {
    const page = await fetch(new URL('/reports/debtors.html', url), { headers: AUTH });
    if ((await page.text()).includes('ainda não deu certo')) break;
    if (Date.now() > until) throw new Error('the first refresh never failed');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await rt?.stop();
  if (rt) rmSync(rt.dataDir, { recursive: true, force: true });
});

describe('the dashboard before the first report', () => {
  it.each([
    ['1366', { width: 1366, height: 900 }],
    ['390', { width: 390, height: 844 }],
  ] as const)('is a Portuguese page at %s px, not JSON', async (width, viewport) => {
    // Prepare
    // Chromium reports the page's own 503 as a console error; anything else is a problem.
    const problems: string[] = [];
    const { context, page } = await openPage(browser, viewport, {
      credentials: CREDENTIALS,
      problems,
      expectedStatus: 503,
    });

    // Act
    const response = await page.goto(new URL('/reports/debtors.html', url).href);

    // Assess
    expect(response?.status()).toBe(503);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.getAttribute('html', 'lang')).toBe('pt-BR');
    expect(await page.textContent('h2')).toBe(
      'O relatório de devedores ainda está sendo preparado',
    );
    const text = (await page.textContent('body')) ?? '';
    expect(text).toContain('A primeira atualização ainda não deu certo');
    expect(text).toContain('Esta página se atualiza sozinha a cada 30 segundos.');
    expect(text).not.toMatch(/[{}]|error|report_not_ready|upstream|unauthorized/i);
    expect(await page.getAttribute('meta[http-equiv="refresh"]', 'content')).toBe('30');
    expect(await page.$eval('html', (n) => n.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    expect(problems).toEqual([]);
    await screenshot(page, `dashboard-not-ready-${width}.png`, false);
    await context.close();
  });

  it('keeps answering the JSON routes with their JSON error', async () => {
    const response = await fetch(new URL('/reports/debtors', url), { headers: AUTH });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ error: { code: 'report_not_ready' } });
  });
});
