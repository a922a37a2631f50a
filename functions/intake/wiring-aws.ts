/** The intake's AWS adapters: configuration from Secrets Manager, the DynamoDB ledger, SQS. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createAwsConfigSource } from '../config/config-aws.ts';
import { PROFILE_RULES } from '../config/profile-rules.ts';
import { ENV, requireEnv } from '../kernel/env.ts';
import { createDynamoLedger } from '../ledger/lead-ledger-dynamodb.ts';
import { createSqsLeadQueue } from '../ledger/lead-queue-sqs.ts';
import { intakeEvents } from './events.ts';
import type { IntakeDeps } from './intake.ts';

export function awsIntakeDeps(env: NodeJS.ProcessEnv = process.env): IntakeDeps {
  return {
    config: createAwsConfigSource(env, { rules: PROFILE_RULES }),
    ledger: createDynamoLedger({
      client: new DynamoDBClient({}),
      tableName: requireEnv(ENV.ledgerTable, env),
    }),
    queue: createSqsLeadQueue({
      client: new SQSClient({}),
      queueUrl: requireEnv(ENV.leadQueueUrl, env),
    }),
    events: intakeEvents,
  };
}
