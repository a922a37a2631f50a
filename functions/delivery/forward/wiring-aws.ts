/**
 * The forwarder's AWS adapters: configuration from LEADS_SETTINGS and Secrets Manager, the
 * DynamoDB ledger (which also holds the shared pacer item), SQS for message visibility and for
 * re-sending a held-back lead.
 * Environment (set by the stack): LEDGER_TABLE_NAME, LEAD_QUEUE_URL, MAX_ATTEMPTS (optional,
 * default 8), plus config-aws's LEADS_SETTINGS and LEADS_SECRETS_PREFIX.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createAwsConfigSource } from '../config/config-aws.ts';
import { PROFILE_RULES } from '../config/profile-rules.ts';
import { ENV, requireEnv } from '../kernel/env.ts';
import { createDynamoLedger } from '../ledger/lead-ledger-dynamodb.ts';
import { createSqsLeadQueue } from '../ledger/lead-queue-sqs.ts';
import { pacedUpstream } from '../upstream/paced-client.ts';
import { sharedPacerFactory } from '../upstream/pacer-dynamodb.ts';
import { forwardEvents } from './events.ts';
import { DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_PACING_WAIT_MS } from './forward.ts';
import type { DeliveryHandlerDeps } from './handler.ts';

/** MAX_ATTEMPTS: a whole number ≥ 1, default 8. */
export function maxAttemptsFrom(env: NodeJS.ProcessEnv): number {
  const raw = env[ENV.maxAttempts]?.trim();
  if (!raw) return DEFAULT_MAX_ATTEMPTS;
  const value = Number(raw);
  if (!(Number.isInteger(value) && value >= 1)) {
    throw new Error(`environment variable MAX_ATTEMPTS must be a whole number ≥ 1, got "${raw}"`);
  }
  return value;
}

export function awsDeliveryDeps(env: NodeJS.ProcessEnv = process.env): DeliveryHandlerDeps {
  const config = createAwsConfigSource(env, PROFILE_RULES);
  const dynamo = new DynamoDBClient({});
  const sqs = new SQSClient({});
  const queueUrl = requireEnv(ENV.leadQueueUrl, env);
  const tableName = requireEnv(ENV.ledgerTable, env);
  const options = {
    maxAttempts: maxAttemptsFrom(env),
    maxPacingWaitMs: DEFAULT_MAX_PACING_WAIT_MS,
  };
  return {
    forward: {
      ledger: createDynamoLedger({ client: dynamo, tableName }),
      config,
      upstream: pacedUpstream(
        config,
        sharedPacerFactory({ client: dynamo, tableName }, { maxWaitMs: options.maxPacingWaitMs }),
      ),
      events: forwardEvents,
      // A 401 may mean the secret was rotated: the next read goes to Secrets Manager.
      onUnauthorized: () => config.refresh(),
      options,
    },
    sqs,
    queueUrl,
    queue: createSqsLeadQueue({ client: sqs, queueUrl }),
  };
}
