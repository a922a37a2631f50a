/** The intake's AWS adapters: configuration from Secrets Manager, the DynamoDB ledger, SQS. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createAwsConfigSource } from '../config/config-aws.ts';
import { requireEnv } from '../kernel/env.ts';
import { createDynamoLedger } from '../ledger/lead-ledger-dynamodb.ts';
import { createSqsLeadQueue } from '../ledger/lead-queue-sqs.ts';
import { intakeEvents } from './events.ts';
import type { IntakeDeps } from './intake.ts';

export function awsIntakeDeps(): IntakeDeps {
  return {
    config: createAwsConfigSource(),
    ledger: createDynamoLedger({
      client: new DynamoDBClient({}),
      tableName: requireEnv('LEDGER_TABLE_NAME'),
    }),
    queue: createSqsLeadQueue({
      client: new SQSClient({}),
      queueUrl: requireEnv('LEAD_QUEUE_URL'),
    }),
    events: intakeEvents,
  };
}
