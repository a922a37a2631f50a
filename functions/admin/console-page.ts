/**
 * `GET /admin/` (and `/admin`): the operator console, a small client over the admin routes, in
 * Portuguese, for a desk and a phone (nothing scrolls sideways at 390 px).
 *
 * One document and its one script (`/admin/assets/console.<hash>.js`, console-asset.ts: the
 * typed modules of browser/, bundled by scripts/build-browser.ts): no other scripts, styles,
 * fonts or images. Its Content Security Policy forbids everything but its own style (by its
 * SHA-256 hash), scripts from this site (`script-src 'self'`: no inline script) and requests to
 * this site (`connect-src 'self'`). Everything the leads hold (what a person typed) is put into
 * the page with `textContent`, never as HTML.
 *
 * The page is built per operator only for its CSRF token (csrf.ts), given in a `<meta>` and sent
 * as `X-CSRF-Token` with every request that changes something; it is `no-store`.
 *
 * Views (the address's `#` part, so that the back button works and a lead can be linked):
 * `#/` the leads and `#/lead/<id>` one lead, `#/preview` a body mapped as a platform would send
 * it and a test lead, `#/setup` the set-up kit's index and `#/setup/<profile>` one profile's kit
 * (browser/main.ts names the modules). The page's data (profiles, statuses, the account's time
 * zone, the fields the upstream requires) is one JSON block, `#page-data`: a
 * `<script type="application/json">` is data, which the CSP does not run or block.
 */
import { createHash } from 'node:crypto';
import { EMAIL_PLACEHOLDER_HINT, REQUIRED_PROSPECT_FIELDS } from '../domain/prospect.ts';
import { escapeHtml } from '../kernel/html.ts';
import type { HttpResponse } from '../kernel/http.ts';

const STYLE = `
:root { color-scheme: light; --ink: #1d2733; --muted: #5f6b7a; --line: #e3e8ef; --bg: #f4f6f9;
  --card: #fff; --bad: #b42318; --warn: #b54708; --ok: #15803d; --accent: #2456a6; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  color: var(--ink); background: var(--bg); }
header { background: #14213d; color: #fff; }
.bar { max-width: 1180px; margin: 0 auto; padding: 10px 20px; display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; }
.bar h1 { font-size: 18px; margin: 0; }
.bar nav { display: flex; gap: 4px; flex-wrap: wrap; }
.bar nav a { color: #dbe4f3; text-decoration: none; padding: 6px 10px; border-radius: 6px; }
.bar nav a.on { background: #2b3d63; color: #fff; }
.who { margin-left: auto; color: #b9c6dc; font-size: 13px; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 20px 48px; }
.health { display: flex; flex-wrap: wrap; gap: 6px 16px; font-size: 14px; padding: 10px 14px; border-radius: 8px;
  background: var(--card); border: 1px solid var(--line); margin-bottom: 14px; }
.health b.ok { color: var(--ok); } .health b.bad { color: var(--bad); }
h2 { font-size: 20px; margin: 6px 0 12px; }
h3 { font-size: 16px; margin: 18px 0 8px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px; margin-bottom: 14px; min-width: 0; }
form.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 10px; align-items: end; }
label { display: block; font-size: 13px; color: var(--muted); }
input, select, textarea { font: inherit; width: 100%; padding: 7px 9px; border: 1px solid #c8d0db; border-radius: 6px; background: #fff; color: var(--ink); }
/* Touch targets of at least 44 px (WCAG 2.5.5), on a phone and a desk alike. */
input:not([type=checkbox]):not([type=radio]), select, button, .button { min-height: 44px; }
a.button { line-height: 26px; }
textarea { min-height: 160px; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
button, .button { font: inherit; padding: 8px 14px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
  color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.plain, .button.plain { background: #fff; color: var(--accent); }
button:disabled { opacity: .55; cursor: default; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 10px 0; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 8px 6px; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
th { font-size: 13px; color: var(--muted); font-weight: 600; }
tr.lead { cursor: pointer; } tr.lead:hover { background: #f0f4fb; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; background: #e8edf5; white-space: nowrap; }
.badge.parked, .badge.rejected, .badge.dead { background: #fde7e4; color: var(--bad); }
.badge.delivered { background: #e3f5e8; color: var(--ok); }
.badge.queued { background: #fff3dc; color: var(--warn); }
.muted { color: var(--muted); font-size: 13px; }
.msg { padding: 10px 12px; border-radius: 8px; margin: 10px 0; background: #e8f1ff; }
.msg.error { background: #fde7e4; color: var(--bad); }
.msg.ok { background: #e3f5e8; color: var(--ok); }
.msg.warn { background: #fff4d6; color: #6b4a00; }
dl.kv { display: grid; grid-template-columns: minmax(110px, max-content) 1fr; gap: 4px 14px; margin: 0; }
dl.kv dt { color: var(--muted); font-size: 13px; } dl.kv dd { margin: 0; overflow-wrap: anywhere; }
ol.timeline { margin: 0; padding-left: 20px; } ol.timeline li { margin: 4px 0; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; }
.fields { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 10px; }
pre { background: #0f172a; color: #e2e8f0; padding: 10px; border-radius: 8px; overflow-x: auto; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
code { overflow-wrap: anywhere; }
.pastebox { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 6px 0 10px; }
.pastebox code.paste { flex: 1 1 220px; min-width: 0; background: #f0f4fb; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; font-size: 14px; }
ul.kit-index { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 6px 14px; }
ul.kit-index a { display: block; padding: 8px 10px; border-radius: 6px; text-decoration: none; color: var(--accent); border: 1px solid var(--line); }
.secret { margin: 10px 0; }
@media (max-width: 720px) {
  main { padding: 12px 10px 40px; }
  .grid2 { grid-template-columns: 1fr; }
  table.leads thead { display: none; }
  table.leads tr { display: block; border-bottom: 1px solid var(--line); padding: 8px 2px; }
  table.leads td { display: block; border: 0; padding: 2px 4px; }
  .who { margin-left: 0; }
}
`;

const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

/** The console's Content-Security-Policy: its own style, scripts and requests to this site. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${hash(STYLE)}'`,
  "script-src 'self'",
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** JSON inside a `<script type="application/json">`: `<` escaped so it cannot close the tag. */
const jsonData = (value: unknown) => JSON.stringify(value).replaceAll('<', '\\u003c');

export interface ConsoleView {
  csrf: string;
  operator: string;
  profiles: readonly string[];
  statuses: readonly string[];
  /** The account's time zone: every time the console shows is on the gym's clock. */
  timeZone: string;
  /** The script's address (console-asset.ts `consoleScriptSrc`). */
  scriptSrc: string;
}

/** The hint for a lead with a phone and no e-mail (domain/prospect.ts). */
const PLACEHOLDER_HINT = `Sem e-mail? ${EMAIL_PLACEHOLDER_HINT[0]?.toUpperCase()}${EMAIL_PLACEHOLDER_HINT.slice(1)}.`;

/** The console page (see the module comment). */
export function consolePage(view: ConsoleView): HttpResponse {
  const body = `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${escapeHtml(view.csrf)}">
<title>Console de leads</title>
<style>${STYLE}</style>
</head>
<body>
<header><div class="bar"><h1>Console de leads</h1>
<nav><a href="#/" data-tab="leads">Leads</a><a href="#/preview" data-tab="preview">Testar um envio</a><a href="#/setup" data-tab="setup">Conectar plataformas</a></nav>
<span class="who">${escapeHtml(view.operator)}</span></div></header>
<main>
<div class="health" id="health" aria-live="polite">Sistema da academia: …</div>
<div id="view"><noscript>O console precisa de JavaScript. As mesmas operações estão na API (/admin/leads) e no comando npm run leads.</noscript></div>
</main>
<script type="application/json" id="page-data">${jsonData({
    profiles: view.profiles,
    statuses: view.statuses,
    timeZone: view.timeZone,
    required: REQUIRED_PROSPECT_FIELDS,
    placeholderHint: PLACEHOLDER_HINT,
  })}</script>
<script src="${escapeHtml(view.scriptSrc)}"></script>
</body>
</html>
`;
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': CONSOLE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    },
    body,
  };
}
