/**
 * The skeleton every API Gateway proxy handler shares: the invocation's log context, the wiring
 * (ready.ts), the event read as a request (apigateway-event.ts), refusals in the language the
 * request prefers (language.ts), the metrics flushed whatever happens. A handler names its
 * wiring and the use case it runs; the rest is here, once.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { requestFromEvent } from './apigateway-event.ts';
import type { HttpRequest } from './http.ts';
import { inRequestLanguage } from './language.ts';
import { flushMetrics, logger } from './observability.ts';
import type { Wiring } from './ready.ts';

/** What a handler's use case is run with. */
export interface ProxyCall<Deps> {
  event: APIGatewayProxyEvent;
  request: HttpRequest;
  deps: Deps;
  /** The time left before the function's timeout (absent outside Lambda's context). */
  invocation?: { remainingMs(): number };
}

export type ProxyHandler = (
  event: APIGatewayProxyEvent,
  context?: Context,
) => Promise<APIGatewayProxyResult>;

/** A proxy handler that runs `use` with the wiring's deps for each event. */
export function proxyHandler<Deps>(
  wiring: Wiring<Deps>,
  use: (call: ProxyCall<Deps>) => Promise<APIGatewayProxyResult>,
): ProxyHandler {
  return async (event, context) => {
    // Every line of this invocation: Lambda's request id, cold_start, the function's name.
    if (context) logger.addContext(context);
    const deps = await wiring.get();
    try {
      const request = requestFromEvent(event);
      const invocation = context && { remainingMs: () => context.getRemainingTimeInMillis() };
      return await inRequestLanguage(request.headers, () =>
        use({ event, request, deps, invocation }),
      );
    } finally {
      flushMetrics();
    }
  };
}
