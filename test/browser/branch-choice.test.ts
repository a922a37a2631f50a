/**
 * The correction form's branch menu in a real browser (Chromium, playwright-core) on the demo
 * configuration plus a second account (`south`, branch 7 "Savassi Sul"), with the report
 * refresher teaching the default account's branch 3 ("Unidade Savassi"): a parked lead of the
 * default account offers only its own account's branches, by name (configured and learned,
 * never the other account's, never an account's internal name); choosing the learned branch
 * delivers the prospect there, and the lead page says an operator chose it, at 1366 and 390 px.
 * And phone-only leads: the correction form marks the fields the upstream requires and, for a
 * lead parked for its e-mail, suggests the profile's `emailPlaceholder`; a form profile with one
 * delivers a phone-only lead with that address. Every field and button is at least 44 px tall.
 */
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localServices } from '../../functions/kernel/local-services.ts';
import { dynamoBranchNames } from '../../functions/upstream/branch-names-dynamodb.ts';
import { launchChromium, openPage, screenshot } from '../helpers/chromium.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

const DEMO = JSON.parse(readFileSync(new URL('../../config/demo.json', import.meta.url), 'utf8'));
const CONFIG = {
  ...DEMO,
  upstreams: {
    south: {
      ...DEMO.upstream,
      username: 'south',
      password: 'south',
      branches: { '7': { name: 'Savassi Sul' } },
    },
  },
  profiles: {
    ...DEMO.profiles,
    // A chain's page with no default branch: an answer naming no branch parks the lead.
    rede: { source: 'form', token: 'rede-choice-token' },
    'so-telefone': {
      source: 'form',
      token: 'so-telefone-token',
      defaults: { idBranch: 1 },
      emailPlaceholder: '{phone}@sem-email.invalid',
    },
  },
};
const OPS = { username: 'ops', password: 'ops-secret' };
const WIDTHS = [
  { label: '1366', viewport: { width: 1366, height: 900 } },
  { label: '390', viewport: { width: 390, height: 844 } },
] as const;

let rt: TestRuntime;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  rt = await startTestRuntime(CONFIG, { worker: true });
  browser = await launchChromium();
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

async function formLead(path: string, answers: Record<string, string>): Promise<string> {
  const response = await fetch(new URL(path, rt.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(answers).toString(),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { leadId: string }).leadId;
}

async function settled(leadId: string, status: string): Promise<void> {
  await expect
    .poll(async () => (await rt.ledger.get(leadId))?.status, { timeout: 60_000, interval: 250 })
    .toBe(status);
}

async function parkedLead(email: string): Promise<string> {
  const leadId = await formLead('/leads/rede?token=rede-choice-token', {
    nome: 'Dora Lima',
    email,
    celular: '(11) 98765-4321',
    'Qual unidade?': 'Tatuapé',
  });
  await settled(leadId, 'parked');
  return leadId;
}

describe('the branch menu of a correction', () => {
  it('offers only the lead’s account’s branches by name, and the chosen one is where it goes', async () => {
    for (const { label, viewport } of WIDTHS) {
      // Prepare
      const email = `dora.${label}@example.com`;
      const leadId = await parkedLead(email);
      const page = (await openPage(browser, viewport, { credentials: OPS, problems })).page;
      await page.goto(new URL(`/admin/#/lead/${leadId}`, rt.url).href);
      const menu = page.locator('#correct select[name="idBranch"]');
      await menu.waitFor();

      // Act
      const offered = await menu.locator('option').allTextContents();
      await menu.selectOption('3');
      await page.click('#correct button[type="submit"]');
      await page.locator('.msg.ok').first().waitFor({ timeout: 60_000 });
      await page.goto(new URL(`/admin/#/lead/${leadId}`, rt.url).href);
      const branch = page.locator('#mapping .branch');
      await branch.waitFor();
      const explained = (await branch.textContent()) ?? '';
      if (viewport.width < 500) {
        expect(await page.$eval('html', (n) => n.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      }
      await screenshot(page, `branch-choice-${label}.png`);
      await page.context().close();

      // Assess
      expect(offered).toEqual(['Escolha a unidade', 'Centro', 'Moema', 'Unidade Savassi']);
      expect(offered.join(' ')).not.toMatch(/Savassi Sul|south|default/);
      expect(explained).toBe('Unidade 3 (Unidade Savassi): escolhida por um operador na correção.');
      const sandbox = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
      const bodies = ((await sandbox.json()) as { body: Record<string, unknown> }[]).map(
        (p) => p.body,
      );
      expect(bodies.find((body) => body.email === email)?.idBranch).toBe(3);
    }
    expect(problems).toEqual([]);
  }, 180_000);
});

describe('a lead with a phone and no e-mail', () => {
  it('is parked with a way through on a plain profile: required fields marked, the placeholder suggested', async () => {
    for (const { label, viewport } of WIDTHS) {
      // Prepare
      const leadId = await formLead('/leads/site?token=demo-site-token', {
        nome: 'Edu Ramos',
        celular: `(11) 9${label.padStart(4, '0')}-4321`,
      });
      await settled(leadId, 'parked');
      const page = (await openPage(browser, viewport, { credentials: OPS, problems })).page;

      // Act
      await page.goto(new URL(`/admin/#/lead/${leadId}`, rt.url).href);
      const form = page.locator('#correct');
      await form.waitFor();
      const required = await form
        .locator('[aria-required="true"]')
        .evaluateAll((inputs) => inputs.map((input) => input.getAttribute('name')));
      const labels = await form.locator('label').allTextContents();
      const hint = (await page.textContent('#email-placeholder-hint')) ?? '';
      const timeline = (await page.textContent('.timeline')) ?? '';
      const heights = await form
        .locator('input, select, button')
        .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().height));
      if (viewport.width < 500) {
        expect(await page.$eval('html', (n) => n.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      }
      await screenshot(page, `phone-only-${label}-parked.png`);
      await page.context().close();

      // Assess
      expect(required.sort()).toEqual(['cellphone', 'email', 'idBranch', 'lastName', 'name']);
      expect(labels.filter((text) => text.includes('(obrigatório)'))).toHaveLength(5);
      expect(labels.find((text) => text.startsWith('CPF'))).not.toContain('obrigatório');
      expect(hint).toContain('"emailPlaceholder": "{phone}@sem-email.invalid"');
      expect(timeline).toContain('falta o campo obrigatório e-mail; para leads só com telefone');
      // Touch targets: every field and button at least 44 px tall.
      expect(Math.min(...heights)).toBeGreaterThanOrEqual(44);
    }
  }, 120_000);

  it('is delivered with the placeholder address on a form profile that has one', async () => {
    // Act
    const leadId = await formLead('/leads/so-telefone?token=so-telefone-token', {
      nome: 'Fabi Nunes',
      celular: '(11) 97777-1234',
    });
    await settled(leadId, 'delivered');

    // Assess
    const sandbox = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
    const bodies = ((await sandbox.json()) as { body: Record<string, unknown> }[]).map(
      (p) => p.body,
    );
    const prospect = bodies.find((body) => body.email === '5511977771234@sem-email.invalid');
    expect(prospect).toMatchObject({ cellphone: '11977771234', idBranch: 1 });
    expect(String(prospect?.notes)).toContain('E-mail não informado; usado');
    expect(problems).toEqual([]);
  }, 60_000);
});
