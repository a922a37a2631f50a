/**
 * The refresher's AWS adapters: configuration from LEADS_SETTINGS and Secrets Manager, the
 * report bucket (S3), the `refresh` queue (SQS) for continuations, and the account-wide pacer
 * item in the ledger table (DynamoDB; GetItem/UpdateItem on `pacer#upstream` only), shared with
 * delivery. The variables are set by infra/constructs/debtors-report.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createAwsConfigSource } from '../../config/config-aws.ts';
import { requireEnv } from '../../kernel/env.ts';
import type { Pacer } from '../../upstream/pacer.ts';
import { createS3ReportStore } from '../store/report-store-s3.ts';
import { createSqsReportTrigger } from '../trigger/report-trigger-sqs.ts';
import { type RefreshDeps, refreshEvents, sharedRefreshPacer, upstreamSource } from './refresh.ts';

export function awsRefreshDeps(options: { pacer?: Pacer } = {}): RefreshDeps {
  const config = createAwsConfigSource();
  const { pacer } = options;
  return {
    store: createS3ReportStore({
      client: new S3Client({}),
      bucket: requireEnv('REPORT_BUCKET_NAME'),
    }),
    trigger: createSqsReportTrigger({
      client: new SQSClient({}),
      queueUrl: requireEnv('REPORT_REFRESH_QUEUE_URL'),
    }),
    source: upstreamSource(config, {
      pacerFor: pacer
        ? () => pacer
        : sharedRefreshPacer({
            client: new DynamoDBClient({}),
            tableName: requireEnv('LEDGER_TABLE_NAME'),
          }),
      onUnauthorized: () => config.refresh(),
    }),
    events: refreshEvents,
  };
}
