/**
 * `GET /reports/debtors.html`: the page a gym manager reads, on a phone as often as on a desk,
 * in Portuguese. Pure: it renders what dashboard-scope.ts chose.
 *
 * One self-contained document: no external scripts, styles, fonts or images, so the Content
 * Security Policy can forbid everything else (`default-src 'none'`). The one inline script is
 * allowed by its SHA-256 hash (not a nonce): the page is the same for the same data, so its
 * ETag and 304s stay valid, and a cached page still matches the policy it was served with.
 *
 * Mobile first: at 390 px nothing scrolls sideways; the summary figures stack, the ageing is a
 * list of horizontal bars, and the tables turn into cards (each debtor's amount and its
 * "Cobrar" link included). From 721 px the debtors are a table with sortable column headers.
 *
 * It works without JavaScript: the branch filter, the search, the status filter and the sort
 * are a GET form and links that the server answers (`?branch=2&q=joao&sort=-debtAmount`).
 * The script only makes the list instant: it searches, filters and sorts the rows already in
 * the page, shows them a hundred at a time, and reloads the page when the branch changes (the
 * branch narrows every figure, which the server computes).
 *
 * Also here: the Portuguese pages for "no report yet" and "the report cannot be read" (503),
 * and for a query the page does not understand (400). Names and other row values are escaped
 * wherever they appear.
 */
import { createHash } from 'node:crypto';
import type { DebtorsSummary } from '../../domain/debtors.ts';
import {
  AGEING_BUCKETS,
  type AgeingBucket,
  type BranchTotals,
  type BucketTotal,
  type DebtorsSnapshot,
} from '../../domain/debtors-report.ts';
import type { IssueDetail } from '../../domain/json.ts';
import type { RefreshStatus } from '../store/report-store.ts';
import {
  branchLabel,
  type DashboardList,
  type DashboardQuery,
  type DashboardScope,
  type DashboardSortField,
  dashboardSearch,
  openDaysOverdue,
  sortText,
  statusKeyOf,
} from './dashboard-scope.ts';
import { datePart, type ReportRow } from './report-json.ts';

/** Rows listed in the page at most; beyond that the page says so and links the CSV. */
export const MAX_DASHBOARD_ROWS = 2000;
/** Rows the script shows at first, and per "Mostrar mais". */
export const DASHBOARD_PAGE_ROWS = 100;

export interface DashboardView {
  generatedAt: string;
  ageSeconds: number;
  stale: boolean;
  status: RefreshStatus;
  timeZone: string;
  /** Every branch of the report (the filter's choices). */
  allBranches: readonly BranchTotals[];
  scope: DashboardScope;
  query: DashboardQuery;
  list: DashboardList;
  /** The CSV and the JSON of the same scope (the chosen branches). */
  csvHref: string;
  jsonHref: string;
}

// ---------------------------------------------------------------------------------------------
// Formatting (pt-BR)

// Built on first use: ICU's first pt-BR currency formatter costs ~10 ms, which the JSON and CSV
// routes, served by the same function, should not pay at cold start.
let formats: { money: Intl.NumberFormat; integer: Intl.NumberFormat };
function fmt(): typeof formats {
  formats ??= {
    money: new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }),
    integer: new Intl.NumberFormat('pt-BR'),
  };
  return formats;
}

export function formatMoney(value: number): string {
  return fmt().money.format(value);
}

function formatDateTime(iso: string | undefined, timeZone: string): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'short', timeStyle: 'short' };
  try {
    return new Intl.DateTimeFormat('pt-BR', { ...options, timeZone }).format(date);
  } catch {
    return new Intl.DateTimeFormat('pt-BR', { ...options, timeZone: 'UTC' }).format(date);
  }
}

/** `2026-07-10T00:00:00` → `10/07/2026`; `—` when missing. */
function formatDay(value: string | null | undefined): string {
  const day = datePart(value);
  return day ? `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}` : '—';
}

/** `há 5 minutos`, `há 2 horas`, `há 3 dias`: the same wording the page's script keeps current. */
export function describeAge(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const plural = (n: number, one: string, many: string) => `há ${n} ${n === 1 ? one : many}`;
  if (s < 60) return 'agora há pouco';
  if (s < 3600) return plural(Math.floor(s / 60), 'minuto', 'minutos');
  if (s < 86_400) return plural(Math.floor(s / 3600), 'hora', 'horas');
  return plural(Math.floor(s / 86_400), 'dia', 'dias');
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const integer = (n: number) => fmt().integer.format(n);
const debts = (n: number) => `${integer(n)} ${n === 1 ? 'débito' : 'débitos'}`;

const SUMMARY_SOURCES: Record<DebtorsSnapshot['summarySource'], string> = {
  upstream: 'informado pelo sistema de gestão',
  'upstream-combined': 'soma dos resumos por filial informados pelo sistema de gestão',
  computed: 'calculado sobre as linhas do relatório',
};

const BUCKET_LABELS: Record<AgeingBucket, string> = {
  current: 'A vencer',
  '1-30': '1–30 dias',
  '31-60': '31–60 dias',
  '61-90': '61–90 dias',
  '91+': '91+ dias',
};
const BUCKET_COLOURS: Record<AgeingBucket, string> = {
  current: '#64a88a',
  '1-30': '#e9b949',
  '31-60': '#e8833a',
  '61-90': '#d9553f',
  '91+': '#a8323e',
};

const MEMBER_STATUS_LABELS: Record<string, string> = {
  active: 'Ativos',
  inactive: 'Inativos',
  freeze: 'Congelados',
  '(none)': 'Sem situação',
};

/** The sort choices of the list: value (`sort=`) and label. Headers link to the same values. */
const SORT_CHOICES: readonly [string, string][] = [
  ['', 'Em aberto mais atrasados primeiro'],
  ['-daysOverdue', 'Mais dias em atraso'],
  ['daysOverdue', 'Menos dias em atraso'],
  ['-debtAmount', 'Maior valor'],
  ['debtAmount', 'Menor valor'],
  ['dueDate', 'Vencimento mais antigo'],
  ['-dueDate', 'Vencimento mais recente'],
  ['name', 'Nome (A–Z)'],
  ['-name', 'Nome (Z–A)'],
  ['branch', 'Filial (A–Z)'],
  ['-branch', 'Filial (Z–A)'],
];
/** Columns whose first click sorts from the largest. */
const FIRST_DESCENDING = new Set(['daysOverdue', 'debtAmount']);

// ---------------------------------------------------------------------------------------------
// The page's script (allowed by hash in the CSP). It keeps to the server's rules: the same
// sort (missing values last, ties in the list's own order), the same accent-free search.

const SCRIPT = `
(function () {
  'use strict';
  document.documentElement.classList.add('js');
  var fold = function (s) { return String(s || '').normalize('NFD').replace(/\\p{M}/gu, '').toLowerCase(); };
  var whole = new Intl.NumberFormat('pt-BR');
  var collator = new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });
  var form = document.getElementById('filters');
  var branch = document.getElementById('branch');
  var search = document.getElementById('search');
  var status = document.getElementById('status');
  var sort = document.getElementById('sort');
  var body = document.getElementById('debtors-body');
  var count = document.getElementById('match-count');
  var more = document.getElementById('more');
  var heads = Array.prototype.slice.call(document.querySelectorAll('#debtors th[data-sort]'));
  var rows = Array.prototype.slice.call(body.rows);
  var keys = new WeakMap();
  rows.forEach(function (tr) { keys.set(tr, fold(tr.getAttribute('data-name'))); });
  var total = Number(count.getAttribute('data-total'));
  var PAGE = ${DASHBOARD_PAGE_ROWS};
  var limit = PAGE;
  var ATTR = { name: 'data-name', branch: 'data-branch', dueDate: 'data-due', daysOverdue: 'data-days', debtAmount: 'data-amount' };
  var NUMERIC = { daysOverdue: true, debtAmount: true };
  var FIRST_DESCENDING = { daysOverdue: true, debtAmount: true };
  var initialBranch = branch.value;

  function value(tr, field) {
    var v = tr.getAttribute(ATTR[field]);
    if (v === null || v === '') return null;
    return NUMERIC[field] ? Number(v) : v;
  }
  function rank(tr) { return Number(tr.getAttribute('data-i')); }
  function parseSort(text) {
    var descending = text.charAt(0) === '-';
    return { field: descending ? text.slice(1) : text, descending: descending };
  }
  function compare(s) {
    return function (a, b) {
      if (ATTR[s.field]) {
        var x = value(a, s.field);
        var y = value(b, s.field);
        if (x !== null || y !== null) {
          if (x === null) return 1;
          if (y === null) return -1;
          var order = NUMERIC[s.field] ? x - y
            : s.field === 'dueDate' ? (x < y ? -1 : x > y ? 1 : 0)
            : collator.compare(x, y);
          if (order !== 0) return s.descending ? -order : order;
        }
      }
      return rank(a) - rank(b);
    };
  }
  function params(changes) {
    var p = new URLSearchParams();
    if (branch.value) p.set('branch', branch.value);
    if (status.value) p.set('debtStatus', status.value);
    if (search.value.trim()) p.set('q', search.value.trim());
    if (sort.value) p.set('sort', sort.value);
    for (var key in changes) { if (changes[key]) p.set(key, changes[key]); else p.delete(key); }
    var text = p.toString();
    return location.pathname + (text ? '?' + text : '');
  }
  function applySort() {
    var s = parseSort(sort.value);
    rows.sort(compare(s));
    var fragment = document.createDocumentFragment();
    rows.forEach(function (tr) { fragment.appendChild(tr); });
    body.appendChild(fragment);
    heads.forEach(function (th) {
      var field = th.getAttribute('data-sort');
      var active = field === s.field;
      if (active) th.setAttribute('aria-sort', s.descending ? 'descending' : 'ascending');
      else th.removeAttribute('aria-sort');
      var next = active ? !s.descending : !!FIRST_DESCENDING[field];
      th.querySelector('a').setAttribute('href', params({ sort: (next ? '-' : '') + field }));
    });
  }
  function applyFilter() {
    var words = fold(search.value).split(/\\s+/).filter(Boolean);
    var wanted = status.value;
    var matching = 0;
    rows.forEach(function (tr) {
      var key = keys.get(tr);
      var ok = (!wanted || tr.getAttribute('data-status') === wanted) &&
        words.every(function (w) { return key.indexOf(w) >= 0; });
      if (ok) matching++;
      tr.hidden = !ok || matching > limit;
    });
    count.textContent = whole.format(matching) + ' de ' + whole.format(total) + (total === 1 ? ' débito' : ' débitos');
    var left = matching - limit;
    more.hidden = left <= 0;
    if (left > 0) more.textContent = 'Mostrar mais ' + whole.format(Math.min(PAGE, left)) + ' (faltam ' + whole.format(left) + ')';
  }
  function remember() { history.replaceState(null, '', params({})); }
  search.addEventListener('input', function () { limit = PAGE; applyFilter(); remember(); });
  status.addEventListener('change', function () { limit = PAGE; applyFilter(); remember(); });
  sort.addEventListener('change', function () { applySort(); applyFilter(); remember(); });
  heads.forEach(function (th) {
    th.querySelector('a').addEventListener('click', function (event) {
      event.preventDefault();
      var field = th.getAttribute('data-sort');
      var s = parseSort(sort.value);
      var descending = s.field === field ? !s.descending : !!FIRST_DESCENDING[field];
      sort.value = (descending ? '-' : '') + field;
      applySort(); applyFilter(); remember();
    });
  });
  branch.addEventListener('change', function () { location.assign(params({})); });
  form.addEventListener('submit', function (event) {
    if (branch.value !== initialBranch) return;
    event.preventDefault();
    applyFilter();
  });
  more.addEventListener('click', function () { limit += PAGE; applyFilter(); });
  applySort();
  applyFilter();

  var age = document.getElementById('age');
  var generated = Date.parse(age.getAttribute('data-generated-at'));
  function describeAge(seconds) {
    var s = Math.max(0, Math.round(seconds));
    function plural(n, one, many) { return 'há ' + n + ' ' + (n === 1 ? one : many); }
    if (s < 60) return 'agora há pouco';
    if (s < 3600) return plural(Math.floor(s / 60), 'minuto', 'minutos');
    if (s < 86400) return plural(Math.floor(s / 3600), 'hora', 'horas');
    return plural(Math.floor(s / 86400), 'dia', 'dias');
  }
  function tick() { if (!isNaN(generated)) age.textContent = describeAge((Date.now() - generated) / 1000); }
  tick();
  setInterval(tick, 30000);
})();
`;

const SCRIPT_HASH = createHash('sha256').update(SCRIPT, 'utf8').digest('base64');

/**
 * The pages' Content-Security-Policy: nothing but the page itself, its inline styles and its
 * one script; forms may only send to this site (the filters are a GET form).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  `script-src 'sha256-${SCRIPT_HASH}'`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every page besides caching ones. */
export const DASHBOARD_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const STYLE = `
:root { color-scheme: light; --ink: #1d2733; --muted: #5f6b7a; --line: #e3e8ef; --bg: #f4f6f9;
  --card: #fff; --open: #c2410c; --ok: #15803d; --accent: #2456a6; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--bg); }
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 48px; }
.top { display: flex; flex-wrap: wrap; align-items: flex-end; justify-content: space-between; gap: 12px; margin-bottom: 16px; }
h1 { font-size: 26px; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 16px; margin: 0 0 14px; }
.meta { color: var(--muted); margin: 0; }
.meta strong { color: var(--ink); font-weight: 600; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; }
.button, .actions a { display: inline-block; padding: 7px 14px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--card); color: var(--accent); text-decoration: none; font: 600 14px/1.45 inherit; cursor: pointer; }
.button:hover, .actions a:hover { border-color: var(--accent); }
.scope { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 10px; margin-bottom: 20px; }
.scope label { font-weight: 600; }
select, input[type=search] { font: inherit; padding: 8px 12px; border: 1px solid #cfd6e0; border-radius: 8px; background: #fff;
  color: var(--ink); max-width: 100%; min-width: 0; }
.scope select { flex: 0 1 320px; }
.js .apply { display: none; }
.banner { border-radius: 10px; padding: 12px 16px; margin-bottom: 20px; border: 1px solid; }
.banner.stale { background: #fff4e5; border-color: #f5b352; color: #7a4304; }
.banner.info { background: #eef4fd; border-color: #b9cff2; color: #1e3f73; }
.banner strong { display: block; margin-bottom: 2px; }
.kpis { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 16px; margin-bottom: 20px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 18px 20px;
  box-shadow: 0 1px 2px rgba(16, 24, 40, 0.04); min-width: 0; }
.kpi .label { color: var(--muted); font-size: 13px; text-transform: uppercase; letter-spacing: 0.04em; margin: 0; }
.kpi .value { font-size: 28px; line-height: 36px; font-weight: 700; margin: 6px 0 2px; font-variant-numeric: tabular-nums; white-space: nowrap; }
.kpi .value.long { font-size: 23px; }
.kpi .note { color: var(--muted); font-size: 13px; margin: 0; }
.kpi.pending .value { color: var(--open); }
.kpi.recovered .value { color: var(--ok); }
.grid { display: grid; grid-template-columns: minmax(0, 5fr) minmax(0, 6fr); gap: 16px; margin-bottom: 20px; }
.ageing { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: max-content minmax(0, 1fr) max-content; column-gap: 12px; }
.ageing li { display: grid; grid-column: 1 / -1; grid-template-columns: 6.2em minmax(0, 1fr) 8.2em; align-items: center; gap: 4px 12px;
  padding: 9px 0; border-bottom: 1px solid var(--line); }
@supports (grid-template-columns: subgrid) { .ageing li { grid-template-columns: subgrid; } }
.ageing li:last-child { border-bottom: none; }
.ageing .bucket { font-weight: 600; }
.ageing svg { display: block; width: 100%; height: 14px; background: #f0f3f7; border-radius: 3px; }
.ageing .figures { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.ageing .figures strong { display: block; }
.ageing .figures small, .undated { color: var(--muted); font-size: 13px; }
.undated { margin: 10px 0 0; }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); font-weight: 600; background: #fafbfc; }
th a { color: inherit; text-decoration: none; }
th a:hover { color: var(--accent); }
th[aria-sort] { color: var(--ink); }
th[aria-sort=ascending] a::after { content: " ▲"; }
th[aria-sort=descending] a::after { content: " ▼"; }
td.num, th.num { text-align: right; white-space: nowrap; }
tfoot td { font-weight: 700; border-bottom: none; }
.late { color: var(--open); font-weight: 600; }
.paid { color: var(--ok); }
.unit { display: none; }
.toolbar { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 12px; }
.toolbar input[type=search] { flex: 1 1 260px; }
.toolbar .count { color: var(--muted); margin-left: auto; }
.list { max-height: 70vh; overflow: auto; border: 1px solid var(--line); border-radius: 8px; }
.list th { position: sticky; top: 0; z-index: 1; }
#debtors td.name { font-weight: 500; overflow-wrap: anywhere; }
#debtors td.link:empty::after { content: "—"; color: var(--muted); }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; white-space: nowrap;
  background: #eef1f5; color: var(--muted); }
.pill.open { background: #fdebe1; color: var(--open); }
.pill.recovered { background: #e3f4e8; color: var(--ok); }
a { color: var(--accent); }
.members { color: var(--muted); font-size: 14px; margin: 16px 0 0; }
.members .stat { color: var(--ink); font-weight: 600; font-variant-numeric: tabular-nums; white-space: nowrap; }
.members .stat-label { color: var(--muted); font-weight: 400; }
.more { display: block; margin: 12px auto 0; }
.notice { color: var(--muted); font-size: 14px; margin: 10px 0 0; }
footer { color: var(--muted); font-size: 13px; margin-top: 24px; }
@media (max-width: 900px) {
  .kpis { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .kpi .value { font-size: 24px; }
  .kpi .value.long { font-size: 20px; }
  .grid { grid-template-columns: minmax(0, 1fr); }
}
@media (max-width: 720px) {
  main { padding: 16px 12px 32px; }
  h1 { font-size: 22px; }
  .top { align-items: flex-start; }
  .card { padding: 14px; border-radius: 10px; }
  .kpis { grid-template-columns: minmax(0, 1fr); gap: 8px; margin-bottom: 16px; }
  .kpi { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; column-gap: 12px; padding: 10px 14px; }
  .kpi .value, .kpi .value.long { font-size: 22px; line-height: 30px; margin: 0; }
  .kpi .note { flex-basis: 100%; }
  .grid { gap: 12px; margin-bottom: 16px; }
  .scope select { flex: 1 1 200px; }
  .toolbar input[type=search], .toolbar select { flex: 1 1 100%; }
  .toolbar .count { margin-left: 0; flex-basis: 100%; }
  table.stack thead { display: none; }
  table.stack, table.stack tbody, table.stack tfoot, table.stack tr, table.stack td { display: block; }
  table.stack tr { padding: 8px 0; border-bottom: 1px solid var(--line); }
  table.stack tfoot tr { border-bottom: none; }
  table.stack td { display: flex; justify-content: space-between; gap: 12px; padding: 2px 0; border: none; text-align: right; }
  table.stack td::before { content: attr(data-label); color: var(--muted); font-weight: 400; text-align: left; }
  table.stack td.head { font-weight: 600; text-align: left; }
  table.stack td.head::before { content: none; }
  .list { max-height: none; overflow: visible; border: none; border-radius: 0; }
  #debtors thead { display: none; }
  #debtors, #debtors tbody { display: block; }
  #debtors tr { display: grid; grid-template-columns: minmax(0, 1fr) auto; align-items: baseline; gap: 2px 12px;
    grid-template-areas: "name status" "branch amount" "due days" "link link"; padding: 12px 0; border-bottom: 1px solid var(--line); }
  #debtors td { display: block; padding: 0; border: none; text-align: left; white-space: normal; }
  #debtors td.name { grid-area: name; font-weight: 600; }
  #debtors td.status { grid-area: status; text-align: right; }
  #debtors td.branch { grid-area: branch; color: var(--muted); }
  #debtors td.amount { grid-area: amount; text-align: right; font-weight: 700; font-size: 17px; white-space: nowrap; }
  #debtors td.due { grid-area: due; color: var(--muted); white-space: nowrap; }
  #debtors td.due::before { content: "Venc. "; }
  #debtors td.days { grid-area: days; text-align: right; white-space: nowrap; }
  #debtors .unit { display: inline; }
  #debtors td.link { grid-area: link; margin-top: 6px; }
  #debtors td.link:empty { display: none; }
  #debtors td.link a { display: block; text-align: center; padding: 8px; border: 1px solid var(--accent); border-radius: 8px;
    font-weight: 600; text-decoration: none; }
}
`;

// ---------------------------------------------------------------------------------------------
// Parts

function kpi(
  kind: 'pending' | 'recovered',
  figure: keyof DebtorsSummary & string,
  label: string,
  value: number,
  note: string,
): string {
  const shown = formatMoney(value);
  // Millions do not fit a quarter of the width at full size.
  const size = shown.length > 14 ? ' long' : '';
  return `<div class="card kpi ${kind}">
  <p class="label">${escapeHtml(label)}</p>
  <p class="value${size}" data-figure="${figure}" data-value="${value}">${escapeHtml(shown)}</p>
  <p class="note">${escapeHtml(note)}</p>
</div>`;
}

function countOf(totals: Record<string, BucketTotal>, name: string): number {
  const key = Object.keys(totals).find((k) => k.toLowerCase() === name.toLowerCase());
  return key ? (totals[key]?.count ?? 0) : 0;
}

/** One line per ageing bucket: its name, a bar sized by its open amount, amount and count. */
export function ageingBars(
  ageing: Record<AgeingBucket, BucketTotal>,
  undated: BucketTotal = { count: 0, amount: 0 },
): string {
  const max = Math.max(0, ...AGEING_BUCKETS.map((b) => ageing[b]?.amount ?? 0));
  const items = AGEING_BUCKETS.map((bucket) => {
    const total = ageing[bucket] ?? { count: 0, amount: 0 };
    const width = max > 0 && total.amount > 0 ? Math.max(1, (total.amount / max) * 100) : 0;
    const label = BUCKET_LABELS[bucket];
    return `<li data-bucket="${bucket}" data-amount="${total.amount}" data-count="${total.count}">
  <span class="bucket">${escapeHtml(label)}</span>
  <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"><rect class="bar" data-bucket="${bucket}" x="0" y="0" width="${width.toFixed(2)}" height="10" fill="${BUCKET_COLOURS[bucket]}"/></svg>
  <span class="figures"><strong class="amount">${escapeHtml(formatMoney(total.amount))}</strong><small>${escapeHtml(debts(total.count))}</small></span>
</li>`;
  }).join('\n');
  const none =
    undated.count > 0
      ? `<p class="undated" id="ageing-undated">Sem data de vencimento: ${escapeHtml(formatMoney(undated.amount))} em ${escapeHtml(debts(undated.count))}.</p>`
      : '';
  return `<ol class="ageing" id="ageing" aria-label="Valor em aberto por tempo de atraso">
${items}
</ol>${none}`;
}

function branchTable(branches: readonly BranchTotals[], query: DashboardQuery): string {
  const sum = (pick: (b: BranchTotals) => number) =>
    branches.reduce((total, b) => total + pick(b), 0);
  const rows = branches
    .map((b) => {
      const name = b.branchName ?? `Filial ${b.branchId}`;
      const href = `?${dashboardSearch({ ...query, branch: [b.branchId] })}`;
      return `<tr data-branch="${b.branchId}">
  <td class="head"><a href="${escapeHtml(href)}">${escapeHtml(name)}</a></td>
  <td class="num" data-label="Débitos">${integer(b.open.count + b.recovered.count)}</td>
  <td class="num" data-label="Em aberto">${escapeHtml(formatMoney(b.open.amount))}</td>
  <td class="num" data-label="Recuperado">${escapeHtml(formatMoney(b.recovered.amount))}</td>
</tr>`;
    })
    .join('\n');
  const foot =
    branches.length > 1
      ? `<tfoot><tr><td class="head">Total</td><td class="num" data-label="Débitos">${integer(sum((b) => b.open.count + b.recovered.count))}</td><td class="num" data-label="Em aberto">${escapeHtml(formatMoney(sum((b) => b.open.amount)))}</td><td class="num" data-label="Recuperado">${escapeHtml(formatMoney(sum((b) => b.recovered.amount)))}</td></tr></tfoot>`
      : '';
  return `<table id="branches" class="stack">
<thead><tr><th>Filial</th><th class="num">Débitos</th><th class="num">Em aberto</th><th class="num">Recuperado</th></tr></thead>
<tbody>
${rows || '<tr><td class="head">Nenhuma filial no relatório.</td></tr>'}
</tbody>
${foot}
</table>`;
}

/** Debts by the member's status: `Ativos 126 · Inativos 36 · Congelados 18`. */
function memberStatusLine(byMemberStatus: Record<string, BucketTotal>): string {
  const parts = Object.entries(byMemberStatus)
    .sort(([, a], [, b]) => b.count - a.count)
    .map(
      ([name, total]) =>
        `<span class="stat"><span class="stat-label">${escapeHtml(MEMBER_STATUS_LABELS[name.toLowerCase()] ?? name)}</span> ${integer(total.count)}</span>`,
    );
  if (parts.length === 0) return '';
  return `<p class="members" id="member-status">Débitos por situação do aluno: ${parts.join(' · ')}</p>`;
}

/** What a failed refresh means for the reader, from the refresher's `lastError` (never shown). */
function failureMeaning(lastError: string | undefined): string {
  const error = lastError ?? '';
  if (error.startsWith('upstream unauthorized')) {
    return 'O sistema de gestão recusou o acesso do relatório: a equipe técnica precisa conferir a chave de acesso.';
  }
  if (error.startsWith('upstream rate-limited')) {
    return 'O sistema de gestão está limitando as consultas; isso costuma se resolver sozinho.';
  }
  if (error.startsWith('upstream unavailable')) {
    return 'O sistema de gestão está fora do ar ou lento.';
  }
  if (/^(AwsConfigError|ConfigError|ConfigurationError|RefreshConfigError)\b/.test(error)) {
    return 'A configuração do relatório está incompleta: avise a equipe técnica.';
  }
  return '';
}

function staleBanner(view: DashboardView): string {
  if (!view.stale) return '';
  const { status } = view;
  const when = (iso: string | undefined) => formatDateTime(iso, view.timeZone);
  const data = `Dados de ${when(view.generatedAt)}`;
  const text =
    status.failures > 0
      ? `${data}; a atualização falhou${status.failures > 1 ? ` ${status.failures} vezes seguidas` : ''}` +
        `${status.lastFailedAt ? ` (a última tentativa em ${when(status.lastFailedAt)})` : ''}` +
        '; tentaremos de novo automaticamente. Pagamentos e novos débitos desde então ainda não aparecem. ' +
        failureMeaning(status.lastError)
      : `${data}; nenhuma atualização foi concluída desde então. Pagamentos e novos débitos desde então ainda não aparecem. Se continuar assim por mais de uma hora, avise a equipe técnica.`;
  return `<div class="banner stale" role="alert" id="stale-banner">
  <strong>Dados desatualizados</strong>
  ${escapeHtml(text.trim())}
</div>
`;
}

function branchFilter(view: DashboardView): string {
  const chosen = view.query.branch ?? [];
  const value = chosen.join(',');
  const options = view.allBranches.map(
    (b) =>
      `<option value="${b.branchId}"${value === String(b.branchId) ? ' selected' : ''}>${escapeHtml(b.branchName ?? `Filial ${b.branchId}`)}</option>`,
  );
  // A choice the list lacks (several branches, or one the report does not hold) stays visible.
  if (chosen.length > 0 && !view.allBranches.some((b) => String(b.branchId) === value)) {
    const names = chosen.map(
      (id) => view.allBranches.find((b) => b.branchId === id)?.branchName ?? `Filial ${id}`,
    );
    options.push(`<option value="${value}" selected>${escapeHtml(names.join(', '))}</option>`);
  }
  return `<form class="scope" id="filters" method="get" role="search">
  <label for="branch">Filial</label>
  <select id="branch" name="branch">
    <option value="">Todas as filiais</option>
    ${options.join('\n    ')}
  </select>
  <button class="button apply" type="submit">Aplicar</button>
</form>`;
}

function scopeNotice(view: DashboardView): string {
  const { unknownBranches } = view.scope;
  if (unknownBranches.length === 0) return '';
  const ids = unknownBranches.join(', ');
  return `<div class="banner info" id="unknown-branch"><strong>${unknownBranches.length === 1 ? `A filial ${ids} não está` : `As filiais ${ids} não estão`} no relatório.</strong>
  O relatório cobre ${view.allBranches.length === 1 ? 'a filial' : 'as filiais'} ${escapeHtml(view.allBranches.map((b) => b.branchName ?? `Filial ${b.branchId}`).join(', ') || 'nenhuma')}. <a href="?">Ver todas as filiais</a>.
</div>`;
}

/** With a branch chosen: the way back to every branch (keeping the list's search and sort). */
function allBranchesLink(view: DashboardView): string {
  if (!view.scope.branchIds) return '';
  const { branch: _chosen, ...rest } = view.query;
  return `\n<p class="notice"><a id="all-branches" href="?${escapeHtml(dashboardSearch(rest))}">Ver todas as filiais</a></p>`;
}

function statusPill(row: ReportRow): string {
  const key = statusKeyOf(row);
  const label = key === 'open' ? 'Em aberto' : key === 'recovered' ? 'Recuperado' : row.debtStatus;
  const kind = key === 'open' || key === 'recovered' ? ` ${key}` : '';
  return `<span class="pill${kind}">${escapeHtml(label || '—')}</span>`;
}

/** Days still overdue, or when a recovered debt was paid (it is no longer overdue). */
function daysCell(row: ReportRow): string {
  const days = openDaysOverdue(row);
  if (statusKeyOf(row) === 'recovered') {
    const paid = row.paymentDate ? `Pago em ${formatDay(row.paymentDate)}` : 'Pago';
    return `<td class="num days paid">${escapeHtml(paid)}</td>`;
  }
  if (days === null) return '<td class="num days">—</td>';
  if (days <= 0) return '<td class="num days">a vencer</td>';
  const unit = days === 1 ? ' dia em atraso' : ' dias em atraso';
  return `<td class="num days${days > 60 ? ' late' : ''}">${integer(days)}<span class="unit">${unit}</span></td>`;
}

const isWebLink = (link: string | null | undefined): link is string =>
  typeof link === 'string' && /^https?:\/\//i.test(link);

function debtorRow(item: DashboardList['rows'][number]): string {
  const { row } = item;
  const branch = branchLabel(row);
  const days = openDaysOverdue(row);
  const link = isWebLink(row.checkoutLink)
    ? `<a href="${escapeHtml(row.checkoutLink)}" target="_blank" rel="noopener noreferrer">Cobrar</a>`
    : '';
  const attributes = [
    `data-i="${item.rank}"`,
    `data-name="${escapeHtml(row.name ?? '')}"`,
    `data-branch="${escapeHtml(branch)}"`,
    `data-due="${datePart(row.dueDate) ?? ''}"`,
    `data-days="${days ?? ''}"`,
    `data-amount="${row.debtAmount ?? ''}"`,
    `data-status="${escapeHtml(statusKeyOf(row))}"`,
  ].join(' ');
  return `<tr ${attributes}${item.hidden ? ' hidden' : ''}>
<td class="name">${escapeHtml(row.name || '—')}</td>
<td class="branch">${escapeHtml(branch || '—')}</td>
<td class="num due">${formatDay(row.dueDate)}</td>
${daysCell(row)}
<td class="num amount">${row.debtAmount == null ? '—' : escapeHtml(formatMoney(row.debtAmount))}</td>
<td class="status">${statusPill(row)}</td>
<td class="link">${link}</td>
</tr>`;
}

const COLUMNS: readonly [field: DashboardSortField | undefined, label: string, numeric: boolean][] =
  [
    ['name', 'Nome', false],
    ['branch', 'Filial', false],
    ['dueDate', 'Vencimento', true],
    ['daysOverdue', 'Dias em atraso', true],
    ['debtAmount', 'Valor', true],
    [undefined, 'Situação', false],
    [undefined, 'Cobrar', false],
  ];

function listHead(query: DashboardQuery): string {
  const cells = COLUMNS.map(([field, label, numeric]) => {
    const cls = numeric ? ' class="num"' : '';
    if (!field) return `<th${cls}>${label}</th>`;
    const active = query.sort?.field === field;
    const descending = active ? !query.sort?.descending : FIRST_DESCENDING.has(field);
    const href = `?${dashboardSearch({ ...query, sort: { field, descending } })}`;
    const ariaSort = active
      ? ` aria-sort="${query.sort?.descending ? 'descending' : 'ascending'}"`
      : '';
    return `<th${cls} data-sort="${field}"${ariaSort}><a href="${escapeHtml(href)}">${label}</a></th>`;
  });
  return `<thead><tr>${cells.join('')}</tr></thead>`;
}

function listSection(view: DashboardView): string {
  const { query, list } = view;
  const sortValue = query.sort ? sortText(query.sort) : '';
  const sortOptions = SORT_CHOICES.map(
    ([value, label]) =>
      `<option value="${value}"${value === sortValue ? ' selected' : ''}>${label}</option>`,
  ).join('');
  const statusOptions = [
    ['', 'Todas as situações'],
    ['open', 'Em aberto'],
    ['recovered', 'Recuperados'],
  ]
    .map(
      ([value, label]) =>
        `<option value="${value}"${value === (query.debtStatus ?? '') ? ' selected' : ''}>${label}</option>`,
    )
    .join('');
  const truncated = list.rows.length < list.total;
  const csv = escapeHtml(view.csvHref);
  const notice = truncated
    ? `<p class="notice" id="truncated">Mostrando ${integer(list.rows.length)} de ${integer(list.total)} débitos (os em aberto mais atrasados primeiro). <a href="${csv}">Baixe o CSV</a> para ver todos.</p>`
    : '';
  return `<section class="card" aria-labelledby="list-title">
  <h2 id="list-title">Lista de devedores</h2>
  <div class="toolbar">
    <input id="search" name="q" form="filters" type="search" value="${escapeHtml(query.q ?? '')}" placeholder="Buscar pelo nome (ex.: joao)" aria-label="Buscar devedor pelo nome" autocomplete="off">
    <select id="status" name="debtStatus" form="filters" aria-label="Situação">${statusOptions}</select>
    <select id="sort" name="sort" form="filters" aria-label="Ordenar por">${sortOptions}</select>
    <button class="button apply" type="submit" form="filters">Filtrar</button>
    <span class="count" id="match-count" data-total="${list.total}">${integer(list.matching)} de ${debts(list.total)}</span>
  </div>
  <div class="list">
  <table id="debtors">
    ${listHead(query)}
    <tbody id="debtors-body">
${list.rows.map(debtorRow).join('\n')}
    </tbody>
  </table>
  </div>
  <button class="button more" id="more" type="button" hidden>Mostrar mais</button>
  ${notice}
</section>`;
}

function page(title: string, content: string, head = ''): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${head}<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;
}

export function renderDashboard(view: DashboardView): string {
  const { scope } = view;
  const openCount = countOf(scope.byDebtStatus, 'Open');
  const recoveredCount = countOf(scope.byDebtStatus, 'Recovered');
  const branchNames = scope.branchIds
    ? scope.branches.map((b) => b.branchName ?? `Filial ${b.branchId}`).join(', ')
    : '';
  const where = branchNames ? ` · <strong id="scope-name">${escapeHtml(branchNames)}</strong>` : '';
  const content = `<header class="top">
  <div>
    <h1>Devedores</h1>
    <p class="meta">Dados de <strong>${escapeHtml(formatDateTime(view.generatedAt, view.timeZone))}</strong>
      (<span id="age" data-generated-at="${escapeHtml(view.generatedAt)}">${escapeHtml(describeAge(view.ageSeconds))}</span>)${where}
      · ${debts(scope.rows.length)}${view.stale ? ' · <strong>desatualizado</strong>' : ''}</p>
  </div>
  <nav class="actions"><a href="${escapeHtml(view.csvHref)}" download>Baixar CSV</a><a href="${escapeHtml(view.jsonHref)}">JSON</a></nav>
</header>
${branchFilter(view)}
${staleBanner(view)}${scopeNotice(view)}
<section class="kpis" aria-label="Resumo">
${kpi('pending', 'pendingValue', 'Valor em aberto', scope.summary.pendingValue, debts(openCount))}
${kpi('pending', 'pendingAverage', 'Média em aberto', scope.summary.pendingAverage, 'por débito em aberto')}
${kpi('recovered', 'recoveredValue', 'Valor recuperado', scope.summary.recoveredValue, debts(recoveredCount))}
${kpi('recovered', 'recoveryAverage', 'Média recuperada', scope.summary.recoveryAverage, 'por débito recuperado')}
</section>
<section class="grid">
  <div class="card"><h2>Em aberto por tempo de atraso</h2>
${ageingBars(scope.ageing, scope.ageingUndated)}
  </div>
  <div class="card"><h2>Por filial</h2>
${branchTable(scope.branches, view.query)}
${memberStatusLine(scope.byMemberStatus)}${allBranchesLink(view)}
  </div>
</section>
${listSection(view)}
<footer>Resumo: ${SUMMARY_SOURCES[scope.summarySource]} · dias em atraso contados do vencimento até hoje (nos débitos recuperados, até o pagamento), no fuso ${escapeHtml(view.timeZone)}.</footer>
<script>${SCRIPT}</script>`;
  return page('Devedores — relatório de recebíveis', content);
}

// ---------------------------------------------------------------------------------------------
// Pages instead of the dashboard

/** Why there is no dashboard to show: no report yet, or the report cannot be read right now. */
export type UnavailableReason = 'report_not_ready' | 'report_unavailable';

/**
 * The page a reader gets instead of the dashboard (503), in Portuguese: what it means for them,
 * that it reloads itself every `retrySeconds`, and nothing of the underlying error.
 */
export function renderUnavailable(
  reason: UnavailableReason,
  status: Pick<RefreshStatus, 'failures'> | undefined,
  retrySeconds: number,
): string {
  const failing = (status?.failures ?? 0) > 0;
  const [title, text] =
    reason === 'report_not_ready'
      ? [
          'O relatório de devedores ainda está sendo preparado',
          failing
            ? 'A primeira atualização ainda não deu certo: o sistema de gestão não respondeu como esperado. Tentaremos de novo automaticamente; se continuar assim por mais de uma hora, avise a equipe técnica.'
            : 'A primeira leitura dos devedores no sistema de gestão leva alguns minutos, conforme o número de filiais e de débitos.',
        ]
      : [
          'O relatório de devedores não pôde ser aberto agora',
          'Foi uma falha momentânea do nosso lado; os dados estão guardados. Tente de novo em instantes.',
        ];
  const content = `<header class="top"><div><h1>Devedores</h1></div></header>
<section class="card" id="unavailable" data-reason="${reason}" role="status">
  <h2>${escapeHtml(title)}</h2>
  <p>${escapeHtml(text)}</p>
  <p class="notice">Esta página se atualiza sozinha a cada ${retrySeconds} segundos.</p>
</section>`;
  return page(
    `Devedores — ${title}`,
    content,
    `<meta http-equiv="refresh" content="${retrySeconds}">\n`,
  );
}

/** The 400 page: which parameter of the address was not understood, and a way back. */
export function renderQueryProblems(problems: readonly IssueDetail[]): string {
  const items = problems
    .map((p) => `<li><code>${escapeHtml(p.field)}</code>: ${escapeHtml(p.message)}</li>`)
    .join('\n');
  const content = `<header class="top"><div><h1>Devedores</h1></div></header>
<section class="card" id="invalid-query" role="alert">
  <h2>Não entendemos o endereço desta página</h2>
  <ul>
${items}
  </ul>
  <p><a class="button" href="?">Abrir o relatório sem filtros</a></p>
</section>`;
  return page('Devedores — endereço inválido', content);
}
