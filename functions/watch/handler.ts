/**
 * The quiet-profile watch Lambda (quiet-profiles.ts): EventBridge Scheduler invokes it every
 * WATCH_INTERVAL_MINUTES; it publishes to the alarm topic (ALERT_TOPIC_ARN), or logs the alert
 * when no topic is configured. Logs profile names and counts only. Under `npm start` the same
 * watch runs from service-local.ts.
 */

import { METRICS } from '../kernel/metrics.ts';
import { count, flushMetrics, logger } from '../kernel/observability.ts';
import { deployedWiring } from '../kernel/ready.ts';
import { ALERT_TOPIC_ENV, CONSOLE_URL_ENV } from './alert-env.ts';
import {
  type Alert,
  type WatchDeps,
  type WatchResult,
  watchQuietProfiles,
} from './quiet-profiles.ts';

async function deps(env: NodeJS.ProcessEnv): Promise<WatchDeps> {
  const topicArn = env[ALERT_TOPIC_ENV];
  const notify = topicArn
    ? (() => {
        // Loaded only when an alert is sent (most runs send none).
        const sns = import('@aws-sdk/client-sns').then(({ SNSClient }) => new SNSClient({}));
        return async (alert: Alert) => {
          const { PublishCommand } = await import('@aws-sdk/client-sns');
          await (await sns).send(
            new PublishCommand({
              TopicArn: topicArn,
              Subject: alert.subject,
              Message: alert.message,
            }),
          );
        };
      })()
    : async (alert: Alert) => {
        logger.warn('quiet profiles (no alert topic configured)', { subject: alert.subject });
      };
  const consoleUrl = env[CONSOLE_URL_ENV];
  const [
    { createDynamoDb },
    { createAwsConfigSource },
    { createDynamoLedger },
    { ENV, requireEnv },
  ] = await Promise.all([
    import('../kernel/aws/dynamodb.ts'),
    import('../config/config-aws.ts'),
    import('../ledger/lead-ledger-dynamodb.ts'),
    import('../kernel/env.ts'),
  ]);
  return {
    config: createAwsConfigSource(env),
    ledger: createDynamoLedger({
      client: createDynamoDb(),
      tableName: requireEnv(ENV.ledgerTable, env),
    }),
    notify,
    ...(consoleUrl && { consoleUrl }),
  };
}

const deployed = deployedWiring(() => deps(process.env));

/** Settles once the deployed wiring is loaded (kernel/ready.ts). */
export const ready = deployed.ready;

export async function handler(): Promise<WatchResult> {
  try {
    const result = await watchQuietProfiles(await deployed.get());
    logger.info('quiet-profile watch ran', {
      watched: result.watched,
      scanned: result.scanned,
      quiet: result.quiet.map((q) => q.profile),
    });
    if (result.quiet.length > 0) count(METRICS.profilesQuiet, result.quiet.length);
    return result;
  } finally {
    flushMetrics();
  }
}
