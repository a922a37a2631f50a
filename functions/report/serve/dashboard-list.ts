/**
 * The dashboard's list of debtors (functions/report/serve/dashboard.ts): the search, status and
 * sort controls (fields of the page's GET form, so they work without the script), and the list,
 * one entry per member (dashboard-members.ts): a table at a desk, whose column headers sort it,
 * and a card per member on a phone. An entry is a `<tbody>`: a first row with the member's
 * figures (their total, the oldest due date, the most days overdue) and "Cobrar", the row
 * "Cobrar" opens (no script needed: the pay-now link to copy, the message, the WhatsApp link;
 * dashboard-charge.ts), then, for a member with several debts, a row per debt. Each entry
 * carries in `data-` attributes what the script searches and sorts by. Pure; values are escaped.
 */

import { escapeHtml } from '../../kernel/html.ts';
import type { DashboardView } from './dashboard.ts';
import type { MemberCharge } from './dashboard-charge.ts';
import { formatDay, formatMoney, integer } from './dashboard-format.ts';
import {
  type MemberEntry,
  type MemberList,
  openDaysOverdue,
  statusKeyOf,
} from './dashboard-members.ts';
import {
  type DashboardQuery,
  type DashboardSortField,
  dashboardSearch,
  sortText,
} from './dashboard-scope.ts';
import type { ReportRow } from './report-json.ts';

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
  ['branch', 'Unidade (A–Z)'],
  ['-branch', 'Unidade (Z–A)'],
];
/** Columns whose first click sorts from the largest. */
const FIRST_DESCENDING = new Set(['daysOverdue', 'debtAmount']);

const members = (n: number) => `${integer(n)} ${n === 1 ? 'devedor' : 'devedores'}`;
const debtCount = (n: number) => `${integer(n)} ${n === 1 ? 'débito' : 'débitos'}`;

function pill(key: string, label: string): string {
  const kind = key === 'open' || key === 'recovered' ? ` ${key}` : '';
  return `<span class="pill${kind}">${escapeHtml(label || '—')}</span>`;
}

function statusPill(row: ReportRow): string {
  const key = statusKeyOf(row);
  const label = key === 'open' ? 'Em aberto' : key === 'recovered' ? 'Recuperado' : row.debtStatus;
  return pill(key, label ?? '');
}

/** Days overdue (`late` past 60), `a vencer`, or `—`. */
function daysText(days: number | null): [text: string, late: boolean] {
  if (days === null) return ['—', false];
  if (days <= 0) return ['a vencer', false];
  const unit = days === 1 ? ' dia' : ' dias';
  return [
    `${integer(days)}<span class="unit">${unit}<span class="unit-more"> em atraso</span></span>`,
    days > 60,
  ];
}

function daysCell(html: string, classes = ''): string {
  return `<td class="num days${classes}">${html}</td>`;
}

/** A debt's days: still overdue, or when it was paid (a recovered debt is not overdue). */
function debtDays(row: ReportRow): string {
  if (statusKeyOf(row) === 'recovered') {
    const paid = row.paymentDate ? `Pago em ${formatDay(row.paymentDate)}` : 'Pago';
    return daysCell(escapeHtml(paid), ' paid');
  }
  const [text, late] = daysText(openDaysOverdue(row));
  return daysCell(text, late ? ' late' : '');
}

/** The member's days: the most overdue open debt, else when they last paid. */
function memberDays(entry: MemberEntry): string {
  if (entry.open.count > 0) {
    const [text, late] = daysText(entry.daysOverdue);
    return daysCell(text, late ? ' late' : '');
  }
  if (entry.recovered.count === entry.debts.length) {
    const paid = entry.debts
      .map((row) => row.paymentDate ?? '')
      .sort()
      .at(-1);
    return daysCell(escapeHtml(paid ? `Pago em ${formatDay(paid)}` : 'Pago'), ' paid');
  }
  return daysCell('—');
}

function memberStatus(entry: MemberEntry): string {
  if (entry.open.count > 0) return pill('open', 'Em aberto');
  if (entry.recovered.count === entry.debts.length) return pill('recovered', 'Recuperado');
  return statusPill(entry.debts[0] as ReportRow);
}

/**
 * "Cobrar": a toggle in the member's row (a `<details>`, which opens and closes without a
 * script) and, in a row of its own under it across the whole table, shown while the toggle is
 * open (the stylesheet's `:has()`, and the script's `charging` class), the panel: the link to
 * copy, WhatsApp (its link carries the message), the pay-now page. The script adds the copy
 * buttons' work and shows the message (read from the WhatsApp link: the page carries it once).
 */
function chargeToggle(entry: MemberEntry): string {
  return `<details class="charge"><summary class="button" aria-controls="cobrar-${entry.rank}-panel">Cobrar</summary></details>`;
}

function chargePanel(charge: MemberCharge, entry: MemberEntry): string {
  const id = `cobrar-${entry.rank}`;
  const links = charge.links.join('\n');
  const field =
    charge.links.length === 1
      ? `<input id="${id}" class="charge-link" type="text" readonly value="${escapeHtml(links)}">`
      : `<textarea id="${id}" class="charge-link" readonly rows="${charge.links.length}">${escapeHtml(links)}</textarea>`;
  const total = `${charge.openCount} ${charge.openCount === 1 ? 'pagamento' : 'pagamentos'} em aberto`;
  const to = charge.phone
    ? ''
    : '<p class="charge-note">Sem telefone no relatório: o WhatsApp pergunta para quem enviar.</p>';
  return `<tr class="charge-row"><td colspan="${COLUMNS.length}">
<div class="charge-panel" id="${id}-panel">
<div class="charge-main">
<p class="charge-total">${total}: <strong>${escapeHtml(formatMoney(charge.openAmount))}</strong></p>
<label class="charge-label" for="${id}">${charge.links.length === 1 ? 'Link de pagamento' : 'Links de pagamento'}</label>
${field}
<div class="charge-actions">
<button type="button" class="button copy" data-copy="link">Copiar link</button>
<button type="button" class="button copy" data-copy="message">Copiar mensagem</button>
<a class="button whatsapp" href="${escapeHtml(charge.whatsapp)}" target="_blank" rel="noopener noreferrer">Enviar pelo WhatsApp</a>
<a class="open-link" href="${escapeHtml(charge.links[0] as string)}" target="_blank" rel="noopener noreferrer">Abrir o link</a>
</div>
${to}<p class="copied" role="status" aria-live="polite"></p>
</div>
<p class="charge-message" hidden></p>
</div>
</td></tr>`;
}

/** One row per debt, under the member's row, when the member has several. */
function debtRow(row: ReportRow): string {
  return `<tr class="debt" data-status="${escapeHtml(statusKeyOf(row))}">
<td class="name"></td><td class="branch"></td>
<td class="num due">${formatDay(row.dueDate)}</td>
${debtDays(row)}
<td class="num amount">${row.debtAmount == null ? '—' : escapeHtml(formatMoney(row.debtAmount))}</td>
<td class="status">${statusPill(row)}</td><td class="link"></td>
</tr>`;
}

function memberEntry(entry: MemberEntry): string {
  const several = entry.debts.length > 1;
  const attributes = [
    'class="member"',
    `data-i="${entry.rank}"`,
    `data-name="${escapeHtml(entry.name)}"`,
    `data-branch="${escapeHtml(entry.branch)}"`,
    `data-due="${entry.oldestDue ?? ''}"`,
    `data-days="${entry.daysOverdue ?? ''}"`,
    `data-amount="${entry.amount}"`,
    `data-owes="${entry.open.count > 0 ? 1 : 0}"`,
    `data-debts="${entry.debts.length}"`,
  ].join(' ');
  const count = several ? ` <span class="debt-count">${debtCount(entry.debts.length)}</span>` : '';
  const due = entry.oldestDue ? formatDay(entry.oldestDue) : '—';
  return `<tbody ${attributes}${entry.hidden ? ' hidden' : ''}>
<tr class="head">
<td class="name"><span class="who">${escapeHtml(entry.name || '—')}</span>${count}</td>
<td class="branch">${escapeHtml(entry.branch || '—')}</td>
<td class="num due${several ? ' oldest' : ''}">${several ? `desde ${due}` : due}</td>
${memberDays(entry)}
<td class="num amount">${escapeHtml(formatMoney(entry.amount))}</td>
<td class="status">${memberStatus(entry)}</td>
<td class="link">${entry.charge ? chargeToggle(entry) : ''}</td>
</tr>
${entry.charge ? chargePanel(entry.charge, entry) : ''}
${several ? entry.debts.map(debtRow).join('\n') : ''}
</tbody>`;
}

const COLUMNS: readonly [field: DashboardSortField | undefined, label: string, numeric: boolean][] =
  [
    ['name', 'Nome', false],
    ['branch', 'Unidade', false],
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

function options(choices: readonly (readonly [string, string])[], chosen: string): string {
  return choices
    .map(
      ([value, label]) =>
        `<option value="${value}"${value === chosen ? ' selected' : ''}>${label}</option>`,
    )
    .join('');
}

/** The list's card: its controls, the members, "Mostrar mais" and the truncation notice. */
export function listSection(view: DashboardView): string {
  const { query } = view;
  const list: MemberList = view.list;
  const sortOptions = options(SORT_CHOICES, query.sort ? sortText(query.sort) : '');
  const statusOptions = options(
    [
      ['', 'Todas as situações'],
      ['open', 'Em aberto'],
      ['recovered', 'Recuperados'],
    ],
    query.debtStatus ?? '',
  );
  const csv = escapeHtml(view.csvHref);
  const notice =
    list.members.length < list.total
      ? `<p class="notice" id="truncated">Mostrando ${integer(list.members.length)} de ${members(list.total)} (os que devem há mais tempo primeiro). <a href="${csv}">Baixe o CSV</a> para ver todos.</p>`
      : '';
  const entries = list.members.map(memberEntry).join('\n');
  const empty =
    list.total === 0 ? '<p class="notice" id="no-debtors">Nenhum devedor nesta seleção.</p>' : '';
  return `<section class="card" aria-labelledby="list-title">
  <h2 id="list-title">Lista de devedores</h2>
  <div class="toolbar">
    <input id="search" name="q" form="filters" type="search" value="${escapeHtml(query.q ?? '')}" placeholder="Buscar pelo nome (ex.: joao)" aria-label="Buscar devedor pelo nome" autocomplete="off">
    <select id="status" name="debtStatus" form="filters" aria-label="Situação dos débitos">${statusOptions}</select>
    <select id="sort" name="sort" form="filters" aria-label="Ordenar por">${sortOptions}</select>
    <button class="button apply" type="submit" form="filters">Filtrar</button>
    <span class="count"><span id="match-count" data-total="${list.total}">${integer(list.matching)} de ${members(list.total)}</span> · ${debtCount(list.debts)}</span>
  </div>
  <div class="list">
  <table id="debtors">
    ${listHead(query)}
${entries}
  </table>
  </div>
  ${empty}<button class="button more" id="more" type="button" hidden>Mostrar mais</button>
  ${notice}
</section>`;
}
