/** The intake's local adapters: the config file, the ledger and queue on the local DynamoDB. */
import { localConfigSource } from '../config/config-local.ts';
import { localLeadQueue, localLedger } from '../ledger/ledger-local.ts';
import { intakeEvents } from './events.ts';
import type { IntakeDeps } from './intake-deps.ts';

export function localIntakeDeps(): IntakeDeps {
  return {
    config: localConfigSource(),
    ledger: localLedger(),
    queue: localLeadQueue(),
    events: intakeEvents,
  };
}
