/** The intake's local adapters: the config file, the ledger and queue on the local DynamoDB. */
import { localConfigSource } from '../shared/config-local.ts';
import { createDynamoLedger } from '../shared/lead-ledger-dynamodb.ts';
import { createLocalLeadQueue } from '../shared/lead-queue-local.ts';
import { localServices } from '../shared/local-services.ts';
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
