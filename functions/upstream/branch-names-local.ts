/**
 * The learned branch names and the branch directory as the local runtime's functions use them:
 * the DynamoDB adapter (branch-names-dynamodb.ts) on the local ledger table the runtime started
 * (kernel/local-services.ts, looked up when used, so that a wiring may be made before start-up
 * finishes), and the configured names from the local configuration file.
 */
import { localConfigSource } from '../config/config-local.ts';
import { localServices } from '../kernel/local-services.ts';
import {
  type BranchDirectory,
  createBranchDirectory,
  type LearnedBranchNames,
} from './branch-directory.ts';
import { dynamoBranchNames, learnedNamesUnreadable } from './branch-names-dynamodb.ts';

/** Each account's learned names on the local ledger table. */
export function localBranchNames(): LearnedBranchNames {
  const names = () => {
    const services = localServices();
    return dynamoBranchNames({ client: services.dynamo, tableName: services.ledgerTable });
  };
  return {
    read: (account) => names().read(account),
    write: (account, learned) => names().write(account, learned),
  };
}

/** Each account's directory: the configuration file's names, then the learned ones. */
export function localBranchDirectory(): BranchDirectory {
  const config = localConfigSource();
  return createBranchDirectory({
    configured: () => config.branches(),
    learned: localBranchNames(),
    onLearnedError: learnedNamesUnreadable,
  });
}
