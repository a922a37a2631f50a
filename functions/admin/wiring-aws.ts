/**
 * The admin function's AWS adapters: configuration (clients) from Secrets Manager, the DynamoDB
 * ledger, the SQS lead queue (send) and the dead-letter redrive (StartMessageMoveTask).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createAwsConfigSource } from '../config/config-aws.ts';
import { requireEnv } from '../kernel/env.ts';
import { createDynamoLedger } from '../ledger/lead-ledger-dynamodb.ts';
import { createSqsLeadQueue } from '../ledger/lead-queue-sqs.ts';
import type { AdminDeps } from './admin.ts';
import { createSqsDlqRedrive } from './dlq-redrive-sqs.ts';

/**
 * The variables the stack sets for this function. IAM it needs: the ledger table and its status
 * index (GetItem, Query, UpdateItem), sqs:SendMessage on the lead queue, and the redrive's
 * permissions (functions/admin/dlq-redrive-sqs.ts).
 */
export const ADMIN_ENV = {
  ledgerTable: 'LEDGER_TABLE_NAME',
  queueUrl: 'LEAD_QUEUE_URL',
  queueArn: 'LEAD_QUEUE_ARN',
  deadLetterQueueArn: 'LEAD_DLQ_ARN',
} as const;

export function awsAdminDeps(): Omit<AdminDeps, 'events'> {
  const sqs = new SQSClient({});
  return {
    config: createAwsConfigSource(),
    ledger: createDynamoLedger({
      client: new DynamoDBClient({}),
      tableName: requireEnv(ADMIN_ENV.ledgerTable),
    }),
    queue: createSqsLeadQueue({ client: sqs, queueUrl: requireEnv(ADMIN_ENV.queueUrl) }),
    redrive: createSqsDlqRedrive({
      client: sqs,
      deadLetterQueueArn: requireEnv(ADMIN_ENV.deadLetterQueueArn),
      queueArn: requireEnv(ADMIN_ENV.queueArn),
    }),
  };
}
