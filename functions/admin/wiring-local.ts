/**
 * The admin function's local adapters: the config file, the ledger and the queue on the local
 * DynamoDB, and the local queue's own redrive.
 */
import { localConfigSource } from '../config/config-local.ts';
import { localServices } from '../kernel/local-services.ts';
import { createDynamoLedger } from '../ledger/lead-ledger-dynamodb.ts';
import { createLocalLeadQueue } from '../ledger/lead-queue-local.ts';
import type { AdminDeps } from './admin.ts';
import { createLocalDlqRedrive } from './dlq-redrive-local.ts';

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
