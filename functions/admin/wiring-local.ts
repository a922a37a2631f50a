/**
 * The admin function's local adapters: the config file, the ledger and the queue on the local
 * DynamoDB, and the local queue's own redrive.
 */
import { localConfigSource } from '../shared/config-local.ts';
import { createLocalDlqRedrive } from '../shared/dlq-redrive-local.ts';
import { createDynamoLedger } from '../shared/lead-ledger-dynamodb.ts';
import { createLocalLeadQueue } from '../shared/lead-queue-local.ts';
import { localServices } from '../shared/local-services.ts';
import type { AdminDeps } from './admin.ts';

export function localAdminDeps(): Omit<AdminDeps, 'events'> {
  const services = localServices();
  const queue = createLocalLeadQueue({
    client: services.dynamo,
    tableName: services.queueTable,
    maxReceiveCount: services.maxReceiveCount,
  });
  return {
    config: localConfigSource(),
    ledger: createDynamoLedger({ client: services.dynamo, tableName: services.ledgerTable }),
    queue,
    redrive: createLocalDlqRedrive(queue),
  };
}
