/**
 * The intake Lambda: `POST|GET|OPTIONS /leads/{profile}` and `POST /api/v1/prospects`.
 * Turns the proxy event into an IntakeRequest, runs the use case, answers. Wiring (AWS or local)
 * is chosen once per container.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { proxyHandler } from '../kernel/proxy-handler.ts';
import { handlerWiring } from '../kernel/ready.ts';
import { intakeEventsFor } from './events.ts';
import { handleIntake, handleProspectApi } from './intake.ts';
import type { IntakeDeps } from './intake-deps.ts';

const wiring = handlerWiring<IntakeDeps>({
  aws: () => import('./wiring-aws.ts').then((m) => m.awsIntakeDeps()),
  local: () => import('./wiring-local.ts').then((m) => m.localIntakeDeps()),
});

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

export const handler = proxyHandler(wiring, ({ event, request, deps, invocation }) => {
  // The gateway's request id beside each lead id, to follow a request from the access log.
  const events = intakeEventsFor({ apiRequestId: event.requestContext?.requestId });
  // The Prospect API's wait for delivery ends before the function's timeout does.
  return event.resource === '/api/v1/prospects'
    ? handleProspectApi(upstreamOf(event), request, { ...deps, events }, invocation)
    : handleIntake(event.pathParameters?.profile ?? '', request, { ...deps, events }, invocation);
});

/** `?upstream=`: which account's Prospect API profile takes the request (intake.ts). */
function upstreamOf(event: APIGatewayProxyEvent): string | undefined {
  const query = event.queryStringParameters ?? {};
  const key = Object.keys(query).find((name) => name.toLowerCase() === 'upstream');
  return (key && query[key]?.trim()) || undefined;
}
