/**
 * The refresher's AWS adapters: the settings (the configuration store) and Secrets Manager, the
 * report bucket (S3; each account's report under its prefix), the `refresh` queue (SQS) for
 * each account's requests and continuations, and the accounts' pacer items in the ledger table
 * (DynamoDB; GetItem/UpdateItem on `pacer#upstream*` only), shared with delivery, and the
 * accounts' learned branch names there too (PutItem on `branches#*` only), and the refresh
 * lease's item in the same table (`lease#report-refresh` only) with the queue to send a
 * deferred request to. The variables are set by infra/constructs/debtors-report.ts and the
 * configuration store.
 */
import { createAwsConfigSource } from '../../config/config-aws.ts';
import { createDynamoDb } from '../../kernel/dynamodb-aws.ts';
import { ENV, requireEnv } from '../../kernel/env.ts';
import { createS3 } from '../../kernel/s3-aws.ts';
import { createSqs } from '../../kernel/sqs-aws.ts';
import { dynamoBranchNames } from '../../upstream/branch-names-dynamodb.ts';
import { pacedUpstream } from '../../upstream/paced-client.ts';
import type { Pacer } from '../../upstream/pacer.ts';
import { sharedPacerFactory } from '../../upstream/pacer-dynamodb.ts';
import { s3ReportStores } from '../store/report-store-s3.ts';
import { encodeRefreshMessage } from '../trigger/report-trigger.ts';
import { createSqsReportTrigger } from '../trigger/report-trigger-sqs.ts';
import { leaseEvents, refreshEvents } from './events.ts';
import type { LeasedRefreshDeps } from './lease.ts';
import { createDynamoRefreshLease } from './lease-dynamodb.ts';
import { type AccountsRefreshDeps, refreshSource, YIELD_TO_LEADS_MS } from './refresh.ts';

/** The refresher on AWS: the use case's ports and the refresh lease (lease.ts). */
export interface AwsRefresherDeps extends AccountsRefreshDeps {
  lease: Omit<LeasedRefreshDeps, 'ttlMs'>;
}

export function awsRefreshDeps(
  options: { pacer?: Pacer } = {},
  env: NodeJS.ProcessEnv = process.env,
): AwsRefresherDeps {
  const config = createAwsConfigSource(env);
  const { pacer } = options;
  const sqs = createSqs();
  const queueUrl = requireEnv(ENV.reportRefreshQueueUrl, env);
  const tableName = requireEnv(ENV.ledgerTable, env);
  const dynamo = createDynamoDb();
  return {
    config,
    branchNames: dynamoBranchNames({ client: dynamo, tableName }),
    stores: s3ReportStores({ client: createS3(), bucket: requireEnv(ENV.reportBucket, env) }),
    trigger: createSqsReportTrigger({ client: sqs, queueUrl }),
    lease: {
      lease: createDynamoRefreshLease({ client: dynamo, tableName }),
      async defer(message, delaySeconds) {
        const body = encodeRefreshMessage(message);
        await sqs.sendMessage({
          QueueUrl: queueUrl,
          MessageBody: body,
          DelaySeconds: delaySeconds,
        });
      },
      events: leaseEvents,
    },
    source: refreshSource(
      config,
      pacedUpstream(
        config,
        pacer
          ? () => pacer
          : // No maxWaitMs: the refresh's own deadline bounds each wait (see refresh.ts).
            // Leads first: it yields while the account's leads are being sent.
            sharedPacerFactory(
              { client: dynamo, tableName },
              { yieldToLeadsMs: YIELD_TO_LEADS_MS },
            ),
      ),
      { onUnauthorized: () => config.refresh() },
    ),
    events: refreshEvents,
  };
}
