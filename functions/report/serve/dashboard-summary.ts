/**
 * The top of the dashboard (functions/report/serve/dashboard.ts): the header (when the data is
 * from and how old it is, the chosen branches, the downloads), the branch filter, the banners
 * (stale data and what the failure means for the reader, branches the report does not hold) and
 * the four summary cards. Pure; every value from the report is escaped.
 */
import type { DebtorsSummary } from '../../domain/debtors.ts';
import type { BucketTotal } from '../../domain/debtors-report.ts';
import { escapeHtml } from '../../kernel/html.ts';
import { describeAge } from './browser/age.ts';
import type { DashboardView } from './dashboard.ts';
import { branchTitle, debts, formatDateTime, formatMoney } from './dashboard-format.ts';
import type { DashboardScope } from './dashboard-scope.ts';

/** The page's title, when its data is from, its scope and the CSV and JSON links. */
export function pageHeader(view: DashboardView): string {
  const { scope } = view;
  const branchNames = scope.branchIds ? scope.branches.map(branchTitle).join(', ') : '';
  const where = branchNames ? ` · <strong id="scope-name">${escapeHtml(branchNames)}</strong>` : '';
  return `<header class="top">
  <div>
    <h1>Devedores</h1>
    <p class="meta">Dados de <strong>${escapeHtml(formatDateTime(view.generatedAt, view.timeZone))}</strong>
      (<span id="age" data-generated-at="${escapeHtml(view.generatedAt)}">${escapeHtml(describeAge(view.ageSeconds))}</span>)${where}
      · ${debts(scope.rows.length)}${view.stale ? ' · <strong>desatualizado</strong>' : ''}</p>
  </div>
  <nav class="actions"><a href="${escapeHtml(view.csvHref)}" download>Baixar CSV</a><a href="${escapeHtml(view.jsonHref)}">Dados em JSON</a></nav>
</header>`;
}

/** The branch filter: a GET form the script submits itself when the branch changes. */
export function branchFilter(view: DashboardView): string {
  const chosen = view.query.branch ?? [];
  const value = chosen.join(',');
  const options = view.allBranches.map(
    (b) =>
      `<option value="${b.branchId}"${value === String(b.branchId) ? ' selected' : ''}>${escapeHtml(branchTitle(b))}</option>`,
  );
  // A choice the list lacks (several branches, or one the report does not hold) stays visible.
  if (chosen.length > 0 && !view.allBranches.some((b) => String(b.branchId) === value)) {
    const names = chosen.map(
      (id) => view.allBranches.find((b) => b.branchId === id)?.branchName ?? `Unidade ${id}`,
    );
    options.push(`<option value="${value}" selected>${escapeHtml(names.join(', '))}</option>`);
  }
  return `<form class="scope" id="filters" method="get" role="search">
  <label for="branch">Unidade</label>
  <select id="branch" name="branch">
    <option value="">Todas as unidades</option>
    ${options.join('\n    ')}
  </select>
  <button class="button apply" type="submit">Aplicar</button>
</form>`;
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

/** When the data is stale: since when, why, and what the reader can do about it. */
export function staleBanner(view: DashboardView): string {
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

/** When the address names branches the report does not hold: which ones, and which it does. */
export function scopeNotice(view: DashboardView): string {
  const { unknownBranches } = view.scope;
  if (unknownBranches.length === 0) return '';
  const ids = unknownBranches.join(', ');
  return `<div class="banner info" id="unknown-branch"><strong>${unknownBranches.length === 1 ? `A unidade ${ids} não está` : `As unidades ${ids} não estão`} no relatório.</strong>
  O relatório cobre ${view.allBranches.length === 1 ? 'a unidade' : 'as unidades'} ${escapeHtml(view.allBranches.map(branchTitle).join(', ') || 'nenhuma')}. <a href="?">Ver todas as unidades</a>.
</div>`;
}

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

/** The four summary cards: open and recovered, each as a total and an average. */
export function summaryCards(scope: DashboardScope): string {
  const openCount = countOf(scope.byDebtStatus, 'Open');
  const recoveredCount = countOf(scope.byDebtStatus, 'Recovered');
  return `<section class="kpis" aria-label="Resumo">
${kpi('pending', 'pendingValue', 'Valor em aberto', scope.summary.pendingValue, debts(openCount))}
${kpi('pending', 'pendingAverage', 'Média em aberto', scope.summary.pendingAverage, 'por débito em aberto')}
${kpi('recovered', 'recoveredValue', 'Valor recuperado no relatório', scope.summary.recoveredValue, `${debts(recoveredCount)} ${recoveredCount === 1 ? 'pago' : 'pagos'}, entre os listados neste relatório (o seu período)`)}
${kpi('recovered', 'recoveryAverage', 'Média recuperada', scope.summary.recoveryAverage, 'por débito recuperado')}
</section>`;
}
