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
import { ENV, requireEnv } from '../../kernel/env.ts';
import { pacedUpstream } from '../../upstream/paced-client.ts';
import type { Pacer } from '../../upstream/pacer.ts';
import { sharedPacerFactory } from '../../upstream/pacer-dynamodb.ts';
import { createS3ReportStore } from '../store/report-store-s3.ts';
import { createSqsReportTrigger } from '../trigger/report-trigger-sqs.ts';
import { refreshEvents } from './events.ts';
import { type RefreshDeps, refreshSource } from './refresh.ts';

export function awsRefreshDeps(
  options: { pacer?: Pacer } = {},
  env: NodeJS.ProcessEnv = process.env,
): RefreshDeps {
  const config = createAwsConfigSource(env);
  const { pacer } = options;
  return {
    store: createS3ReportStore({
      client: new S3Client({}),
      bucket: requireEnv(ENV.reportBucket, env),
    }),
    trigger: createSqsReportTrigger({
      client: new SQSClient({}),
      queueUrl: requireEnv(ENV.reportRefreshQueueUrl, env),
    }),
    source: refreshSource(
      config,
      pacedUpstream(
        config,
        pacer
          ? () => pacer
          : // No maxWaitMs: the refresh's own deadline bounds each wait (see refresh.ts).
            sharedPacerFactory({
              client: new DynamoDBClient({}),
              tableName: requireEnv(ENV.ledgerTable, env),
            }),
      ),
      { onUnauthorized: () => config.refresh() },
    ),
    events: refreshEvents,
  };
}
