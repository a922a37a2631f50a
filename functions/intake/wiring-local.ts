/**
 * The intake's local adapters: the config file, the ledger and queue on the local DynamoDB, the
 * accounts' named branches (the file's, and those learned on the local ledger table).
 */
import { localConfigSource } from '../config/config-local.ts';
import { localAuthThrottleStore } from '../kernel/auth-throttle-local.ts';
import { localLeadQueue, localLedger } from '../ledger/ledger-local.ts';
import { localBranchDirectory } from '../upstream/branch-names-local.ts';
import { intakeEvents } from './events.ts';
import type { IntakeDeps } from './intake-deps.ts';
import { createTokenGuessThrottle } from './token-guessing.ts';

export function localIntakeDeps(): IntakeDeps {
  return {
    config: localConfigSource(),
    ledger: localLedger(),
    queue: localLeadQueue(),
    branches: localBranchDirectory(),
    events: intakeEvents,
    // The same counters as on AWS, on the local ledger table.
    tokenGuesses: createTokenGuessThrottle(localAuthThrottleStore()),
  };
}
