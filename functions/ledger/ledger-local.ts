/**
 * The ledger and the lead queue as the local runtime's functions use them: the same DynamoDB
 * code as on AWS, on the local DynamoDB the runtime started (kernel/local-services.ts), the
 * erasure salt from DATA_DIR (erasure-salt-local.ts).
 */
import { localServices } from '../kernel/local-services.ts';
import type { LeadLedger } from './lead-ledger.ts';
import { createDynamoLedger } from './lead-ledger-dynamodb.ts';
import { createLocalLeadQueue, type LocalLeadQueue } from './lead-queue-local.ts';

export function localLedger(): LeadLedger {
  const services = localServices();
  const { erasureSalt } = services;
  return createDynamoLedger({
    client: services.dynamo,
    tableName: services.ledgerTable,
    wakeGraceMs: services.wakeGraceMs,
    // The salt the runtime keeps under DATA_DIR (one machine: every local function has it).
    ...(erasureSalt !== undefined && { erasureSalt: async () => erasureSalt }),
  });
}

export function localLeadQueue(): LocalLeadQueue {
  const services = localServices();
  return createLocalLeadQueue({
    client: services.dynamo,
    tableName: services.queueTable,
    maxReceiveCount: services.maxReceiveCount,
  });
}
