/** The intake's local adapters: the config file, the ledger and queue on the local DynamoDB. */
import { localConfigSource } from '../config/config-local.ts';
import { localServices } from '../kernel/local-services.ts';
import { createDynamoLedger } from '../ledger/lead-ledger-dynamodb.ts';
import { createLocalLeadQueue } from '../ledger/lead-queue-local.ts';
import { intakeEvents } from './events.ts';
import type { IntakeDeps } from './intake.ts';

export function localIntakeDeps(): IntakeDeps {
  const services = localServices();
  return {
    config: localConfigSource(),
    ledger: createDynamoLedger({ client: services.dynamo, tableName: services.ledgerTable }),
    queue: createLocalLeadQueue({
      client: services.dynamo,
      tableName: services.queueTable,
      maxReceiveCount: services.maxReceiveCount,
    }),
    events: intakeEvents,
  };
}
