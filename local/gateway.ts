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
 * contract's error shape, `{"error": {"code": "NOT_FOUND", "message": "No such route",
 * "details": []}}`; the local runtime passes the same answer as `unknownRoute`, so `npm start`
 * answers exactly what the deployed API does. Without it, the gateway answers API Gateway's default.
 *
 * Routes come from functions/kernel/routes.ts, the table the CDK stack deploys; handler modules are
 * imported on first use so that start-up stays fast. A route marked `auth: 'basic'` runs the
 * Basic-auth REQUEST authorizer first, as API Gateway does (local/gateway-authorizer.ts): its
 * 401 is the gateway's own answer and carries a real WWW-Authenticate header, while a
 * function's WWW-Authenticate is remapped as API Gateway remaps it.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Handler } from 'aws-lambda';
import { header } from '../functions/kernel/apigateway-event.ts';
import {
  BASIC_AUTH,
  FUNCTIONS,
  type FunctionSpec,
  ROUTES,
  type RouteSpec,
  UNKNOWN_ROUTE,
} from '../functions/kernel/routes.ts';
import {
  type AuthorizerHandler,
  type GatewayAnswer,
  type GatewayAuthorizer,
  runAuthorizer,
} from './gateway-authorizer.ts';
import {
  createLambdaContext,
  invokeHandler,
  LambdaTimeoutError,
  LOCAL_ACCOUNT_ID,
} from './lambda-context.ts';

export type ProxyHandler = Handler<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** API Gateway's payload limit: 10 MB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** REST API's default integration timeout. */
export const INTEGRATION_TIMEOUT_MS = 29_000;
/** Lambda's default function timeout, for routes that do not set one. */
const DEFAULT_TIMEOUT_SECONDS = 3;
export const LOCAL_API_ID = 'local';

// ---------------------------------------------------------------------------------------------
// Request → event

export interface GatewayRequest {
  method: string;
  /** Path and query as sent (`/leads/site?token=x`). */
  url: string;
  /** Node's `rawHeaders`: name, value, name, value... in the sender's casing and order. */
  rawHeaders: readonly string[];
  body: Buffer;
  remoteAddress: string;
  /** Default 1.1. */
  httpVersion?: string;
}

export interface MatchedRoute {
  /** The resource path that matched (`/leads/{profile}`). */
  resource: string;
  pathParameters: Record<string, string> | null;
}

export interface ProxyEventOptions {
  binaryMediaTypes: readonly string[];
  stage: string;
  /**
   * The API's own address, `host:port` (API Gateway's `requestContext.domainName` is the API's
   * domain, never a Host header a caller chose): where the admin sends a test lead. Default: the
   * request's Host header.
   */
  domainName?: string;
  requestId?: string;
  now?: Date;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `21/Nov/2026:18:52:00 +0000`, the format of requestContext.requestTime. */
export function formatRequestTime(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const month = MONTHS[date.getUTCMonth()] ?? '';
  return (
    `${two(date.getUTCDate())}/${month}/${date.getUTCFullYear()}:` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`
  );
}

/**
 * Whether a Content-Type is one of the binary media types: exact `type/subtype`, `type/*` or
 * `*\/*`, case-insensitive, parameters ignored. A request without Content-Type counts as
 * `application/json`, as API Gateway assumes.
 */
export function isBinaryMediaType(
  contentType: string | undefined,
  binaryMediaTypes: readonly string[],
): boolean {
  const mediaType = (contentType?.split(';')[0]?.trim() || 'application/json').toLowerCase();
  const [type] = mediaType.split('/');
  return binaryMediaTypes.some((pattern) => {
    const wanted = pattern.split(';')[0]?.trim().toLowerCase();
    return wanted === '*/*' || wanted === mediaType || wanted === `${type}/*`;
  });
}

type HeaderMaps = Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>;

/** API Gateway's pair of maps: `single` keeps the last value of a key, `multi` all, in order. */
function addValue(
  single: Record<string, string>,
  multi: Record<string, string[]>,
  key: string,
  value: string,
): void {
  single[key] = value;
  const values = multi[key];
  if (values) values.push(value);
  else multi[key] = [value];
}

/** Headers grouped case-insensitively under the sender's first casing; the last value wins. */
function collectHeaders(rawHeaders: readonly string[]): HeaderMaps {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const names = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const raw = rawHeaders[i] as string;
    const value = rawHeaders[i + 1] as string;
    const name = names.get(raw.toLowerCase()) ?? raw;
    names.set(raw.toLowerCase(), name);
    addValue(headers, multiValueHeaders, name, value);
  }
  return { headers, multiValueHeaders };
}

function findHeader(maps: HeaderMaps, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.keys(maps.headers).find((key) => key.toLowerCase() === wanted);
}

/** Replaces a header (whatever its casing) with one value, as API Gateway does for X-Forwarded-*. */
function setHeader(maps: HeaderMaps, name: string, value: string): void {
  const existing = findHeader(maps, name);
  if (existing) {
    delete maps.headers[existing];
    delete maps.multiValueHeaders[existing];
  }
  maps.headers[name] = value;
  maps.multiValueHeaders[name] = [value];
}

function traceId(epochMs: number): string {
  const seconds = Math.floor(epochMs / 1000).toString(16);
  return `Root=1-${seconds}-${randomBytes(12).toString('hex')}`;
}

function queryParameters(
  url: string,
): Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    addValue(single, multi, key, value);
  }
  const none = Object.keys(single).length === 0;
  return {
    queryStringParameters: none ? null : single,
    multiValueQueryStringParameters: none ? null : multi,
  };
}

function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end < 0 ? url : url.slice(0, end);
}

function sourceIpOf(remoteAddress: string): string {
  return remoteAddress.startsWith('::ffff:') ? remoteAddress.slice(7) : remoteAddress;
}

/** A stable 6-character id per resource path, like API Gateway's resource ids. */
function resourceIdOf(resource: string): string {
  return createHash('sha256').update(resource).digest('hex').slice(0, 6);
}

/**
 * The API Gateway REST API (v1) Lambda proxy event for one request. `path` stays
 * percent-encoded as REST APIs send it; query strings and path parameters are decoded.
 */
export function toProxyEvent(
  request: GatewayRequest,
  route: MatchedRoute,
  options: ProxyEventOptions,
): APIGatewayProxyEvent {
  const now = options.now ?? new Date();
  const requestId = options.requestId ?? randomUUID();
  const path = pathOf(request.url);
  const sourceIp = sourceIpOf(request.remoteAddress);

  const maps = collectHeaders(request.rawHeaders);
  const contentType = header(maps, 'content-type');
  const host = header(maps, 'host') ?? '127.0.0.1';
  const forwardedFor = header(maps, 'x-forwarded-for');
  setHeader(maps, 'X-Forwarded-For', forwardedFor ? `${forwardedFor}, ${sourceIp}` : sourceIp);
  setHeader(maps, 'X-Forwarded-Port', /:(\d+)$/.exec(host)?.[1] ?? '80');
  setHeader(maps, 'X-Forwarded-Proto', 'http');
  if (header(maps, 'x-amzn-trace-id') === undefined) {
    setHeader(maps, 'X-Amzn-Trace-Id', traceId(now.getTime()));
  }

  const empty = request.body.length === 0;
  const binary = !empty && isBinaryMediaType(contentType, options.binaryMediaTypes);
  const userAgent = header(maps, 'user-agent') ?? null;

  return {
    resource: route.resource,
    path,
    httpMethod: request.method,
    headers: maps.headers,
    multiValueHeaders: maps.multiValueHeaders,
    ...queryParameters(request.url),
    pathParameters: route.pathParameters,
    stageVariables: null,
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: LOCAL_API_ID,
      authorizer: undefined,
      domainName: options.domainName ?? host,
      domainPrefix: (options.domainName ?? host).split(/[.:]/)[0],
      extendedRequestId: randomBytes(12).toString('base64'),
      httpMethod: request.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent,
        userArn: null,
      },
      path: `/${options.stage}${path}`,
      protocol: `HTTP/${request.httpVersion ?? '1.1'}`,
      requestId,
      requestTime: formatRequestTime(now),
      requestTimeEpoch: now.getTime(),
      resourceId: resourceIdOf(route.resource),
      resourcePath: route.resource,
      stage: options.stage,
    },
    body: empty ? null : binary ? request.body.toString('base64') : request.body.toString('utf8'),
    isBase64Encoded: binary,
  };
}

// ---------------------------------------------------------------------------------------------
// Route matching

type Segment =
  | { kind: 'literal'; value: string }
  | { kind: 'param'; name: string }
  | { kind: 'greedy'; name: string };

/** Lower ranks win: a literal segment beats `{name}`, which beats `{name+}`. */
const RANK = { literal: 0, param: 1, greedy: 2 } as const;

/**
 * Raw path segments; `/` has none. One trailing slash is dropped, as API Gateway (REST) routes
 * `/admin/` to the resource `/admin` (the event's `path` keeps the slash).
 */
function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed === '/' ? [] : trimmed.split('/').slice(1);
}

function parseResource(resource: string): Segment[] {
  return splitPath(resource).map((part): Segment => {
    const param = /^\{([^{}]+?)(\+)?\}$/.exec(part);
    if (!param?.[1]) return { kind: 'literal', value: part };
    return param[2] ? { kind: 'greedy', name: param[1] } : { kind: 'param', name: param[1] };
  });
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Path parameters when `segments` matches the path's raw segments, else undefined. */
function matchSegments(
  segments: readonly Segment[],
  parts: readonly string[],
): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [i, segment] of segments.entries()) {
    if (segment.kind === 'greedy') {
      const rest = parts.slice(i);
      if (rest.length === 0 || rest.every((part) => part === '')) return undefined;
      params[segment.name] = rest.map(decodeSegment).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (segment.kind === 'literal') {
      if (decodeSegment(part) !== segment.value) return undefined;
    } else {
      if (part === '') return undefined;
      params[segment.name] = decodeSegment(part);
    }
  }
  return segments.length === parts.length ? params : undefined;
}

function compareSpecificity(a: readonly Segment[], b: readonly Segment[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const left = a[i];
    const right = b[i];
    if (!left || !right) return left ? -1 : 1;
    const diff = RANK[left.kind] - RANK[right.kind];
    if (diff !== 0) return diff;
  }
  return 0;
}

export interface RouteTable<T> {
  /**
   * The route for a method and raw path: API Gateway picks the most specific resource first,
   * then the method on it (`ANY` matches every method). Undefined means 403.
   */
  match(method: string, path: string): { route: T; matched: MatchedRoute } | undefined;
}

export function createRouteTable<T extends { method: string; path: string }>(
  routes: readonly T[],
): RouteTable<T> {
  const resources = new Map<string, { segments: Segment[]; routes: T[] }>();
  for (const route of routes) {
    const entry = resources.get(route.path) ?? { segments: parseResource(route.path), routes: [] };
    entry.routes.push(route);
    resources.set(route.path, entry);
  }
  const ordered = [...resources.entries()].sort(([, a], [, b]) =>
    compareSpecificity(a.segments, b.segments),
  );
  return {
    match(method, path) {
      const parts = splitPath(path);
      for (const [resource, entry] of ordered) {
        const params = matchSegments(entry.segments, parts);
        if (!params) continue;
        const route =
          entry.routes.find((r) => r.method.toUpperCase() === method.toUpperCase()) ??
          entry.routes.find((r) => r.method.toUpperCase() === 'ANY');
        if (!route) return undefined;
        const pathParameters = Object.keys(params).length > 0 ? params : null;
        return { route, matched: { resource, pathParameters } };
      }
      return undefined;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Result → response

/**
 * Response headers API Gateway does not pass through from an integration: WWW-Authenticate
 * reaches the client as `x-amzn-Remapped-WWW-Authenticate` (so no browser login prompt), and the
 * framing headers are the gateway's own.
 */
const REMAPPED_RESPONSE_HEADERS = new Set(['www-authenticate', 'connection', 'server', 'date']);
const DROPPED_RESPONSE_HEADERS = new Set(['content-length', 'transfer-encoding', 'keep-alive']);

type HeaderValue = string | number | boolean;

function isHeaderValue(value: unknown): value is HeaderValue {
  return ['string', 'number', 'boolean'].includes(typeof value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The result when it has the shape API Gateway accepts, else undefined (a 502). */
export function checkProxyResult(value: unknown): APIGatewayProxyResult | undefined {
  if (!isRecord(value)) return undefined;
  const { statusCode, headers, multiValueHeaders, body, isBase64Encoded } = value;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode)) return undefined;
  if (statusCode < 200 || statusCode > 599) return undefined;
  if (headers != null && !(isRecord(headers) && Object.values(headers).every(isHeaderValue))) {
    return undefined;
  }
  if (
    multiValueHeaders != null &&
    !(
      isRecord(multiValueHeaders) &&
      Object.values(multiValueHeaders).every((v) => Array.isArray(v) && v.every(isHeaderValue))
    )
  ) {
    return undefined;
  }
  if (body != null && typeof body !== 'string') return undefined;
  if (isBase64Encoded != null && typeof isBase64Encoded !== 'boolean') return undefined;
  return value as unknown as APIGatewayProxyResult;
}

/** Final response headers: `headers` merged with `multiValueHeaders` (which wins per name). */
export function responseHeaders(
  result: APIGatewayProxyResult,
  requestId: string,
): Record<string, string[]> {
  const merged = new Map<string, { name: string; values: string[] }>();
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    merged.set(name.toLowerCase(), { name, values: [String(value)] });
  }
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    merged.set(name.toLowerCase(), { name, values: values.map(String) });
  }
  const out: Record<string, string[]> = {};
  // The gateway's own answers (gateway responses) keep their headers as they are.
  const remap = !GATEWAY_ANSWERS.has(result);
  for (const [lower, { name, values }] of merged) {
    if (DROPPED_RESPONSE_HEADERS.has(lower)) continue;
    const remapped = remap && REMAPPED_RESPONSE_HEADERS.has(lower);
    out[remapped ? `x-amzn-Remapped-${name}` : name] = values;
  }
  if (!merged.has('content-type')) out['Content-Type'] = ['application/json'];
  out['x-amzn-RequestId'] = [requestId];
  return out;
}

/** The results API Gateway writes itself: their headers are not remapped. */
const GATEWAY_ANSWERS = new WeakSet<APIGatewayProxyResult>();

/** A response API Gateway writes itself (`{"message": ...}` by default), as a proxy result. */
function gatewayResponse(
  statusCode: number,
  body: unknown,
  errorType?: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  const result = {
    statusCode,
    headers: {
      'Content-Type': 'application/json',
      ...(errorType ? { 'x-amzn-ErrorType': errorType } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  };
  GATEWAY_ANSWERS.add(result);
  return result;
}

/** API Gateway's default MISSING_AUTHENTICATION_TOKEN gateway response. */
const DEFAULT_UNKNOWN_ROUTE: GatewayAnswer = {
  statusCode: 403,
  headers: {},
  body: { message: 'Missing Authentication Token' },
};

/** The deployed API's answer to an unknown route (UNKNOWN_ROUTE), as a gateway response. */
export const DEPLOYED_UNKNOWN_ROUTE: GatewayAnswer = {
  statusCode: UNKNOWN_ROUTE.statusCode,
  headers: {},
  body: UNKNOWN_ROUTE.body,
};

const INTERNAL_ERROR = gatewayResponse(
  502,
  { message: 'Internal server error' },
  'InternalServerErrorException',
);

// ---------------------------------------------------------------------------------------------
// The server

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

interface ResolvedRoute {
  method: string;
  path: string;
  functionName: string;
  timeoutMs: number;
  memoryMb: number;
  getHandler: () => Promise<ProxyHandler>;
  authorizer?: GatewayAuthorizer & { getHandler: () => Promise<AuthorizerHandler> };
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

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
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

export function createGateway(options: GatewayOptions): Gateway {
  const stage = options.stage ?? 'local';
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const integrationTimeoutMs = options.integrationTimeoutMs ?? INTEGRATION_TIMEOUT_MS;
  const log = options.log ?? (() => {});
  const health = options.health ?? (() => true);

  // The gateway's own `GET /health` (a mock integration on AWS) unless a route answers it.
  const healthHandler: ProxyHandler = async () => {
    const ready = await health();
    return {
      statusCode: ready ? 200 : 503,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: ready ? 'ok' : 'starting' }),
    };
  };
  const authorizers = new Map<GatewayAuthorizer, NonNullable<ResolvedRoute['authorizer']>>();
  const table = createRouteTable([
    ...options.routes.map((route) => resolveRoute(route, authorizers)),
    resolveRoute({
      method: 'GET',
      path: '/health',
      handler: healthHandler,
      functionName: 'health',
    }),
  ]);

  /** The address the gateway listens on (`127.0.0.1:3000`): the API's own domain. */
  let ownHost: string | undefined;

  /** Runs the route's handler the way Lambda and API Gateway would; never rejects. */
  async function invoke(
    route: ResolvedRoute,
    req: IncomingMessage,
    body: Buffer,
    matched: MatchedRoute,
    requestId: string,
  ): Promise<APIGatewayProxyResult> {
    const fail = (problem: string, response = INTERNAL_ERROR) => {
      log(`${route.functionName}: ${problem}`);
      return response;
    };
    const event = toProxyEvent(
      {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        rawHeaders: req.rawHeaders,
        body,
        remoteAddress: req.socket.remoteAddress ?? '127.0.0.1',
        httpVersion: req.httpVersion,
      },
      matched,
      {
        binaryMediaTypes: options.binaryMediaTypes,
        stage,
        requestId,
        ...(ownHost !== undefined && { domainName: ownHost }),
      },
    );
    if (route.authorizer) {
      const outcome = await runAuthorizer(route.authorizer, event);
      if (!outcome.allowed) {
        const { statusCode, body, headers } = outcome.answer;
        if (outcome.problem) log(`${route.functionName}: ${outcome.problem}`);
        return gatewayResponse(statusCode, body, undefined, headers);
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
      const timeoutMs = Math.min(route.timeoutMs, integrationTimeoutMs);
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

  async function respond(req: IncomingMessage, requestId: string): Promise<APIGatewayProxyResult> {
    const body = await readBody(req, maxBodyBytes);
    if (!body) return gatewayResponse(413, { message: 'Request Too Long' });
    const found = table.match(req.method ?? 'GET', pathOf(req.url ?? '/'));
    if (!found) {
      const { statusCode, body: answer, headers } = options.unknownRoute ?? DEFAULT_UNKNOWN_ROUTE;
      return gatewayResponse(statusCode, answer, 'MissingAuthenticationTokenException', headers);
    }
    return invoke(found.route, req, body, found.matched, requestId);
  }

  function write(res: ServerResponse, result: APIGatewayProxyResult, requestId: string): number {
    const payload = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
    try {
      res.writeHead(result.statusCode, {
        ...responseHeaders(result, requestId),
        'Content-Length': String(payload.length),
      });
    } catch (error) {
      // Node refuses header names or values that API Gateway would refuse as well.
      log(`invalid response headers: ${describeError(error)}`);
      return write(res, INTERNAL_ERROR, requestId);
    }
    res.end(payload);
    return result.statusCode;
  }

  const server = createServer((req, res) => {
    const started = Date.now();
    const requestId = randomUUID();
    // The path only: query strings carry tokens (`?token=`, Meta's `hub.verify_token`).
    const logged = `${req.method} ${pathOf(req.url ?? '/')}`;
    respond(req, requestId).then(
      (result) => {
        const status = write(res, result, requestId);
        log(`${logged} ${status} ${Date.now() - started}ms`);
      },
      (error: unknown) => {
        // Only reading the request can fail here: the client went away.
        log(`${logged} aborted: ${describeError(error)}`);
        res.destroy();
      },
    );
  });

  return {
    server,
    listen(port, host = '127.0.0.1') {
      return new Promise((resolveUrl, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          ownHost = `${shownHost}:${address.port}`;
          resolveUrl(`http://${ownHost}`);
        });
      });
    },
    close(graceMs = 5_000) {
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
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The deployed route table

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
      unauthorized: { statusCode, headers: { ...headers }, body },
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
