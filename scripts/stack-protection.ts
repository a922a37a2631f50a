/**
 * The ledger table's deletion protection, switched on by `npm run deploy` after CloudFormation
 * has created or updated the stack, and not by the template.
 *
 * Why not in the template: the table is `RetainExceptOnCreate`, so a failed FIRST create deletes
 * the (empty) table it made as it rolls back. With deletion protection in the template that
 * delete fails and the stack ends in ROLLBACK_FAILED, which only a delete with retained
 * resources clears. So the template leaves the property out (CloudFormation never touches it
 * afterwards), and once a create has succeeded this switches it on: from then on neither a
 * stack deletion (the table is retained anyway) nor a hand in the console deletes the leads.
 * `npm run destroy` leaves it on: the table stays, and docs/deploy.md says how to delete it
 * when that is really meant.
 */
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';

/** The stack output that names the ledger table (infra/leads-stack.ts). */
export const LEDGER_TABLE_OUTPUT = 'LedgerTableName';

export interface ProtectionClients {
  cloudFormation: Pick<CloudFormationClient, 'send'>;
  dynamo: Pick<DynamoDBClient, 'send'>;
}

/** What was done, as the deploy prints it (pt-BR). */
export interface ProtectionResult {
  table: string;
  changed: boolean;
  line: string;
}

/**
 * Switches the ledger table's deletion protection on when it is off. The table is found by the
 * stack's LedgerTableName output.
 */
export async function protectLedgerTable(
  stackName: string,
  clients: ProtectionClients,
): Promise<ProtectionResult> {
  const described = await clients.cloudFormation.send(
    new DescribeStacksCommand({ StackName: stackName }),
  );
  const table = described.Stacks?.[0]?.Outputs?.find(
    (o) => o.OutputKey === LEDGER_TABLE_OUTPUT,
  )?.OutputValue;
  if (!table) throw new Error(`a pilha ${stackName} não tem a saída ${LEDGER_TABLE_OUTPUT}`);
  const current = await clients.dynamo.send(new DescribeTableCommand({ TableName: table }));
  if (current.Table?.DeletionProtectionEnabled === true) {
    return { table, changed: false, line: `tabela ${table}: proteção contra exclusão já ligada` };
  }
  await clients.dynamo.send(
    new UpdateTableCommand({ TableName: table, DeletionProtectionEnabled: true }),
  );
  return { table, changed: true, line: `tabela ${table}: proteção contra exclusão ligada` };
}
