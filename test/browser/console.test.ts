/**
 * The operator console in a real browser (Chromium through playwright-core), served by the local
 * runtime on the demo configuration (config/demo.json) with the delivery worker on, at a desk
 * (1366 px) and on a phone (390 px): an operator finds a parked lead, reads what the person
 * typed, adds the missing phone, resends it and sees it delivered, and the sandbox upstream has
 * the prospect with that phone; a payload is previewed (nothing stored); nothing scrolls sideways
 * at 390 px; the page runs under its CSP without a violation. Also with the same runtime: the
 * form's honest answer (`parked`), and every demo profile's test lead delivered through the real
 * path. Screenshots go to test/artifacts/ (docs/screenshots/ keeps a few for the README).
 */
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, screenshot, type Viewport } from '../helpers/chromium.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

const DEMO = JSON.parse(readFileSync(new URL('../../config/demo.json', import.meta.url), 'utf8'));
// A second form profile, where an operator may move a lead of `site` (same source).
DEMO.profiles['site-moema'] = { ...DEMO.profiles.site, defaults: { idBranch: 2 } };
const OPS = { username: 'ops', password: 'ops-secret' };
const AUTH = { authorization: `Basic ${Buffer.from('ops:ops-secret').toString('base64')}` };
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

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
  return openPage(browser, viewport, { credentials: OPS, problems, origin: rt.url });
}

const scrollWidth = (page: Page) => page.$eval('html', (n) => n.scrollWidth);

/** A person fills the landing page's form without their phone: the answer says `parked`. */
async function parkedFormLead(name: string, email: string): Promise<string> {
  const response = await fetch(new URL('/leads/site?token=demo-site-token', rt.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ nome: name, email, utm_source: 'instagram' }).toString(),
  });
  const body = (await response.json()) as { leadId: string; status: string; reason?: string };
  expect(response.status).toBe(202);
  expect(body).toMatchObject({ status: 'parked', reason: 'falta o campo obrigatório celular' });
  return body.leadId;
}

/** The bodies the sandbox upstream created prospects from. */
async function sandboxProspects(): Promise<Record<string, unknown>[]> {
  const response = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
  return ((await response.json()) as { body: Record<string, unknown> }[]).map((p) => p.body);
}

/** Finds, reads, corrects and resends a parked lead as an operator would, at one width. */
async function fixParkedLead(
  viewport: { width: number; height: number },
  person: { name: string; email: string; phone: string },
  label: string,
): Promise<{ page: Page; context: BrowserContext }> {
  const leadId = await parkedFormLead(person.name, person.email);
  const { page, context } = await open(viewport);
  const response = await page.goto(new URL('/admin/', rt.url).href);
  expect(response?.status()).toBe(200);

  // Find it: parked leads, searched by the person's name.
  await page.selectOption('select[name="status"]', 'parked');
  await page.fill('input[name="q"]', person.name);
  await page.click('form.filters button[type="submit"]');
  const row = page.locator(`tr[data-lead="${leadId}"]`);
  await row.waitFor();
  expect(await page.locator('tr.lead').count()).toBe(1);
  await expect.poll(() => row.textContent()).toContain('falta o campo obrigatório celular');
  if (viewport.width < 500) expect(await scrollWidth(page)).toBeLessThanOrEqual(viewport.width);
  await screenshot(page, `console-${label}-list.png`);

  // Read what the person typed.
  await row.locator('a').click();
  await page.locator('#submitted').waitFor();
  const typed = (await page.textContent('#submitted')) ?? '';
  expect(typed).toContain(person.name);
  expect(typed).toContain(person.email);
  expect(typed).toContain('instagram');
  expect(await page.textContent('#prospect')).toContain(person.email);
  if (viewport.width < 500) expect(await scrollWidth(page)).toBeLessThanOrEqual(viewport.width);
  await screenshot(page, `console-${label}-lead.png`);

  // Add the missing phone and resend; the page follows the lead until it is delivered.
  await page.fill('#correct input[name="cellphone"]', person.phone);
  await page.click('#correct button[type="submit"]');
  await page.locator('.msg.ok', { hasText: 'Entregue como prospect' }).waitFor({ timeout: 30_000 });
  await page.locator('li.delivered').waitFor();
  await screenshot(page, `console-${label}-delivered.png`);

  const digits = person.phone.replace(/\D/g, '');
  const prospect = (await sandboxProspects()).find((p) => p.email === person.email);
  expect(prospect).toMatchObject({ ddi: '55', cellphone: digits });
  const lead = (await (
    await fetch(new URL(`/admin/leads/${leadId}`, rt.url), { headers: AUTH })
  ).json()) as Record<string, unknown>;
  expect(lead).toMatchObject({ status: 'delivered', correctedBy: 'ops' });
  expect(lead.lastError).toBeUndefined();
  return { page, context };
}

describe('moving a lead to another profile', () => {
  it('at 390 px: the lead page offers the other form profiles and moves it there', async () => {
    const leadId = await parkedFormLead('Rita Moema', 'rita.moema@example.com');
    const { page, context } = await open(PHONE);
    await page.goto(new URL(`/admin/#/lead/${leadId}`, rt.url).href);
    await page.locator('#move').waitFor();
    expect(await page.textContent('#move h3')).toBe('Mover para outro perfil');
    const offered = await page.$$eval('#move select option', (o) => o.map((x) => x.textContent));
    expect(offered).toEqual(['Escolha o perfil', 'site-moema']);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'console-390-move.png');
    await page.selectOption('#move select', 'site-moema');
    await page.click('#move button[type="submit"]');
    await page.locator('.msg.ok', { hasText: 'Movido para o perfil site-moema.' }).waitFor();
    expect((await rt.ledger.get(leadId))?.profile).toBe('site-moema');
    await context.close();
  });
});

describe('the operator console', () => {
  it('at 1366 px: finds a parked lead, shows what was typed, takes the phone, delivers it', async () => {
    const { page, context } = await fixParkedLead(
      DESKTOP,
      { name: 'Ana Souza', email: 'ana.souza.console@example.com', phone: '(11) 98765-4321' },
      '1366',
    );
    await context.close();
    expect(page.isClosed()).toBe(true);
  }, 60_000);

  it('at 390 px: the same, with nothing scrolling sideways', async () => {
    const { context } = await fixParkedLead(
      PHONE,
      { name: 'Bruno Lima', email: 'bruno.lima.console@example.com', phone: '11 91234-5678' },
      '390',
    );
    await context.close();
  }, 60_000);

  it('previews a payload at both widths, storing nothing', async () => {
    for (const [viewport, label] of [
      [DESKTOP, '1366'],
      [PHONE, '390'],
    ] as const) {
      // Prepare
      const { page, context } = await open(viewport);
      await page.goto(new URL('/admin/#/preview', rt.url).href);
      await page.locator('#preview').waitFor();
      const before = await fetch(new URL('/admin/leads?profile=site&q=Carla', rt.url), {
        headers: AUTH,
      });
      // Act
      await page.locator('#preview select').first().selectOption('site');
      await page
        .locator('#preview select')
        .nth(1)
        .selectOption('application/x-www-form-urlencoded');
      await page.fill('#preview textarea', 'nome=Carla+Dias&email=carla.dias%40example.com');
      await page.click('#preview button[type="submit"]');
      const result = page.locator('.result');
      await result.waitFor();
      // Assess
      const text = (await result.textContent()) ?? '';
      expect(text).toContain('Seria parado: falta o campo obrigatório celular');
      expect(text).toContain('carla.dias@example.com');
      expect(text).toContain('Carla');
      if (viewport.width < 500) expect(await scrollWidth(page)).toBeLessThanOrEqual(viewport.width);
      await screenshot(page, `console-${label}-preview.png`);
      const after = await fetch(new URL('/admin/leads?profile=site&q=Carla', rt.url), {
        headers: AUTH,
      });
      expect(((await after.json()) as { leads: unknown[] }).leads).toEqual(
        ((await before.json()) as { leads: unknown[] }).leads,
      );
      await context.close();
    }
  }, 60_000);

  it('shows each profile’s set-up kit, and ran without a CSP violation or an outside request', async () => {
    const { page, context } = await open(DESKTOP);
    // The index lists every profile; each profile's kit is a page of its own.
    await page.goto(new URL('/admin/#/setup', rt.url).href);
    await page.locator('ul.kit-index a').first().waitFor();
    expect(await page.locator('ul.kit-index a').count()).toBe(Object.keys(DEMO.profiles).length);
    await page.locator('ul.kit-index a', { hasText: 'site' }).first().click();
    await page.locator('#kit-url code').waitFor();
    const text = (await page.textContent('#view')) ?? '';
    expect(text).toContain(`${rt.url.replace(/\/$/, '')}/leads/site`);
    await screenshot(page, 'console-1366-setup.png', false);
    await context.close();
    expect(problems).toEqual([]);
  }, 30_000);
});

describe('every demo profile delivers its sample lead', () => {
  it('sends each profile’s test lead through the real path and sees it delivered', async () => {
    // Act
    const profiles = Object.keys(DEMO.profiles);
    await Promise.all(
      profiles.map(async (profile) => {
        const response = await fetch(new URL(`/admin/test-lead/${profile}`, rt.url), {
          method: 'POST',
          headers: AUTH,
        });
        const body = (await response.json()) as { status: number };
        expect(response.status, profile).toBe(200);
        expect(body.status, `${profile}: ${JSON.stringify(body)}`).toBeLessThan(300);
      }),
    );
    // Assess: each profile has a delivered lead from Ana Teste (by name: a WhatsApp
    // conversation carries no e-mail of hers).
    for (const profile of profiles) {
      await expect
        .poll(
          async () => {
            const response = await fetch(
              new URL(`/admin/leads?profile=${profile}&q=Ana%20Teste`, rt.url),
              { headers: AUTH },
            );
            const { leads } = (await response.json()) as {
              leads: { status: string; reason?: string }[];
            };
            return leads.map((lead) => `${profile}: ${lead.status} ${lead.reason ?? ''}`.trim());
          },
          { timeout: 30_000, interval: 250 },
        )
        .toContain(`${profile}: delivered`);
    }
  }, 90_000);
});
