/**
 * Branches by name in a real browser (Chromium through playwright-core) and the whole local
 * runtime on the demo configuration (config/demo.json: the default account names 1 Centro and
 * 2 Moema; the sandbox's debtors report calls branch 3 "Unidade Savassi"), with the delivery
 * worker and the report refresher on. A chain's landing page (the demo's `site` form profile,
 * default branch 1) asks "Qual unidade?": `Moema`, `moema ` and `Unid. Moema` are delivered to
 * Moema's id in the sandbox upstream, `Savassi` to the branch the report taught; the console's
 * preview says which branch and why; an unknown branch (`Tatuapé`) goes to the default branch and
 * the console's lead page shows it as such, at 1366 and at 390 px, nothing scrolling sideways.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localServices } from '../../functions/kernel/local-services.ts';
import { dynamoBranchNames } from '../../functions/upstream/branch-names-dynamodb.ts';
import { launchChromium, openPage, screenshot, type Viewport } from '../helpers/chromium.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

const DEMO = JSON.parse(readFileSync(new URL('../../config/demo.json', import.meta.url), 'utf8'));
const OPS = { username: 'ops', password: 'ops-secret' };
const WIDTHS = [
  { label: '1366', viewport: { width: 1366, height: 900 } },
  { label: '390', viewport: { width: 390, height: 844 } },
] as const;

let rt: TestRuntime;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  rt = await startTestRuntime(DEMO, { worker: true });
  browser = await launchChromium();
  // The refresher's first refresh of the demo report teaches the branch names (before any lead
  // is mapped: the intake and delivery keep the names they read for a minute).
  const services = localServices();
  const names = dynamoBranchNames({ client: services.dynamo, tableName: services.ledgerTable });
  const until = Date.now() + 60_000;
  while ((await names.read('default'))[3] !== 'Unidade Savassi') {
    if (Date.now() > until) throw new Error('the refresher recorded no branch names');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await rt?.stop();
});

/** A person fills the chain's landing page; resolves the lead id the form's answer carries. */
async function chainForm(email: string, unidade: string): Promise<string> {
  const response = await fetch(new URL('/leads/site?token=demo-site-token', rt.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      nome: 'Ana Souza',
      email,
      celular: '(11) 98765-4321',
      'Qual unidade?': unidade,
    }).toString(),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { leadId: string }).leadId;
}

/** The prospect the sandbox upstream created for this e-mail, once the lead is delivered. */
async function deliveredProspect(leadId: string, email: string) {
  await expect
    .poll(async () => (await rt.ledger.get(leadId))?.status, { timeout: 60_000, interval: 250 })
    .toBe('delivered');
  const response = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
  const bodies = ((await response.json()) as { body: Record<string, unknown> }[]).map(
    (p) => p.body,
  );
  return bodies.find((body) => body.email === email);
}

async function open(viewport: Viewport): Promise<Page> {
  return (await openPage(browser, viewport, { credentials: OPS, problems })).page;
}

async function fitsWidth(page: Page, width: number): Promise<void> {
  if (width < 500)
    expect(await page.$eval('html', (n) => n.scrollWidth)).toBeLessThanOrEqual(width);
}

describe('a chain form that names the branch', () => {
  it('delivers "Moema", "moema " and "Unid. Moema" to Moema’s id, and "Savassi" to the branch the report taught', async () => {
    // Act
    const sent = await Promise.all(
      (
        [
          ['Moema', 'ana.moema@example.com'],
          ['moema ', 'ana.moema.typo@example.com'],
          ['Unid. Moema', 'ana.unid.moema@example.com'],
          ['Savassi', 'ana.savassi@example.com'],
        ] as const
      ).map(async ([unidade, email]) => ({
        unidade,
        email,
        leadId: await chainForm(email, unidade),
      })),
    );

    // Assess
    const delivered: Record<string, unknown> = {};
    for (const { unidade, email, leadId } of sent) {
      delivered[unidade] = (await deliveredProspect(leadId, email))?.idBranch;
    }
    expect(delivered).toEqual({ Moema: 2, 'moema ': 2, 'Unid. Moema': 2, Savassi: 3 });
  }, 120_000);

  it('is shown delivered to Moema on its lead page, and previewed to Moema, at both widths', async () => {
    // Prepare
    const email = 'bia.moema@example.com';
    const leadId = await chainForm(email, 'Unid. Moema');
    expect((await deliveredProspect(leadId, email))?.idBranch).toBe(2);

    for (const { label, viewport } of WIDTHS) {
      // Act: the lead's page, then the preview of the same answers.
      const page = await open(viewport);
      await page.goto(new URL(`/admin/#/lead/${leadId}`, rt.url).href);
      const branch = page.locator('#mapping .branch');
      await branch.waitFor();
      const onLead = (await branch.textContent()) ?? '';
      await fitsWidth(page, viewport.width);
      await screenshot(page, `branches-${label}-lead-moema.png`);

      await page.goto(new URL('/admin/#/preview', rt.url).href);
      await page.locator('#preview').waitFor();
      await page.locator('#preview select').first().selectOption('site');
      await page
        .locator('#preview select')
        .nth(1)
        .selectOption('application/x-www-form-urlencoded');
      await page.fill(
        '#preview textarea',
        'nome=Bia+Lima&email=bia%40example.com&celular=11987654321&Qual+unidade%3F=Moema',
      );
      await page.click('#preview button[type="submit"]');
      const previewed = page.locator('.result .branch');
      await previewed.waitFor();
      const onPreview = (await previewed.textContent()) ?? '';
      await fitsWidth(page, viewport.width);
      await screenshot(page, `branches-${label}-preview-moema.png`);
      await page.context().close();

      // Assess
      expect(onLead).toBe('Unidade 2 (Moema): a resposta "Unid. Moema" nomeia a unidade.');
      expect(onPreview).toBe('Unidade 2 (Moema): a resposta "Moema" nomeia a unidade.');
    }
  }, 120_000);

  it('shows an unknown branch ("Tatuapé") as such on the lead’s page: delivered to the default, warned', async () => {
    // Prepare
    const email = 'carla.tatuape@example.com';
    const leadId = await chainForm(email, 'Tatuapé');
    const prospect = await deliveredProspect(leadId, email);

    for (const { label, viewport } of WIDTHS) {
      // Act
      const page = await open(viewport);
      await page.goto(new URL(`/admin/#/lead/${leadId}`, rt.url).href);
      const branch = page.locator('#mapping .branch');
      await branch.waitFor();
      const branchText = (await branch.textContent()) ?? '';
      const branchClass = (await branch.getAttribute('class')) ?? '';
      const warnings = await page.locator('#mapping ul.warnings li').allTextContents();
      const mapped = (await page.textContent('#prospect')) ?? '';
      await fitsWidth(page, viewport.width);
      await screenshot(page, `branches-${label}-lead-unknown.png`);
      await page.context().close();

      // Assess
      expect(branchText).toBe(
        'Unidade 1 (Centro), a padrão do perfil: a resposta "Tatuapé" não é uma unidade conhecida.',
      );
      expect(branchClass).toContain('warn');
      expect(warnings).toEqual([
        'Unidade não reconhecida ("Tatuapé"); usada a unidade padrão do perfil (1)',
      ]);
      expect(mapped).toContain('Unidade não reconhecida ("Tatuapé")');
    }
    expect(prospect?.idBranch).toBe(1);
    expect(String(prospect?.notes)).toContain('Unidade não reconhecida ("Tatuapé")');
    expect(problems).toEqual([]);
  }, 120_000);
});
