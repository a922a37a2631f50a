/**
 * A route's Lambda proxy integration, as the local gateway runs it: a GatewayRoute resolved once
 * (its handler loaded on first use, an authorizer shared by many routes loaded once, Lambda's
 * name, timeout and memory), then each request run the way API Gateway and Lambda would: the
 * proxy event (local/gateway-event.ts), the REQUEST authorizer when the route has one
 * (local/gateway-authorizer.ts), the handler with its Lambda context and timeout, and its result
 * checked. A failure is the gateway's answer (502, 504, the authorizer's refusal), never a
 * rejection. The gateway's own `GET /health` (a mock integration on AWS) is a route here too.
 */

import { inspect } from 'node:util';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Handler } from 'aws-lambda';
import { header } from '../functions/kernel/apigateway-event.ts';
import {
  type AuthorizerHandler,
  type GatewayAuthorizer,
  runAuthorizer,
} from './gateway-authorizer.ts';
import { type GatewayRequest, toProxyEvent } from './gateway-event.ts';
import {
  answerFor,
  checkProxyResult,
  gatewayResponse,
  INTERNAL_ERROR,
} from './gateway-responses.ts';
import type { MatchedRoute } from './gateway-routing.ts';
import { createLambdaContext, invokeHandler, LambdaTimeoutError } from './lambda-context.ts';

export type ProxyHandler = Handler<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** Lambda's default function timeout, for routes that do not set one. */
const DEFAULT_TIMEOUT_SECONDS = 3;

export interface GatewayRoute {
  method: string;
  /** Resource path: `{name}` parameters, `{name+}` greedy. */
  path: string;
  /** The handler itself... */
  handler?: ProxyHandler;
  /** ...or how to load it on first use (an entry module's import). */
  load?: () => Promise<ProxyHandler>;
  /** Lambda function name in the context; default from method and path. */
  functionName?: string;
  /** Default 3 (Lambda's default). */
  timeoutSeconds?: number;
  memoryMb?: number;
  /** A REQUEST Lambda authorizer run before the handler (CUSTOM authorization). */
  authorizer?: GatewayAuthorizer;
}

export interface ResolvedRoute {
  method: string;
  path: string;
  functionName: string;
  timeoutMs: number;
  memoryMb: number;
  getHandler: () => Promise<ProxyHandler>;
  authorizer?: GatewayAuthorizer & { getHandler: () => Promise<AuthorizerHandler> };
}

/** What running a request needs of the gateway. */
export interface IntegrationContext {
  binaryMediaTypes: readonly string[];
  stage: string;
  /** A handler still running after this long gets 504 whatever its own timeout. */
  integrationTimeoutMs: number;
  log: (line: string) => void;
  /** Where the gateway listens (`127.0.0.1:3000`), the API's own domain: set by listen. */
  ownHost?: string;
}

function memoize<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

function resolveRoute(
  route: GatewayRoute,
  authorizers = new Map<GatewayAuthorizer, NonNullable<ResolvedRoute['authorizer']>>(),
): ResolvedRoute {
  const { handler, load } = route;
  const getHandler = handler ? async () => handler : load ? memoize(load) : undefined;
  if (!getHandler) throw new Error(`route ${route.method} ${route.path} has no handler`);
  const name = `${route.method}${route.path}`.replace(/[^A-Za-z0-9-]+/g, '-').replace(/-$/, '');
  const resolved: ResolvedRoute = {
    method: route.method,
    path: route.path,
    functionName: route.functionName ?? name,
    timeoutMs: (route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    memoryMb: route.memoryMb ?? 128,
    getHandler,
  };
  const { authorizer } = route;
  if (authorizer) {
    // One authorizer shared by many routes is loaded once.
    let shared = authorizers.get(authorizer);
    if (!shared) {
      const { handler: own, load: loadOwn } = authorizer;
      const getOwn = own ? async () => own : loadOwn ? memoize(loadOwn) : undefined;
      if (!getOwn)
        throw new Error(`route ${route.method} ${route.path}: authorizer has no handler`);
      shared = { ...authorizer, getHandler: getOwn };
      authorizers.set(authorizer, shared);
    }
    resolved.authorizer = shared;
  }
  return resolved;
}

/** The gateway's own `GET /health`: 200 `{"status":"ok"}` when ready, else 503. */
function healthRoute(health: () => Promise<boolean> | boolean): GatewayRoute {
  const handler: ProxyHandler = async () => {
    const ready = await health();
    return {
      statusCode: ready ? 200 : 503,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: ready ? 'ok' : 'starting' }),
    };
  };
  return { method: 'GET', path: '/health', handler, functionName: 'health' };
}

/**
 * The routes, resolved, followed by the gateway's own `GET /health` (which a route of the same
 * method and path answers instead, being first).
 */
export function resolveRoutes(
  routes: readonly GatewayRoute[],
  health: () => Promise<boolean> | boolean,
): ResolvedRoute[] {
  const authorizers = new Map<GatewayAuthorizer, NonNullable<ResolvedRoute['authorizer']>>();
  return [
    ...routes.map((route) => resolveRoute(route, authorizers)),
    resolveRoute(healthRoute(health)),
  ];
}

export function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Runs the route's handler the way Lambda and API Gateway would; never rejects. */
export async function invokeRoute(
  ctx: IntegrationContext,
  route: ResolvedRoute,
  request: GatewayRequest,
  matched: MatchedRoute,
  requestId: string,
): Promise<APIGatewayProxyResult> {
  const fail = (problem: string, response = INTERNAL_ERROR) => {
    ctx.log(`${route.functionName}: ${problem}`);
    return response;
  };
  const event = toProxyEvent(request, matched, {
    binaryMediaTypes: ctx.binaryMediaTypes,
    stage: ctx.stage,
    requestId,
    ...(ctx.ownHost !== undefined && { domainName: ctx.ownHost }),
  });
  if (route.authorizer) {
    const outcome = await runAuthorizer(route.authorizer, event);
    if (!outcome.allowed) {
      if (outcome.problem) ctx.log(`${route.functionName}: ${outcome.problem}`);
      return answerFor(outcome.answer, header(event, 'accept'));
    }
    event.requestContext.authorizer = outcome.context;
  }
  let handler: ProxyHandler;
  try {
    handler = await route.getHandler();
  } catch (error) {
    return fail(`cannot load the handler: ${describeError(error)}`);
  }
  const context = createLambdaContext({
    functionName: route.functionName,
    timeoutMs: route.timeoutMs,
    memoryMb: route.memoryMb,
  });
  try {
    const timeoutMs = Math.min(route.timeoutMs, ctx.integrationTimeoutMs);
    const raw = await invokeHandler(handler, event, context, timeoutMs);
    return (
      checkProxyResult(raw) ??
      fail(`malformed Lambda proxy response: ${inspect(raw).slice(0, 500)}`)
    );
  } catch (error) {
    if (error instanceof LambdaTimeoutError) {
      return fail(error.message, gatewayResponse(504, { message: 'Endpoint request timed out' }));
    }
    return fail(describeError(error));
  }
}
