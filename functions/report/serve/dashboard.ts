/**
 * `GET /reports/debtors.html`: the page a manager reads at a glance, in Portuguese. One
 * self-contained document: no external scripts, styles, fonts or images, so the Content
 * Security Policy can forbid everything else (`default-src 'none'`). The one inline script is
 * allowed by its SHA-256 hash (not a nonce): the page is the same for the same data, so its
 * ETag and 304s stay valid, and a cached page still matches the policy it was served with.
 *
 * What it shows: the seed's four summary figures in R$, the report's age and a banner when it
 * is stale, an SVG bar chart of the open debts by ageing bucket, a table per branch, and a
 * searchable list of debtors (client-side, accent- and case-insensitive) over rows embedded as
 * JSON. The JSON is escaped so that no `</script>` (or `<!--`) can end its block early. Pure.
 */
import { createHash } from 'node:crypto';
import type { DebtorsSummary } from '../../domain/debtors.ts';
import {
  AGEING_BUCKETS,
  type AgeingBucket,
  type BucketTotal,
  type DebtorsSnapshot,
} from '../../domain/debtors-report.ts';
import type { RefreshStatus } from '../store/report-store.ts';
import { datePart, type ReportRow } from './report-json.ts';

/** Rows embedded in the page at most; beyond that the page says so and links the CSV. */
export const MAX_DASHBOARD_ROWS = 2000;

export interface DashboardView {
  generatedAt: string;
  ageSeconds: number;
  stale: boolean;
  status: RefreshStatus;
  timeZone: string;
  summary: DebtorsSnapshot['summary'];
  summarySource: DebtorsSnapshot['summarySource'];
  byBranch: DebtorsSnapshot['byBranch'];
  byDebtStatus: DebtorsSnapshot['byDebtStatus'];
  byMemberStatus: DebtorsSnapshot['byMemberStatus'];
  ageing: DebtorsSnapshot['ageing'];
  /** Rows in the whole report. */
  totalRows: number;
  /** The rows embedded for the searchable list (at most MAX_DASHBOARD_ROWS), in display order. */
  rows: readonly ReportRow[];
  csvHref: string;
  jsonHref: string;
}

/**
 * The rows the page lists, at most `limit`: open debts first, the most overdue first, then the
 * others, the latest due date first. A manager looking for who to chase sees them at the top.
 */
export function pickDashboardRows(rows: readonly ReportRow[], limit: number): ReportRow[] {
  const rank = (row: ReportRow) => ((row.debtStatus ?? '').toLowerCase() === 'open' ? 0 : 1);
  const days = (row: ReportRow) => row.daysOverdue ?? Number.NEGATIVE_INFINITY;
  return [...rows]
    .sort(
      (a, b) =>
        rank(a) - rank(b) ||
        (rank(a) === 0 ? days(b) - days(a) : (b.dueDate ?? '').localeCompare(a.dueDate ?? '')),
    )
    .slice(0, limit);
}

// ---------------------------------------------------------------------------------------------
// Formatting (pt-BR)

// Built on first use: ICU's first pt-BR currency formatter costs ~10 ms, which the JSON and CSV
// routes, served by the same function, should not pay at cold start.
let formats: {
  money: Intl.NumberFormat;
  compactMoney: Intl.NumberFormat;
  integer: Intl.NumberFormat;
};
function fmt(): typeof formats {
  formats ??= {
    money: new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }),
    compactMoney: new Intl.NumberFormat('pt-BR', {
      style: 'currency',
      currency: 'BRL',
      notation: 'compact',
      maximumSignificantDigits: 3,
    }),
    integer: new Intl.NumberFormat('pt-BR'),
  };
  return formats;
}

export function formatMoney(value: number): string {
  return fmt().money.format(value);
}

/** `R$ 15,9 mil` from a thousand up, whole reais below (chart labels). */
function shortMoney(value: number): string {
  return Math.abs(value) >= 1000
    ? fmt().compactMoney.format(value)
    : fmt().money.format(Math.round(value)).replace(/,00$/, '');
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

/**
 * JSON safe inside `<script type="application/json">`: `<`, `>` and `&` as `\u003c`... so that
 * no `</script>` or `<!--` appears, and U+2028/U+2029 escaped. `JSON.parse` reads it unchanged.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

const SUMMARY_SOURCES: Record<DebtorsSnapshot['summarySource'], string> = {
  upstream: 'informado pelo sistema de origem',
  'upstream-combined': 'soma dos resumos por unidade informados pelo sistema de origem',
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

// ---------------------------------------------------------------------------------------------
// The page's script (allowed by hash in the CSP)

const SCRIPT = `
(function () {
  'use strict';
  var fold = function (s) { return String(s || '').normalize('NFD').replace(/\\p{M}/gu, '').toLowerCase(); };
  var money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
  var whole = new Intl.NumberFormat('pt-BR');
  var data = JSON.parse(document.getElementById('debtors-data').textContent || '[]');
  var rows = data.map(function (r) { return { r: r, key: fold(r.n) }; });
  var search = document.getElementById('search');
  var status = document.getElementById('status');
  var body = document.getElementById('debtors-body');
  var count = document.getElementById('match-count');

  function cell(tr, text, cls) {
    var td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  function dueDate(d) { return d ? d.slice(8, 10) + '/' + d.slice(5, 7) + '/' + d.slice(0, 4) : '—'; }
  function statusLabel(s) {
    var k = fold(s);
    return k === 'open' ? 'Em aberto' : k === 'recovered' ? 'Recuperado' : (s || '—');
  }
  function render() {
    var words = fold(search.value).split(/\\s+/).filter(Boolean);
    var wanted = status.value;
    var fragment = document.createDocumentFragment();
    var shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var item = rows[i];
      if (wanted && fold(item.r.s) !== wanted) continue;
      if (!words.every(function (w) { return item.key.indexOf(w) >= 0; })) continue;
      var r = item.r;
      var tr = document.createElement('tr');
      cell(tr, r.n || '—', 'name');
      cell(tr, r.b || '—');
      cell(tr, dueDate(r.d), 'num');
      cell(tr, r.o == null ? '—' : whole.format(r.o), 'num' + (r.o > 60 ? ' late' : ''));
      cell(tr, r.a == null ? '—' : money.format(r.a), 'num');
      var st = cell(tr, '');
      var pill = document.createElement('span');
      pill.className = 'pill ' + (fold(r.s) === 'recovered' ? 'ok' : 'open');
      pill.textContent = statusLabel(r.s);
      st.appendChild(pill);
      var link = cell(tr, '');
      if (r.l && /^https?:\\/\\//i.test(r.l)) {
        var a = document.createElement('a');
        a.href = r.l;
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        a.textContent = 'Cobrar';
        link.appendChild(a);
      } else {
        link.textContent = '—';
      }
      fragment.appendChild(tr);
      shown++;
    }
    body.replaceChildren(fragment);
    var total = Number(count.getAttribute('data-total'));
    count.textContent = whole.format(shown) + ' de ' + whole.format(rows.length) +
      (total > rows.length ? ' (' + whole.format(total) + ' no relatório)' : '');
  }
  search.addEventListener('input', render);
  status.addEventListener('change', render);
  render();

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

/** The page's Content-Security-Policy: nothing but itself, its inline styles and its one script. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  `script-src 'sha256-${SCRIPT_HASH}'`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of the page besides caching ones. */
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
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--bg); }
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 48px; }
header { display: flex; flex-wrap: wrap; align-items: flex-end; justify-content: space-between; gap: 12px; margin-bottom: 20px; }
h1 { font-size: 26px; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 16px; margin: 0 0 14px; }
.meta { color: var(--muted); margin: 0; }
.meta strong { color: var(--ink); font-weight: 600; }
.actions a { display: inline-block; margin-left: 8px; padding: 7px 14px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--card); color: var(--accent); text-decoration: none; font-weight: 600; font-size: 14px; }
.actions a:hover { border-color: var(--accent); }
.banner { border-radius: 10px; padding: 12px 16px; margin-bottom: 20px; border: 1px solid; }
.banner.stale { background: #fff4e5; border-color: #f5b352; color: #7a4304; }
.banner strong { display: block; margin-bottom: 2px; }
.kpis { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 16px; margin-bottom: 20px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 18px 20px;
  box-shadow: 0 1px 2px rgba(16, 24, 40, 0.04); }
.kpi .label { color: var(--muted); font-size: 13px; text-transform: uppercase; letter-spacing: 0.04em; margin: 0; }
.kpi .value { font-size: 28px; font-weight: 700; margin: 6px 0 2px; font-variant-numeric: tabular-nums; white-space: nowrap; }
.kpi .value.long { font-size: 23px; }
.kpi .value { line-height: 36px; }
.kpi .note { color: var(--muted); font-size: 13px; margin: 0; }
.kpi.pending .value { color: var(--open); }
.kpi.recovered .value { color: var(--ok); }
.grid { display: grid; grid-template-columns: minmax(0, 5fr) minmax(0, 6fr); gap: 16px; margin-bottom: 20px; }
svg { display: block; width: 100%; height: auto; }
svg text { font: 13px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; fill: var(--muted); }
svg .amount { fill: var(--ink); font-weight: 600; }
svg .bucket { fill: var(--ink); }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); font-weight: 600; background: #fafbfc; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.late { color: var(--open); font-weight: 600; }
tfoot td { font-weight: 700; border-bottom: none; }
.toolbar { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 12px; }
.toolbar input, .toolbar select { font: inherit; padding: 8px 12px; border: 1px solid #cfd6e0; border-radius: 8px; background: #fff; }
.toolbar input { flex: 1 1 280px; }
.toolbar .count { color: var(--muted); margin-left: auto; }
.list { max-height: 640px; overflow: auto; border: 1px solid var(--line); border-radius: 8px; }
.list th { position: sticky; top: 0; }
.list td.name { font-weight: 500; }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; }
.pill.open { background: #fdebe1; color: var(--open); }
.pill.ok { background: #e3f4e8; color: var(--ok); }
a { color: var(--accent); }
.members { color: var(--muted); font-size: 14px; margin: 16px 0 0; }
.members .stat { color: var(--ink); font-weight: 600; font-variant-numeric: tabular-nums; }
.members .stat-label { color: var(--muted); font-weight: 400; }
.notice { color: var(--muted); font-size: 14px; margin: 10px 0 0; }
footer { color: var(--muted); font-size: 13px; margin-top: 24px; }
@media (max-width: 900px) { .kpis { grid-template-columns: repeat(2, minmax(0, 1fr)); } .grid { grid-template-columns: 1fr; } }
`;

// ---------------------------------------------------------------------------------------------
// Parts

function kpi(
  kind: 'pending' | 'recovered',
  figure: keyof DebtorsSummary & string,
  label: string,
  value: number | null,
  note: string,
): string {
  const shown = value === null ? '—' : formatMoney(value);
  // Millions do not fit a quarter of the width at full size.
  const size = shown.length > 14 ? ' long' : '';
  return `<div class="card kpi ${kind}">
  <p class="label">${escapeHtml(label)}</p>
  <p class="value${size}" data-figure="${figure}" data-value="${value ?? ''}">${escapeHtml(shown)}</p>
  <p class="note">${escapeHtml(note)}</p>
</div>`;
}

function countOf(totals: Record<string, BucketTotal>, name: string): number {
  const key = Object.keys(totals).find((k) => k.toLowerCase() === name.toLowerCase());
  return key ? (totals[key]?.count ?? 0) : 0;
}

function debts(n: number): string {
  return `${fmt().integer.format(n)} ${n === 1 ? 'débito' : 'débitos'}`;
}

/** Vertical bars, one per ageing bucket, height by amount, with amount and count labels. */
export function ageingChart(ageing: Record<AgeingBucket, BucketTotal>): string {
  const width = 500;
  const height = 300;
  const top = 30;
  const bottom = 56;
  const plot = height - top - bottom;
  const slot = width / AGEING_BUCKETS.length;
  const barWidth = slot * 0.56;
  const max = Math.max(0, ...AGEING_BUCKETS.map((b) => ageing[b]?.amount ?? 0));
  const baseline = top + plot;
  const bars = AGEING_BUCKETS.map((bucket, i) => {
    const total = ageing[bucket] ?? { count: 0, amount: 0 };
    const h = max > 0 ? Math.max(total.amount > 0 ? 2 : 0, (total.amount / max) * plot) : 0;
    const x = i * slot + (slot - barWidth) / 2;
    const cx = i * slot + slot / 2;
    const label = BUCKET_LABELS[bucket];
    return `<g>
  <rect class="bar" data-bucket="${bucket}" data-amount="${total.amount}" data-count="${total.count}" x="${x.toFixed(1)}" y="${(baseline - h).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${h.toFixed(1)}" rx="4" fill="${BUCKET_COLOURS[bucket]}"><title>${escapeHtml(`${label}: ${formatMoney(total.amount)} em ${debts(total.count)}`)}</title></rect>
  <text class="amount" x="${cx.toFixed(1)}" y="${(baseline - h - 8).toFixed(1)}" text-anchor="middle">${escapeHtml(shortMoney(total.amount))}</text>
  <text class="bucket" x="${cx.toFixed(1)}" y="${baseline + 22}" text-anchor="middle">${escapeHtml(label)}</text>
  <text x="${cx.toFixed(1)}" y="${baseline + 41}" text-anchor="middle">${escapeHtml(debts(total.count))}</text>
</g>`;
  }).join('\n');
  return `<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="ageing-title">
<title id="ageing-title">Valor em aberto por tempo de atraso</title>
<line x1="0" x2="${width}" y1="${baseline}" y2="${baseline}" stroke="#cfd6e0"/>
${bars}
</svg>`;
}

function branchTable(byBranch: DashboardView['byBranch']): string {
  const sum = (pick: (b: DashboardView['byBranch'][number]) => number) =>
    byBranch.reduce((total, b) => total + pick(b), 0);
  const rows = byBranch
    .map(
      (b) => `<tr data-branch="${b.branchId}">
  <td>${escapeHtml(b.branchName ?? `Unidade ${b.branchId}`)}</td>
  <td class="num">${fmt().integer.format(b.open.count + b.recovered.count)}</td>
  <td class="num">${escapeHtml(formatMoney(b.open.amount))}</td>
  <td class="num">${escapeHtml(formatMoney(b.recovered.amount))}</td>
</tr>`,
    )
    .join('\n');
  return `<table id="branches">
<thead><tr><th>Unidade</th><th class="num">Débitos</th><th class="num">Em aberto</th><th class="num">Recuperado</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="4">Nenhuma unidade no relatório.</td></tr>'}
</tbody>
<tfoot><tr><td>Total</td><td class="num">${fmt().integer.format(sum((b) => b.open.count + b.recovered.count))}</td><td class="num">${escapeHtml(formatMoney(sum((b) => b.open.amount)))}</td><td class="num">${escapeHtml(formatMoney(sum((b) => b.recovered.amount)))}</td></tr></tfoot>
</table>`;
}

const MEMBER_STATUS_LABELS: Record<string, string> = {
  active: 'Ativos',
  inactive: 'Inativos',
  freeze: 'Congelados',
  '(none)': 'Sem situação',
};

/** Debts by the member's status: `Ativos 126 · Inativos 36 · Congelados 18`. */
function memberStatusLine(byMemberStatus: DashboardView['byMemberStatus']): string {
  const parts = Object.entries(byMemberStatus)
    .sort(([, a], [, b]) => b.count - a.count)
    .map(
      ([name, total]) =>
        `<span class="stat"><span class="stat-label">${escapeHtml(MEMBER_STATUS_LABELS[name.toLowerCase()] ?? name)}</span> ${fmt().integer.format(total.count)}</span>`,
    );
  if (parts.length === 0) return '';
  return `<p class="members" id="member-status">Débitos por situação do membro: ${parts.join(' · ')}</p>`;
}

function staleBanner(view: DashboardView): string {
  if (!view.stale) return '';
  const { status } = view;
  const when = (iso: string | undefined) => formatDateTime(iso, view.timeZone);
  const why =
    status.failures > 0
      ? `A atualização automática falhou ${status.failures} ${status.failures === 1 ? 'vez' : 'vezes seguidas'}` +
        `${status.lastFailedAt ? `, a última em ${when(status.lastFailedAt)}` : ''}` +
        `${status.lastError ? ` (erro: ${status.lastError})` : ''}.`
      : 'Nenhuma atualização foi concluída desde então.';
  return `<div class="banner stale" role="alert" id="stale-banner">
  <strong>Dados desatualizados</strong>
  Os números abaixo são de ${escapeHtml(when(view.generatedAt))}. ${escapeHtml(why)}
</div>
`;
}

/** The compact rows the page's script lists: name, branch, due date, days, amount, status, link. */
function embeddedRows(rows: readonly ReportRow[]) {
  return rows.map((row) => ({
    n: row.name ?? '',
    b: row.branchName ?? (row.branchId == null ? '' : `Unidade ${row.branchId}`),
    d: datePart(row.dueDate) ?? null,
    o: row.daysOverdue,
    a: row.debtAmount ?? null,
    s: row.debtStatus ?? '',
    l: row.checkoutLink ?? null,
  }));
}

export function renderDashboard(view: DashboardView): string {
  const { summary } = view;
  const openCount = countOf(view.byDebtStatus, 'Open');
  const recoveredCount = countOf(view.byDebtStatus, 'Recovered');
  const truncated = view.rows.length < view.totalRows;
  const csv = escapeHtml(view.csvHref);
  const notice = truncated
    ? `<p class="notice" id="truncated">Mostrando ${fmt().integer.format(view.rows.length)} de ${fmt().integer.format(view.totalRows)} débitos (os em aberto mais atrasados primeiro). <a href="${csv}">Baixe o CSV</a> para ver todos.</p>`
    : '';
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Devedores — relatório de recebíveis</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
  <div>
    <h1>Devedores</h1>
    <p class="meta">Gerado em <strong>${escapeHtml(formatDateTime(view.generatedAt, view.timeZone))}</strong>
      (<span id="age" data-generated-at="${escapeHtml(view.generatedAt)}">${escapeHtml(describeAge(view.ageSeconds))}</span>)
      · ${fmt().integer.format(view.totalRows)} débitos${view.stale ? ' · <strong>desatualizado</strong>' : ''}</p>
  </div>
  <nav class="actions"><a href="${csv}" download>Baixar CSV</a><a href="${escapeHtml(view.jsonHref)}">JSON</a></nav>
</header>
${staleBanner(view)}
<section class="kpis" aria-label="Resumo">
${kpi('pending', 'pendingValue', 'Valor em aberto', summary.pendingValue, debts(openCount))}
${kpi('pending', 'pendingAverage', 'Média em aberto', summary.pendingAverage, 'por débito em aberto')}
${kpi('recovered', 'recoveredValue', 'Valor recuperado', summary.recoveredValue, debts(recoveredCount))}
${kpi('recovered', 'recoveryAverage', 'Média recuperada', summary.recoveryAverage, 'por débito recuperado')}
</section>
<section class="grid">
  <div class="card"><h2>Em aberto por tempo de atraso</h2>
${ageingChart(view.ageing)}
  </div>
  <div class="card"><h2>Por unidade</h2>
${branchTable(view.byBranch)}
${memberStatusLine(view.byMemberStatus)}
  </div>
</section>
<section class="card" aria-labelledby="list-title">
  <h2 id="list-title">Lista de devedores</h2>
  <div class="toolbar">
    <input id="search" type="search" placeholder="Buscar pelo nome (ex.: joao)" aria-label="Buscar devedor pelo nome" autocomplete="off">
    <select id="status" aria-label="Situação">
      <option value="">Todas as situações</option>
      <option value="open">Em aberto</option>
      <option value="recovered">Recuperados</option>
    </select>
    <span class="count" id="match-count" data-total="${view.totalRows}"></span>
  </div>
  <div class="list">
  <table id="debtors">
    <thead><tr><th>Nome</th><th>Unidade</th><th class="num">Vencimento</th><th class="num">Dias em atraso</th><th class="num">Valor</th><th>Situação</th><th>Link</th></tr></thead>
    <tbody id="debtors-body"></tbody>
  </table>
  </div>
  ${notice}
</section>
<footer>Resumo: ${SUMMARY_SOURCES[view.summarySource]} · dias em atraso contados do vencimento no fuso ${escapeHtml(view.timeZone)}.</footer>
</main>
<script type="application/json" id="debtors-data">${scriptJson(embeddedRows(view.rows))}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
