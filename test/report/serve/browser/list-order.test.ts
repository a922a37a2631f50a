import { describe, expect, it } from 'vitest';
import {
  compareMembers,
  type MemberFigures,
  nextSort,
  parseSort,
} from '../../../../functions/report/serve/browser/list-order.ts';

const collator = new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });
const collate = (a: string, b: string) => collator.compare(a, b);

const member = (over: Partial<MemberFigures> & { rank: number }): MemberFigures => ({
  name: null,
  branch: null,
  dueDate: null,
  daysOverdue: null,
  debtAmount: null,
  owes: true,
  ...over,
});

const ANA = member({
  rank: 0,
  name: 'Ana',
  debtAmount: 100,
  daysOverdue: 40,
  dueDate: '2026-01-10',
});
const BRUNO = member({
  rank: 1,
  name: 'Bruno',
  debtAmount: 300,
  daysOverdue: 5,
  dueDate: '2026-03-01',
});
const CELIA = member({
  rank: 2,
  name: 'Célia',
  debtAmount: 500,
  owes: false,
  dueDate: '2025-12-01',
});
const DORA = member({ rank: 3, name: null, debtAmount: 200, daysOverdue: null });
const ALL = [DORA, CELIA, BRUNO, ANA];

const sorted = (text: string) =>
  [...ALL].sort(compareMembers(parseSort(text), collate)).map((m) => m.rank);

describe('the dashboard list’s order in the browser (the server’s rules)', () => {
  it('by amount: those who owe first, whichever the direction', () => {
    expect(sorted('-debtAmount')).toEqual([1, 3, 0, 2]);
    expect(sorted('debtAmount')).toEqual([0, 3, 1, 2]);
  });

  it('puts missing values last both ways, ties and no sort in the list’s own order', () => {
    expect(sorted('-daysOverdue')).toEqual([0, 1, 2, 3]);
    expect(sorted('daysOverdue')).toEqual([1, 0, 2, 3]);
    expect(sorted('name')).toEqual([0, 1, 2, 3]);
    expect(sorted('-name')).toEqual([2, 1, 0, 3]);
    expect(sorted('')).toEqual([0, 1, 2, 3]);
  });

  it('compares due dates as dates, names ignoring accents', () => {
    expect(sorted('dueDate')).toEqual([2, 0, 1, 3]);
    const celia = member({ rank: 0, name: 'celia' });
    const cecilia = member({ rank: 1, name: 'Cecília' });
    expect([celia, cecilia].sort(compareMembers(parseSort('name'), collate))[0]).toBe(cecilia);
  });

  it('turns a header around on a second click; amounts and days start from the largest', () => {
    expect(nextSort('debtAmount', parseSort(''))).toBe('-debtAmount');
    expect(nextSort('debtAmount', parseSort('-debtAmount'))).toBe('debtAmount');
    expect(nextSort('name', parseSort('-debtAmount'))).toBe('name');
    expect(nextSort('name', parseSort('name'))).toBe('-name');
    expect(nextSort('daysOverdue', parseSort('name'))).toBe('-daysOverdue');
  });
});
