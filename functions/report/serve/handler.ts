/**
 * The report Lambda: `GET /api/v1/receivables/debtors`, `GET /reports/debtors` (`.csv`,
 * `.html`), the dashboard's script (`/reports/assets/{file}`) and
 * `POST /admin/reports/debtors/refresh`, all served from the stored snapshot by
 * serve.ts. Wiring (AWS or local) is chosen once per container.
 */
import { proxyHandler } from '../../kernel/proxy-handler.ts';
import { handlerWiring } from '../../kernel/ready.ts';
import { reportEvents } from './events.ts';
import { type ReportDeps, serveReport } from './serve.ts';

const wiring = handlerWiring<Omit<ReportDeps, 'events'>>({
  aws: () => import('./wiring-aws.ts').then((m) => m.awsReportDeps()),
  local: () => import('./wiring-local.ts').then((m) => m.localReportDeps()),
});

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

export const handler = proxyHandler(wiring, ({ event, request, deps }) =>
  serveReport(event.resource, request, { ...deps, events: reportEvents }, event.pathParameters),
);
