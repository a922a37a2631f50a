/**
 * A dynalite instance for one test file (in memory unless a data dir is given), and fresh
 * ledger tables on it so that tests in the file do not see each other's leads.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDb } from '../../functions/kernel/dynamodb-aws.ts';
import { LEDGER_TABLE_DEFINITION } from '../../functions/ledger/lead-item-dynamodb.ts';
import { ensureTable, startLocalDynamo } from '../../local/dynamodb-local.ts';

/**
 * The erasure salt of the tests' ledgers (the deployed one is in Secrets Manager, the local
 * runtime's under DATA_DIR): a ledger without one refuses to record leads.
 */
export const TEST_ERASURE_SALT = async () => 'test-erasure-salt-0123456789abcdef0123456789';

export interface TestDynamo {
  endpoint: string;
  /** The functions' DynamoDB client (the SDK's document client) on this endpoint. */
  client: DynamoDb;
  /** An AWS SDK client for table administration (`ensureTable`). */
  admin: DynamoDBClient;
  /** Creates an empty ledger table with a new name and returns the name. */
  createLedgerTable(): Promise<string>;
  close(): Promise<void>;
}

export async function startTestDynamo(dataDir?: string): Promise<TestDynamo> {
  const local = await startLocalDynamo(dataDir === undefined ? {} : { dataDir });
  let tables = 0;
  return {
    endpoint: local.endpoint,
    client: local.client,
    admin: local.admin,
    async createLedgerTable() {
      tables += 1;
      const name = `leads-test-${tables}`;
      await ensureTable(local.admin, LEDGER_TABLE_DEFINITION, name);
      return name;
    },
    close: () => local.close(),
  };
}
