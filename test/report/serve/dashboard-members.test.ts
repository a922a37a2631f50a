/**
 * The dashboard's list as data (functions/report/serve/dashboard-members.ts): one entry per
 * member with their debts and totals, the list's own order, the status filter, the sort, the
 * search and the cap.
 */
import { describe, expect, it } from 'vitest';
import { computeSummary, type Debtor } from '../../../functions/domain/debtors.ts';
import { buildSnapshot } from '../../../functions/domain/debtors-report.ts';
import {
  compareMembers as browserOrder,
  type MemberFigures,
  parseSort,
} from '../../../functions/report/serve/browser/list-order.ts';
import { type MemberEntry, memberList } from '../../../functions/report/serve/dashboard-members.ts';
import type { DashboardSortField } from '../../../functions/report/serve/dashboard-scope.ts';
import { type ReportRow, reportRows } from '../../../functions/report/serve/report-json.ts';
import { generateDebtors } from '../../../sandbox/debtors-data.ts';

const NOW = new Date('2026-11-21T15:00:00.000Z');

function demoRows(): readonly ReportRow[] {
  const rows = generateDebtors({ count: 180, branches: [1, 2, 3], seed: 42 }, NOW);
  const branches = new Map<number, Debtor[]>();
  for (const row of rows) {
    branches.set(Number(row.branchId), [...(branches.get(Number(row.branchId)) ?? []), row]);
  }
  return reportRows(
    buildSnapshot({
      branches: [...branches].map(([branchId, list]) => ({
        branchId,
        rows: list,
        total: list.length,
        summary: computeSummary(list),
      })),
      startedAt: NOW.toISOString(),
      generatedAt: NOW.toISOString(),
      timeZone: 'America/Sao_Paulo',
      pageCalls: 4,
    }),
  );
}

let receivable = 1;
function row(fields: Partial<ReportRow>): ReportRow {
  const open = (fields.debtStatus ?? 'Open') === 'Open';
  return {
    memberId: 1,
    name: 'MARIA DA SILVA',
    memberStatus: 'Active',
    receivableId: receivable++,
    branchId: 2,
    branchName: 'Unidade Moema',
    dueDate: '2026-10-01T00:00:00',
    paymentDate: null,
    debtAmount: 100,
    debtStatus: 'Open',
    checkoutLink: open ? `https://pay.example/r/${receivable}` : null,
    checkoutLinkFullDebt: open ? 'https://pay.example/m/1' : null,
    daysOverdue: 51,
    ageingBucket: '31-60',
    ...fields,
  };
}

const owes = (entry: MemberEntry) => entry.open.count > 0;

describe('memberList: one entry per member', () => {
  it('holds a member’s three debts once, with their total, oldest due date and most days overdue', () => {
    // Prepare
    const rows = [
      row({ dueDate: '2026-09-01T00:00:00', daysOverdue: 81, debtAmount: 129.9 }),
      row({ memberId: 2, name: 'JOÃO SOUZA', debtAmount: 99.9 }),
      row({ dueDate: '2026-08-02T00:00:00', daysOverdue: 111, debtAmount: 149.9 }),
      row({
        dueDate: '2026-07-01T00:00:00',
        debtStatus: 'Recovered',
        paymentDate: '2026-07-10T10:00:00',
        daysOverdue: 9,
        debtAmount: 89.9,
      }),
    ];

    // Act
    const list = memberList(rows, {}, 100);

    // Assess
    expect(list.total).toBe(2);
    expect(list.debts).toBe(4);
    const maria = list.members.find((m) => m.name === 'MARIA DA SILVA');
    expect(maria?.debts.map((d) => d.debtAmount)).toEqual([149.9, 129.9, 89.9]);
    expect(maria?.open).toEqual({ count: 2, cents: 27_980 });
    expect(maria?.recovered).toEqual({ count: 1, cents: 8990 });
    expect(maria?.amount).toBe(279.8);
    expect(maria?.oldestDue).toBe('2026-07-01');
    expect(maria?.daysOverdue).toBe(111);
    expect(maria?.branch).toBe('Unidade Moema');
    expect(maria?.charge).toMatchObject({ openCount: 2, openAmount: 279.8 });
    expect(list.members.map((m) => m.name)).toEqual(['MARIA DA SILVA', 'JOÃO SOUZA']);
  });

  it('lists every demo member once, and every debt under its member', () => {
    // Prepare
    const rows = demoRows();

    // Act
    const list = memberList(rows, {}, 10_000);

    // Assess
    const members = new Set(rows.map((r) => r.memberId));
    expect(list.members).toHaveLength(members.size);
    expect(list.total).toBe(members.size);
    expect(list.members.length).toBeLessThan(rows.length); // some demo members owe several
    expect(list.members.flatMap((m) => m.debts)).toHaveLength(rows.length);
    for (const member of list.members) {
      expect(new Set(member.debts.map((d) => d.memberId)).size).toBe(1);
    }
    const openCents = rows
      .filter((r) => r.debtStatus === 'Open')
      .reduce((sum, r) => sum + Math.round((r.debtAmount ?? 0) * 100), 0);
    expect(list.members.reduce((sum, m) => sum + m.open.cents, 0)).toBe(openCents);
  });

  it('keeps rows without a member id apart', () => {
    const list = memberList([row({ memberId: null }), row({ memberId: null })], {}, 10);
    expect(list.members).toHaveLength(2);
  });

  it('lists members who owe first, the most overdue first, then the others by latest due date', () => {
    const list = memberList(demoRows(), {}, 10_000);
    const firstPaid = list.members.findIndex((m) => !owes(m));
    expect(firstPaid).toBeGreaterThan(0);
    expect(list.members.slice(firstPaid).every((m) => !owes(m))).toBe(true);
    const days = list.members.slice(0, firstPaid).map((m) => m.daysOverdue ?? -1);
    expect(days).toEqual([...days].sort((a, b) => b - a));
    expect(list.members.map((m) => m.rank)).toEqual(list.members.map((_, i) => i));
  });
});

describe('memberList: status, sort, search and cap', () => {
  const rows = demoRows();

  it('lists only the debts of the chosen status, and only members who have some', () => {
    const open = memberList(rows, { debtStatus: 'open' }, 10_000);
    expect(open.members.every((m) => m.debts.every((d) => d.debtStatus === 'Open'))).toBe(true);
    expect(open.debts).toBe(rows.filter((r) => r.debtStatus === 'Open').length);
    const paid = memberList(rows, { debtStatus: 'recovered' }, 10_000);
    expect(paid.members.every((m) => m.open.count === 0 && m.charge === undefined)).toBe(true);
    expect(paid.members.every((m) => m.amount === m.recovered.cents / 100)).toBe(true);
  });

  it('sorts by amount: what members owe, largest first, members who owe nothing after them', () => {
    for (const descending of [true, false]) {
      const list = memberList(rows, { sort: { field: 'debtAmount', descending } }, 10_000);
      const firstPaid = list.members.findIndex((m) => !owes(m));
      expect(list.members.slice(firstPaid).every((m) => !owes(m))).toBe(true);
      const owing = list.members.slice(0, firstPaid).map((m) => m.amount);
      expect(owing).toEqual([...owing].sort((a, b) => (descending ? b - a : a - b)));
    }
  });

  it('sorts by days overdue with members who owe nothing last, either way, ties in rank', () => {
    for (const descending of [true, false]) {
      const list = memberList(rows, { sort: { field: 'daysOverdue', descending } }, 10_000);
      const firstPaid = list.members.findIndex((m) => m.daysOverdue === null);
      expect(list.members.slice(firstPaid).every((m) => m.daysOverdue === null)).toBe(true);
      const tail = list.members.slice(firstPaid).map((m) => m.rank);
      expect(tail).toEqual([...tail].sort((a, b) => a - b));
    }
    const byName = memberList(rows, { sort: { field: 'name', descending: false } }, 10_000);
    const collator = new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });
    const names = byName.members.map((m) => m.name);
    expect(names).toEqual([...names].sort(collator.compare));
    const byDue = memberList(rows, { sort: { field: 'dueDate', descending: false } }, 10_000);
    const dues = byDue.members.map((m) => m.oldestDue ?? '');
    expect(dues).toEqual([...dues].sort());
  });

  it('puts members matching the search first within the cap, and fills it with the others hidden', () => {
    // Prepare
    const query = { q: 'SÍLVA' };
    const matching = new Set(rows.filter((r) => /SILVA/.test(r.name ?? '')).map((r) => r.memberId));
    expect(matching.size).toBeGreaterThan(3);

    // Act
    const capped = memberList(rows, query, 3);
    const roomy = memberList(rows, query, 50);

    // Assess
    expect(capped.matching).toBe(matching.size);
    expect(capped.members.map((m) => m.hidden)).toEqual([false, false, false]);
    expect(roomy.members).toHaveLength(50);
    expect(roomy.members.filter((m) => !m.hidden)).toHaveLength(matching.size);
    expect(roomy.members.filter((m) => !m.hidden).every((m) => /SILVA/.test(m.name))).toBe(true);
  });
});

describe('the page’s script orders the list as the server does', () => {
  /** An entry's figures as its `data-` attributes carry them (dashboard-list.ts). */
  const figures = (entry: MemberEntry): MemberFigures => ({
    name: entry.name || null,
    branch: entry.branch || null,
    dueDate: entry.oldestDue ?? null,
    daysOverdue: entry.daysOverdue,
    debtAmount: entry.amount,
    owes: entry.open.count > 0,
    rank: entry.rank,
  });
  const collator = new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });

  it.each([
    'name',
    '-name',
    'branch',
    '-branch',
    'dueDate',
    '-dueDate',
    'daysOverdue',
    '-daysOverdue',
    'debtAmount',
    '-debtAmount',
  ])('sort=%s: the same members in the same order', (sort) => {
    // Prepare: the server's order for the sort, and the list's own order to start from
    const parsed = parseSort(sort);
    const field = parsed.field as DashboardSortField;
    const server = memberList(demoRows(), { sort: { ...parsed, field } }, 1000).members;
    const own = [...server].sort((a, b) => a.rank - b.rank).map(figures);

    // Act
    const browser = own.sort(browserOrder(parsed, (a, b) => collator.compare(a, b)));

    // Assess
    expect(browser.map((m) => m.rank)).toEqual(server.map((m) => m.rank));
  });
});
