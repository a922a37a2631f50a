/**
 * The upstream's health as the admin routes read it, from the ledger table: the account's
 * circuit item and its pacer item (both written by delivery).
 */
import type { DynamoDb } from '../kernel/dynamodb-aws.ts';
import type { CircuitState } from './circuit.ts';
import { createDynamoCircuit } from './circuit-dynamodb.ts';
import { pacerKey, readPacerNextSlot } from './pacer-dynamodb.ts';

export interface UpstreamHealthReader {
  /** The account's circuit (default `default`). */
  circuit(account?: string): Promise<CircuitState>;
  pacerNextSlot(account?: string): Promise<number | undefined>;
}

export function dynamoUpstreamHealth(table: {
  client: DynamoDb;
  tableName: string;
}): UpstreamHealthReader {
  return {
    circuit: (account) =>
      createDynamoCircuit({ ...table, ...(account !== undefined && { account }) }).read(),
    pacerNextSlot: (account) => readPacerNextSlot({ ...table, key: pacerKey(account) }),
  };
}
