/**
 * The dashboard's middle row (functions/report/serve/dashboard.ts): the open amount by how long
 * it is overdue, as horizontal bars (inline SVG, no script), and the totals by branch, a table
 * that turns into cards on a phone, with the debts by the member's status and, with a branch
 * chosen, the way back to every branch. Pure; names from the report are escaped.
 */
import {
  AGEING_BUCKETS,
  type AgeingBucket,
  type BranchTotals,
  type BucketTotal,
} from '../../domain/debtors-report.ts';
import { escapeHtml } from '../../kernel/html.ts';
import type { DashboardView } from './dashboard.ts';
import { branchTitle, debts, formatMoney, integer } from './dashboard-format.ts';
import { type DashboardQuery, dashboardSearch } from './dashboard-scope.ts';

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

/** The two cards side by side (stacked on a phone): ageing, and by branch. */
export function chartsSection(view: DashboardView): string {
  const { scope } = view;
  return `<section class="grid">
  <div class="card"><h2>Em aberto por tempo de atraso</h2>
${ageingBars(scope.ageing, scope.ageingUndated)}
  </div>
  <div class="card"><h2>Por unidade</h2>
${branchTable(scope.branches, view.query)}
${memberStatusLine(scope.byMemberStatus)}${allBranchesLink(view)}
  </div>
</section>`;
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
      const name = branchTitle(b);
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
<thead><tr><th>Unidade</th><th class="num">Débitos</th><th class="num">Em aberto</th><th class="num">Recuperado</th></tr></thead>
<tbody>
${rows || '<tr><td class="head">Nenhuma unidade no relatório.</td></tr>'}
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

/** With a branch chosen: the way back to every branch (keeping the list's search and sort). */
function allBranchesLink(view: DashboardView): string {
  if (!view.scope.branchIds) return '';
  const { branch: _chosen, ...rest } = view.query;
  return `\n<p class="notice"><a id="all-branches" href="?${escapeHtml(dashboardSearch(rest))}">Ver todas as unidades</a></p>`;
}
