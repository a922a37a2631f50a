import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, screenshot, type Viewport } from '../helpers/chromium.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';

const REPORTER = { username: 'reporter', password: 'reporter-secret' };
const AUTH = {
  authorization: `Basic ${Buffer.from(`${REPORTER.username}:${REPORTER.password}`).toString('base64')}`,
};
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const WIDTHS = [
  ['1366 px', DESKTOP],
  ['390 px', PHONE],
] as const;

const money = (value: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(value);

interface Row {
  memberId: number;
  name: string;
  branchName: string;
  debtStatus: string;
  debtAmount: number;
  daysOverdue: number | null;
  checkoutLinkFullDebt: string | null;
}

let rt: TestRuntime;
let browser: Browser;
let rows: Row[];
/** A member with three open debts whose name no other member has. */
let member: { name: string; debts: Row[] };
const problems: string[] = [];

/** Reads the clipboard in the page (the context may read it: grantPermissions). */
const clipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()');

/**
 * A browser context that logs in with `credentials` when challenged and records every problem
 * its pages meet, but the one status the test expects (Chromium logs a refused page's status).
 */
function open(viewport: Viewport, credentials = REPORTER, expectedStatus?: number) {
  return openPage(browser, viewport, {
    credentials,
    problems,
    origin: rt.url,
    ...(expectedStatus !== undefined && { expectedStatus }),
  });
}

/** The page's own width, which at 390 px must not exceed the screen. */
const pageWidth = (page: Page) => page.$eval('html', (n) => n.scrollWidth);

/** What the member's "Cobrar" must say: their first name, branch, debts, total and link. */
function expectedMessage(link: string): string {
  const first = member.name.split(' ')[0] ?? '';
  const name = first.charAt(0) + first.slice(1).toLocaleLowerCase('pt-BR');
  const cents = member.debts.reduce((sum, r) => sum + Math.round(r.debtAmount * 100), 0);
  return (
    `Olá ${name}, tudo bem? Aqui é da ${member.debts[0]?.branchName}. Identificamos ` +
    `${member.debts.length} pagamentos em aberto no total de ${money(cents / 100)}. ` +
    `Você pode regularizar por este link: ${link}`
  );
}

beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [
      { ...REPORTER, roles: ['report:read'] },
      { username: 'intake', password: 'intake-secret', roles: ['prospects:write'] },
    ],
    profiles: {},
    report: { branches: [1, 2, 3], refreshSeconds: 900 },
  });
  const until = Date.now() + 30_000;
  for (;;) {
    const response = await fetch(new URL('/reports/debtors?take=1000', rt.url), { headers: AUTH });
    if (response.status === 200) {
      rows = ((await response.json()) as { results: Row[] }).results;
      break;
    }
    if (Date.now() > until) throw new Error(`the report never became ready (${response.status})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const byMember = new Map<number, Row[]>();
  for (const row of rows) byMember.set(row.memberId, [...(byMember.get(row.memberId) ?? []), row]);
  const membersNamed = (name: string | undefined) =>
    [...byMember.values()].filter((debts) => debts[0]?.name === name).length;
  const found = [...byMember.values()].find(
    (debts) =>
      debts.length === 3 &&
      debts.every((d) => d.debtStatus === 'Open') &&
      membersNamed(debts[0]?.name) === 1,
  );
  if (!found) throw new Error('the demo data has no member with three open debts');
  member = { name: found[0]?.name ?? '', debts: found };
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await rt?.stop();
});

/** The member's entry in the list (searched by name, so that it is among those shown). */
async function visitMember(page: Page): Promise<Locator> {
  const response = await page.goto(
    new URL(`/reports/debtors.html?q=${encodeURIComponent(member.name)}`, rt.url).href,
  );
  expect(response?.status()).toBe(200);
  const entry = page.locator(`#debtors tbody.member[data-name="${member.name}"]`);
  await entry.waitFor();
  return entry;
}

describe.each(WIDTHS)('a member with three debts at %s', (_, viewport) => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await open(viewport));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rt.url });
  });
  afterAll(() => context.close());

  it('is one card (one entry) with their three debts and their total', async () => {
    // Act
    const entry = await visitMember(page);

    // Assess
    const cents = member.debts.reduce((sum, r) => sum + Math.round(r.debtAmount * 100), 0);
    expect(await page.locator(`#debtors tbody.member[data-name="${member.name}"]`).count()).toBe(1);
    expect(await entry.getAttribute('data-debts')).toBe('3');
    expect(await entry.locator('tr.head td.amount').textContent()).toBe(money(cents / 100));
    expect(await entry.locator('tr.head .debt-count').textContent()).toBe('3 débitos');
    const amounts = await entry.locator('tr.debt td.amount').allTextContents();
    expect(amounts.sort()).toEqual(member.debts.map((d) => money(d.debtAmount)).sort());
    const box = await entry.boundingBox();
    expect(box?.x).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(viewport.width);
    expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
    await screenshot(
      viewport.width < 500 ? entry : page,
      `dashboard-${viewport.width}-member.png`,
      false,
    );
  });

  it('"Cobrar" copies the pay-now link and the message, and opens WhatsApp with the message', async () => {
    // Prepare
    const entry = await visitMember(page);

    // Act: open "Cobrar" and copy the link
    await entry.locator('summary', { hasText: 'Cobrar' }).click();
    const panel = entry.locator('.charge-panel');
    await panel.waitFor();
    await panel.locator('button[data-copy="link"]').click();
    await expect.poll(() => panel.locator('.copied').textContent()).toContain('Link copiado');
    const link = String(await clipboard(page));

    // Assess: the link is the member's link for the whole debt
    const links = member.debts.map((d) => d.checkoutLinkFullDebt);
    expect(links).toContain(link);
    expect(await panel.locator('.charge-link').inputValue()).toBe(link);
    expect(await panel.locator('.charge-message').textContent()).toBe(expectedMessage(link));

    // Act: the message
    await panel.locator('button[data-copy="message"]').click();
    await expect.poll(() => panel.locator('.copied').textContent()).toContain('Mensagem copiada');
    expect(await clipboard(page)).toBe(expectedMessage(link));

    // Assess: WhatsApp, in a new tab, with the message (no phone in the sandbox's rows)
    const whatsapp = panel.locator('a.whatsapp');
    expect(await whatsapp.textContent()).toBe('Enviar pelo WhatsApp');
    expect(await whatsapp.getAttribute('target')).toBe('_blank');
    expect(await whatsapp.getAttribute('rel')).toBe('noopener noreferrer');
    const href = new URL((await whatsapp.getAttribute('href')) ?? '');
    expect(`${href.origin}${href.pathname}`).toBe('https://wa.me/');
    expect(href.searchParams.get('text')).toBe(expectedMessage(link));

    // Assess: the panel is whole on screen, and nothing scrolls sideways
    const box = await panel.boundingBox();
    expect(box?.x).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(viewport.width);
    expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
    await panel.scrollIntoViewIfNeeded();
    await screenshot(page, `dashboard-${viewport.width}-cobrar.png`, false);
  });
});

describe('a link shared through WhatsApp or Instagram', () => {
  it('opens the dashboard despite fbclid and utm_source, and tidies the address', async () => {
    // Prepare
    const { context, page } = await open(PHONE);
    const shared =
      '/reports/debtors.html?branch=2&fbclid=IwAR3xYzAbC&utm_source=whatsapp&utm_medium=social&igshid=MzRlODBiNWFlZA';

    // Act
    const response = await page.goto(new URL(shared, rt.url).href);

    // Assess
    expect(response?.status()).toBe(200);
    await page.waitForSelector('#debtors tbody.member');
    expect(await page.inputValue('#branch')).toBe('2');
    await expect
      .poll(() => page.url())
      .toBe(new URL('/reports/debtors.html?branch=2', rt.url).href);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await context.close();
  });
});

describe('a browser refused', () => {
  it.each(WIDTHS)(
    'gets the gateway’s Portuguese 401 page for a wrong password at %s',
    async (_, viewport) => {
      // Prepare
      const wrong = { username: 'reporter', password: 'errada' };
      const { context, page } = await open(viewport, wrong, 401);

      // Act
      const response = await page.goto(new URL('/reports/debtors.html', rt.url).href);

      // Assess
      expect(response?.status()).toBe(401);
      expect(await page.textContent('h1')).toBe('Entre com seu usuário e senha');
      expect(await page.textContent('#refusal')).toContain('o usuário e a senha não conferem');
      expect(await page.getAttribute('html', 'lang')).toBe('pt-BR');
      expect(await page.textContent('a.button')).toBe('Entrar de novo');
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await screenshot(page, `dashboard-401-${viewport.width}.png`, false);
      await context.close();
    },
  );

  it('gets a Portuguese 403 page when the user may not see the report', async () => {
    const intake = { username: 'intake', password: 'intake-secret' };
    const { context, page } = await open(PHONE, intake, 403);
    const response = await page.goto(new URL('/reports/debtors.html', rt.url).href);
    expect(response?.status()).toBe(403);
    expect(await page.textContent('h1')).toBe('Este usuário não tem acesso a esta página');
    expect(await page.textContent('#refusal')).toContain(
      'não tem permissão para ver o relatório de devedores',
    );
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'dashboard-403-390.png', false);
    await context.close();
  });

  it('gets the Portuguese 400 page, within the phone, for an address it does not understand', async () => {
    const { context, page } = await open(PHONE, REPORTER, 400);
    const response = await page.goto(
      new URL('/reports/debtors.html?sort=price&colour=red', rt.url).href,
    );
    expect(response?.status()).toBe(400);
    expect(await page.textContent('h2')).toBe('Não entendemos o endereço desta página');
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await context.close();
  });
});

describe('the pages’ policy', () => {
  it('ran every page with no CSP violation, error or outside request', () => {
    expect(problems).toEqual([]);
  });
});
