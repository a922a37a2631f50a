/**
 * The dashboard's one inline script (functions/report/serve/dashboard.ts), allowed by its hash
 * in the Content Security Policy (dashboard-page.ts). It keeps to the server's rules: the same
 * sort (missing values last, ties in the list's own order), the same accent-free search, the
 * same wording of the report's age (describeAge in dashboard-format.ts).
 */
import { createHash } from 'node:crypto';

/** Rows the script shows at first, and per "Mostrar mais". */
export const DASHBOARD_PAGE_ROWS = 100;

export const SCRIPT = `
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

/** The script's SHA-256, base64: what the CSP's `script-src` names. */
export const SCRIPT_HASH = createHash('sha256').update(SCRIPT, 'utf8').digest('base64');
