/**
 * The authorizer's AWS adapters: the API clients from Secrets Manager and the failed-sign-in
 * counters in the ledger table (its `authfail#*` items only: GetItem, UpdateItem, DeleteItem).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createAwsClientsSource } from '../config/secrets-aws.ts';
import { createAuthThrottle } from '../kernel/auth-throttle.ts';
import { createDynamoAuthThrottleStore } from '../kernel/auth-throttle-dynamodb.ts';
import { ENV, requireEnv } from '../kernel/env.ts';
import type { AuthorizerDeps } from './handler.ts';

export function awsAuthorizerDeps(env: NodeJS.ProcessEnv = process.env): AuthorizerDeps {
  return {
    config: createAwsClientsSource(env),
    throttle: createAuthThrottle(
      createDynamoAuthThrottleStore({
        client: new DynamoDBClient({}),
        tableName: requireEnv(ENV.ledgerTable, env),
      }),
    ),
  };
}
