/**
 * The shell every report page shares (functions/report/serve/dashboard.ts): the document around
 * the content, its one stylesheet (mobile first: from 721 px the list is a table, below it cards),
 * and the headers it is served with, whose Content Security Policy allows nothing but the page
 * itself, its inline styles and scripts from this site (the dashboard's one script,
 * dashboard-asset.ts): no inline script at all.
 */

import { escapeHtml } from '../../kernel/html.ts';

/**
 * The pages' Content-Security-Policy: nothing but the page itself, its inline styles and
 * scripts from this site (no inline script); forms may only send to this site (the filters are
 * a GET form).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "script-src 'self'",
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
  background: var(--card); color: var(--accent); text-decoration: none; font-family: inherit; font-size: 14px;
  font-weight: 600; line-height: 1.45; cursor: pointer; }
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
#debtors .who { display: block; }
#debtors td.branch { white-space: nowrap; }
#debtors .debt-count { display: block; color: var(--muted); font-size: 13px; font-weight: 400; }
#debtors .head td.link:empty::after { content: "—"; color: var(--muted); }
#debtors tbody.member { border-bottom: 1px solid var(--line); }
#debtors tbody.member td { border-bottom: none; }
#debtors tr.debt td { padding-top: 2px; padding-bottom: 4px; font-size: 13px; color: var(--muted); }
#debtors tr.debt:last-child td { padding-bottom: 10px; }
#debtors tr.debt td.days.late { color: var(--open); }
#debtors tr.charge-row { display: none; }
#debtors tbody.charging tr.charge-row { display: table-row; }
#debtors tbody:has(details.charge[open]) tr.charge-row { display: table-row; }
#debtors tr.charge-row td { padding: 4px 10px 14px; }
.charge summary { list-style: none; white-space: nowrap; }
.charge summary::-webkit-details-marker { display: none; }
.charge[open] summary { border-color: var(--accent); background: #eef4fd; }
.charge-panel { display: flex; flex-wrap: wrap; gap: 8px 20px; padding: 14px; background: #f8fafc;
  border: 1px solid #cfd6e0; border-radius: 10px; font-size: 14px; }
.charge-main { flex: 1 1 340px; min-width: 0; }
.charge-panel .charge-message { flex: 1 1 300px; margin: 0; align-self: flex-start; }
.charge-panel p { margin: 0 0 8px; }
.charge-label { display: block; color: var(--muted); font-size: 13px; margin-bottom: 2px; }
.charge-link { display: block; width: 100%; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; padding: 6px 8px;
  border: 1px solid #cfd6e0; border-radius: 6px; color: var(--ink); background: #f8fafc; resize: none; margin-bottom: 8px; }
.charge-message { white-space: pre-line; overflow-wrap: anywhere; font-size: 13px; background: #fff; border: 1px solid var(--line);
  border-radius: 6px; padding: 8px 10px; color: var(--ink); }
.charge-actions { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin-bottom: 6px; }
.button.copy { display: none; }
.js .button.copy { display: inline-block; }
.button.whatsapp { background: #128c4a; border-color: #128c4a; color: #fff; }
.charge-note, .copied { color: var(--muted); font-size: 13px; }
.copied:empty { display: none; }
.offscreen { position: fixed; top: -1000px; left: 0; opacity: 0; }
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
  /* Touch targets of at least 44 px on a phone (WCAG 2.5.5). */
  select, input[type=search] { min-height: 44px; }
  .button, .actions a { min-height: 44px; padding-top: 11px; padding-bottom: 11px; }
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
  #debtors tbody.member { border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px; margin-bottom: 10px; }
  #debtors tr { display: block; }
  #debtors td { display: block; padding: 0; border: none; text-align: left; white-space: normal; }
  #debtors tr.head { display: grid; grid-template-columns: minmax(0, 1fr) auto; align-items: baseline; gap: 2px 12px;
    grid-template-areas: "name name" "branch status" "due days" "amount amount" "link link"; }
  #debtors tr.head td.name { grid-area: name; font-weight: 600; }
  #debtors tr.head td.status { grid-area: status; text-align: right; }
  #debtors tr.head td.branch { grid-area: branch; color: var(--muted); white-space: normal; }
  #debtors tr.head td.amount { grid-area: amount; text-align: right; font-weight: 700; font-size: 17px; white-space: nowrap;
    margin-top: 2px; }
  #debtors tr.head td.amount::before { content: "Total"; float: left; color: var(--muted); font-size: 14px; font-weight: 400; }
  #debtors tbody[data-owes="1"] tr.head td.amount::before { content: "Total em aberto"; }
  #debtors tr.head td.due { grid-area: due; color: var(--muted); }
  #debtors td.due::before { content: "Venc. "; }
  #debtors tr.head td.days { grid-area: days; text-align: right; white-space: nowrap; }
  #debtors .unit { display: inline; }
  #debtors tr.head td.link { grid-area: link; margin-top: 8px; }
  #debtors tbody.charging tr.charge-row { display: block; }
  #debtors tbody:has(details.charge[open]) tr.charge-row { display: block; }
  #debtors tr.charge-row td { padding: 8px 0 0; }
  #debtors tr.head td.link:empty { display: none; }
  #debtors tr.debt { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 10px; padding: 6px 0 0; margin-top: 6px;
    border-top: 1px dashed var(--line); }
  #debtors tr.debt td.name, #debtors tr.debt td.branch, #debtors tr.debt td.status, #debtors tr.debt td.link { display: none; }
  #debtors tr.debt td.amount { margin-left: auto; color: var(--ink); font-weight: 600; white-space: nowrap; }
  #debtors tr.debt td, #debtors tr.debt:last-child td { padding: 0; }
  #debtors tr.debt .unit-more { display: none; }
  .charge summary { display: block; text-align: center; padding: 9px; border: 1px solid var(--accent); }
  .charge-panel { padding: 12px; }
  .charge-actions .button { flex: 1 1 auto; text-align: center; }
}
`;

/** A whole page: `title`, `content` inside `<main>`, and any extra `head` lines. */
export function page(title: string, content: string, head = ''): string {
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
