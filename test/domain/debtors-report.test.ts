import { describe, expect, it } from 'vitest';
import { computeSummary, type Debtor } from '../../functions/domain/debtors.ts';
import { parseDebtorsQuery, queryDebtors } from '../../functions/domain/debtors-query.ts';
import {
  ageingBucket,
  type BranchPages,
  buildSnapshot,
  combineSummary,
  DEFAULT_REPORT_TIME_ZONE,
  daysOverdue,
  isStale,
  rowDaysOverdue,
  snapshotAgeSeconds,
} from '../../functions/domain/debtors-report.ts';
import { localDay } from '../../functions/domain/local-time.ts';
import { generateDebtors } from '../../sandbox/debtors-data.ts';

/** 02:00 UTC on 1 August is still 31 July in São Paulo (UTC-3). */
const GENERATED_AT = '2026-08-01T02:00:00.000Z';
const TODAY_SP = '2026-07-31';

let nextId = 1_000;
function row(overrides: Partial<Debtor> = {}): Debtor {
  nextId += 1;
  return {
    receivableId: nextId,
    memberId: 10_000 + nextId,
    name: 'MARIA DA SILVA',
    branchId: 1,
    branchName: 'Unidade Centro',
    memberStatus: 'Active',
    debtStatus: 'Open',
    dueDate: '2026-07-01T00:00:00',
    originalDueDate: '2026-07-01T00:00:00',
    daysLate: 30,
    debtAmount: 100,
    ...overrides,
  };
}

function build(branches: BranchPages[], generatedAt = GENERATED_AT) {
  return buildSnapshot({
    branches,
    startedAt: '2026-08-01T01:59:00.000Z',
    generatedAt,
    timeZone: DEFAULT_REPORT_TIME_ZONE,
    pageCalls: branches.length,
  });
}

const SUMMARY = { recoveredValue: 10, recoveryAverage: 10, pendingValue: 300, pendingAverage: 150 };

describe('buildSnapshot', () => {
  it('builds an empty snapshot from no branches: zero totals, computed summary', () => {
    // Act
    const snapshot = build([]);

    // Assess
    expect(snapshot.rows).toEqual([]);
    expect(snapshot.summary).toEqual({
      recoveredValue: 0,
      recoveryAverage: 0,
      pendingValue: 0,
      pendingAverage: 0,
    });
    expect(snapshot.summarySource).toBe('computed');
    expect(Object.values(snapshot.ageing)).toEqual(
      Array.from({ length: 5 }, () => ({ count: 0, amount: 0 })),
    );
    expect(snapshot.warnings).toEqual([]);
  });

  it('keeps every row exactly as sent, nulls and unknown fields included', () => {
    // Prepare
    const odd = row({
      paymentType: null,
      chargeAttemptsCount: 3,
      extra: { nested: true },
    } as Debtor);

    // Act
    const snapshot = build([{ branchId: 1, rows: [odd], total: 1, summary: null }]);

    // Assess
    expect(snapshot.rows).toEqual([odd]);
    expect(snapshot.rows[0]).toBe(odd);
  });

  it('orders branches ascending and keeps the upstream order within a branch', () => {
    // Prepare
    const b2 = [row({ branchId: 2, receivableId: 9 }), row({ branchId: 2, receivableId: 3 })];
    const b1 = [row({ branchId: 1, receivableId: 7 })];

    // Act
    const snapshot = build([
      { branchId: 2, rows: b2, total: 2 },
      { branchId: 1, rows: b1, total: 1 },
    ]);

    // Assess
    expect(snapshot.branches).toEqual([1, 2]);
    expect(snapshot.rows.map((r) => r.receivableId)).toEqual([7, 9, 3]);
    expect(snapshot.byBranch.map((b) => [b.branchId, b.rows, b.total])).toEqual([
      [1, 1, 1],
      [2, 2, 2],
    ]);
  });

  describe('summary', () => {
    it("takes a single branch's summary exactly as the upstream sent it", () => {
      // Prepare: figures that the formulas would not give, to tell them apart
      const rows = [row({ debtAmount: 1 })];

      // Act
      const snapshot = build([{ branchId: 1, rows, total: 1, summary: { ...SUMMARY, extra: 1 } }]);

      // Assess
      expect(snapshot.summary).toEqual(SUMMARY);
      expect(snapshot.summarySource).toBe('upstream');
      expect(snapshot.byBranch[0]?.summarySource).toBe('upstream');
    });

    it('sums the values of several branches and recomputes averages over the rows', () => {
      // Prepare
      const b1 = [row({ debtAmount: 100 }), row({ debtAmount: 200 })];
      const b2 = [
        row({ branchId: 2, debtAmount: 50 }),
        row({ branchId: 2, debtStatus: 'Recovered', debtAmount: 30 }),
      ];

      // Act
      const snapshot = build([
        { branchId: 1, rows: b1, total: 2, summary: { ...SUMMARY, recoveredValue: 0 } },
        { branchId: 2, rows: b2, total: 2, summary: { ...SUMMARY, pendingValue: 50.1 } },
      ]);

      // Assess: pending 300 + 50.1 over 3 open rows; recovered 0 + 10 over 1 recovered row
      expect(snapshot.summarySource).toBe('upstream-combined');
      expect(snapshot.summary).toEqual({
        recoveredValue: 10,
        recoveryAverage: 10,
        pendingValue: 350.1,
        pendingAverage: 116.7,
      });
    });

    it('computes the summary over every row when a branch sent none or only part of one', () => {
      // Prepare
      const b1 = [row({ debtAmount: 100 })];
      const b2 = [row({ branchId: 2, debtAmount: 0.1 }), row({ branchId: 2, debtAmount: 0.2 })];

      // Act
      const snapshot = build([
        { branchId: 1, rows: b1, total: 1, summary: SUMMARY },
        { branchId: 2, rows: b2, total: 2, summary: { ...SUMMARY, pendingAverage: null } },
      ]);

      // Assess
      expect(snapshot.summarySource).toBe('computed');
      expect(snapshot.summary).toEqual(computeSummary([...b1, ...b2]));
      expect(snapshot.summary.pendingValue).toBe(100.3);
      expect(snapshot.byBranch.map((b) => b.summarySource)).toEqual(['upstream', 'computed']);
    });

    it('combineSummary equals computeSummary when the upstream follows the formulas', () => {
      // Prepare
      const rows = generateDebtors({ count: 500, branches: [1, 2, 3], seed: 5 }, new Date());
      const branches = [1, 2, 3].map((id) => {
        const own = rows.filter((r) => r.branchId === id);
        return { summary: computeSummary(own) };
      });

      // Act
      const combined = combineSummary(branches, rows);

      // Assess
      expect(combined.source).toBe('upstream-combined');
      expect(combined.summary).toEqual(computeSummary(rows));
    });
  });

  describe('rows listed twice', () => {
    it('keeps a row the upstream listed twice (same branch and receivableId) once, and says so', () => {
      // Prepare: the upstream's data moved between two pages
      const a = row({ receivableId: 1 });
      const b = row({ receivableId: 2 });

      // Act
      const snapshot = build([{ branchId: 1, rows: [a, b, { ...b }], total: 2 }]);

      // Assess
      expect(snapshot.rows).toEqual([a, b]);
      expect(snapshot.duplicatesDropped).toBe(1);
      expect(snapshot.warnings).toEqual([
        'branch 1: 1 row(s) listed twice by the upstream were kept once',
      ]);
    });

    it('keeps rows with the same receivableId in different branches, and rows without one', () => {
      // Prepare
      const rows = [
        row({ receivableId: 5 }),
        row({ receivableId: null }),
        row({ receivableId: null }),
      ];
      const other = [row({ branchId: 2, receivableId: 5 })];

      // Act
      const snapshot = build([
        { branchId: 1, rows, total: 3 },
        { branchId: 2, rows: other, total: 1 },
      ]);

      // Assess
      expect(snapshot.rows).toHaveLength(4);
      expect(snapshot.duplicatesDropped).toBe(0);
    });

    it('warns when a branch holds another number of rows than its total', () => {
      // Act
      const snapshot = build([{ branchId: 3, rows: [row({ branchId: 3 })], total: 2 }]);

      // Assess
      expect(snapshot.warnings).toEqual([
        "branch 3: the upstream's total is 2, the report holds 1 row(s)",
      ]);
    });
  });

  describe('ageing', () => {
    it("counts days from dueDate to today in the report's time zone, not daysLate", () => {
      // Prepare
      const cases: Array<[string | null, number | null]> = [
        ['2026-08-05T00:00:00', 0], // due in the future (a rescheduled charge)
        ['2026-07-31T00:00:00', 0], // due today
        ['2026-07-30T23:59:59', 1],
        ['2026-07-01T00:00:00', 30],
        ['2026-06-30T00:00:00', 31],
        ['2026-06-01', 60],
        ['2026-05-31T00:00:00', 61],
        ['2026-05-02T00:00:00', 90],
        ['2026-05-01T00:00:00', 91],
        ['2026-07-31T01:00:00Z', 1], // 22:00 on the 30th in São Paulo
        ['2026-07-31T12:00:00-03:00', 0],
        [null, null],
        ['', null],
        ['31/07/2026', null],
        ['2026-02-30T00:00:00', null],
      ];

      // Act / Assess
      for (const [dueDate, expected] of cases) {
        expect(daysOverdue(dueDate, TODAY_SP, DEFAULT_REPORT_TIME_ZONE), String(dueDate)).toBe(
          expected,
        );
      }
    });

    it('takes today in the time zone of the report', () => {
      expect(localDay(new Date(GENERATED_AT), 'America/Sao_Paulo')).toBe('2026-07-31');
      expect(localDay(new Date(GENERATED_AT), 'UTC')).toBe('2026-08-01');
      expect(() => localDay(new Date(0), 'Mars/Olympus')).toThrow(RangeError);
    });

    it('puts each Open row in its bucket; Recovered rows and undated rows in none', () => {
      // Prepare
      const rows = [
        row({ dueDate: '2026-08-10T00:00:00', daysLate: 1270, debtAmount: 10 }),
        row({ dueDate: '2026-07-30T00:00:00', debtAmount: 20 }),
        row({ dueDate: '2026-07-01T00:00:00', debtAmount: 30 }),
        row({ dueDate: '2026-06-30T00:00:00', debtAmount: 40 }),
        row({ dueDate: '2026-05-31T00:00:00', debtAmount: 50 }),
        row({ dueDate: '2025-01-01T00:00:00', debtAmount: 60.05 }),
        row({ dueDate: '2025-01-01T00:00:00', debtAmount: 0.1 }),
        row({ dueDate: null, debtAmount: 70 }),
        row({
          dueDate: '2025-01-01T00:00:00',
          debtStatus: 'Recovered',
          paymentDate: '2025-01-13T10:20:00',
          debtAmount: 80,
        }),
      ];

      // Act
      const snapshot = build([{ branchId: 1, rows, total: rows.length }]);

      // Assess
      expect(snapshot.ageing).toEqual({
        current: { count: 1, amount: 10 },
        '1-30': { count: 2, amount: 50 },
        '31-60': { count: 1, amount: 40 },
        '61-90': { count: 1, amount: 50 },
        '91+': { count: 2, amount: 60.15 },
      });
      expect(snapshot.ageingUndated).toEqual({ count: 1, amount: 70 });
      // The Recovered debt was paid 12 days late: its days stop there, not at today (576).
      expect(snapshot.daysOverdue).toEqual([0, 1, 30, 31, 61, 576, 576, null, 12]);
    });

    it('stops the days of a Recovered debt at the day it was paid', () => {
      // Prepare
      const recovered = (dueDate: string | null, paymentDate: string | null | undefined) => ({
        dueDate,
        paymentDate,
        debtStatus: 'Recovered',
      });
      const cases: Array<[ReturnType<typeof recovered>, number | null]> = [
        [recovered('2026-07-01T00:00:00', '2026-07-11T18:30:00'), 10],
        [recovered('2026-07-01T00:00:00', '2026-06-28T09:00:00'), 0], // paid before it was due
        [recovered('2026-07-01T00:00:00', '2026-07-11T01:00:00Z'), 9], // 22:00 on the 10th in SP
        [recovered('2026-07-01T00:00:00', '2026-09-01T00:00:00'), 30], // a future date: today
        [recovered('2026-07-01T00:00:00', null), null], // paid, but we cannot say how late
        [recovered('2026-07-01T00:00:00', undefined), null],
        [recovered('2026-07-01T00:00:00', 'ontem'), null],
        [recovered(null, '2026-07-11T18:30:00'), null],
        [{ ...recovered('2026-07-01T00:00:00', null), debtStatus: ' recovered ' }, null],
        [{ ...recovered('2026-07-01T00:00:00', '2026-07-11T00:00:00'), debtStatus: 'Open' }, 30],
        [{ ...recovered('2026-07-01T00:00:00', null), debtStatus: 'Cancelled' }, 30],
      ];

      // Act / Assess
      for (const [debt, expected] of cases) {
        expect(rowDaysOverdue(debt, TODAY_SP, DEFAULT_REPORT_TIME_ZONE), JSON.stringify(debt)).toBe(
          expected,
        );
      }
    });

    it('maps day counts to buckets at their edges', () => {
      expect([0, 1, 30, 31, 60, 61, 90, 91, 5000].map(ageingBucket)).toEqual([
        'current',
        '1-30',
        '1-30',
        '31-60',
        '31-60',
        '61-90',
        '61-90',
        '91+',
        '91+',
      ]);
    });
  });

  it('totals per status and per branch, in cents', () => {
    // Prepare
    const rows = [
      row({ debtAmount: 0.1 }),
      row({ debtAmount: 0.2 }),
      row({ debtStatus: 'Recovered', memberStatus: 'Freeze', debtAmount: 99.9 }),
      row({ debtStatus: null, memberStatus: null, debtAmount: null }),
    ];

    // Act
    const snapshot = build([{ branchId: 1, rows, total: 4 }]);

    // Assess
    expect(snapshot.byDebtStatus).toEqual({
      Open: { count: 2, amount: 0.3 },
      Recovered: { count: 1, amount: 99.9 },
      '(none)': { count: 1, amount: 0 },
    });
    expect(snapshot.byMemberStatus).toEqual({
      Active: { count: 2, amount: 0.3 },
      Freeze: { count: 1, amount: 99.9 },
      '(none)': { count: 1, amount: 0 },
    });
    expect(snapshot.byBranch[0]).toMatchObject({
      branchId: 1,
      branchName: 'Unidade Centro',
      open: { count: 2, amount: 0.3 },
      recovered: { count: 1, amount: 99.9 },
    });
  });
});

describe('isStale', () => {
  const snapshot = { generatedAt: '2026-08-01T12:00:00.000Z' };
  const at = (iso: string) => new Date(iso);

  it('is stale without a snapshot', () => {
    expect(isStale(undefined, { failures: 0 }, at('2026-08-01T12:00:00Z'), 900)).toBe(true);
  });

  it('is fresh up to twice the refresh interval, stale after', () => {
    expect(isStale(snapshot, { failures: 0 }, at('2026-08-01T12:30:00Z'), 900)).toBe(false);
    expect(isStale(snapshot, { failures: 0 }, at('2026-08-01T12:30:01Z'), 900)).toBe(true);
    expect(snapshotAgeSeconds(snapshot, at('2026-08-01T12:30:01Z'))).toBe(1801);
  });

  it('is stale as soon as the last refresh failed', () => {
    expect(isStale(snapshot, { failures: 1 }, at('2026-08-01T12:00:01Z'), 900)).toBe(true);
  });
});

describe('queryDebtors', () => {
  const rows = generateDebtors({ count: 300, branches: [1, 2, 3], seed: 11 }, new Date());

  it('filters by branch and status codes or names, pages, and summarises the filtered set', () => {
    // Act
    const result = queryDebtors(rows, { take: 10, skip: 5, idBranch: 2, debtStatus: 1 });

    // Assess
    const expected = rows.filter((r) => r.branchId === 2 && r.debtStatus === 'Open');
    expect(result.total).toBe(expected.length);
    expect(result.results).toEqual(expected.slice(5, 15));
    expect(result.summary).toEqual(computeSummary(expected));
    expect(queryDebtors(rows, { take: 50, skip: 0, debtStatus: 'open', idBranch: 2 })).toEqual(
      queryDebtors(rows, { take: 50, skip: 0, debtStatus: 1, idBranch: 2 }),
    );
  });

  it('clamps take to 50 and matches nothing for a status outside the vocabulary', () => {
    expect(queryDebtors(rows, { take: 500, skip: 0 }).results).toHaveLength(50);
    expect(queryDebtors(rows, { take: 50, skip: 0, memberStatus: 'Gone' }).total).toBe(0);
  });

  it('answers a parsed query string as the sandbox does', () => {
    // Prepare
    const parsed = parseDebtorsQuery(new URLSearchParams('Take=7&IDBRANCH=3&memberStatus=Freeze'));
    if (!parsed.ok) throw new Error('valid query');

    // Act
    const result = queryDebtors(rows, parsed.query);

    // Assess
    expect(result.results).toHaveLength(7);
    expect(result.results.every((r) => r.branchId === 3 && r.memberStatus === 'Freeze')).toBe(true);
  });
});
