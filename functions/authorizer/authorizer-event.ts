/**
 * The Basic-auth authorizer's decision (pure: the clients come from the caller). API Gateway
 * calls the authorizer Lambda (handler.ts) before every `auth: 'basic'` route (functions/kernel/routes.ts,
 * BASIC_AUTH) with the REST API REQUEST authorizer event:
 *
 * - valid Basic credentials of any configured client (plain or scrypt-hashed password,
 *   functions/kernel/client-auth.ts) → Allow, with the client's username as principal and in
 *   the context (`requestContext.authorizer.username` in the function's event), and
 *   `verified: "true"`;
 * - no `Authorization` header, a malformed one or wrong credentials → refused; the handler then
 *   throws `Unauthorized`, which API Gateway answers with its UNAUTHORIZED gateway response
 *   (401 and the Basic challenge). Wrong credentials count as a failure against the source
 *   address and, from an address unfamiliar to the name, against the user name
 *   (functions/kernel/auth-throttle.ts); right ones make the address familiar for the name;
 * - a sign-in locked by earlier failures (its address's lock, or its name's lock when the
 *   address never signed in as that name) → Allow with `throttled: "true"` and `retryAfter`
 *   (seconds) in the context, principal `throttled`, and nothing checked: an authorizer can only
 *   allow or deny, and API Gateway answers a deny with 401 or 403 and no Retry-After, so the
 *   function behind it answers 429 with Retry-After instead (kernel/route-guard.ts).
 *   That is safe because the authorizer's decisions are not cached
 *   (BASIC_AUTH.resultsCacheTtlSeconds is 0): every request is decided afresh.
 *
 * Credentials verified within the last few minutes by this instance (client-auth.ts
 * `recentlyVerified`) are allowed without asking the throttle: only someone who has the password
 * can be remembered. What outlives the instance is the familiar address, in the ledger table.
 *
 * Roles are not checked here: the functions do that (403), as before. The policy allows every
 * method of the stage (`<api>/<stage>/*`), not only the method that asked.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { header } from '../kernel/apigateway-event.ts';
import { AUTHORIZER_CONTEXT, type AuthThrottle } from '../kernel/auth-throttle.ts';
import { matchClient, recentlyVerified } from '../kernel/client-auth.ts';
import type { Client } from '../kernel/client-schema.ts';
import { basicCredentials } from '../kernel/http.ts';

export type BasicAuthDecision =
  | { allow: true; username: string; result: APIGatewayAuthorizerResult }
  /** Locked by earlier failures: allowed through so that the function answers 429. */
  | {
      allow: true;
      throttled: true;
      retryAfterSeconds: number;
      lockedBy: 'name' | 'address';
      result: APIGatewayAuthorizerResult;
    }
  | { allow: false; reason: 'missing' | 'invalid' };

export interface AuthorizeOptions {
  /** The failed-sign-in counters; without it nothing is throttled. */
  throttle?: AuthThrottle;
  /** The throttle could not be read or written: the sign-in goes on unthrottled. */
  onThrottleError?: (error: unknown) => void;
}

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

function allowAll(
  methodArn: string,
  principalId: string,
  context: Record<string, string>,
): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageWildcard(methodArn) },
      ],
    },
    context,
  };
}

export async function authorizeBasic(
  event: Pick<APIGatewayRequestAuthorizerEvent, 'headers' | 'methodArn'> & {
    requestContext?: { identity?: { sourceIp?: string | null } | null } | null;
  },
  clients: readonly Client[],
  options: AuthorizeOptions = {},
): Promise<BasicAuthDecision> {
  const authorization = header({ headers: event.headers ?? {} }, 'authorization');
  if (!authorization) return { allow: false, reason: 'missing' };
  const credentials = basicCredentials(authorization);
  // Not Basic credentials at all: nobody's password was guessed.
  if (!credentials) return { allow: false, reason: 'invalid' };
  const verified = (client: Client): BasicAuthDecision => ({
    allow: true,
    username: client.username,
    result: allowAll(event.methodArn, client.username, {
      username: client.username,
      [AUTHORIZER_CONTEXT.verified]: 'true',
    }),
  });
  const recent = recentlyVerified(credentials, clients);
  if (recent) return verified(recent);

  const { throttle, onThrottleError = () => {} } = options;
  const signIn = {
    username: credentials.username,
    sourceIp: event.requestContext?.identity?.sourceIp ?? undefined,
  };
  const state = throttle
    ? await throttle.check(signIn).catch((error: unknown) => {
        onThrottleError(error);
        return undefined;
      })
    : undefined;
  if (state?.locked) {
    return {
      allow: true,
      throttled: true,
      retryAfterSeconds: state.retryAfterSeconds,
      lockedBy: state.lockedBy,
      result: allowAll(event.methodArn, 'throttled', {
        [AUTHORIZER_CONTEXT.throttled]: 'true',
        [AUTHORIZER_CONTEXT.retryAfter]: String(state.retryAfterSeconds),
      }),
    };
  }
  const client = await matchClient(credentials, clients);
  if (!client) {
    await throttle?.failed(signIn, state).catch(onThrottleError);
    return { allow: false, reason: 'invalid' };
  }
  // Not on every request: only a new address, or one last written more than a day ago.
  if (state?.remember) await throttle?.succeeded(signIn).catch(onThrottleError);
  return verified(client);
}
