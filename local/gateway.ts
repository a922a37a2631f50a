/**
 * The local API Gateway: an HTTP server on 127.0.0.1 that turns each request into the REST API
 * (v1) Lambda proxy event AWS would send, calls the same handler module that is deployed, and
 * writes its APIGatewayProxyResult back the way API Gateway does, gateway errors included
 * (unknown route, 413 body too large, 502 handler failure, 504 timeout).
 *
 * An unknown route (a path no resource matches, or a method its resource lacks): API Gateway
 * answers its MISSING_AUTHENTICATION_TOKEN gateway response, by default 403
 * `{"message":"Missing Authentication Token"}` with `x-amzn-ErrorType:
 * MissingAuthenticationTokenException`. The deployed stack overrides that gateway response
 * (infra/constructs/leads-api.ts) with UNKNOWN_ROUTE (functions/kernel/routes.ts): 404 in the
 * contract's error shape, `{"error": {"code": "NOT_FOUND", "message": "rota inexistente",
 * "details": []}}`; the local runtime passes the same answer as `unknownRoute`, so `npm start`
 * answers exactly what the deployed API does. Without it, the gateway answers API Gateway's default.
 *
 * Routes come from functions/kernel/routes.ts, the table the CDK stack deploys; handler modules are
 * imported on first use so that start-up stays fast. A route marked `auth: 'basic'` runs the
 * Basic-auth REQUEST authorizer first, as API Gateway does (local/gateway-authorizer.ts): its
 * 401 is the gateway's own answer and carries a real WWW-Authenticate header, while a
 * function's WWW-Authenticate is remapped as API Gateway remaps it.
 *
 * This file assembles the gateway (createGateway) and the deployed route table (routesFromTable),
 * each of its parts in its own file (import a part's names from it):
 * - gateway-event.ts: request → proxy event (gateway-maps.ts: its header and query maps);
 * - gateway-routing.ts: a method and path → the most specific route, with its path parameters;
 * - gateway-integration.ts: a route resolved, and one request run through authorizer and handler;
 * - gateway-authorizer.ts: the REQUEST Lambda authorizer's run;
 * - gateway-responses.ts: result → response headers, and the gateway's own answers;
 * - gateway-server.ts: the HTTP server's request listener, listen and close.
 */
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UNAUTHORIZED_TEMPLATES } from '../functions/kernel/refusal-page.ts';
import {
  BASIC_AUTH,
  FUNCTIONS,
  type FunctionSpec,
  ROUTES,
  type RouteSpec,
} from '../functions/kernel/routes.ts';
import type { AuthorizerHandler, GatewayAnswer, GatewayAuthorizer } from './gateway-authorizer.ts';
import { type GatewayRoute, type ProxyHandler, resolveRoutes } from './gateway-integration.ts';
import { DEFAULT_UNKNOWN_ROUTE } from './gateway-responses.ts';
import { createRouteTable } from './gateway-routing.ts';
import { close, type GatewayContext, listen, serveRequest } from './gateway-server.ts';

/** API Gateway's payload limit: 10 MB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** REST API's default integration timeout. */
export const INTEGRATION_TIMEOUT_MS = 29_000;

export interface GatewayOptions {
  routes: readonly GatewayRoute[];
  binaryMediaTypes: readonly string[];
  /** `GET /health`: 200 `{"status":"ok"}` when true, else 503 `{"status":"starting"}`. */
  health?: () => Promise<boolean> | boolean;
  /** Default `local`. */
  stage?: string;
  /** Default 10 MB. */
  maxBodyBytes?: number;
  /** Default 29 s: a handler still running then gets 504 whatever its own timeout. */
  integrationTimeoutMs?: number;
  /** One line per request and per handler failure; default silent. */
  log?: (line: string) => void;
  /**
   * The MISSING_AUTHENTICATION_TOKEN gateway response (an unknown path or method); default API
   * Gateway's own 403 `{"message":"Missing Authentication Token"}`.
   */
  unknownRoute?: GatewayAnswer;
}

export interface Gateway {
  server: Server;
  /** Listens (default host 127.0.0.1) and resolves the base URL with the actual port. */
  listen(port: number, host?: string): Promise<string>;
  /** Stops accepting, lets requests in flight finish (up to `graceMs`, default 5 s), closes. */
  close(graceMs?: number): Promise<void>;
}

export function createGateway(options: GatewayOptions): Gateway {
  const ctx: GatewayContext = {
    table: createRouteTable(resolveRoutes(options.routes, options.health ?? (() => true))),
    binaryMediaTypes: options.binaryMediaTypes,
    stage: options.stage ?? 'local',
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
    integrationTimeoutMs: options.integrationTimeoutMs ?? INTEGRATION_TIMEOUT_MS,
    log: options.log ?? (() => {}),
    unknownRoute: options.unknownRoute ?? DEFAULT_UNKNOWN_ROUTE,
  };
  const server = createServer((req, res) => serveRequest(ctx, req, res));
  return {
    server,
    listen: (port, host = '127.0.0.1') => listen(ctx, server, port, host),
    close: (graceMs = 5_000) => close(server, graceMs),
  };
}

/** Imports an entry module's `handler` (relative to `root`). */
function handlerLoader<T>(root: string, entry: string): () => Promise<T> {
  const url = pathToFileURL(resolve(root, entry)).href;
  return async () => {
    const module = (await import(url)) as { handler?: unknown };
    if (typeof module.handler !== 'function') {
      throw new Error(`${entry} does not export a handler function`);
    }
    return module.handler as T;
  };
}

/**
 * Gateway routes for functions/kernel/routes.ts: each route with a function gets a loader that imports
 * the function's entry module (relative to `root`) on first use, and a route marked
 * `auth: 'basic'` the Basic-auth authorizer of BASIC_AUTH (one for all of them). Routes without
 * a function are the gateway's own (only `GET /health` today) and are left to createGateway.
 */
export function routesFromTable(
  root: string,
  routes: readonly RouteSpec[] = ROUTES,
  functions: Readonly<Record<string, FunctionSpec>> = FUNCTIONS,
): GatewayRoute[] {
  let basic: GatewayAuthorizer | undefined;
  const basicAuthorizer = (): GatewayAuthorizer => {
    if (basic) return basic;
    const spec = functions[BASIC_AUTH.authorizer];
    if (!spec) throw new Error(`unknown authorizer function ${BASIC_AUTH.authorizer}`);
    const { statusCode, headers, body } = BASIC_AUTH.unauthorized;
    basic = {
      load: handlerLoader<AuthorizerHandler>(root, spec.entry),
      identityHeader: BASIC_AUTH.identityHeader,
      unauthorized: {
        statusCode,
        headers: { ...headers },
        body,
        templates: UNAUTHORIZED_TEMPLATES,
      },
      functionName: BASIC_AUTH.authorizer,
      timeoutSeconds: spec.timeoutSeconds,
      memoryMb: spec.memoryMb,
    };
    return basic;
  };
  return routes.flatMap((route) => {
    if (!route.fn) return [];
    const spec = functions[route.fn];
    if (!spec) throw new Error(`route ${route.method} ${route.path}: unknown function ${route.fn}`);
    return [
      {
        method: route.method,
        path: route.path,
        load: handlerLoader<ProxyHandler>(root, spec.entry),
        functionName: route.fn,
        timeoutSeconds: spec.timeoutSeconds,
        memoryMb: spec.memoryMb,
        ...(route.auth === 'basic' && { authorizer: basicAuthorizer() }),
      },
    ];
  });
}
