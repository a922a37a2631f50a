/**
 * The pages a reader gets instead of the dashboard (functions/report/serve/dashboard.ts), in
 * Portuguese: no report yet, or the report cannot be read right now (503, reloading itself),
 * and an address whose parameters the page does not understand (400). None of them shows the
 * underlying error.
 */
import type { IssueDetail } from '../../domain/json.ts';
import { escapeHtml } from '../../kernel/html.ts';
import type { RefreshStatus } from '../store/report-store.ts';
import { page } from './dashboard-page.ts';

/** Why there is no dashboard to show: no report yet, or the report cannot be read right now. */
export type UnavailableReason = 'report_not_ready' | 'report_unavailable';

/**
 * The page a reader gets instead of the dashboard (503), in Portuguese: what it means for them,
 * that it reloads itself every `retrySeconds`, and nothing of the underlying error.
 */
export function renderUnavailable(
  reason: UnavailableReason,
  status: Pick<RefreshStatus, 'failures'> | undefined,
  retrySeconds: number,
): string {
  const failing = (status?.failures ?? 0) > 0;
  const [title, text] =
    reason === 'report_not_ready'
      ? [
          'O relatório de devedores ainda está sendo preparado',
          failing
            ? 'A primeira atualização ainda não deu certo: o sistema de gestão não respondeu como esperado. Tentaremos de novo automaticamente; se continuar assim por mais de uma hora, avise a equipe técnica.'
            : 'A primeira leitura dos devedores no sistema de gestão leva alguns minutos, conforme o número de filiais e de débitos.',
        ]
      : [
          'O relatório de devedores não pôde ser aberto agora',
          'Foi uma falha momentânea do nosso lado; os dados estão guardados. Tente de novo em instantes.',
        ];
  const content = `<header class="top"><div><h1>Devedores</h1></div></header>
<section class="card" id="unavailable" data-reason="${reason}" role="status">
  <h2>${escapeHtml(title)}</h2>
  <p>${escapeHtml(text)}</p>
  <p class="notice">Esta página se atualiza sozinha a cada ${retrySeconds} segundos.</p>
</section>`;
  return page(
    `Devedores — ${title}`,
    content,
    `<meta http-equiv="refresh" content="${retrySeconds}">\n`,
  );
}

/** The 400 page: which parameter of the address was not understood, and a way back. */
export function renderQueryProblems(problems: readonly IssueDetail[]): string {
  const items = problems
    .map((p) => `<li><code>${escapeHtml(p.field)}</code>: ${escapeHtml(p.message)}</li>`)
    .join('\n');
  const content = `<header class="top"><div><h1>Devedores</h1></div></header>
<section class="card" id="invalid-query" role="alert">
  <h2>Não entendemos o endereço desta página</h2>
  <ul>
${items}
  </ul>
  <p><a class="button" href="?">Abrir o relatório sem filtros</a></p>
</section>`;
  return page('Devedores — endereço inválido', content);
}
