/**
 * The forwarder's AWS adapters: configuration from the configuration store (AppConfig) and
 * Secrets Manager (config/config-aws.ts, with the sources' profile rules: delivery reads
 * profiles), the DynamoDB ledger (which also holds the account's pacer and circuit items, and
 * the accounts' learned branch names: upstream/branch-names-dynamodb.ts), SQS
 * for message visibility and for the wake-up messages. The variables are set by the stack
 * (kernel/env.ts names them).
 */
import { createAwsConfigSource } from '../../config/config-aws.ts';
import { PROFILE_RULES } from '../../config/profile-rules.ts';
import { createDynamoDb } from '../../kernel/dynamodb-aws.ts';
import { ENV, requireEnv } from '../../kernel/env.ts';
import { createSqs } from '../../kernel/sqs-aws.ts';
import { createDynamoLedger } from '../../ledger/lead-ledger-dynamodb.ts';
import { createSqsLeadQueue } from '../../ledger/lead-queue-sqs.ts';
import { dynamoBranchDirectory } from '../../upstream/branch-names-dynamodb.ts';
import { createDynamoCircuit } from '../../upstream/circuit-dynamodb.ts';
import { pacedUpstream } from '../../upstream/paced-client.ts';
import { sharedPacerFactory } from '../../upstream/pacer-dynamodb.ts';
import { DEFAULT_MAX_PACING_WAIT_MS } from './attempt.ts';
import { forwardEvents } from './events.ts';
import type { DeliveryHandlerDeps } from './handler.ts';

export function awsDeliveryDeps(env: NodeJS.ProcessEnv = process.env): DeliveryHandlerDeps {
  const config = createAwsConfigSource(env, { rules: PROFILE_RULES });
  const dynamo = createDynamoDb();
  const sqs = createSqs();
  const queueUrl = requireEnv(ENV.leadQueueUrl, env);
  const tableName = requireEnv(ENV.ledgerTable, env);
  const options = { maxPacingWaitMs: DEFAULT_MAX_PACING_WAIT_MS };
  const access = pacedUpstream(
    config,
    // markLeads: the refresher yields the account's slots while its leads are sent.
    sharedPacerFactory(
      { client: dynamo, tableName },
      { maxWaitMs: options.maxPacingWaitMs, markLeads: true },
    ),
  );
  const queue = createSqsLeadQueue({ client: sqs, queueUrl });
  return {
    forward: {
      ledger: createDynamoLedger({ client: dynamo, tableName }),
      // The attempt that closes a circuit wakes the leads that waited for it (delivery/waiting.ts).
      queue,
      config,
      branches: dynamoBranchDirectory(config, { client: dynamo, tableName }),
      upstream: async (account) => ({
        ...(await access(account)),
        circuit: createDynamoCircuit({ client: dynamo, tableName, account }),
      }),
      events: forwardEvents,
      // A 401 may mean the secret was rotated: the next read goes to Secrets Manager.
      onUnauthorized: () => config.refresh(),
      options,
    },
    sqs,
    queueUrl,
    queue,
  };
}
