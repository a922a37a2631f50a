/**
 * The report Lambda: `GET /api/v1/receivables/debtors`, `GET /reports/debtors` (`.csv`,
 * `.html`) and `POST /admin/reports/debtors/refresh`, all served from the stored snapshot by
 * serve.ts. Wiring (AWS or local) is chosen once per container.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { requestFromEvent } from '../../kernel/apigateway-event.ts';
import { inRequestLanguage } from '../../kernel/language.ts';
import { METRICS } from '../../kernel/metrics.ts';
import { count, flushMetrics, logger } from '../../kernel/observability.ts';
import { settled } from '../../kernel/ready.ts';
import { type ReportDeps, type ReportEvents, serveReport } from './serve.ts';

const deps: Promise<Omit<ReportDeps, 'events'>> =
  process.env.LEADS_RUNTIME === 'local'
    ? import('./wiring-local.ts').then((m) => m.localReportDeps())
    : import('./wiring-aws.ts').then((m) => m.awsReportDeps());

/** Settles once the wiring above is loaded (kernel/ready.ts). */
export const ready = settled(deps);

/** Routes, statuses and codes only: no query values (they may hold names), no credentials. */
const reportEvents: ReportEvents = {
  served(event) {
    if (event.status >= 400) logger.info('report request refused', event);
    count(event.status === 304 ? METRICS.reportNotModified : METRICS.reportServed);
  },
  refused(event) {
    logger.info('report request refused', event);
    count(event.code === 'report_not_ready' ? METRICS.reportNotReady : METRICS.reportRefused);
  },
  refreshRequested(event) {
    logger.info('report refresh requested', event);
    count(METRICS.reportRefreshRequested);
  },
  failed({ route, error }) {
    logger.error('report dependency failed', { route, error: String(error) });
    count(METRICS.reportUnavailable);
  },
};

export async function handler(
  event: APIGatewayProxyEvent,
  context?: Context,
): Promise<APIGatewayProxyResult> {
  // Every line of this invocation: Lambda's request id, cold_start, the function's name.
  if (context) logger.addContext(context);
  const resolved = await deps;
  try {
    const request = requestFromEvent(event);
    // Its refusals in the language the request prefers (kernel/language.ts).
    return await inRequestLanguage(request.headers, () =>
      serveReport(event.resource, request, { ...resolved, events: reportEvents }),
    );
  } finally {
    flushMetrics();
  }
}
