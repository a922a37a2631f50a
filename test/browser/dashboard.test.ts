import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGEING_BUCKETS } from '../../functions/domain/debtors-report.ts';
import { DEFAULT_TIME_ZONE } from '../../functions/domain/local-time.ts';
import { PHONE_PAGE } from '../../functions/report/serve/browser/list-paging.ts';
import { launchChromium, openPage, screenshot, type Viewport } from '../helpers/chromium.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';
import { reportResult } from '../helpers/results.ts';

const CREDENTIALS = { username: 'reporter', password: 'reporter-secret' };
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const AUTH = { authorization: basic(CREDENTIALS.username, CREDENTIALS.password) };
const ADMIN = { authorization: basic('ops', 'ops-secret') };
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const money = (value: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(value);
const collator = new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });

interface Row {
  memberId: number;
  name: string;
  branchId: number;
  branchName: string;
  debtStatus: string;
  memberStatus: string;
  debtAmount: number;
  daysOverdue: number | null;
  ageingBucket: string | null;
  dueDate: string | null;
  paymentDate: string | null;
}
interface Report {
  total: number;
  summary: Record<string, number>;
  filteredSummary: Record<string, number>;
  ageing: Record<string, { count: number; amount: number }>;
  byBranch: {
    branchId: number;
    branchName: string;
    summary: Record<string, number>;
    open: { count: number; amount: number };
    recovered: { count: number; amount: number };
  }[];
  refreshStatus: { failures: number };
  results: Row[];
}

let rt: TestRuntime;
let browser: Browser;
let report: Report;
const problems: string[] = [];

/** How many members these rows are of: the list has one entry per member. */
const membersOf = (rows: readonly Row[]) => new Set(rows.map((r) => r.memberId)).size;

async function getReport(query: string): Promise<Report> {
  const response = await fetch(new URL(`/reports/debtors?take=1000&${query}`, rt.url), {
    headers: AUTH,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Report;
}

/** A browser context that logs in when challenged and records every problem the page meets. */
function open(viewport: Viewport, options: { javaScriptEnabled?: boolean } = {}) {
  return openPage(browser, viewport, {
    credentials: CREDENTIALS,
    problems,
    origin: rt.url,
    ...options,
  });
}

async function visit(page: Page, query = ''): Promise<void> {
  const response = await page.goto(new URL(`/reports/debtors.html${query}`, rt.url).href);
  expect(response?.status()).toBe(200);
  await page.waitForSelector('#debtors tbody.member');
}

/** What the page shows as figures: summary, ageing, branch rows, member statuses, list. */
async function shownFigures(page: Page) {
  const summary: Record<string, { value: number; text: string }> = Object.fromEntries(
    await page.$$eval('[data-figure]', (nodes) =>
      nodes.map((n) => [
        n.getAttribute('data-figure'),
        { value: Number(n.getAttribute('data-value')), text: n.textContent },
      ]),
    ),
  );
  const ageing: Record<string, { amount: number; count: number; text: string }> =
    Object.fromEntries(
      await page.$$eval('#ageing li', (nodes) =>
        nodes.map((n) => [
          n.getAttribute('data-bucket'),
          {
            amount: Number(n.getAttribute('data-amount')),
            count: Number(n.getAttribute('data-count')),
            text: n.querySelector('.amount')?.textContent,
          },
        ]),
      ),
    );
  return {
    summary,
    ageing,
    branches: await page.$$eval('#branches tbody tr', (nodes) =>
      nodes.map((n) => n.getAttribute('data-branch') as string),
    ),
    members: (await page.textContent('#member-status')) ?? '',
    notes: await page.$$eval('.kpi .note', (nodes) => nodes.map((n) => n.textContent as string)),
    count: Number(await page.getAttribute('#match-count', 'data-total')),
    listBranches: [
      ...new Set(
        await page.$$eval('#debtors tbody.member', (nodes) =>
          nodes.map((n) => n.getAttribute('data-branch') as string),
        ),
      ),
    ],
  };
}

/** The list's visible entries, one per member, as the page holds them (data and cell texts). */
function visibleRows(page: Page) {
  return page.$$eval('#debtors tbody.member:not([hidden])', (entries) =>
    entries.map((entry) => ({
      name: entry.getAttribute('data-name') ?? '',
      branch: entry.getAttribute('data-branch') ?? '',
      amount: Number(entry.getAttribute('data-amount')),
      days: entry.getAttribute('data-days') === '' ? null : Number(entry.getAttribute('data-days')),
      owes: entry.getAttribute('data-owes') === '1',
      daysText: entry.querySelector('tr.head td.days')?.textContent ?? '',
      late: entry.querySelector('tr.head td.days')?.classList.contains('late') ?? false,
    })),
  );
}

/** Open debts by ageing bucket, counted here from the JSON rows. */
function ageingOf(rows: readonly Row[]) {
  const buckets = Object.fromEntries(AGEING_BUCKETS.map((b) => [b, { count: 0, cents: 0 }]));
  for (const row of rows) {
    if (row.debtStatus !== 'Open' || !row.ageingBucket) continue;
    const bucket = buckets[row.ageingBucket] as { count: number; cents: number };
    bucket.count += 1;
    bucket.cents += Math.round(row.debtAmount * 100);
  }
  return Object.fromEntries(
    Object.entries(buckets).map(([b, t]) => [b, { count: t.count, amount: t.cents / 100 }]),
  );
}

beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    clients: [
      { ...CREDENTIALS, roles: ['report:read'] },
      { username: 'ops', password: 'ops-secret', roles: ['report:read', 'admin'] },
    ],
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
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await rt?.stop();
});

describe('the debtors dashboard at 1366 px', () => {
  let page: Page;
  beforeAll(async () => {
    ({ page } = await open(DESKTOP));
    await visit(page);
  });

  it('shows the JSON report’s four summary figures, in R$, its ageing and its branches', async () => {
    // Act
    const shown = await shownFigures(page);

    // Assess
    expect(Object.keys(shown.summary).sort()).toEqual([
      'pendingAverage',
      'pendingValue',
      'recoveredValue',
      'recoveryAverage',
    ]);
    for (const [figure, { value, text }] of Object.entries(shown.summary)) {
      expect(value).toBe(report.summary[figure]);
      expect(text).toBe(money(report.summary[figure] as number));
    }
    for (const bucket of AGEING_BUCKETS) {
      expect(shown.ageing[bucket]).toEqual({
        ...report.ageing[bucket],
        text: money(report.ageing[bucket]?.amount ?? 0),
      });
    }
    expect(shown.branches).toEqual(report.byBranch.map((b) => String(b.branchId)));
    expect(shown.count).toBe(membersOf(report.results));
    expect(shown.count).toBeLessThan(report.total); // some members owe several debts
  });

  it('sizes each ageing bar by its open amount', async () => {
    const bars = await page.$$eval('#ageing rect.bar', (nodes) =>
      nodes.map((n) => ({
        bucket: n.getAttribute('data-bucket') ?? '',
        width: Number(n.getAttribute('width')),
      })),
    );
    expect(bars.map((b) => b.bucket)).toEqual([...AGEING_BUCKETS]);
    const max = Math.max(...AGEING_BUCKETS.map((b) => report.ageing[b]?.amount ?? 0));
    for (const bar of bars) {
      const amount = report.ageing[bar.bucket]?.amount ?? 0;
      expect(bar.width).toBeCloseTo((amount / max) * 100, 1);
    }
  });

  it('lists each member once, those who owe first, the most overdue first, and never a paid one as overdue', async () => {
    // Prepare
    await page.click('#more'); // the rest: every demo member
    const rows = await visibleRows(page);

    // Assess
    expect(rows).toHaveLength(membersOf(report.results));
    const firstPaid = rows.findIndex((r) => !r.owes);
    expect(firstPaid).toBeGreaterThan(0);
    expect(rows.slice(firstPaid).every((r) => !r.owes)).toBe(true);
    const owing = rows.slice(0, firstPaid).map((r) => r.days ?? 0);
    expect(owing).toEqual([...owing].sort((a, b) => b - a));
    for (const row of rows.slice(firstPaid)) {
      expect(row.late).toBe(false);
      expect(row.days).toBeNull();
      expect(row.daysText).toMatch(/^Pago em \d{2}\/\d{2}\/\d{4}$/);
    }
    // The JSON counts a recovered debt's days up to the day it was paid, never past today (the
    // account's day: between 00:00 and 03:00 UTC São Paulo is still on the day before).
    const day = (date: string | null) => Date.parse(`${date?.slice(0, 10)}T00:00:00Z`) / 86_400_000;
    const today = day(new Intl.DateTimeFormat('en-CA', { timeZone: DEFAULT_TIME_ZONE }).format());
    for (const row of report.results.filter((r) => r.debtStatus === 'Recovered')) {
      const paid = Math.min(day(row.paymentDate), today);
      expect(row.daysOverdue).toBe(Math.max(0, paid - day(row.dueDate)));
    }
  });

  it('sorts by a column header, both ways, and by the sort menu', async () => {
    // Act: Valor, largest first
    await page.click('#debtors th[data-sort="debtAmount"] a');
    const largest = await visibleRows(page);

    // Assess: what members owe, largest first; members who owe nothing after them
    expect(page.url()).toMatch(/[?&]sort=-debtAmount\b/);
    expect(await page.getAttribute('#debtors th[data-sort="debtAmount"]', 'aria-sort')).toBe(
      'descending',
    );
    const owing = largest.filter((r) => r.owes);
    expect(largest.slice(0, owing.length).every((r) => r.owes)).toBe(true);
    const amounts = owing.map((r) => r.amount);
    expect(amounts.length).toBeGreaterThan(1);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));

    // Act: again, smallest first
    await page.click('#debtors th[data-sort="debtAmount"] a');
    const smallest = (await visibleRows(page)).filter((r) => r.owes).map((r) => r.amount);
    expect(smallest).toEqual([...smallest].sort((a, b) => a - b));

    // Act: names, A to Z
    await page.click('#debtors th[data-sort="name"] a');
    const names = (await visibleRows(page)).map((r) => r.name);
    expect(names).toEqual([...names].sort(collator.compare));

    // Act: the menu, most days overdue: members who owe by days, the others (no days) last
    await page.selectOption('#sort', '-daysOverdue');
    const late = await visibleRows(page);
    const days = late.filter((r) => r.days !== null).map((r) => r.days as number);
    expect(days).toEqual([...days].sort((a, b) => b - a));
    expect(late.findIndex((r) => !r.owes)).toBeGreaterThanOrEqual(days.length);
    expect(page.url()).toMatch(/[?&]sort=-daysOverdue\b/);

    await page.selectOption('#sort', '');
  });

  it('searches names ignoring accents and case, and filters by status', async () => {
    // Prepare
    const accented =
      report.results.find((r) => /JOÃO/.test(r.name)) ??
      report.results.find((r) => fold(r.name) !== r.name.toLowerCase());
    expect(accented, 'the demo data has an accented name').toBeDefined();
    const word = fold(accented?.name.split(' ').find((w) => fold(w) !== w.toLowerCase()) ?? '');

    // Act
    await page.fill('#search', word);
    const names = (await visibleRows(page)).map((r) => r.name);

    // Assess
    const matching = report.results.filter((r) => fold(r.name).includes(word));
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBe(membersOf(matching));
    expect(new Set(names)).toEqual(new Set(matching.map((r) => r.name)));
    expect(names).toContain(accented?.name);
    expect(await page.textContent('#match-count')).toBe(
      `${names.length} de ${membersOf(report.results)} devedores`,
    );
    expect(page.url()).toContain(`q=${encodeURIComponent(word)}`);
    const links = await page.$$eval('#debtors tbody.member:not([hidden]) a', (nodes) =>
      nodes.map((n) => ({ rel: n.getAttribute('rel'), href: n.getAttribute('href') ?? '' })),
    );
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      expect(link.rel).toBe('noopener noreferrer');
      expect(link.href).toMatch(/^https:\/\//);
    }
    await screenshot(page, 'dashboard-search.png', false);

    // Act: recovered only (the page comes back from the server with those debts alone)
    await page.fill('#search', '');
    await Promise.all([
      page.waitForURL(/[?&]debtStatus=recovered\b/),
      page.selectOption('#status', 'recovered'),
    ]);
    await page.waitForSelector('#debtors tbody.member');
    const recovered = await visibleRows(page);
    const paid = report.results.filter((r) => r.debtStatus === 'Recovered');
    expect(Number(await page.getAttribute('#match-count', 'data-total'))).toBe(membersOf(paid));
    expect(recovered.length).toBe(Math.min(100, membersOf(paid)));
    expect(recovered.every((r) => !r.owes)).toBe(true);
    await Promise.all([
      page.waitForURL((url) => !url.search.includes('debtStatus')),
      page.selectOption('#status', ''),
    ]);
    await page.waitForSelector('#debtors tbody.member');
  });

  it('narrows every figure to the branch chosen in the filter', async () => {
    // Prepare
    const branch = report.byBranch[1];
    if (!branch) throw new Error('the demo report has three branches');
    const narrowed = await getReport(`branch=${branch.branchId}`);

    // Act
    await Promise.all([
      page.waitForURL(new RegExp(`[?&]branch=${branch.branchId}\\b`)),
      page.selectOption('#branch', String(branch.branchId)),
    ]);
    await page.waitForSelector('#scope-name');
    const shown = await shownFigures(page);

    // Assess
    for (const [figure, { value, text }] of Object.entries(shown.summary)) {
      expect(value, figure).toBe(branch.summary[figure]);
      expect(value, figure).toBe(narrowed.filteredSummary[figure]);
      expect(text).toBe(money(value));
      if (figure.endsWith('Value')) expect(value).toBeLessThan(report.summary[figure] as number);
    }
    const ageing = ageingOf(narrowed.results);
    for (const bucket of AGEING_BUCKETS) {
      expect(shown.ageing[bucket]?.amount).toBe(ageing[bucket]?.amount);
      expect(shown.ageing[bucket]?.count).toBe(ageing[bucket]?.count);
    }
    expect(shown.branches).toEqual([String(branch.branchId)]);
    expect(shown.count).toBe(membersOf(narrowed.results));
    expect(shown.count).toBeLessThan(membersOf(report.results));
    expect(shown.listBranches).toEqual([branch.branchName]);
    expect(shown.notes[0]).toBe(`${branch.open.count} débitos`);
    expect(shown.notes[2]).toBe(
      `${branch.recovered.count} débitos pagos, entre os listados neste relatório (o seu período)`,
    );
    const active = narrowed.results.filter((r) => r.memberStatus === 'Active').length;
    expect(shown.members).toContain(`Ativos ${active}`);
    expect(await page.getAttribute('.actions a[download]', 'href')).toBe(
      `debtors.csv?branch=${branch.branchId}`,
    );
    await screenshot(page, 'dashboard-branch.png', false);
  });

  it('honours ?branch= in the address, sorted and searched lists too', async () => {
    // Prepare
    const branch = report.byBranch[2];
    if (!branch) throw new Error('the demo report has three branches');
    const narrowed = await getReport(`branch=${branch.branchId}`);

    // Act
    await visit(page, `?branch=${branch.branchId}&sort=-debtAmount`);
    const shown = await shownFigures(page);
    const rows = await visibleRows(page);

    // Assess
    expect(shown.summary.pendingValue?.value).toBe(narrowed.filteredSummary.pendingValue);
    expect(await page.inputValue('#branch')).toBe(String(branch.branchId));
    expect(await page.inputValue('#sort')).toBe('-debtAmount');
    expect(rows.every((r) => r.branch === branch.branchName)).toBe(true);
    const amounts = rows.filter((r) => r.owes).map((r) => r.amount);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
  });

  it('looks right: saves screenshots', async () => {
    await visit(page);
    await screenshot(page, 'dashboard.png', false);
    await screenshot(page, 'dashboard-full.png');
  });
});

describe('the debtors dashboard at 390 px', () => {
  let page: Page;
  beforeAll(async () => {
    ({ page } = await open(PHONE));
    await visit(page);
  });

  interface Box {
    left: number;
    right: number;
    width: number;
    clipped: boolean;
    text: string;
  }

  /** Everything that must be whole and on screen, as rectangles, and the page's own width. */
  async function layout() {
    const boxes = (selector: string): Promise<Box[]> =>
      page.$$eval(selector, (nodes) =>
        nodes.map((n) => {
          const r = n.getBoundingClientRect();
          return {
            left: r.left,
            right: r.right,
            width: r.width,
            clipped: n.scrollWidth > n.clientWidth + 1,
            text: n.textContent ?? '',
          };
        }),
      );
    const entry = '#debtors tbody.member:not([hidden]) tr.head';
    return {
      scrollWidth: await page.$eval('html', (n) => n.scrollWidth as number),
      figures: await boxes('[data-figure]'),
      ageing: await boxes('#ageing li'),
      branchCells: await boxes('#branches td'),
      amounts: await boxes(`${entry} td.amount`),
      links: await boxes(`${entry} td.link summary`),
      statuses: await boxes(`${entry} td.status`),
    };
  }

  function expectOnScreen(boxes: Box[], what: string) {
    expect(boxes.length, what).toBeGreaterThan(0);
    for (const b of boxes) {
      expect(b.left, `${what} "${b.text}"`).toBeGreaterThanOrEqual(0);
      expect(b.right, `${what} "${b.text}"`).toBeLessThanOrEqual(PHONE.width);
      expect(b.width, `${what} "${b.text}"`).toBeGreaterThan(0);
      expect(b.clipped, `${what} "${b.text}" is cut`).toBe(false);
    }
  }

  it('has filters and buttons at least 44 px tall (touch targets)', async () => {
    // Act
    const heights = await page.$$eval(
      '.scope select, .toolbar select, .toolbar input, .actions a',
      (nodes) => nodes.map((node) => node.getBoundingClientRect().height),
    );

    // Assess
    expect(heights.length).toBeGreaterThan(0);
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(44);
  });

  it('does not scroll sideways, and every figure, bar, member’s total and "Cobrar" is whole on screen', async () => {
    // Act
    const shown = await layout();

    // Assess
    expect(shown.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expectOnScreen(shown.figures, 'summary figure');
    expect(shown.figures.map((f) => f.text)).toEqual(
      ['pendingValue', 'pendingAverage', 'recoveredValue', 'recoveryAverage'].map((f) =>
        money(report.summary[f] as number),
      ),
    );
    expectOnScreen(shown.ageing, 'ageing bucket');
    expect(shown.ageing).toHaveLength(AGEING_BUCKETS.length);
    expectOnScreen(shown.branchCells, 'branch figure');
    expectOnScreen(shown.amounts, 'member’s total');
    expectOnScreen(shown.links, '"Cobrar"');
    expectOnScreen(shown.statuses, 'status');
    expect(shown.amounts).toHaveLength(PHONE_PAGE);
    await screenshot(page, 'dashboard-390.png', false);
    await screenshot(page, 'dashboard-390-full.png');
    await page.$eval('#ageing', (n) => n.scrollIntoView());
    await screenshot(page, 'dashboard-390-ageing.png', false);
    await page.$eval('html', (n) => n.scrollTo(0, 0));
  });

  it('starts collapsed: the largest debts first, a page of them, a few screens tall', async () => {
    // Act
    const rows = await visibleRows(page);
    const height = await page.$eval('html', (n) => n.scrollHeight as number);
    const more = (await page.textContent('#more')) ?? '';

    // Assess: the members who owe the most first (of the whole list, not only those shown)
    const owing = report.results.filter((r) => r.debtStatus === 'Open');
    const owedBy = new Map<number, number>();
    for (const r of owing) {
      owedBy.set(r.memberId, (owedBy.get(r.memberId) ?? 0) + Math.round(r.debtAmount * 100));
    }
    const largest = [...owedBy.values()].sort((a, b) => b - a).slice(0, PHONE_PAGE);
    expect(rows.map((r) => r.amount)).toEqual(largest.map((cents) => cents / 100));
    const left = membersOf(report.results) - PHONE_PAGE;
    expect(more).toBe(`Ver mais ${PHONE_PAGE} (faltam ${left})`);
    expect(height).toBeLessThan(PHONE.height * 8); // it was some 25,000 px with 100 members
    reportResult(`dashboard at 390 px, collapsed: ${height} px tall, ${rows.length} members`);
    await screenshot(page, 'dashboard-390-collapsed-full.png');
  });

  it('shows the rest of the list on "Ver mais", a page at a time, still within the screen', async () => {
    // Act
    const total = membersOf(report.results);
    let clicks = 0;
    while (await page.isVisible('#more')) {
      await page.click('#more');
      clicks += 1;
      const shown = await visibleRows(page);
      expect(shown).toHaveLength(Math.min(total, PHONE_PAGE * (clicks + 1)));
    }

    // Assess
    const shown = await layout();
    expect(clicks).toBe(Math.ceil(total / PHONE_PAGE) - 1);
    expect(shown.amounts).toHaveLength(total);
    expect(await page.isHidden('#more')).toBe(true);
    expect(shown.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expectOnScreen(shown.amounts, 'member’s total');
  });

  it('narrows to a branch and sorts from the menu, still within the screen', async () => {
    // Prepare
    const branch = report.byBranch[0];
    if (!branch) throw new Error('the demo report has three branches');

    // Act
    await Promise.all([
      page.waitForURL(new RegExp(`[?&]branch=${branch.branchId}\\b`)),
      page.selectOption('#branch', String(branch.branchId)),
    ]);
    await page.waitForSelector('#scope-name');
    await page.selectOption('#sort', '-debtAmount');

    // Assess
    const shown = await layout();
    expect(shown.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expectOnScreen(shown.figures, 'summary figure');
    const amounts = (await visibleRows(page)).filter((r) => r.owes).map((r) => r.amount);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
    const figures = await shownFigures(page);
    expect(figures.summary.pendingValue?.value).toBe(branch.summary.pendingValue);
    await page.$eval('#list-title', (n) => n.scrollIntoView());
    await screenshot(page, 'dashboard-390-list.png', false);
  });
});

describe('the debtors dashboard without JavaScript', () => {
  it('filters by branch and searches through its form, and sorts through its header links', async () => {
    // Prepare
    const { context, page } = await open(DESKTOP, { javaScriptEnabled: false });
    const branch = report.byBranch[0];
    if (!branch) throw new Error('the demo report has three branches');
    const narrowed = await getReport(`branch=${branch.branchId}`);
    await visit(page);

    // Act: choose the branch, type a name, press the button
    const word = fold(narrowed.results[0]?.name.split(' ')[0] ?? '');
    await page.selectOption('#branch', String(branch.branchId));
    await page.fill('#search', word);
    await Promise.all([page.waitForURL(/branch=/), page.click('.scope button[type=submit]')]);

    // Assess
    const shown = await shownFigures(page);
    expect(shown.summary.pendingValue?.value).toBe(narrowed.filteredSummary.pendingValue);
    const rows = await visibleRows(page);
    const expected = narrowed.results.filter((r) => fold(r.name).includes(word));
    expect(rows).toHaveLength(membersOf(expected));
    expect(new Set(rows.map((r) => r.name))).toEqual(new Set(expected.map((r) => r.name)));

    // Act: sort by amount through the header link
    await Promise.all([
      page.waitForURL(/sort=-debtAmount/),
      page.click('#debtors th[data-sort="debtAmount"] a'),
    ]);
    const amounts = (await visibleRows(page)).filter((r) => r.owes).map((r) => r.amount);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
    expect(await page.inputValue('#search')).toBe(word);
    await context.close();
  });
});

describe('when the refresh fails', () => {
  it('keeps the figures and says in Portuguese what it means, without the error’s text', async () => {
    // Prepare: the upstream goes down and an operator asks for a refresh
    await fetch(new URL('/_sandbox/faults', rt.sandboxUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outage: true }),
    });
    const refresh = await fetch(new URL('/admin/reports/debtors/refresh', rt.url), {
      method: 'POST',
      headers: ADMIN,
    });
    expect(refresh.status).toBe(202);
    const until = Date.now() + 30_000;
    while ((await getReport('')).refreshStatus.failures === 0) {
      if (Date.now() > until) throw new Error('the refresh never failed');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    // Act
    const { context, page } = await open(PHONE);
    await visit(page);
    const banner = (await page.textContent('#stale-banner')) ?? '';

    // Assess
    expect(banner).toContain('Dados desatualizados');
    expect(banner).toMatch(/Dados de \d{2}\/\d{2}\/\d{4}/);
    expect(banner).toContain('a atualização falhou');
    expect(banner).toContain('tentaremos de novo');
    expect(banner).not.toMatch(/upstream|unavailable|error|HTTP/i);
    expect(await page.textContent('[data-figure="pendingValue"]')).toBe(
      money(report.summary.pendingValue as number),
    );
    expect(await page.$eval('html', (n) => n.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'dashboard-390-stale.png', false);
    await context.close();
  });
});

describe('the dashboard’s login and policy', () => {
  it('is asked for credentials: a browser without them meets a real Basic challenge', async () => {
    // The pages above loaded with httpCredentials alone (Playwright sends them only when
    // challenged). Without credentials Chromium takes the 401 as a login prompt it cannot
    // answer (an authentication error), not as a page to render.
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

  it('ran every page under its Content Security Policy with no violation, error or outside request', () => {
    expect(problems).toEqual([]);
  });
});
