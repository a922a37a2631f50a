/**
 * Result → response: what the local gateway writes back, as API Gateway does. A handler's
 * APIGatewayProxyResult is checked for the shape API Gateway accepts (else 502), its `headers`
 * and `multiValueHeaders` merged, WWW-Authenticate and the framing headers remapped or dropped.
 * The gateway's own answers (gateway responses: unknown route, 413, 502, 504, the authorizer's
 * refusals) are built here too and keep their headers as they are; a gateway response with
 * templates by media type answers the one the request's Accept picks (selectTemplate).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { UNKNOWN_ROUTE } from '../functions/kernel/routes.ts';
import type { GatewayAnswer } from './gateway-authorizer.ts';

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
export function gatewayResponse(
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

/**
 * The template API Gateway picks for a response by the request's Accept header, as AWS documents
 * it for mapping templates: only the first media type of Accept counts (parameters dropped);
 * without an Accept header it is `application/json`; a media type no template has gets the
 * first template.
 */
export function selectTemplate(
  templates: Readonly<Record<string, string>>,
  accept: string | undefined,
): { mediaType: string; body: string } | undefined {
  const first = (accept ?? '').split(',')[0]?.split(';')[0]?.trim().toLowerCase() || '';
  const wanted = first || 'application/json';
  const key =
    Object.keys(templates).find((type) => type.toLowerCase() === wanted) ??
    Object.keys(templates)[0];
  const body = key === undefined ? undefined : templates[key];
  return key === undefined || body === undefined ? undefined : { mediaType: key, body };
}

/**
 * A gateway response as the client gets it: its headers, and its body for this Accept, labelled
 * with the chosen template's media type unless the response sets its own Content-Type.
 */
export function answerFor(
  answer: GatewayAnswer,
  accept: string | undefined,
  errorType?: string,
): APIGatewayProxyResult {
  const chosen = answer.templates ? selectTemplate(answer.templates, accept) : undefined;
  const result = gatewayResponse(answer.statusCode, answer.body, errorType, answer.headers);
  if (chosen !== undefined) {
    result.body = chosen.body;
    const named = Object.keys(answer.headers).some((name) => name.toLowerCase() === 'content-type');
    if (!named) {
      const headers = Object.fromEntries(
        Object.entries(result.headers ?? {}).filter(
          ([name]) => name.toLowerCase() !== 'content-type',
        ),
      );
      result.headers = { ...headers, 'Content-Type': `${chosen.mediaType}; charset=UTF-8` };
    }
  }
  return result;
}

/** API Gateway's default MISSING_AUTHENTICATION_TOKEN gateway response. */
export const DEFAULT_UNKNOWN_ROUTE: GatewayAnswer = {
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

/** API Gateway's 502: the handler would not load, threw, or answered a malformed result. */
export const INTERNAL_ERROR = gatewayResponse(
  502,
  { message: 'Internal server error' },
  'InternalServerErrorException',
);
