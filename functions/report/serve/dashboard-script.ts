/**
 * The dashboard's one inline script (functions/report/serve/dashboard.ts), allowed by its hash
 * in the Content Security Policy (dashboard-page.ts). It keeps to the server's rules: the same
 * sort of members (dashboard-members.ts: missing values last, members who owe first by amount,
 * ties in the list's own order), the same accent-free search, the same wording of the report's
 * age (describeAge in dashboard-format.ts). It copies "Cobrar"'s link or message to the
 * clipboard (by hand where the Clipboard API is missing) and keeps one "Cobrar" open at a time.
 */
import { createHash } from 'node:crypto';

/** Members the script shows at first, and per "Mostrar mais". */
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
  var table = document.getElementById('debtors');
  var count = document.getElementById('match-count');
  var more = document.getElementById('more');
  var heads = Array.prototype.slice.call(document.querySelectorAll('#debtors th[data-sort]'));
  var members = Array.prototype.slice.call(table.querySelectorAll('tbody.member'));
  var keys = new WeakMap();
  members.forEach(function (m) { keys.set(m, fold(m.getAttribute('data-name'))); });
  var total = Number(count.getAttribute('data-total'));
  var upstream = null;
  new URLSearchParams(location.search).forEach(function (v, k) { if (k.toLowerCase() === 'upstream' && v) upstream = v; });
  var PAGE = ${DASHBOARD_PAGE_ROWS};
  var limit = PAGE;
  var ATTR = { name: 'data-name', branch: 'data-branch', dueDate: 'data-due', daysOverdue: 'data-days', debtAmount: 'data-amount' };
  var NUMERIC = { daysOverdue: true, debtAmount: true };
  var FIRST_DESCENDING = { daysOverdue: true, debtAmount: true };
  var initialBranch = branch.value;
  var initialStatus = status.value;

  function value(el, field) {
    var v = el.getAttribute(ATTR[field]);
    if (v === null || v === '') return null;
    return NUMERIC[field] ? Number(v) : v;
  }
  function rank(el) { return Number(el.getAttribute('data-i')); }
  function owes(el) { return el.getAttribute('data-owes') === '1' ? 0 : 1; }
  function parseSort(text) {
    var descending = text.charAt(0) === '-';
    return { field: descending ? text.slice(1) : text, descending: descending };
  }
  function compare(s) {
    return function (a, b) {
      if (s.field === 'debtAmount' && owes(a) !== owes(b)) return owes(a) - owes(b);
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
    if (upstream) p.set('upstream', upstream);
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
    members.sort(compare(s));
    var fragment = document.createDocumentFragment();
    members.forEach(function (m) { fragment.appendChild(m); });
    table.appendChild(fragment);
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
    var matching = 0;
    members.forEach(function (m) {
      var key = keys.get(m);
      var ok = words.every(function (w) { return key.indexOf(w) >= 0; });
      if (ok) matching++;
      m.hidden = !ok || matching > limit;
    });
    count.textContent = whole.format(matching) + ' de ' + whole.format(total) + (total === 1 ? ' devedor' : ' devedores');
    var left = matching - limit;
    more.hidden = left <= 0;
    if (left > 0) more.textContent = 'Mostrar mais ' + whole.format(Math.min(PAGE, left)) + ' (faltam ' + whole.format(left) + ')';
  }
  function remember() { history.replaceState(null, '', params({})); }
  search.addEventListener('input', function () { limit = PAGE; applyFilter(); remember(); });
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
  status.addEventListener('change', function () { location.assign(params({})); });
  form.addEventListener('submit', function (event) {
    if (branch.value !== initialBranch || status.value !== initialStatus) return;
    event.preventDefault();
    applyFilter();
  });
  more.addEventListener('click', function () { limit += PAGE; applyFilter(); });

  // "Cobrar": one panel open at a time; the copy buttons put the link or the message on the clipboard.
  function messageOf(panel) {
    return new URL(panel.querySelector('a.whatsapp').href).searchParams.get('text') || '';
  }
  table.addEventListener('toggle', function (event) {
    var toggled = event.target;
    var entry = toggled.closest('tbody');
    entry.classList.toggle('charging', toggled.open);
    if (!toggled.open) return;
    var preview = entry.querySelector('.charge-message');
    if (preview && preview.hidden) {
      preview.textContent = messageOf(preview.closest('.charge-panel'));
      preview.hidden = false;
    }
    Array.prototype.forEach.call(table.querySelectorAll('details.charge[open]'), function (d) {
      if (d !== toggled) d.open = false;
    });
  }, true);
  function copyByHand(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }
  function copy(text, done) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(copyByHand(text)); });
    } else done(copyByHand(text));
  }
  table.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-copy]');
    if (!button) return;
    var panel = button.closest('.charge-panel');
    var what = button.getAttribute('data-copy');
    var field = panel.querySelector('.charge-link');
    var text = what === 'link' ? field.value : messageOf(panel);
    var said = panel.querySelector('.copied');
    copy(text, function (ok) {
      said.textContent = ok
        ? (what === 'link' ? 'Link copiado: cole onde quiser enviar.' : 'Mensagem copiada: cole onde quiser enviar.')
        : 'Não foi possível copiar sozinho: selecione o texto e copie.';
      if (!ok) { field.focus(); field.select(); }
    });
  });

  applySort();
  applyFilter();
  remember();

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
