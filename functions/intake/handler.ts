/**
 * The intake Lambda: `POST|GET|OPTIONS /leads/{profile}` and `POST /api/v1/prospects`.
 * Turns the proxy event into an IntakeRequest, runs the use case, answers. Wiring (AWS or local)
 * is chosen once per container.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { requestFromEvent } from '../kernel/apigateway-event.ts';
import { flushMetrics } from '../kernel/observability.ts';
import { handleIntake, type IntakeDeps } from './intake.ts';

const deps: Promise<IntakeDeps> =
  process.env.LEADS_RUNTIME === 'local'
    ? import('./wiring-local.ts').then((m) => m.localIntakeDeps())
    : import('./wiring-aws.ts').then((m) => m.awsIntakeDeps());

export async function handler(
  event: APIGatewayProxyEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<APIGatewayProxyResult> {
  const resolved = await deps;
  // The Prospect API's wait for delivery ends before the function's timeout does.
  const invocation = context && { remainingMs: () => context.getRemainingTimeInMillis() };
  const profile =
    event.resource === '/api/v1/prospects'
      ? await resolved.config.profileNameFor('prospect')
      : (event.pathParameters?.profile ?? '');
  try {
    return await handleIntake(profile ?? '', requestFromEvent(event), resolved, invocation);
  } finally {
    flushMetrics();
  }
}
