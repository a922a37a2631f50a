/**
 * Request → event: the API Gateway REST API (v1) Lambda proxy event the local gateway hands a
 * handler for one request, as AWS builds it (headers and query strings in their pairs of maps,
 * the X-Forwarded-* headers API Gateway sets, a binary body in base64, the request context with
 * its identity, stage, request id and times). `requestContext.domainName` is the API's own
 * address when the gateway knows it (ProxyEventOptions.domainName), never a Host header a caller
 * chose.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header } from '../functions/kernel/apigateway-event.ts';
import { addGatewayHeaders, collectHeaders, queryParameters } from './gateway-maps.ts';
import { type MatchedRoute, pathOf } from './gateway-routing.ts';
import { LOCAL_ACCOUNT_ID } from './lambda-context.ts';

export const LOCAL_API_ID = 'local';

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
  addGatewayHeaders(maps, sourceIp, host, now.getTime());

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
