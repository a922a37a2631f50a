/**
 * The authorizer's AWS adapters: the API clients from Secrets Manager and the failed-sign-in
 * counters and familiar addresses in the ledger table (its `authfail#*` items only: GetItem and
 * UpdateItem).
 */
import { createAwsClientsSource } from '../config/secrets-aws.ts';
import { createAuthThrottle } from '../kernel/auth-throttle.ts';
import { createDynamoAuthThrottleStore } from '../kernel/auth-throttle-dynamodb.ts';
import { createDynamoDb } from '../kernel/dynamodb-aws.ts';
import { ENV, requireEnv } from '../kernel/env.ts';
import type { AuthorizerDeps } from './handler.ts';

export function awsAuthorizerDeps(env: NodeJS.ProcessEnv = process.env): AuthorizerDeps {
  return {
    config: createAwsClientsSource(env),
    throttle: createAuthThrottle(
      createDynamoAuthThrottleStore({
        client: createDynamoDb(),
        tableName: requireEnv(ENV.ledgerTable, env),
      }),
    ),
  };
}
