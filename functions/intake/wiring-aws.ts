/**
 * The intake's AWS adapters: configuration from Secrets Manager, the DynamoDB ledger (with the
 * erasure salt from Secrets Manager), SQS, and the accounts' named branches (configured, and
 * learned on the ledger table: upstream/branch-names-dynamodb.ts).
 */
import { createAwsConfigSource } from '../config/config-aws.ts';
import { PROFILE_RULES } from '../config/profile-rules.ts';
import { createDynamoAuthThrottleStore } from '../kernel/auth-throttle-dynamodb.ts';
import { createDynamoDb } from '../kernel/dynamodb-aws.ts';
import { ENV, requireEnv } from '../kernel/env.ts';
import { createSqs } from '../kernel/sqs-aws.ts';
import { awsErasureSalt } from '../ledger/erasure-salt-aws.ts';
import { createDynamoLedger } from '../ledger/lead-ledger-dynamodb.ts';
import { createSqsLeadQueue } from '../ledger/lead-queue-sqs.ts';
import { dynamoBranchDirectory } from '../upstream/branch-names-dynamodb.ts';
import { intakeEvents } from './events.ts';
import type { IntakeDeps } from './intake-deps.ts';
import { createTokenGuessThrottle } from './token-guessing.ts';

export function awsIntakeDeps(env: NodeJS.ProcessEnv = process.env): IntakeDeps {
  const config = createAwsConfigSource(env, { rules: PROFILE_RULES });
  const table = { client: createDynamoDb(), tableName: requireEnv(ENV.ledgerTable, env) };
  return {
    config,
    branches: dynamoBranchDirectory(config, table),
    ledger: createDynamoLedger({
      ...table,
      // An erased person's lead, sent again, is recognised by its salted tombstones.
      erasureSalt: awsErasureSalt(env),
    }),
    queue: createSqsLeadQueue({
      client: createSqs(),
      queueUrl: requireEnv(ENV.leadQueueUrl, env),
    }),
    events: intakeEvents,
    // Wrong tokens per profile and address: the ledger table's `authfail#` items (IAM).
    tokenGuesses: createTokenGuessThrottle(createDynamoAuthThrottleStore(table)),
  };
}
