/**
 * The dashboard's list of debtors (functions/report/serve/dashboard.ts): the search, status and
 * sort controls (fields of the page's GET form, so they work without the script), the table
 * with sortable column headers (cards on a phone, each with its amount and its "Cobrar" link),
 * and the notice when the page holds only part of the list. Each row carries in `data-`
 * attributes what the script searches, filters and sorts by. Pure; row values are escaped.
 */
import type { DashboardView } from './dashboard.ts';
import { debts, escapeHtml, formatDay, formatMoney, integer } from './dashboard-format.ts';
import {
  branchLabel,
  type DashboardList,
  type DashboardQuery,
  type DashboardSortField,
  dashboardSearch,
  openDaysOverdue,
  sortText,
  statusKeyOf,
} from './dashboard-scope.ts';
import { datePart, type ReportRow } from './report-json.ts';

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

/** The list's card: its controls, the table, "Mostrar mais" and the truncation notice. */
export function listSection(view: DashboardView): string {
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
