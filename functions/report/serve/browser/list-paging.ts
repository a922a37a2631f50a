/**
 * What the dashboard's list shows of the members matching the search: a page at first, another
 * on each "Ver mais". On a phone a page is 10 members, largest debt first unless the address
 * asks for another order (each member is a card there; a hundred of them were some 25,000 px);
 * at a desk 100. Pure and DOM-free (test/report/serve/browser/list-paging.test.ts).
 */

/** Members per page at a desk, and on a phone (the stylesheet's cards, up to 720 px). */
export const DESK_PAGE = 100;
export const PHONE_PAGE = 10;
/** The width up to which the page is laid out for a phone (dashboard-page.ts's media query). */
export const PHONE_QUERY = '(max-width: 720px)';
/** A phone's order when the address names none: what is owed the most, first. */
export const PHONE_SORT = '-debtAmount';

/** Folded for the search: no accents, lower case (`João` → `joao`). */
export function fold(text: string | null | undefined): string {
  return String(text ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();
}

/** Whether a folded name holds every word of the search. */
export function searchMatcher(search: string): (folded: string) => boolean {
  const words = fold(search).split(/\s+/).filter(Boolean);
  return (folded) => words.every((word) => folded.includes(word));
}

export interface Shown {
  /** Per entry, in the list's order: whether it is shown. */
  visible: boolean[];
  matching: number;
  /** Matching entries beyond the shown ones. */
  left: number;
}

/** Which entries are shown: the first `limit` of those that match. */
export function shownEntries(matches: readonly boolean[], limit: number): Shown {
  let matching = 0;
  const visible = matches.map((match) => {
    if (!match) return false;
    matching += 1;
    return matching <= limit;
  });
  return { visible, matching, left: Math.max(0, matching - limit) };
}

/** The count line: `20 de 154 devedores`. */
export function countText(matching: number, total: number, format: (n: number) => string): string {
  return `${format(matching)} de ${format(total)} ${total === 1 ? 'devedor' : 'devedores'}`;
}

/** The button's words: `Ver mais 10 (faltam 134)`. */
export function moreText(left: number, page: number, format: (n: number) => string): string {
  return `Ver mais ${format(Math.min(page, left))} (faltam ${format(left)})`;
}
