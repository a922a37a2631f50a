/**
 * Each account's learned branch names (branch-directory.ts) on one DynamoDB item in the ledger
 * table, beside the pacer's and the circuit's: `pk = branches#<account>`, `names` (branch id →
 * name) and `updatedAt`. The refresher writes it after a successful refresh (PutItem granted on
 * `branches#*` only, infra/constructs/lead-store.ts); the intake, delivery and the admin read it
 * with the GetItem they already have on the table (dynamoBranchDirectory). Names of branches are
 * no personal data.
 */
import type { ConfigSource } from '../config/config-source.ts';
import type { DynamoDb } from '../kernel/dynamodb-aws.ts';
import { logger } from '../kernel/observability.ts';
import {
  type BranchDirectory,
  createBranchDirectory,
  type LearnedBranchNames,
  type LearnedNames,
} from './branch-directory.ts';

/** The item's partition key prefix (IAM names it). */
export const BRANCH_NAMES_KEY_PREFIX = 'branches#';

/** The item of an account's learned names. */
export function branchNamesKey(account: string): string {
  return `${BRANCH_NAMES_KEY_PREFIX}${account}`;
}

/** The names of an item as read, anything that is not an id → name pair left out. */
function namesOf(value: unknown): LearnedNames {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const names: LearnedNames = {};
  for (const [id, name] of Object.entries(value)) {
    if (/^\d+$/.test(id) && typeof name === 'string' && name.trim()) names[Number(id)] = name;
  }
  return names;
}

export function dynamoBranchNames(options: {
  client: DynamoDb;
  tableName: string;
  now?: () => Date;
}): LearnedBranchNames {
  const { client, tableName } = options;
  const now = options.now ?? (() => new Date());
  return {
    async read(account) {
      const out = await client.get({ TableName: tableName, Key: { pk: branchNamesKey(account) } });
      return namesOf(out.Item?.names);
    },
    async write(account, names) {
      await client.put({
        TableName: tableName,
        Item: {
          pk: branchNamesKey(account),
          kind: 'branch-names',
          names: Object.fromEntries(Object.entries(names).map(([id, name]) => [id, name])),
          updatedAt: now().toISOString(),
        },
      });
    },
  };
}

/** A learned list that cannot be read: logged (no personal data), the configured names used. */
export function learnedNamesUnreadable(event: { account: string; error: unknown }): void {
  logger.warn('learned branch names unreadable: the configured names are used', event);
}

/**
 * Each account's directory over the configuration's names and the learned names of this table
 * (the AWS wirings of the intake, delivery and the admin; the local ones: branch-names-local.ts).
 */
export function dynamoBranchDirectory(
  config: Pick<ConfigSource, 'branches'>,
  table: { client: DynamoDb; tableName: string },
): BranchDirectory {
  return createBranchDirectory({
    configured: () => config.branches(),
    learned: dynamoBranchNames(table),
    onLearnedError: learnedNamesUnreadable,
  });
}
