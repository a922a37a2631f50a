/**
 * API Gateway's REQUEST Lambda authorizer, as the local gateway runs it before a route's handler
 * (local/gateway-integration.ts): the same steps and answers as the REST API.
 *
 * 1. No identity source (the header) in the request: 401 UNAUTHORIZED, the authorizer is not
 *    called.
 * 2. Otherwise the authorizer is invoked with the REST API REQUEST authorizer event (built from
 *    the request's proxy event) and its own Lambda context and timeout.
 *    - It throws `Unauthorized` (the message, exactly): 401 UNAUTHORIZED.
 *    - It throws anything else, times out or returns no valid result: 500 AUTHORIZER_FAILURE.
 *    - Its policy does not allow `execute-api:Invoke` on the method ARN, or denies it: 403
 *      ACCESS_DENIED.
 *    - Allowed: the proxy event's `requestContext.authorizer` gets `principalId` and the
 *      result's context (values as strings, as REST APIs pass them).
 *
 * The 401 is the UNAUTHORIZED gateway response the stack configures (status, headers, the body
 * by the request's Accept: templates);
 * the other refusals keep API Gateway's default bodies, like the local gateway's other errors.
 * API Gateway's result cache is not emulated: every request asks the authorizer.
 */
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
  Handler,
} from 'aws-lambda';
import { header } from '../functions/kernel/apigateway-event.ts';
import { createLambdaContext, invokeHandler } from './lambda-context.ts';

export type AuthorizerHandler = Handler<
  APIGatewayRequestAuthorizerEvent,
  APIGatewayAuthorizerResult
>;

/** A gateway response: what API Gateway answers itself. */
export interface GatewayAnswer {
  statusCode: number;
  headers: Record<string, string>;
  /** The body (as JSON) without `templates`. */
  body: unknown;
  /**
   * The body by media type (a gateway response's `responseTemplates`), chosen by the request's
   * Accept as API Gateway chooses (local/gateway-responses.ts, selectTemplate).
   */
  templates?: Readonly<Record<string, string>>;
}

export interface GatewayAuthorizer {
  /** The authorizer itself... */
  handler?: AuthorizerHandler;
  /** ...or how to load it on first use. */
  load?: () => Promise<AuthorizerHandler>;
  /** The identity source header (`method.request.header.<name>`). */
  identityHeader: string;
  /** The UNAUTHORIZED gateway response; default API Gateway's `{"message":"Unauthorized"}`. */
  unauthorized?: GatewayAnswer;
  functionName?: string;
  /** Default 3 (Lambda's default). */
  timeoutSeconds?: number;
  memoryMb?: number;
}

export type AuthorizerOutcome =
  | { allowed: true; context: Record<string, string> }
  | { allowed: false; answer: GatewayAnswer; problem?: string };

const DEFAULT_UNAUTHORIZED: GatewayAnswer = {
  statusCode: 401,
  headers: {},
  body: { message: 'Unauthorized' },
};

function refused(answer: GatewayAnswer, errorType: string, problem?: string): AuthorizerOutcome {
  const headers = { ...answer.headers, 'x-amzn-ErrorType': errorType };
  return { allowed: false, answer: { ...answer, headers }, ...(problem && { problem }) };
}

/** `arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>` of a request. */
export function methodArnOf(event: APIGatewayProxyEvent, region: string): string {
  const { accountId, apiId, stage } = event.requestContext;
  return `arn:aws:execute-api:${region}:${accountId}:${apiId}/${stage}/${event.httpMethod}${event.path}`;
}

/** The REST API REQUEST authorizer event for the request a proxy event describes. */
export function toAuthorizerEvent(
  event: APIGatewayProxyEvent,
  region: string,
): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: methodArnOf(event, region),
    resource: event.resource,
    path: event.path,
    httpMethod: event.httpMethod,
    headers: event.headers,
    multiValueHeaders: event.multiValueHeaders,
    pathParameters: event.pathParameters,
    queryStringParameters: event.queryStringParameters,
    multiValueQueryStringParameters: event.multiValueQueryStringParameters,
    stageVariables: event.stageVariables,
    requestContext: { ...event.requestContext, authorizer: undefined },
  };
}

/** An IAM resource pattern (`*` any run of characters, `?` one) against an ARN. */
function resourceMatches(pattern: string, arn: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`).test(arn);
}

/** Whether the policy allows invoking `methodArn`: some Allow matches and no Deny does. */
export function policyAllows(policy: unknown, methodArn: string): boolean {
  const statements = (policy as { Statement?: unknown } | undefined)?.Statement;
  const list = (Array.isArray(statements) ? statements : [statements]) as Array<
    Record<string, unknown> | undefined
  >;
  const applies = (statement: Record<string, unknown>) => {
    const actions = [statement.Action].flat();
    const resources = [statement.Resource].flat();
    return (
      actions.some((a) => a === '*' || a === 'execute-api:*' || a === 'execute-api:Invoke') &&
      resources.some((r) => typeof r === 'string' && resourceMatches(r, methodArn))
    );
  };
  const matching = list.filter((s): s is Record<string, unknown> => !!s && applies(s));
  return matching.some((s) => s.Effect === 'Allow') && !matching.some((s) => s.Effect === 'Deny');
}

function isResult(value: unknown): value is APIGatewayAuthorizerResult {
  const result = value as Partial<APIGatewayAuthorizerResult> | undefined;
  return (
    typeof result === 'object' &&
    result !== null &&
    typeof result.principalId === 'string' &&
    typeof result.policyDocument === 'object' &&
    result.policyDocument !== null
  );
}

/** Runs the authorizer for one request (see the module comment); never rejects. */
export async function runAuthorizer(
  authorizer: GatewayAuthorizer & { getHandler: () => Promise<AuthorizerHandler> },
  event: APIGatewayProxyEvent,
): Promise<AuthorizerOutcome> {
  const unauthorized = authorizer.unauthorized ?? DEFAULT_UNAUTHORIZED;
  if (!header(event, authorizer.identityHeader)) {
    return refused(unauthorized, 'UnauthorizedException');
  }
  const failure = (problem: string) =>
    refused(
      { statusCode: 500, headers: {}, body: { message: null } },
      'AuthorizerConfigurationException',
      problem,
    );
  const functionName = authorizer.functionName ?? 'authorizer';
  const timeoutMs = (authorizer.timeoutSeconds ?? 3) * 1000;
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const request = toAuthorizerEvent(event, region);
  let result: unknown;
  try {
    const handler = await authorizer.getHandler();
    const context = createLambdaContext({
      functionName,
      timeoutMs,
      ...(authorizer.memoryMb !== undefined && { memoryMb: authorizer.memoryMb }),
      region,
    });
    result = await invokeHandler(handler, request, context, timeoutMs);
  } catch (error) {
    if (error instanceof Error && error.message === 'Unauthorized') {
      return refused(unauthorized, 'UnauthorizedException');
    }
    return failure(`${functionName} failed: ${error instanceof Error ? error.message : error}`);
  }
  if (!isResult(result)) return failure(`${functionName} returned no principalId and policy`);
  if (!policyAllows(result.policyDocument, request.methodArn)) {
    return refused(
      {
        statusCode: 403,
        headers: {},
        body: { message: 'User is not authorized to access this resource' },
      },
      'AccessDeniedException',
    );
  }
  const context = Object.fromEntries(
    Object.entries(result.context ?? {}).map(([key, value]) => [key, String(value)]),
  );
  return { allowed: true, context: { ...context, principalId: result.principalId } };
}
