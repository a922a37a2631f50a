/**
 * The admin Lambda: the operator console and its routes, the lead listings, corrections,
 * retries and replays, previews, test leads and set-up kits (admin.ts). Turns the proxy event
 * into an admin request, runs the use case, answers. Wiring (AWS or local) is chosen once per
 * container.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ENV } from '../kernel/env.ts';
import { proxyHandler } from '../kernel/proxy-handler.ts';
import { currentRuntime, handlerWiring } from '../kernel/ready.ts';
import { type AdminDeps, handleAdmin } from './admin.ts';
import { adminEvents } from './events.ts';

const wiring = handlerWiring<Omit<AdminDeps, 'events'>>({
  aws: () => import('./wiring-aws.ts').then((m) => m.awsAdminDeps()),
  local: () => import('./wiring-local.ts').then((m) => m.localAdminDeps()),
});

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

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

export const handler = proxyHandler(wiring, ({ event, request, deps, invocation }) =>
  handleAdmin(
    {
      resource: event.resource,
      pathParameters: event.pathParameters,
      request,
      baseUrl: baseUrlOf(event, currentRuntime() === 'local'),
      // The custom domain's, set by the stack when the deploy config names one.
      publicUrl: process.env[ENV.publicUrl],
    },
    { ...deps, events: adminEvents },
    invocation,
  ),
);
