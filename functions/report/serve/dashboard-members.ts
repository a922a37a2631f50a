/**
 * The dashboard's list of debtors, as data: one entry per member, not per receivable. A member
 * with three debts is one entry holding the three, with their figures (open and recovered
 * totals, the oldest due date, the most days overdue) and what "Cobrar" offers
 * (dashboard-charge.ts). dashboard-list.ts renders it. Pure.
 *
 * - Members are told apart by `memberId` (one id per member in an account's report); a row
 *   without one is a member of its own.
 * - `debtStatus` (open/recovered) chooses the debts listed, so every figure of an entry is about
 *   the debts it shows; a member with none of them is not listed. The search (`q`, every word in
 *   the name, ignoring case and accents) chooses members: those not matching are sent hidden,
 *   after the matching ones and while there is room (`limit` members), so that clearing the
 *   search in the browser shows them at once.
 * - The list's own order: members who owe first, the most overdue first, then the others, the
 *   latest due date first; a member's debts in the same order (the most overdue first).
 * - Sorting (`sort`): by name, branch, the oldest due date, the most days overdue (only open
 *   debts count: a member who owes nothing has no value and goes last, either way), or the
 *   amount (what the member owes; members who owe nothing after them, by what they paid).
 *   Missing values last, ties in the list's own order. The page's script sorts the same way
 *   (browser/list-order.ts) over the figures each entry carries in `data-` attributes.
 */
import { type Debtor, isStatus } from '../../domain/debtors.ts';
import { type MemberCharge, memberCharge } from './dashboard-charge.ts';
import type { DashboardQuery, DashboardSortField } from './dashboard-scope.ts';
import { datePart, foldText, type ReportRow } from './report-json.ts';

/** The branch as the page names it: its name, else `Unidade <id>`. */
export function branchLabel(row: Pick<Debtor, 'branchName' | 'branchId'>): string {
  return row.branchName ?? (row.branchId == null ? '' : `Unidade ${row.branchId}`);
}

/** `open`, `recovered`, or the status as sent, folded: what the status filter compares. */
export function statusKeyOf(row: Pick<Debtor, 'debtStatus'>): string {
  return foldText((row.debtStatus ?? '').trim());
}

/** Days still overdue: a Recovered debt has none (it was paid), whatever its days at payment. */
export function openDaysOverdue(row: ReportRow): number | null {
  return isStatus(row.debtStatus, 'Recovered') ? null : row.daysOverdue;
}

// The upstream's spelling first: this runs for every row of every request.
const isOpen = (row: ReportRow) => row.debtStatus === 'Open' || isStatus(row.debtStatus, 'Open');

/** The rows' own order: open debts first, the most overdue first; then the latest due first. */
export function rankDebts(rows: readonly ReportRow[]): ReportRow[] {
  // Keyed once (a sort compares each row many times); ISO dates compare as strings.
  const keyed = rows.map((row) => ({
    row,
    open: isOpen(row) ? 0 : 1,
    days: row.daysOverdue ?? Number.NEGATIVE_INFINITY,
    due: row.dueDate ?? '',
  }));
  keyed.sort(
    (a, b) =>
      a.open - b.open ||
      (a.open === 0 ? b.days - a.days : a.due < b.due ? 1 : a.due > b.due ? -1 : 0),
  );
  return keyed.map((item) => item.row);
}

/** One member of the list. */
export interface MemberEntry {
  name: string;
  /** The branches of the member's debts, as the page names them. */
  branch: string;
  /** The member's listed debts, most overdue first. */
  debts: ReportRow[];
  /** Open debts, their total in cents; the same for recovered ones. */
  open: { count: number; cents: number };
  recovered: { count: number; cents: number };
  /** The oldest due date (`YYYY-MM-DD`) of the listed debts. */
  oldestDue: string | undefined;
  /** The most days an open debt is overdue; null when none is open. */
  daysOverdue: number | null;
  /** The entry's amount: what the member owes, or (owing nothing) the total of its debts. */
  amount: number;
  /** "Cobrar", when an open debt has a pay-now link (worked out for the listed members). */
  charge: MemberCharge | undefined;
  /** Position in the list's own order (the page restores it when the sort is cleared). */
  rank: number;
  /** Does not match the search: sent hidden. */
  hidden: boolean;
}

export interface MemberList {
  members: MemberEntry[];
  /** Members (with debts of the chosen status) matching the search: may exceed the listed. */
  matching: number;
  /** Members with debts of the chosen status, in scope. */
  total: number;
  /** Their debts. */
  debts: number;
}

/** Rows grouped by member, in first-seen order. */
function byMember(rows: readonly ReportRow[]): ReportRow[][] {
  const groups = new Map<string, ReportRow[]>();
  rows.forEach((row, index) => {
    const key = row.memberId == null ? `row:${index}` : `member:${row.memberId}`;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  });
  return [...groups.values()];
}

type Entry = Omit<MemberEntry, 'charge'>;

function entryOf(rows: readonly ReportRow[]): Entry {
  const debts = rows.length > 1 ? rankDebts(rows) : [...rows];
  const open = { count: 0, cents: 0 };
  const recovered = { count: 0, cents: 0 };
  let allCents = 0;
  let daysOverdue: number | null = null;
  let oldestDue: string | undefined;
  let name = '';
  const branches: string[] = [];
  for (const row of debts) {
    const cents = Math.round((row.debtAmount ?? 0) * 100);
    allCents += cents;
    if (isOpen(row)) {
      open.count += 1;
      open.cents += cents;
      const days = row.daysOverdue;
      if (days != null && (daysOverdue === null || days > daysOverdue)) daysOverdue = days;
    } else if (isStatus(row.debtStatus, 'Recovered')) {
      recovered.count += 1;
      recovered.cents += cents;
    }
    const due = datePart(row.dueDate);
    if (due && (oldestDue === undefined || due < oldestDue)) oldestDue = due;
    if (!name && row.name) name = row.name;
    const branch = branchLabel(row);
    if (branch && !branches.includes(branch)) branches.push(branch);
  }
  return {
    name,
    branch: branches.join(', '),
    debts,
    open,
    recovered,
    oldestDue,
    daysOverdue,
    amount: (open.count > 0 ? open.cents : allCents) / 100,
    rank: 0,
    hidden: false,
  };
}

/** The list's own order of members: the order of their most relevant debt (rankDebts). */
function rankMembers(entries: Entry[]): Entry[] {
  const lead = new Map(entries.map((entry) => [entry.debts[0] as ReportRow, entry]));
  return rankDebts([...lead.keys()]).map((row) => lead.get(row) as Entry);
}

// Built on first use (~10 ms for ICU's first pt-BR collator, kept out of the cold start).
let collator: Intl.Collator | undefined;
function textCollator(): Intl.Collator {
  collator ??= new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });
  return collator;
}

function sortValue(entry: MemberEntry, field: DashboardSortField): string | number | undefined {
  switch (field) {
    case 'name':
      return entry.name || undefined;
    case 'branch':
      return entry.branch || undefined;
    case 'dueDate':
      return entry.oldestDue;
    case 'daysOverdue':
      return entry.daysOverdue ?? undefined;
    case 'debtAmount':
      return entry.amount;
  }
}

/** The page's script sorts the same way (browser/list-order.ts): see the module comment. */
export function compareMembers(sort: NonNullable<DashboardQuery['sort']>) {
  return (a: MemberEntry, b: MemberEntry): number => {
    // By amount, members who owe come first, whichever the direction.
    if (sort.field === 'debtAmount') {
      const owes = (entry: MemberEntry) => (entry.open.count > 0 ? 0 : 1);
      if (owes(a) !== owes(b)) return owes(a) - owes(b);
    }
    const left = sortValue(a, sort.field);
    const right = sortValue(b, sort.field);
    if (left !== undefined || right !== undefined) {
      if (left === undefined) return 1;
      if (right === undefined) return -1;
      const order =
        typeof left === 'number' && typeof right === 'number'
          ? left - right
          : sort.field === 'dueDate'
            ? String(left) < String(right)
              ? -1
              : String(left) > String(right)
                ? 1
                : 0
            : textCollator().compare(String(left), String(right));
      if (order !== 0) return sort.descending ? -order : order;
    }
    return a.rank - b.rank;
  };
}

/** Whether a name has every word of the search `q`, ignoring case and accents. */
export function nameMatcher(q: string | undefined): (name: string) => boolean {
  const words = foldText(q ?? '')
    .split(/\s+/)
    .filter(Boolean);
  if (words.length === 0) return () => true;
  return (name) => {
    const folded = foldText(name);
    return words.every((word) => folded.includes(word));
  };
}

/** The members the list holds, at most `limit` (see the module comment), in the chosen order. */
export function memberList(
  rows: readonly ReportRow[],
  query: DashboardQuery,
  limit: number,
): MemberList {
  const chosen = query.debtStatus
    ? rows.filter((row) => statusKeyOf(row) === query.debtStatus)
    : rows;
  const matches = nameMatcher(query.q);
  const ranked = rankMembers(byMember(chosen).map(entryOf));
  ranked.forEach((entry, rank) => {
    entry.rank = rank;
    entry.hidden = !matches(entry.name);
  });
  const shown = ranked.filter((entry) => !entry.hidden);
  const picked = shown.slice(0, limit);
  if (picked.length < limit) {
    picked.push(...ranked.filter((entry) => entry.hidden).slice(0, limit - picked.length));
  }
  // "Cobrar" (its message and links) for the listed members only.
  const listed: MemberEntry[] = picked.map((entry) => ({
    ...entry,
    charge: memberCharge(entry.debts, entry.debts[0] ? branchLabel(entry.debts[0]) : ''),
  }));
  listed.sort(query.sort ? compareMembers(query.sort) : (a, b) => a.rank - b.rank);
  return { members: listed, matching: shown.length, total: ranked.length, debts: chosen.length };
}
