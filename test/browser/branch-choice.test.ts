/**
 * The correction form's branch menu in a real browser (Chromium, playwright-core) on the demo
 * configuration plus a second account (`south`, branch 7 "Savassi Sul"), with the report
 * refresher teaching the default account's branch 3 ("Unidade Savassi"): a parked lead of the
 * default account offers only its own account's branches, by name (configured and learned,
 * never the other account's, never an account's internal name); choosing the learned branch
 * delivers the prospect there, and the lead page says an operator chose it, at 1366 and 390 px.
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

async function parkedLead(email: string): Promise<string> {
  const response = await fetch(new URL('/leads/rede?token=rede-choice-token', rt.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      nome: 'Dora Lima',
      email,
      celular: '(11) 98765-4321',
      'Qual unidade?': 'Tatuapé',
    }).toString(),
  });
  expect(response.status).toBe(202);
  const { leadId } = (await response.json()) as { leadId: string };
  await expect
    .poll(async () => (await rt.ledger.get(leadId))?.status, { timeout: 30_000, interval: 250 })
    .toBe('parked');
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
