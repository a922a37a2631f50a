/**
 * The refresher's AWS adapters: the settings (the configuration store) and Secrets Manager, the
 * report bucket (S3; each account's report under its prefix), the `refresh` queue (SQS) for
 * each account's requests and continuations, and the accounts' pacer items in the ledger table
 * (DynamoDB; GetItem/UpdateItem on `pacer#upstream*` only), shared with delivery. The variables
 * are set by infra/constructs/debtors-report.ts and the configuration store.
 */
import { createAwsConfigSource } from '../../config/config-aws.ts';
import { createDynamoDb } from '../../kernel/aws/dynamodb.ts';
import { createS3 } from '../../kernel/aws/s3.ts';
import { createSqs } from '../../kernel/aws/sqs.ts';
import { ENV, requireEnv } from '../../kernel/env.ts';
import { pacedUpstream } from '../../upstream/paced-client.ts';
import type { Pacer } from '../../upstream/pacer.ts';
import { sharedPacerFactory } from '../../upstream/pacer-dynamodb.ts';
import { s3ReportStores } from '../store/report-store-s3.ts';
import { createSqsReportTrigger } from '../trigger/report-trigger-sqs.ts';
import { refreshEvents } from './events.ts';
import { type AccountsRefreshDeps, refreshSource, YIELD_TO_LEADS_MS } from './refresh.ts';

export function awsRefreshDeps(
  options: { pacer?: Pacer } = {},
  env: NodeJS.ProcessEnv = process.env,
): AccountsRefreshDeps {
  const config = createAwsConfigSource(env);
  const { pacer } = options;
  return {
    config,
    stores: s3ReportStores({ client: createS3(), bucket: requireEnv(ENV.reportBucket, env) }),
    trigger: createSqsReportTrigger({
      client: createSqs(),
      queueUrl: requireEnv(ENV.reportRefreshQueueUrl, env),
    }),
    source: refreshSource(
      config,
      pacedUpstream(
        config,
        pacer
          ? () => pacer
          : // No maxWaitMs: the refresh's own deadline bounds each wait (see refresh.ts).
            // Leads first: it yields while the account's leads are being sent.
            sharedPacerFactory(
              { client: createDynamoDb(), tableName: requireEnv(ENV.ledgerTable, env) },
              { yieldToLeadsMs: YIELD_TO_LEADS_MS },
            ),
      ),
      { onUnauthorized: () => config.refresh() },
    ),
    events: refreshEvents,
  };
}
