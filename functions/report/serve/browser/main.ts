/**
 * The debtors dashboard's script (functions/report/serve/dashboard.ts), bundled by
 * scripts/build-browser.ts and served from `/reports/assets/dashboard.<hash>.js`. The page works
 * without it (a GET form and links the server answers); with it the list is instant: it searches
 * and sorts the members already in the page (list-order.ts, the server's rules), shows them a
 * page at a time (list-paging.ts: 20 on a phone, largest debt first; 100 at a desk), reloads
 * the page when the branch or the status changes (they change every figure), keeps the report's
 * age current (age.ts) and runs "Cobrar" (charge.ts).
 */
import { describeAge } from './age.ts';
import { wireCharge } from './charge.ts';
import { compareMembers, type MemberFigures, nextSort, parseSort } from './list-order.ts';
import {
  countText,
  DESK_PAGE,
  fold,
  moreText,
  PHONE_PAGE,
  PHONE_QUERY,
  PHONE_SORT,
  searchMatcher,
  shownEntries,
} from './list-paging.ts';

function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the dashboard has no #${id}`);
  return node as T;
}

const attribute = (el: Element, name: string): string | null => {
  const value = el.getAttribute(name);
  return value === null || value === '' ? null : value;
};
const numberOf = (el: Element, name: string): number | null => {
  const value = attribute(el, name);
  return value === null ? null : Number(value);
};

function figuresOf(entry: HTMLElement): MemberFigures {
  return {
    name: attribute(entry, 'data-name'),
    branch: attribute(entry, 'data-branch'),
    dueDate: attribute(entry, 'data-due'),
    daysOverdue: numberOf(entry, 'data-days'),
    debtAmount: numberOf(entry, 'data-amount'),
    owes: entry.getAttribute('data-owes') === '1',
    rank: Number(entry.getAttribute('data-i')),
  };
}

function list(): void {
  const whole = new Intl.NumberFormat('pt-BR');
  const format = (n: number) => whole.format(n);
  const collator = new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });
  const form = byId<HTMLFormElement>('filters');
  const branch = byId<HTMLSelectElement>('branch');
  const search = byId<HTMLInputElement>('search');
  const status = byId<HTMLSelectElement>('status');
  const sort = byId<HTMLSelectElement>('sort');
  const table = byId<HTMLTableElement>('debtors');
  const count = byId<HTMLElement>('match-count');
  const more = byId<HTMLButtonElement>('more');
  const heads = Array.from(table.querySelectorAll<HTMLElement>('th[data-sort]'));
  const entries = Array.from(table.querySelectorAll<HTMLElement>('tbody.member'));
  const figures = new Map(entries.map((m) => [m, figuresOf(m)]));
  const names = new Map(entries.map((m) => [m, fold(m.getAttribute('data-name'))]));
  const total = Number(count.getAttribute('data-total'));
  const address = new URLSearchParams(location.search);
  let upstream: string | null = null;
  address.forEach((v, k) => {
    if (k.toLowerCase() === 'upstream' && v) upstream = v;
  });
  const phone = window.matchMedia(PHONE_QUERY).matches;
  const page = phone ? PHONE_PAGE : DESK_PAGE;
  let limit = page;
  // A phone's own order when the address names none; the address keeps naming none.
  const unnamed = phone && !address.get('sort') ? PHONE_SORT : '';
  if (unnamed) sort.value = unnamed;
  const initialBranch = branch.value;
  const initialStatus = status.value;

  function params(changes: Record<string, string>): string {
    const p = new URLSearchParams();
    if (upstream) p.set('upstream', upstream);
    if (branch.value) p.set('branch', branch.value);
    if (status.value) p.set('debtStatus', status.value);
    if (search.value.trim()) p.set('q', search.value.trim());
    if (sort.value && sort.value !== unnamed) p.set('sort', sort.value);
    for (const [key, value] of Object.entries(changes)) {
      if (value) p.set(key, value);
      else p.delete(key);
    }
    const text = p.toString();
    return location.pathname + (text ? `?${text}` : '');
  }
  function applySort(): void {
    const s = parseSort(sort.value);
    const order = compareMembers(s, (a, b) => collator.compare(a, b));
    entries.sort((a, b) => order(figures.get(a) as MemberFigures, figures.get(b) as MemberFigures));
    const fragment = document.createDocumentFragment();
    for (const m of entries) fragment.appendChild(m);
    table.appendChild(fragment);
    for (const th of heads) {
      const field = th.getAttribute('data-sort') ?? '';
      if (field === s.field)
        th.setAttribute('aria-sort', s.descending ? 'descending' : 'ascending');
      else th.removeAttribute('aria-sort');
      th.querySelector('a')?.setAttribute('href', params({ sort: nextSort(field, s) }));
    }
  }
  function applyFilter(): void {
    const matches = searchMatcher(search.value);
    const shown = shownEntries(
      entries.map((m) => matches(names.get(m) ?? '')),
      limit,
    );
    entries.forEach((m, i) => {
      m.hidden = !shown.visible[i];
    });
    count.textContent = countText(shown.matching, total, format);
    more.hidden = shown.left <= 0;
    if (shown.left > 0) more.textContent = moreText(shown.left, page, format);
  }
  const remember = () => history.replaceState(null, '', params({}));
  const resort = () => {
    applySort();
    applyFilter();
    remember();
  };

  search.addEventListener('input', () => {
    limit = page;
    applyFilter();
    remember();
  });
  sort.addEventListener('change', resort);
  for (const th of heads) {
    th.querySelector('a')?.addEventListener('click', (event) => {
      event.preventDefault();
      sort.value = nextSort(th.getAttribute('data-sort') ?? '', parseSort(sort.value));
      resort();
    });
  }
  branch.addEventListener('change', () => location.assign(params({})));
  status.addEventListener('change', () => location.assign(params({})));
  form.addEventListener('submit', (event) => {
    if (branch.value !== initialBranch || status.value !== initialStatus) return;
    event.preventDefault();
    applyFilter();
  });
  more.addEventListener('click', () => {
    limit += page;
    applyFilter();
  });
  wireCharge(table);
  resort();
}

function age(): void {
  const shown = byId<HTMLElement>('age');
  const generated = Date.parse(shown.getAttribute('data-generated-at') ?? '');
  const tick = () => {
    if (!Number.isNaN(generated)) shown.textContent = describeAge((Date.now() - generated) / 1000);
  };
  tick();
  setInterval(tick, 30_000);
}

document.documentElement.classList.add('js');
list();
age();
