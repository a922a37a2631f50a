/**
 * The forwarder's local adapters: the same use case as the Lambda, with the ledger, the pacer and
 * the circuit on the local DynamoDB (every process on this data dir paces and probes together)
 * and the configuration file (with the accounts' learned branch names on that table). The worker
 * that runs it is service-local.ts.
 */
import { localConfigSource } from '../../config/config-local.ts';
import { localServices } from '../../kernel/local-services.ts';
import { localLedger } from '../../ledger/ledger-local.ts';
import { localBranchDirectory } from '../../upstream/branch-names-local.ts';
import type { CircuitOptions } from '../../upstream/circuit.ts';
import { createDynamoCircuit } from '../../upstream/circuit-dynamodb.ts';
import { pacedUpstream } from '../../upstream/paced-client.ts';
import { LOCAL_PACER_MARGIN_MS, sharedPacerFactory } from '../../upstream/pacer-dynamodb.ts';
import { DEFAULT_MAX_PACING_WAIT_MS, type ForwardDeps, type ForwardOptions } from './attempt.ts';
import { forwardEvents } from './events.ts';

/** The local adapters; the local runtime must have started its services. */
export function localDeliveryDeps(
  options: ForwardOptions = {},
  circuitOptions?: CircuitOptions,
): ForwardDeps {
  const services = localServices();
  const config = localConfigSource();
  const table = { client: services.dynamo, tableName: services.ledgerTable };
  const access = pacedUpstream(
    config,
    sharedPacerFactory(table, {
      maxWaitMs: options.maxPacingWaitMs ?? DEFAULT_MAX_PACING_WAIT_MS,
      // The refresher yields the account's slots while its leads are sent.
      markLeads: true,
      marginMs: LOCAL_PACER_MARGIN_MS,
    }),
  );
  return {
    ledger: localLedger(),
    config,
    branches: localBranchDirectory(),
    upstream: async (account) => ({
      ...(await access(account)),
      circuit: createDynamoCircuit({
        ...table,
        account,
        ...(circuitOptions !== undefined && { options: circuitOptions }),
      }),
    }),
    events: forwardEvents,
    options,
  };
}
