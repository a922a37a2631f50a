/**
 * The upstream's health as the admin routes read it, from the ledger table: the account's
 * circuit item and its pacer item (both written by delivery).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { CircuitState } from './circuit.ts';
import { createDynamoCircuit } from './circuit-dynamodb.ts';
import { readPacerNextSlot } from './pacer-dynamodb.ts';

export interface UpstreamHealthReader {
  circuit(): Promise<CircuitState>;
  pacerNextSlot(): Promise<number | undefined>;
}

export function dynamoUpstreamHealth(table: {
  client: DynamoDBClient;
  tableName: string;
}): UpstreamHealthReader {
  const circuit = createDynamoCircuit(table);
  return {
    circuit: () => circuit.read(),
    pacerNextSlot: () => readPacerNextSlot(table),
  };
}
