/**
 * The report Lambda: `GET /api/v1/receivables/debtors`, `GET /reports/debtors` (`.csv`,
 * `.html`), the dashboard's script (`/reports/assets/{file}`) and
 * `POST /admin/reports/debtors/refresh`, all served from the stored snapshot by
 * serve.ts. Wiring (AWS or local) is chosen once per container.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { requestFromEvent } from '../../kernel/apigateway-event.ts';
import { inRequestLanguage } from '../../kernel/language.ts';
import { flushMetrics, logger } from '../../kernel/observability.ts';
import { handlerWiring } from '../../kernel/ready.ts';
import { reportEvents } from './events.ts';
import { type ReportDeps, serveReport } from './serve.ts';

const wiring = handlerWiring<Omit<ReportDeps, 'events'>>({
  aws: () => import('./wiring-aws.ts').then((m) => m.awsReportDeps()),
  local: () => import('./wiring-local.ts').then((m) => m.localReportDeps()),
});

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

export async function handler(
  event: APIGatewayProxyEvent,
  context?: Context,
): Promise<APIGatewayProxyResult> {
  // Every line of this invocation: Lambda's request id, cold_start, the function's name.
  if (context) logger.addContext(context);
  const resolved = await wiring.get();
  try {
    const request = requestFromEvent(event);
    // Its refusals in the language the request prefers (kernel/language.ts).
    return await inRequestLanguage(request.headers, () =>
      serveReport(
        event.resource,
        request,
        { ...resolved, events: reportEvents },
        event.pathParameters,
      ),
    );
  } finally {
    flushMetrics();
  }
}
