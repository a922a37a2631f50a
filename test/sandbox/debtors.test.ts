import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debtorSchema } from '../../functions/domain/debtors.ts';
import { type DemoDebtor, generateDebtors } from '../../sandbox/debtors-data.ts';
import { FIXED_NOW, type Harness, NO_LIMITS, startSandbox } from './helpers.ts';

interface Page {
  results: DemoDebtor[];
  total: number;
  summary: {
    recoveredValue: number;
    recoveryAverage: number;
    pendingValue: number;
    pendingAverage: number;
  };
}

let h: Harness;

beforeAll(async () => {
  h = await startSandbox({ debtors: { count: 240, branches: [1, 2, 3, 7], seed: 7 } });
  await h.setFaults(NO_LIMITS);
});

afterAll(async () => {
  await h.sandbox.close();
});

async function page(query: string): Promise<Page> {
  const response = await h.api(`/api/v1/receivables/debtors${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Page;
}

/** Every row for a filter, paging by `take` until skip >= total. */
async function allPages(
  filter: string,
  take: number,
): Promise<{ rows: DemoDebtor[]; pages: Page[] }> {
  const rows: DemoDebtor[] = [];
  const pages: Page[] = [];
  for (let skip = 0; ; skip += take) {
    const current = await page(`?take=${take}&skip=${skip}${filter}`);
    pages.push(current);
    rows.push(...current.results);
    if (skip + take >= current.total) break;
  }
  return { rows, pages };
}

/** The documented formulas (docs/upstream.md), written out again from the rows. */
function expectedSummary(rows: readonly DemoDebtor[]) {
  const cents = (value: number) => Math.round(value * 100);
  const recovered = rows.filter((r) => r.debtStatus === 'Recovered');
  const open = rows.filter((r) => r.debtStatus === 'Open');
  const recoveredCents = recovered.reduce((sum, r) => sum + cents(r.debtAmount), 0);
  const openCents = open.reduce((sum, r) => sum + cents(r.debtAmount), 0);
  return {
    recoveredValue: recoveredCents / 100,
    recoveryAverage: recovered.length ? Math.round(recoveredCents / recovered.length) / 100 : 0,
    pendingValue: openCents / 100,
    pendingAverage: open.length ? Math.round(openCents / open.length) / 100 : 0,
  };
}

function key(row: DemoDebtor): string {
  return `${row.branchId}|${row.dueDate}|${String(row.receivableId).padStart(12, '0')}`;
}

describe('GET /api/v1/receivables/debtors', () => {
  it('answers 401 without credentials', async () => {
    const response = await fetch(h.url('/api/v1/receivables/debtors'));
    expect(response.status).toBe(401);
  });

  it('defaults to take 50, skip 0 and returns rows of the seed shape', async () => {
    // Act
    const first = await page('');

    // Assess
    expect(first.total).toBe(240);
    expect(first.results).toHaveLength(50);
    for (const row of first.results) {
      expect(debtorSchema.safeParse(row).success).toBe(true);
      expect(Number.isInteger(row.memberId)).toBe(true);
      expect(Number.isInteger(row.receivableId)).toBe(true);
      expect(row.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    }
  });

  it('pages across the whole set with no row twice, in (branch, dueDate, receivableId) order', async () => {
    // Act
    const { rows, pages } = await allPages('', 17);

    // Assess
    expect(pages.length).toBe(Math.ceil(240 / 17));
    expect(rows).toHaveLength(240);
    expect(new Set(rows.map((r) => r.receivableId)).size).toBe(240);
    const keys = rows.map(key);
    expect([...keys].sort()).toEqual(keys);
    expect(pages.every((p) => p.total === 240)).toBe(true);
  });

  it.each([
    ['idBranch=2', (r: DemoDebtor) => r.branchId === 2],
    ['debtStatus=1', (r: DemoDebtor) => r.debtStatus === 'Open'],
    ['debtStatus=recovered', (r: DemoDebtor) => r.debtStatus === 'Recovered'],
    ['memberStatus=1', (r: DemoDebtor) => r.memberStatus === 'Active'],
    ['memberStatus=Freeze', (r: DemoDebtor) => r.memberStatus === 'Freeze'],
    ['memberStatus=2', (r: DemoDebtor) => r.memberStatus === 'Inactive'],
    [
      'idBranch=1&debtStatus=Open&memberStatus=active',
      (r: DemoDebtor) => r.branchId === 1 && r.debtStatus === 'Open' && r.memberStatus === 'Active',
    ],
  ])('filters by %s: the union of pages is exactly the filtered set', async (filter, predicate) => {
    // Prepare
    const { rows: everything } = await allPages('', 50);
    const expected = everything.filter(predicate);
    expect(expected.length).toBeGreaterThan(0);

    // Act
    const { rows, pages } = await allPages(`&${filter}`, 20);

    // Assess
    expect(pages[0]?.total).toBe(expected.length);
    expect(rows.map((r) => r.receivableId)).toEqual(expected.map((r) => r.receivableId));
    expect(rows.every(predicate)).toBe(true);
  });

  it('summarises the whole filtered set, not the page', async () => {
    for (const filter of ['', '&idBranch=3', '&debtStatus=2', '&memberStatus=3', '&idBranch=99']) {
      // Prepare
      const { rows } = await allPages(filter, 50);

      // Act
      const small = await page(`?take=3${filter}`);

      // Assess
      expect(small.summary, filter).toEqual(expectedSummary(rows));
    }
  });

  it('clamps take above 50 to 50', async () => {
    expect((await page('?take=500')).results).toHaveLength(50);
    expect((await page('?take=99999999999999999999999')).results).toHaveLength(50);
    expect((await page('?take=0')).results).toHaveLength(0);
    expect((await page('?skip=235&take=50')).results).toHaveLength(5);
    expect((await page('?skip=100000')).results).toHaveLength(0);
  });

  it('reads parameter names case-insensitively and ignores unknown ones', async () => {
    const result = await page('?Take=5&IDBRANCH=2&foo=bar');
    expect(result.results).toHaveLength(5);
    expect(result.results.every((r) => r.branchId === 2)).toBe(true);
  });

  it.each([
    ['take=-1', 'take'],
    ['take=abc', 'take'],
    ['take=1.5', 'take'],
    ['skip=-3', 'skip'],
    ['idBranch=x', 'idBranch'],
    ['debtStatus=9', 'debtStatus'],
    ['memberStatus=Gone', 'memberStatus'],
  ])('refuses %s with 400 mensagens naming %s', async (query, name) => {
    const response = await h.api(`/api/v1/receivables/debtors?${query}`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { mensagens: string[] };
    expect(body.mensagens).toHaveLength(1);
    expect(body.mensagens[0]).toContain(`'${name}'`);
  });
});

describe('demo debtors data', () => {
  it('is identical across two sandboxes with the same settings and clock', async () => {
    // Prepare
    const other = await startSandbox({ debtors: { count: 240, branches: [1, 2, 3, 7], seed: 7 } });
    try {
      // Act
      const a = await h.api('/api/v1/receivables/debtors?take=50&skip=100');
      const b = await other.api('/api/v1/receivables/debtors?take=50&skip=100');

      // Assess
      expect(await b.text()).toBe(await a.text());
    } finally {
      await other.sandbox.close();
    }
  });

  it('is generated purely from (count, branches, seed, now)', () => {
    const settings = { count: 500, branches: [1, 2, 3], seed: 42 };
    expect(generateDebtors(settings, FIXED_NOW)).toEqual(generateDebtors(settings, FIXED_NOW));
    expect(generateDebtors({ ...settings, seed: 43 }, FIXED_NOW)).not.toEqual(
      generateDebtors(settings, FIXED_NOW),
    );
  });

  it('looks like production: names, branches, statuses, amounts, dates, daysLate quirk', () => {
    // Act
    const rows = generateDebtors({ count: 2000, branches: [1, 2, 3, 40], seed: 42 }, FIXED_NOW);

    // Assess
    expect(rows).toHaveLength(2000);
    expect(new Set(rows.map((r) => r.receivableId)).size).toBe(2000);
    expect(
      rows.every((r) => r.name === r.name.toUpperCase() && r.name.split(' ').length >= 2),
    ).toBe(true);
    expect(rows.some((r) => /[ÃÇÉÍÓÚÂÊÔ]/.test(r.name))).toBe(true);
    const branchNames = new Map(rows.map((r) => [r.branchId, r.branchName]));
    expect(branchNames.get(1)).toBe('Unidade Centro');
    expect(branchNames.get(2)).toBe('Unidade Moema');
    expect(branchNames.get(3)).toBe('Unidade Savassi');
    expect(branchNames.get(40)).toMatch(/^Unidade /);
    expect(new Set(rows.map((r) => r.memberStatus))).toEqual(
      new Set(['Active', 'Inactive', 'Freeze']),
    );
    const open = rows.filter((r) => r.debtStatus === 'Open');
    const recovered = rows.filter((r) => r.debtStatus === 'Recovered');
    expect(open.length).toBeGreaterThan(recovered.length);
    expect(recovered.every((r) => r.paymentDate !== null)).toBe(true);
    expect(open.every((r) => r.paymentDate === null)).toBe(true);
    expect(
      rows.every((r) => r.debtAmount > 0 && Math.round(r.debtAmount * 100) / 100 === r.debtAmount),
    ).toBe(true);
    expect(rows.some((r) => r.receivableIdOrigin === null)).toBe(true);
    expect(rows.some((r) => Number.isInteger(r.receivableIdOrigin))).toBe(true);
    expect(new Set(rows.map((r) => r.paymentType))).toEqual(
      new Set(['Cartão de crédito', 'Boleto', 'Pix', null]),
    );
    // daysLate counts from originalDueDate to today, even when the charge was rescheduled.
    const today = Date.parse('2026-08-01T00:00:00Z');
    for (const row of open) {
      const original = Date.parse(`${row.originalDueDate}Z`);
      expect(row.daysLate).toBe(Math.round((today - original) / 86_400_000));
    }
    const rescheduled = open.filter((r) => r.dueDate > r.originalDueDate);
    expect(rescheduled.length).toBeGreaterThan(0);
    expect(rescheduled.some((r) => r.dueDate >= '2026-08-01')).toBe(true);
  });

  it('regenerates on POST /_sandbox/debtors and refuses invalid settings', async () => {
    // Prepare
    const other = await startSandbox();
    await other.setFaults(NO_LIMITS);
    try {
      const before = (await (await other.api('/api/v1/receivables/debtors')).json()) as Page;
      expect(before.total).toBe(180);

      // Act
      const regenerated = await fetch(other.url('/_sandbox/debtors'), {
        method: 'POST',
        body: JSON.stringify({ count: 7, branches: [5, 6], seed: 3 }),
      });

      // Assess
      expect(regenerated.status).toBe(200);
      expect(await regenerated.json()).toEqual({ count: 7, branches: [5, 6], seed: 3 });
      const after = (await (await other.api('/api/v1/receivables/debtors')).json()) as Page;
      expect(after.total).toBe(7);
      expect(new Set(after.results.map((r) => r.branchId)).size).toBeLessThanOrEqual(2);
      expect(after.results.every((r) => r.branchId === 5 || r.branchId === 6)).toBe(true);

      for (const bad of [
        { count: 20_001 },
        { count: -1 },
        { branches: [] },
        { branches: ['a'] },
        { seed: 1.5 },
        { colour: 'red' },
        [1],
      ]) {
        const response = await fetch(other.url('/_sandbox/debtors'), {
          method: 'POST',
          body: JSON.stringify(bad),
        });
        expect(response.status, JSON.stringify(bad)).toBe(400);
      }
      const restored = await fetch(other.url('/_sandbox/debtors'), { method: 'POST', body: '{}' });
      expect(await restored.json()).toEqual({ count: 180, branches: [1, 2, 3], seed: 42 });
    } finally {
      await other.sandbox.close();
    }
  });

  it('serves 20000 rows quickly enough to page through', async () => {
    const other = await startSandbox({ debtors: { count: 20_000 } });
    await other.setFaults(NO_LIMITS);
    try {
      const last = (await (
        await other.api('/api/v1/receivables/debtors?skip=19990')
      ).json()) as Page;
      expect(last.total).toBe(20_000);
      expect(last.results).toHaveLength(10);
    } finally {
      await other.sandbox.close();
    }
  });
});
