/**
 * `GET /reports/debtors.html`: the page a gym manager reads, on a phone as often as on a desk,
 * in Portuguese. Pure: it renders what dashboard-scope.ts chose.
 *
 * One document and its one script from this site (`assets/dashboard.<hash>.js`,
 * dashboard-asset.ts): no other scripts, styles, fonts or images, so the Content Security
 * Policy can forbid everything else (`default-src 'none'`, `script-src 'self'`, no inline
 * script). The script's name carries its content hash, so the page is the same for the same
 * data and release: its ETag and 304s stay valid.
 *
 * Mobile first: at 390 px nothing scrolls sideways; the summary figures stack, the ageing is a
 * list of horizontal bars, and the tables turn into cards: a card per member in the list of
 * debtors, with their debts, their total and "Cobrar". From 722 px the debtors are a table
 * with sortable column headers.
 *
 * It works without JavaScript: the branch filter, the search, the status filter and the sort
 * are a GET form and links that the server answers (`?branch=2&q=joao&sort=-debtAmount`), and
 * "Cobrar" opens without a script (the WhatsApp link included). The script makes the list
 * instant: it searches and sorts the members already in the page, shows them a page at a
 * time (20 on a phone, largest debt first; 100 at a desk, with "Ver mais"), copies a pay-now link or message, and reloads the page when the branch or the status
 * changes (they change every figure, which the server computes).
 *
 * Also here: the Portuguese pages for "no report yet" and "the report cannot be read" (503),
 * and for a query the page does not understand (400). Names and other row values are escaped
 * wherever they appear.
 *
 * This file puts the page together and is what the report use case (serve.ts) imports; the
 * parts are rooms of their own:
 * - dashboard-page.ts: the document shell, the stylesheet, the CSP and the headers;
 * - browser/: the page's script, typed modules bundled by scripts/build-browser.ts, and
 *   dashboard-asset.ts, the route that serves it;
 * - dashboard-summary.ts: the header, the branch filter, the banners, the summary cards;
 * - dashboard-charts.ts: the ageing bars and the totals by branch;
 * - dashboard-list.ts: the list of debtors and its controls; dashboard-members.ts, the list as
 *   data (one entry per member); dashboard-charge.ts, what "Cobrar" offers (link, message,
 *   WhatsApp);
 * - dashboard-fallback.ts: the pages instead of the dashboard (503, 400);
 * - dashboard-format.ts: pt-BR figures, dates and ages, and HTML escaping.
 */
import type { BranchTotals, DebtorsSnapshot } from '../../domain/debtors-report.ts';
import { escapeHtml } from '../../kernel/html.ts';
import type { RefreshStatus } from '../store/report-store.ts';
import { DASHBOARD_SCRIPT_SRC } from './dashboard-asset.ts';
import { chartsSection } from './dashboard-charts.ts';
import { zoneName } from './dashboard-format.ts';
import { listSection } from './dashboard-list.ts';
import type { MemberList } from './dashboard-members.ts';
import { page } from './dashboard-page.ts';
import type { DashboardQuery, DashboardScope } from './dashboard-scope.ts';
import {
  branchFilter,
  pageHeader,
  scopeNotice,
  staleBanner,
  summaryCards,
} from './dashboard-summary.ts';

/** Members listed in the page at most; beyond that the page says so and links the CSV. */
export const MAX_DASHBOARD_MEMBERS = 1000;

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
  list: MemberList;
  /** The CSV and the JSON of the same scope (the chosen branches). */
  csvHref: string;
  jsonHref: string;
}

const SUMMARY_SOURCES: Record<DebtorsSnapshot['summarySource'], string> = {
  upstream: 'informado pelo sistema de gestão',
  'upstream-combined': 'soma dos resumos por unidade informados pelo sistema de gestão',
  computed: 'calculado sobre as linhas do relatório',
};

export function renderDashboard(view: DashboardView): string {
  const content = `${pageHeader(view)}
${branchFilter(view)}
${staleBanner(view)}${scopeNotice(view)}
${summaryCards(view.scope)}
${chartsSection(view)}
${listSection(view)}
<footer>Resumo: ${SUMMARY_SOURCES[view.scope.summarySource]} · dias em atraso contados do vencimento até hoje (nos débitos recuperados, até o pagamento) · datas e horas em ${escapeHtml(zoneName(view.timeZone))}.</footer>
<script src="${DASHBOARD_SCRIPT_SRC}"></script>`;
  return page('Devedores — relatório de recebíveis', content);
}
