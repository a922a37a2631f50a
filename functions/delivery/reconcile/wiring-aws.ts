/**
 * The reconciler's AWS adapters: the DynamoDB ledger (its due index, and the wake-up write), the
 * accounts' circuit items, the settings (which account a profile's leads go to), and SQS to send
 * the wake-up messages. The variables are set by the
 * stack (kernel/env.ts names them).
 */

import { createAwsConfigSource } from '../../config/config-aws.ts';
import { answeringNames } from '../../config/profile-names.ts';
import { createDynamoDb } from '../../kernel/dynamodb-aws.ts';
import { ENV, requireEnv } from '../../kernel/env.ts';
import { createSqs } from '../../kernel/sqs-aws.ts';
import { createDynamoLedger } from '../../ledger/lead-ledger-dynamodb.ts';
import { createSqsLeadQueue } from '../../ledger/lead-queue-sqs.ts';
import { createDynamoCircuit } from '../../upstream/circuit-dynamodb.ts';
import { reconcileEvents } from './events.ts';
import type { ReconcileDeps } from './reconcile.ts';

/** What the reconciler Lambda runs with: reconcile's deps and the retention's setting. */
export interface ReconcilerDeps extends ReconcileDeps {
  /**
   * Days after which parked, dead and test leads lose their personal data: the settings'
   * `delivery.personalDataDays`, read from the configuration store at each retention run (a
   * `config push` changes it without a deploy).
   */
  personalDataDays(): Promise<number>;
  /** Every configured upstream account (for the circuits' gauge, handler.ts). */
  accounts(): Promise<string[]>;
}

export function awsReconcileDeps(env: NodeJS.ProcessEnv = process.env): ReconcilerDeps {
  const dynamo = createDynamoDb();
  const config = createAwsConfigSource(env);
  const tableName = requireEnv(ENV.ledgerTable, env);
  return {
    ledger: createDynamoLedger({ client: dynamo, tableName }),
    queue: createSqsLeadQueue({
      client: createSqs(),
      queueUrl: requireEnv(ENV.leadQueueUrl, env),
    }),
    circuitOf: (account) => createDynamoCircuit({ client: dynamo, tableName, account }),
    accountOf: (profile) => config.accountOf(profile),
    accounts: () => config.accounts(),
    // A profile back in the settings: the leads waiting for it go (delivery/waiting.ts).
    // A lead waiting under a former name (`formerly`) is woken too.
    profileNames: async () => answeringNames(await config.profileSettings()),
    personalDataDays: async () => (await config.delivery()).personalDataDays,
    events: reconcileEvents,
  };
}
