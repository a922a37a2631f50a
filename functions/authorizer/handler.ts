/**
 * The Basic-auth REQUEST authorizer Lambda (functions/kernel/routes.ts, BASIC_AUTH): reads the API clients
 * (Secrets Manager on AWS, the configuration file locally) and lets basic-auth.ts decide.
 * Refused credentials throw `Unauthorized`, API Gateway's way to answer 401 (its UNAUTHORIZED
 * gateway response, with the Basic challenge); any other failure (the clients cannot be read)
 * throws as itself, which API Gateway answers with 500. Never logs credentials.
 */
import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import type { ConfigSource } from '../config/config-source.ts';
import { logger } from '../kernel/observability.ts';
import { authorizeBasic } from './authorizer-event.ts';

const config: Promise<Pick<ConfigSource, 'clients'>> =
  process.env.LEADS_RUNTIME === 'local'
    ? import('../config/config-local.ts').then((m) => m.localConfigSource())
    : import('../config/secrets-aws.ts').then((m) => m.createAwsClientsSource());

export async function handler(
  event: APIGatewayRequestAuthorizerEvent,
  context?: Context,
): Promise<APIGatewayAuthorizerResult> {
  // Every line of this invocation: Lambda's request id, cold_start, the function's name.
  if (context) logger.addContext(context);
  let clients: Awaited<ReturnType<ConfigSource['clients']>>;
  try {
    clients = await (await config).clients();
  } catch (error) {
    logger.error('authorizer cannot read the API clients', { error: String(error) });
    throw error;
  }
  const decision = await authorizeBasic(event, clients);
  if (!decision.allow) {
    logger.info('basic credentials refused', {
      reason: decision.reason,
      method: event.httpMethod,
      resource: event.resource,
      apiRequestId: event.requestContext?.requestId,
    });
    throw new Error('Unauthorized');
  }
  return decision.result;
}
