/**
 * The set-up kit and the phone-first forms in a real browser (Chromium through playwright-core),
 * on the local runtime with the demo configuration and the delivery worker, at 390 and 1366 px:
 * - the kit of a token profile (RD Station, whose token travels in the URL) is copied with its
 *   copy button, and the copied URL, with the kit's own sample body, sends a lead that is
 *   delivered; the token is revealed and rotated: the new URL delivers, and the old one is still
 *   accepted during the grace;
 * - a parked lead's correction form on a phone opens the right keyboards (tel, email, numeric),
 *   has the DDI 55 and a branch chosen by name, and the lead is delivered to that branch;
 * - no page is wider than 390 px at 390 px, and no console, kit or dashboard page shows any of
 *   the English words the pages used to show (prose only: URLs and code are what they are).
 * Screenshots go to test/artifacts/.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, screenshot, type Viewport } from '../helpers/chromium.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

const DEMO = JSON.parse(readFileSync(new URL('../../config/demo.json', import.meta.url), 'utf8'));
const OPS = { username: 'ops', password: 'ops-secret' };
const AUTH = { authorization: `Basic ${Buffer.from('ops:ops-secret').toString('base64')}` };
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const WIDTHS = [
  [PHONE, '390'],
  [DESKTOP, '1366'],
] as const;

/** Words the console, the kit and the dashboard used to show in English. */
const ENGLISH = [
  'upstream',
  'parked',
  'retry',
  'profile',
  'delivered',
  'failed',
  'circuit',
  'token',
  'secret',
  'connect',
  'preview',
  'queued',
  'dead',
  'rejected',
  'the',
  'and',
  'with',
  'this',
  'your',
  'send',
  'paste',
  'key',
  'settings',
  'sample',
  'required',
  'missing',
  'loading',
  'error',
];

let rt: TestRuntime;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  rt = await startTestRuntime(DEMO, { worker: true });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await rt?.stop();
});

function open(viewport: Viewport) {
  return openPage(browser, viewport, {
    credentials: OPS,
    problems,
    origin: rt.url,
    clipboard: true,
    acceptDialogs: true,
  });
}

const scrollWidth = (page: Page) => page.$eval('html', (n) => n.scrollWidth);
const clipboard = (page: Page) =>
  page.evaluate('navigator.clipboard.readText()') as Promise<string>;

/** The status of the newest lead of `profile` whose e-mail is `email`, once it is final. */
async function deliveredLead(profile: string, email: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const response = await fetch(
          new URL(`/admin/leads?profile=${profile}&q=${encodeURIComponent(email)}`, rt.url),
          { headers: AUTH },
        );
        const { leads } = (await response.json()) as { leads: { status: string }[] };
        return leads.map((lead) => lead.status);
      },
      { timeout: 30_000, interval: 250 },
    )
    .toEqual(['delivered']);
}

/** Sends the kit's sample body (from its curl) to `url`, as another person. */
async function sendWithKit(url: string, curl: string, email: string): Promise<number> {
  const body = /^BODY='(.*)'$/m.exec(curl)?.[1]?.replaceAll("'\\''", "'");
  expect(body, 'the kit’s curl carries a sample body').toBeTruthy();
  const type = /Content-Type: ([^']+)'/.exec(curl)?.[1] ?? 'application/json';
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': type },
    // Another person: the sample's e-mail and its platform id (`kit-kit`) made theirs.
    body: (body as string)
      .replaceAll('ana.teste+kit@example.com', email)
      .replaceAll('kit-kit', `kit-${email}`),
  });
  const text = await response.text();
  expect(response.status, text).toBeLessThan(500);
  return response.status;
}

/** The kit page of `profile`, reached from the index as an operator would. */
async function kitPage(page: Page, profile: string): Promise<void> {
  await page.goto(new URL('/admin/#/setup', rt.url).href);
  await page.locator('ul.kit-index a', { hasText: profile }).first().click();
  await page.locator('#kit-url code').waitFor();
}

describe('the set-up kit', () => {
  it('lists every profile in an index, and fits a phone', async () => {
    for (const [viewport, label] of WIDTHS) {
      const { page, context } = await open(viewport);
      await page.goto(new URL('/admin/#/setup', rt.url).href);
      await page.locator('ul.kit-index a').first().waitFor();
      expect(await page.locator('ul.kit-index a').count()).toBe(Object.keys(DEMO.profiles).length);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(viewport.width);
      await screenshot(page, `kit-${label}-index.png`);
      await context.close();
    }
  }, 60_000);

  it('is copied and used: the copied URL and the kit’s sample deliver a lead', async () => {
    for (const [viewport, label] of WIDTHS) {
      const { page, context } = await open(viewport);
      await kitPage(page, 'rd');
      await page.locator('#kit-url button.copy').click();
      const url = await clipboard(page);
      expect(url).toMatch(/\/leads\/rd\?token=.+/);
      await page.locator('summary', { hasText: 'curl' }).click();
      await page.locator('details[open] button.copy').click();
      const curl = await clipboard(page);
      const email = `kit.copiado.${label}@example.com`;
      expect(await sendWithKit(url, curl, email)).toBeLessThan(300);
      await deliveredLead('rd', email);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(viewport.width);
      await screenshot(page, `kit-${label}-rd.png`);
      await context.close();
    }
  }, 90_000);

  it('reveals and rotates the token: the new URL delivers, the old one still works', async () => {
    const { page, context } = await open(PHONE);
    await kitPage(page, 'rd');
    await page.locator('summary', { hasText: 'curl' }).click();
    const curl = (await page.locator('details[open] pre').textContent()) ?? '';
    await page.locator('#reveal').click();
    const secret = page.locator('.secret[data-key="token"] code.paste');
    await secret.waitFor();
    const before = (await secret.textContent()) ?? '';
    expect(before).toBe(DEMO.profiles.rd.token);
    const oldUrl = (await page.locator('#kit-url code').textContent()) ?? '';

    await page.locator('.secret button.rotate').click();
    await page.locator('.msg.ok', { hasText: 'Nova chave criada' }).waitFor();
    const after = (await secret.textContent()) ?? '';
    expect(after).not.toBe(before);
    expect(after).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.locator('#kit-url button.copy').click();
    const newUrl = await clipboard(page);
    expect(newUrl).toContain(`token=${after}`);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'kit-390-rotated.png');

    expect(await sendWithKit(newUrl, curl, 'kit.novo@example.com')).toBeLessThan(300);
    await deliveredLead('rd', 'kit.novo@example.com');
    expect(await sendWithKit(oldUrl, curl, 'kit.antigo@example.com')).toBeLessThan(300);
    await deliveredLead('rd', 'kit.antigo@example.com');
    const wrong = oldUrl.replace(/token=[^&]+/, 'token=not-the-token');
    expect(await sendWithKit(wrong, curl, 'kit.errado@example.com')).toBe(403);
    await context.close();
  }, 90_000);
});

describe('a test lead', () => {
  it('links to the lead it became, for Google and the Prospect API too (they name no lead)', async () => {
    const { page, context } = await open(PHONE);
    for (const profile of ['google', 'native', 'site']) {
      await kitPage(page, profile);
      await page.locator('#send-test').click();
      const link = page.locator('.test-lead-link a');
      await link.waitFor({ timeout: 30_000 });
      await link.click();
      await page.locator('#submitted').waitFor();
      expect(await page.textContent('#submitted'), profile).toContain('ana.teste+');
      expect(await scrollWidth(page), profile).toBeLessThanOrEqual(PHONE.width);
    }
    await screenshot(page, 'test-lead-390-opened.png');
    await context.close();
  }, 90_000);
});

describe('the correction form on a phone', () => {
  it('opens the right keyboards, has DDI 55 and the branch by name, and delivers there', async () => {
    const email = 'lia.moema@example.com';
    const response = await fetch(new URL('/leads/site?token=demo-site-token', rt.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ nome: 'Lia Prado', email }).toString(),
    });
    const { leadId } = (await response.json()) as { leadId: string };
    const { page, context } = await open(PHONE);
    await page.goto(new URL(`/admin/#/lead/${leadId}`, rt.url).href);
    const form = page.locator('#correct');
    await form.waitFor();

    const type = (name: string) => form.locator(`[name="${name}"]`).getAttribute('type');
    expect(await type('cellphone')).toBe('tel');
    expect(await type('email')).toBe('email');
    expect(await type('ddi')).toBe('tel');
    expect(await form.locator('[name="ddi"]').inputValue()).toBe('55');
    expect(await form.locator('[name="cpf"]').getAttribute('inputmode')).toBe('numeric');
    const branch = form.locator('select[name="idBranch"]');
    expect(await branch.locator('option').allTextContents()).toEqual(
      expect.arrayContaining(['Centro', 'Moema']),
    );
    const labels = (await form.textContent()) ?? '';
    expect(labels).not.toMatch(/idBranch|marketingType/);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'correct-390-form.png');

    await branch.selectOption({ label: 'Moema' });
    await form.locator('[name="cellphone"]').fill('(11) 97654-3210');
    await form.locator('button[type="submit"]').click();
    await page.locator('.msg.ok', { hasText: 'Entregue' }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'correct-390-delivered.png');
    const sandbox = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
    const prospects = ((await sandbox.json()) as { body: Record<string, unknown> }[]).map(
      (p) => p.body,
    );
    expect(prospects.find((p) => p.email === email)).toMatchObject({
      idBranch: 2,
      ddi: '55',
      cellphone: '11976543210',
    });
    await context.close();
  }, 60_000);
});

/** The page's visible prose: its text without URLs, code, scripts or the values in inputs. */
function prose(page: Page): Promise<string> {
  return page.evaluate(`(() => {
    const copy = document.body.cloneNode(true);
    for (const node of copy.querySelectorAll('code, pre, script, style, noscript, option, .who')) {
      node.remove();
    }
    // URLs, and names quoted as the platform or the configuration spells them ("Verify token").
    return (copy.innerText || copy.textContent || '')
      .replace(/https?:\\/\\/\\S+/g, ' ')
      .replace(/"[^"\\n]*"/g, ' ');
  })()`) as Promise<string>;
}

function englishIn(text: string): string[] {
  return ENGLISH.filter((word) =>
    new RegExp(`(^|[^\\p{L}_])${word}([^\\p{L}_]|$)`, 'iu').test(text),
  );
}

describe('every page in Portuguese, and none wider than a phone', () => {
  it('walks the console, every kit and the dashboard at 390 px', async () => {
    // A lead parked for its phone and a phone that is not one: its reason and notes are read too.
    const parkedAnswer = await fetch(new URL('/leads/site?token=demo-site-token', rt.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ nome: 'Caio Lima', email: 'caio@example.com', celular: '1234' }),
    });
    const { leadId: parked } = (await parkedAnswer.json()) as { leadId: string };
    const leads = (await (
      await fetch(new URL('/admin/leads?limit=1&status=delivered', rt.url), { headers: AUTH })
    ).json()) as { leads: { leadId: string }[] };
    const pages: [string, string][] = [
      ['#/', 'table.leads, .msg'],
      ['#/preview', '#preview'],
      ['#/setup', 'ul.kit-index'],
      [`#/lead/${parked}`, '#correct'],
      ...(leads.leads[0]
        ? [[`#/lead/${leads.leads[0].leadId}`, '#submitted'] as [string, string]]
        : []),
      ...Object.keys(DEMO.profiles).map((p): [string, string] => [`#/setup/${p}`, '#kit-url']),
    ];
    const found: Record<string, string[]> = {};
    const { page, context } = await open(PHONE);
    for (const [hash, ready] of pages) {
      await page.goto(new URL(`/admin/${hash}`, rt.url).href);
      await page.locator(ready).first().waitFor();
      await page.locator('#health b').waitFor();
      const words = englishIn(await prose(page));
      if (words.length) found[hash] = words;
      expect(await scrollWidth(page), hash).toBeLessThanOrEqual(PHONE.width);
    }
    // The preview of a lead without a phone: why it would be parked, in Portuguese.
    await page.goto(new URL('/admin/#/preview', rt.url).href);
    await page
      .locator('#preview textarea')
      .fill('{"nome": "Caio Lima", "email": "caio@example.com"}');
    await page.locator('#preview button[type="submit"]').click();
    await page.locator('.card.result').waitFor();
    const preview = englishIn(await prose(page));
    if (preview.length) found['#/preview (result)'] = preview;
    await page.goto(new URL('/reports/debtors.html', rt.url).href);
    await page.locator('main, body').first().waitFor();
    const dashboard = englishIn(await prose(page));
    if (dashboard.length) found.dashboard = dashboard;
    expect(await scrollWidth(page), 'dashboard').toBeLessThanOrEqual(PHONE.width);
    await context.close();
    expect(found).toEqual({});
    expect(problems).toEqual([]);
  }, 120_000);
});
