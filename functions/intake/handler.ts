/**
 * The intake Lambda: `POST|GET|OPTIONS /leads/{profile}` and `POST /api/v1/prospects`.
 * Turns the proxy event into an IntakeRequest, runs the use case, answers. Wiring (AWS or local)
 * is chosen once per container.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { requestFromEvent } from '../kernel/apigateway-event.ts';
import { inRequestLanguage } from '../kernel/language.ts';
import { flushMetrics, logger } from '../kernel/observability.ts';
import { handlerWiring } from '../kernel/ready.ts';
import { intakeEventsFor } from './events.ts';
import { handleIntake, handleProspectApi, type IntakeDeps } from './intake.ts';

const wiring = handlerWiring<IntakeDeps>({
  aws: () => import('./wiring-aws.ts').then((m) => m.awsIntakeDeps()),
  local: () => import('./wiring-local.ts').then((m) => m.localIntakeDeps()),
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
  // The gateway's request id beside each lead id, to follow a request from the access log.
  const events = intakeEventsFor({ apiRequestId: event.requestContext?.requestId });
  // The Prospect API's wait for delivery ends before the function's timeout does.
  const invocation = context && { remainingMs: () => context.getRemainingTimeInMillis() };
  const deps = { ...resolved, events };
  try {
    const request = requestFromEvent(event);
    // Its refusals in the language the request prefers (kernel/language.ts).
    return await inRequestLanguage(request.headers, () =>
      event.resource === '/api/v1/prospects'
        ? handleProspectApi(upstreamOf(event), request, deps, invocation)
        : handleIntake(event.pathParameters?.profile ?? '', request, deps, invocation),
    );
  } finally {
    flushMetrics();
  }
}

/** `?upstream=`: which account's Prospect API profile takes the request (intake.ts). */
function upstreamOf(event: APIGatewayProxyEvent): string | undefined {
  const query = event.queryStringParameters ?? {};
  const key = Object.keys(query).find((name) => name.toLowerCase() === 'upstream');
  return (key && query[key]?.trim()) || undefined;
}
