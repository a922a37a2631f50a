/**
 * The admin Lambda: the operator console and its routes, the lead listings, corrections,
 * retries and replays, previews, test leads and set-up kits (admin.ts). Turns the proxy event
 * into an admin request, runs the use case, answers. Wiring (AWS or local) is chosen once per
 * container.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { requestFromEvent } from '../kernel/apigateway-event.ts';
import { inRequestLanguage } from '../kernel/language.ts';
import { METRICS } from '../kernel/metrics.ts';
import { count, flushMetrics, logger } from '../kernel/observability.ts';
import { settled } from '../kernel/ready.ts';
import { type AdminDeps, type AdminEvents, handleAdmin } from './admin.ts';

const deps: Promise<Omit<AdminDeps, 'events'>> =
  process.env.LEADS_RUNTIME === 'local'
    ? import('./wiring-local.ts').then((m) => m.localAdminDeps())
    : import('./wiring-aws.ts').then((m) => m.awsAdminDeps());

/** Settles once the wiring above is loaded (kernel/ready.ts). */
export const ready = settled(deps);

/** Lead ids, statuses, counts and the operator's username: no lead content. */
const adminEvents: AdminEvents = {
  refused(event) {
    logger.info('admin request refused', event);
    count(METRICS.adminRefused);
  },
  retried(event) {
    logger.info('lead retried by an operator', event);
    count(METRICS.leadRetried);
  },
  replayed(event) {
    logger.info('dead leads replayed', event);
    count(METRICS.leadReplayed, event.requeued);
  },
  backfilled(event) {
    logger.info('platform leads backfilled', event);
    count(METRICS.leadBackfilled, event.new);
    if (event.erased > 0) count(METRICS.erasedLeadDropped, event.erased);
  },
  erased(event) {
    // Counts and the operator only: never the e-mail, phone or CPF that was asked for.
    logger.info('personal data erased on request', event);
    count(METRICS.leadErased, event.found);
  },
  failed({ route, error }) {
    logger.error('admin dependency failed', { route, error: String(error) });
    count(METRICS.adminUnavailable);
  },
  corrected(event) {
    logger.info('lead corrected by an operator', event);
    count(METRICS.leadCorrected);
  },
  testLeadSent(event) {
    logger.info('test lead sent by an operator', event);
    count(METRICS.testLeadSent);
  },
};

/**
 * The API's base URL as the caller reached it: the request context's path is the event's path
 * behind the stage (`/prod/admin/setup` for `/admin/setup`). The domain is API Gateway's own
 * (not a Host header a caller could choose), so a test lead's secrets go nowhere else.
 */
export function baseUrlOf(event: APIGatewayProxyEvent, local: boolean): string {
  // Locally the gateway serves at its root (its events name a stage it does not route by).
  const full = local ? event.path : (event.requestContext.path ?? event.path);
  const prefix = full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
  return `${local ? 'http' : 'https'}://${event.requestContext.domainName}${prefix}`;
}

export async function handler(
  event: APIGatewayProxyEvent,
  context?: Context,
): Promise<APIGatewayProxyResult> {
  // Every line of this invocation: Lambda's request id, cold_start, the function's name.
  if (context) logger.addContext(context);
  const resolved = await deps;
  const request = {
    resource: event.resource,
    pathParameters: event.pathParameters,
    request: requestFromEvent(event),
    baseUrl: baseUrlOf(event, process.env.LEADS_RUNTIME === 'local'),
  };
  const invocation = context && { remainingMs: () => context.getRemainingTimeInMillis() };
  try {
    // Its refusals in the language the request prefers (kernel/language.ts).
    return await inRequestLanguage(request.request.headers, () =>
      handleAdmin(request, { ...resolved, events: adminEvents }, invocation),
    );
  } finally {
    flushMetrics();
  }
}
