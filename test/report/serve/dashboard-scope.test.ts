/**
 * What the dashboard shows, as data (functions/report/serve/dashboard-scope.ts): its query with
 * Portuguese problems and the figures of a branch scope against the snapshot's own rules. The
 * list of debtors is dashboard-members.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { computeSummary, type Debtor } from '../../../functions/domain/debtors.ts';
import { buildSnapshot } from '../../../functions/domain/debtors-report.ts';
import {
  dashboardScope,
  dashboardSearch,
  parseDashboardQuery,
} from '../../../functions/report/serve/dashboard-scope.ts';
import { generateDebtors } from '../../../sandbox/debtors-data.ts';

const NOW = new Date('2026-11-21T15:00:00.000Z');

function snapshotOf(rows: readonly Debtor[], summaries: 'upstream' | 'partial' = 'upstream') {
  const branches = new Map<number, Debtor[]>();
  for (const row of rows) {
    const id = Number(row.branchId);
    branches.set(id, [...(branches.get(id) ?? []), row]);
  }
  return buildSnapshot({
    branches: [...branches].map(([branchId, list]) => ({
      branchId,
      rows: list,
      total: list.length,
      // A gym's upstream may round differently from us: a figure we could not compute.
      summary:
        summaries === 'partial' && branchId === 3
          ? null
          : { ...computeSummary(list), pendingValue: 1000 * branchId + 0.5 },
    })),
    startedAt: NOW.toISOString(),
    generatedAt: NOW.toISOString(),
    timeZone: 'America/Sao_Paulo',
    pageCalls: 3,
  });
}

const DEMO = generateDebtors({ count: 180, branches: [1, 2, 3], seed: 42 }, NOW);

describe('parseDashboardQuery', () => {
  it('reads branch (repeated or a comma list), debtStatus by name or code, q and sort', () => {
    // Act
    const parsed = parseDashboardQuery({
      BRANCH: ['3,1', '1'],
      debtStatus: ['2'],
      q: ['  joão '],
      sort: ['-DebtAmount'],
      empty: [''],
    });

    // Assess
    expect(parsed).toEqual({
      ok: true,
      query: {
        branch: [1, 3],
        debtStatus: 'recovered',
        q: 'joão',
        sort: { field: 'debtAmount', descending: true },
      },
    });
    if (parsed.ok)
      expect(dashboardSearch(parsed.query)).toBe(
        'branch=1%2C3&debtStatus=recovered&q=jo%C3%A3o&sort=-debtAmount',
      );
  });

  it('says in Portuguese what is wrong with each parameter', () => {
    const parsed = parseDashboardQuery({
      branch: ['2,x'],
      debtStatus: ['late'],
      sort: ['price'],
      q: ['a'.repeat(201)],
      colour: ['red'],
      constructor: ['1'],
    });
    expect(parsed.ok).toBe(false);
    const problems = parsed.ok ? [] : parsed.problems;
    expect(Object.fromEntries(problems.map((p) => [p.field, p.message]))).toEqual({
      branch: 'deve ser o número da unidade (ex.: branch=2); recebido "x"',
      debtStatus: 'use open (em aberto) ou recovered (recuperados); recebido "late"',
      sort: 'ordene por name, branch, dueDate, daysOverdue, debtAmount (com "-" na frente para a ordem decrescente); recebido "price"',
      q: 'a busca pode ter no máximo 200 caracteres',
      colour: 'não é um filtro desta página; os filtros são branch, debtStatus, q e sort',
      constructor: 'não é um filtro desta página; os filtros são branch, debtStatus, q e sort',
    });
    const twice = parseDashboardQuery({ sort: ['name', 'dueDate'] });
    expect(twice.ok ? [] : twice.problems).toEqual([
      { field: 'sort', message: 'deve aparecer uma vez só no endereço' },
    ]);
  });
});

describe('dashboardScope', () => {
  it('is the snapshot’s own figures for the whole report and for every branch chosen', () => {
    // Prepare
    const snapshot = snapshotOf(DEMO);

    // Act
    const whole = dashboardScope(snapshot);
    const every = dashboardScope(snapshot, [1, 2, 3]);

    // Assess
    expect(whole.summary).toEqual(snapshot.summary);
    for (const scope of [whole, every]) {
      expect(scope.ageing).toEqual(snapshot.ageing);
      expect(scope.ageingUndated).toEqual(snapshot.ageingUndated);
      expect(scope.byDebtStatus).toEqual(snapshot.byDebtStatus);
      expect(scope.byMemberStatus).toEqual(snapshot.byMemberStatus);
      expect(scope.rows).toHaveLength(snapshot.rows.length);
    }
    // Several branches: values summed as the snapshot sums them.
    expect(every.summary).toEqual(snapshot.summary);
    expect(every.summarySource).toBe('upstream-combined');
  });

  it('takes one branch’s summary as its upstream sent it, and counts its own rows', () => {
    // Prepare
    const snapshot = snapshotOf(DEMO);
    const rows = DEMO.filter((r) => r.branchId === 2);

    // Act
    const scope = dashboardScope(snapshot, [2]);

    // Assess
    expect(scope.summary.pendingValue).toBe(2000.5);
    expect(scope.summarySource).toBe('upstream');
    expect(scope.branches.map((b) => b.branchId)).toEqual([2]);
    expect(scope.rows).toHaveLength(rows.length);
    const open = rows.filter((r) => r.debtStatus === 'Open');
    const ageingCount = Object.values(scope.ageing).reduce((n, b) => n + b.count, 0);
    expect(ageingCount + scope.ageingUndated.count).toBe(open.length);
    expect(scope.byDebtStatus.Open?.count).toBe(open.length);
    expect(scope.unknownBranches).toEqual([]);
  });

  it('computes the summary over the rows when a chosen branch came without one', () => {
    const snapshot = snapshotOf(DEMO, 'partial');
    const scope = dashboardScope(snapshot, [2, 3]);
    const rows = DEMO.filter((r) => r.branchId === 2 || r.branchId === 3);
    expect(scope.summarySource).toBe('computed');
    expect(scope.summary).toEqual(computeSummary(rows));
  });

  it('names the branches the report does not hold, with nothing in them', () => {
    const scope = dashboardScope(snapshotOf(DEMO), [2, 9]);
    expect(scope.unknownBranches).toEqual([9]);
    expect(scope.branches.map((b) => b.branchId)).toEqual([2]);
    const none = dashboardScope(snapshotOf(DEMO), [9]);
    expect(none.rows).toEqual([]);
    expect(none.summary).toEqual({
      recoveredValue: 0,
      recoveryAverage: 0,
      pendingValue: 0,
      pendingAverage: 0,
    });
  });
});
