/**
 * The report function's AWS adapters: configuration (clients) from Secrets Manager, the S3
 * report store (read only) and the SQS refresh trigger (send only).
 *
 * A warm container keeps the last snapshot it read for SNAPSHOT_REUSE_MS, so a dashboard's burst
 * of requests (page, JSON, CSV) does not download and parse megabytes from S3 for each one; a
 * new snapshot is therefore served at most that long after it is written.
 */
import { createAwsConfigSource } from '../../config/config-aws.ts';
import { ENV, requireEnv } from '../../kernel/env.ts';
import { createS3 } from '../../kernel/s3-aws.ts';
import { createSqs } from '../../kernel/sqs-aws.ts';
import type { ReportStore, StoredSnapshot } from '../store/report-store.ts';
import { createS3ReportStore } from '../store/report-store-s3.ts';
import { createSqsReportTrigger } from '../trigger/report-trigger-sqs.ts';
import type { ReportDeps } from './serve.ts';

export const SNAPSHOT_REUSE_MS = 15_000;

/** readSnapshot answered from memory for `reuseMs` after each read; readStatus always read. */
export function reuseSnapshot(
  store: Pick<ReportStore, 'readSnapshot' | 'readStatus'>,
  reuseMs = SNAPSHOT_REUSE_MS,
  clock: () => number = Date.now,
): Pick<ReportStore, 'readSnapshot' | 'readStatus'> {
  let kept: { value: StoredSnapshot; until: number } | undefined;
  return {
    async readSnapshot() {
      if (kept && kept.until > clock()) return kept.value;
      const value = await store.readSnapshot();
      kept = value ? { value, until: clock() + reuseMs } : undefined;
      return value;
    },
    readStatus: () => store.readStatus(),
  };
}

export function awsReportDeps(env: NodeJS.ProcessEnv = process.env): Omit<ReportDeps, 'events'> {
  const client = createS3();
  const bucket = requireEnv(ENV.reportBucket, env);
  // One reusing store per account, made on first use.
  const stores = new Map<string, ReturnType<typeof reuseSnapshot>>();
  return {
    config: createAwsConfigSource(env),
    stores: (account) => {
      let store = stores.get(account);
      if (!store) {
        store = reuseSnapshot(createS3ReportStore({ client, bucket, account }));
        stores.set(account, store);
      }
      return store;
    },
    trigger: createSqsReportTrigger({
      client: createSqs(),
      queueUrl: requireEnv(ENV.reportRefreshQueueUrl, env),
    }),
  };
}
