/**
 * The quiet-profile watch Lambda (quiet-profiles.ts): EventBridge Scheduler invokes it every
 * WATCH_INTERVAL_MINUTES; it publishes to the alarm topic (ALERT_TOPIC_ARN), or logs the alert
 * when no topic is configured. Logs profile names and counts only (events.ts). Under `npm start`
 * the same watch runs from service-local.ts.
 */

import { flushMetrics } from '../kernel/observability.ts';
import { handlerWiring } from '../kernel/ready.ts';
import { ALERT_TOPIC_ENV, CONSOLE_URL_ENV } from './alert-env.ts';
import { watchEvents } from './events.ts';
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
    : async (alert: Alert) => watchEvents.alertLogged(alert);
  const consoleUrl = env[CONSOLE_URL_ENV];
  const [
    { createDynamoDb },
    { createAwsConfigSource },
    { createDynamoLedger },
    { ENV, requireEnv },
  ] = await Promise.all([
    import('../kernel/dynamodb-aws.ts'),
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

// No local wiring: the local runtime runs the watch as a service of its own (service-local.ts).
const wiring = handlerWiring({ aws: () => deps(process.env) });

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

export async function handler(): Promise<WatchResult> {
  try {
    const result = await watchQuietProfiles(await wiring.get());
    watchEvents.ran(result);
    return result;
  } finally {
    flushMetrics();
  }
}
