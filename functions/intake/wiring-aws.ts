/** The intake's AWS adapters: configuration from Secrets Manager, the DynamoDB ledger, SQS. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createAwsConfigSource } from '../shared/config-aws.ts';
import { requireEnv } from '../shared/env.ts';
import { createDynamoLedger } from '../shared/lead-ledger-dynamodb.ts';
import { createSqsLeadQueue } from '../shared/lead-queue-sqs.ts';
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
