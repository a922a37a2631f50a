/**
 * The local gateway's HTTP side: each request read (its body up to the payload limit, else 413),
 * matched against the route table (no route: the MISSING_AUTHENTICATION_TOKEN answer), run
 * through the route's integration (local/gateway-integration.ts) and written back with API
 * Gateway's response headers, one log line per request (the path only: query strings carry
 * tokens). Listening records the API's own address for the proxy events; closing lets the
 * requests in flight finish within a grace period.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { GatewayAnswer } from './gateway-authorizer.ts';
import type { GatewayRequest } from './gateway-event.ts';
import {
  describeError,
  type IntegrationContext,
  invokeRoute,
  type ResolvedRoute,
} from './gateway-integration.ts';
import { gatewayResponse, INTERNAL_ERROR, responseHeaders } from './gateway-responses.ts';
import { pathOf, type RouteTable } from './gateway-routing.ts';

/** Everything a request needs of the gateway; `ownHost` is set once it listens. */
export interface GatewayContext extends IntegrationContext {
  table: RouteTable<ResolvedRoute>;
  maxBodyBytes: number;
  /** The MISSING_AUTHENTICATION_TOKEN gateway response. */
  unknownRoute: GatewayAnswer;
}

/** The request body, or undefined when it is over `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Over the limit: keep draining so that the client can read the 413, but stop storing.
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolveBody(size <= limit ? Buffer.concat(chunks) : undefined));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('the client closed the connection'));
    });
  });
}

function requestOf(req: IncomingMessage, body: Buffer): GatewayRequest {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    rawHeaders: req.rawHeaders,
    body,
    remoteAddress: req.socket.remoteAddress ?? '127.0.0.1',
    httpVersion: req.httpVersion,
  };
}

async function respond(
  ctx: GatewayContext,
  req: IncomingMessage,
  requestId: string,
): Promise<APIGatewayProxyResult> {
  const body = await readBody(req, ctx.maxBodyBytes);
  if (!body) return gatewayResponse(413, { message: 'Request Too Long' });
  const found = ctx.table.match(req.method ?? 'GET', pathOf(req.url ?? '/'));
  if (!found) {
    const { statusCode, body: answer, headers } = ctx.unknownRoute;
    return gatewayResponse(statusCode, answer, 'MissingAuthenticationTokenException', headers);
  }
  return invokeRoute(ctx, found.route, requestOf(req, body), found.matched, requestId);
}

/** Writes the result and returns the status written. */
function write(
  ctx: GatewayContext,
  res: ServerResponse,
  result: APIGatewayProxyResult,
  requestId: string,
): number {
  const payload = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  try {
    res.writeHead(result.statusCode, {
      ...responseHeaders(result, requestId),
      'Content-Length': String(payload.length),
    });
  } catch (error) {
    // Node refuses header names or values that API Gateway would refuse as well.
    ctx.log(`invalid response headers: ${describeError(error)}`);
    return write(ctx, res, INTERNAL_ERROR, requestId);
  }
  res.end(payload);
  return result.statusCode;
}

/** The server's request listener: one request answered and logged. */
export function serveRequest(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse): void {
  const started = Date.now();
  const requestId = randomUUID();
  // The path only: query strings carry tokens (`?token=`, Meta's `hub.verify_token`).
  const logged = `${req.method} ${pathOf(req.url ?? '/')}`;
  respond(ctx, req, requestId).then(
    (result) => {
      const status = write(ctx, res, result, requestId);
      ctx.log(`${logged} ${status} ${Date.now() - started}ms`);
    },
    (error: unknown) => {
      // Only reading the request can fail here: the client went away.
      ctx.log(`${logged} aborted: ${describeError(error)}`);
      res.destroy();
    },
  );
}

/** Listens on `host:port`, records the address as the API's own and resolves the base URL. */
export function listen(
  ctx: GatewayContext,
  server: Server,
  port: number,
  host: string,
): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      ctx.ownHost = `${shownHost}:${address.port}`;
      resolveUrl(`http://${ctx.ownHost}`);
    });
  });
}

/** Stops accepting, lets requests in flight finish (up to `graceMs`), then closes. */
export function close(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolveClose, reject) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close((error) => {
      clearTimeout(force);
      if (error) reject(error);
      else resolveClose();
    });
    server.closeIdleConnections();
  });
}
