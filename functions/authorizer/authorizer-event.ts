/**
 * The Basic-auth authorizer's decision (pure: the clients come from the caller). API Gateway
 * calls the authorizer Lambda (handler.ts) before every `auth: 'basic'` route (functions/kernel/routes.ts,
 * BASIC_AUTH) with the REST API REQUEST authorizer event:
 *
 * - valid Basic credentials of any configured client (plain or scrypt-hashed password,
 *   functions/kernel/client-auth.ts) → Allow, with the client's username as principal and in
 *   the context (`requestContext.authorizer.username` in the function's event);
 * - no `Authorization` header, a malformed one or wrong credentials → refused; the handler then
 *   throws `Unauthorized`, which API Gateway answers with its UNAUTHORIZED gateway response
 *   (401 and the Basic challenge).
 *
 * Roles are not checked here: the functions do that (403), as before.
 *
 * API Gateway caches the decision per Authorization header for every route that uses the
 * authorizer, so the policy allows every method of the stage (`<api>/<stage>/*`), not only the
 * method that happened to ask first: a policy naming one method would make the cached decision
 * refuse the client's next route.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { header } from '../kernel/apigateway-event.ts';
import { verifyBasicClient } from '../kernel/client-auth.ts';
import type { Client } from '../kernel/client-schema.ts';

export type BasicAuthDecision =
  | { allow: true; username: string; result: APIGatewayAuthorizerResult }
  | { allow: false; reason: 'missing' | 'invalid' };

/**
 * `arn:aws:execute-api:<region>:<account>:<api>/<stage>/*` for a method ARN
 * (`arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>`).
 */
export function stageWildcard(methodArn: string): string {
  const [api, stage] = methodArn.split('/');
  if (!api?.startsWith('arn:') || !stage) {
    throw new Error(`not an API Gateway method ARN: "${methodArn}"`);
  }
  return `${api}/${stage}/*`;
}

export async function authorizeBasic(
  event: Pick<APIGatewayRequestAuthorizerEvent, 'headers' | 'methodArn'>,
  clients: readonly Client[],
): Promise<BasicAuthDecision> {
  const authorization = header({ headers: event.headers ?? {} }, 'authorization');
  if (!authorization) return { allow: false, reason: 'missing' };
  const client = await verifyBasicClient(authorization, clients);
  if (!client) return { allow: false, reason: 'invalid' };
  return {
    allow: true,
    username: client.username,
    result: {
      principalId: client.username,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: stageWildcard(event.methodArn),
          },
        ],
      },
      context: { username: client.username },
    },
  };
}
