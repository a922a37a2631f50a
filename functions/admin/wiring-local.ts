/**
 * The admin function's local adapters: the config file, the ledger and the queue on the local
 * DynamoDB, the local queue's own redrive, and the accounts' named branches (the file's, and
 * those learned on the local ledger table).
 */
import { localConfigSource } from '../config/config-local.ts';
import { localServices } from '../kernel/local-services.ts';
import { localLeadQueue, localLedger } from '../ledger/ledger-local.ts';
import { localBranchDirectory } from '../upstream/branch-names-local.ts';
import { dynamoUpstreamHealth } from '../upstream/health-dynamodb.ts';
import type { AdminDeps } from './admin.ts';
import { createLocalDlqRedrive } from './dlq-redrive-local.ts';

export function localAdminDeps(): Omit<AdminDeps, 'events'> {
  const queue = localLeadQueue();
  return {
    config: localConfigSource(),
    branches: localBranchDirectory(),
    ledger: localLedger(),
    upstream: dynamoUpstreamHealth({
      client: localServices().dynamo,
      tableName: localServices().ledgerTable,
    }),
    queue,
    redrive: createLocalDlqRedrive(queue),
    // The local configuration file holds demo values: the set-up kit prints them.
    kit: {
      secretsWhere: (profile) =>
        `the configuration file (${process.env.LEADS_CONFIG ?? 'config/demo.json'}), profiles.${profile}`,
      secretValues: 'inline',
    },
  };
}
