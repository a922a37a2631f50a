/**
 * The order of the dashboard's list in the browser, over the figures each entry carries in its
 * `data-` attributes. Pure and DOM-free (test/report/serve/browser/list-order.test.ts). It keeps
 * the server's rules (dashboard-members.ts `compareMembers`): by amount, members who owe come
 * first whichever the direction; missing values last; ties in the list's own order (`rank`).
 */

/** The fields the list sorts by (dashboard-scope.ts DashboardSortField). */
export type SortField = 'name' | 'branch' | 'dueDate' | 'daysOverdue' | 'debtAmount';

export interface Sort {
  field: string;
  descending: boolean;
}

/** One entry's figures, as its attributes give them (null: missing). */
export interface MemberFigures {
  name: string | null;
  branch: string | null;
  dueDate: string | null;
  daysOverdue: number | null;
  debtAmount: number | null;
  owes: boolean;
  rank: number;
}

const FIELDS: readonly SortField[] = ['name', 'branch', 'dueDate', 'daysOverdue', 'debtAmount'];
/** Columns whose first click sorts from the largest. */
const FIRST_DESCENDING: ReadonlySet<string> = new Set(['daysOverdue', 'debtAmount']);

export const isSortField = (field: string): field is SortField =>
  (FIELDS as readonly string[]).includes(field);

/** `-debtAmount` → debtAmount, descending; `` → no field (the list's own order). */
export function parseSort(text: string): Sort {
  const descending = text.startsWith('-');
  return { field: descending ? text.slice(1) : text, descending };
}

/** The sort a column header's click asks for: the other way if it is the current one. */
export function nextSort(field: string, current: Sort): string {
  const descending = current.field === field ? !current.descending : FIRST_DESCENDING.has(field);
  return `${descending ? '-' : ''}${field}`;
}

/** The order of two entries under `sort`, names compared with `collate` (pt-BR's collator). */
export function compareMembers(
  sort: Sort,
  collate: (a: string, b: string) => number,
): (a: MemberFigures, b: MemberFigures) => number {
  return (a, b) => {
    if (sort.field === 'debtAmount' && a.owes !== b.owes) return a.owes ? -1 : 1;
    if (isSortField(sort.field)) {
      const x = a[sort.field];
      const y = b[sort.field];
      if (x !== null || y !== null) {
        if (x === null) return 1;
        if (y === null) return -1;
        const order =
          typeof x === 'number' && typeof y === 'number'
            ? x - y
            : sort.field === 'dueDate'
              ? x < y
                ? -1
                : x > y
                  ? 1
                  : 0
              : collate(String(x), String(y));
        if (order !== 0) return sort.descending ? -order : order;
      }
    }
    return a.rank - b.rank;
  };
}
