/**
 * The Basic-auth REQUEST authorizer Lambda (functions/kernel/routes.ts, BASIC_AUTH): reads the API clients
 * (Secrets Manager on AWS, the configuration file locally) and lets authorizer-event.ts decide,
 * with the failed-sign-in counters and familiar addresses of the ledger table
 * (kernel/auth-throttle.ts).
 * Refused credentials throw `Unauthorized`, API Gateway's way to answer 401 (its UNAUTHORIZED
 * gateway response, with the Basic challenge); any other failure (the clients cannot be read)
 * throws as itself, which API Gateway answers with 500. A locked sign-in is allowed with
 * `throttled` in the context, and the function answers 429. Its log lines and metrics are
 * events.ts's.
 */
import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import type { ConfigSource } from '../config/config-source.ts';
import type { AuthThrottle } from '../kernel/auth-throttle.ts';
import { flushMetrics, logger } from '../kernel/observability.ts';
import { handlerWiring } from '../kernel/ready.ts';
import { authorizeBasic } from './authorizer-event.ts';
import { type AuthorizerWhere, authorizerEvents } from './events.ts';

export interface AuthorizerDeps {
  config: Pick<ConfigSource, 'clients'>;
  throttle: AuthThrottle;
}

const wiring = handlerWiring<AuthorizerDeps>({
  aws: () => import('./wiring-aws.ts').then((m) => m.awsAuthorizerDeps()),
  local: () => import('./wiring-local.ts').then((m) => m.localAuthorizerDeps()),
});

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

export async function handler(
  event: APIGatewayRequestAuthorizerEvent,
  context?: Context,
): Promise<APIGatewayAuthorizerResult> {
  // Every line of this invocation: Lambda's request id, cold_start, the function's name.
  if (context) logger.addContext(context);
  const { config, throttle } = await wiring.get();
  let clients: Awaited<ReturnType<ConfigSource['clients']>>;
  try {
    clients = await config.clients();
  } catch (error) {
    authorizerEvents.clientsUnreadable(error);
    throw error;
  }
  const where: AuthorizerWhere = {
    method: event.httpMethod,
    resource: event.resource,
    apiRequestId: event.requestContext?.requestId,
  };
  try {
    const decision = await authorizeBasic(event, clients, {
      throttle,
      onThrottleError: (error) => authorizerEvents.throttleUnavailable(error),
    });
    if (!decision.allow) {
      authorizerEvents.refused(decision.reason, where);
      throw new Error('Unauthorized');
    }
    if ('throttled' in decision) {
      const { retryAfterSeconds, lockedBy } = decision;
      authorizerEvents.throttled({ retryAfterSeconds, lockedBy }, where);
    }
    return decision.result;
  } finally {
    flushMetrics();
  }
}
