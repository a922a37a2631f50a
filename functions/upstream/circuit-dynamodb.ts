/**
 * The upstream circuit (circuit.ts) on one DynamoDB item in the ledger table, beside the pacer's:
 * `pk = circuit#<account>`, the state's fields and a revision number. Every transition is a
 * conditional put on the revision it was computed from, so concurrent instances never overwrite
 * each other's transitions; a refused put is recomputed from a fresh read.
 */

import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import { type DynamoDb, isConditionFailed } from '../kernel/dynamodb-aws.ts';
import {
  type Circuit,
  type CircuitOptions,
  type CircuitState,
  CLOSED,
  createCircuit,
} from './circuit.ts';

/**
 * The circuit item of an upstream account (kernel/accounts.ts): `circuit#upstream` for
 * `default`, `circuit#upstream#<name>` for the others (beside their pacer items).
 */
export function circuitKey(account = DEFAULT_ACCOUNT): string {
  return account === DEFAULT_ACCOUNT ? 'circuit#upstream' : `circuit#upstream#${account}`;
}

export interface DynamoCircuitOptions {
  client: DynamoDb;
  tableName: string;
  /** The account (default `default`); `key` overrides its item (tests). */
  account?: string;
  key?: string;
  options?: CircuitOptions;
}

const FIELDS = [
  'state',
  'failures',
  'openedAt',
  'probeAt',
  'probeIntervalMs',
  'lastSuccessAt',
  'lastFailureAt',
  'reason',
  'carrier',
  'carrierUntil',
] as const;

function fromItem(item: Record<string, unknown> | undefined): {
  state: CircuitState;
  revision: number;
} {
  if (!item) return { state: CLOSED, revision: 0 };
  const state: Record<string, unknown> = {};
  for (const field of FIELDS) if (item[field] !== undefined) state[field] = item[field];
  return {
    state: { ...CLOSED, ...(state as Partial<CircuitState>) },
    revision: Number(item.rev ?? 0),
  };
}

export function createDynamoCircuit(options: DynamoCircuitOptions): Circuit {
  const key = options.key ?? circuitKey(options.account);
  const doc = options.client;
  return createCircuit(
    {
      async read() {
        const out = await doc.get({
          TableName: options.tableName,
          Key: { pk: key },
          ConsistentRead: true,
        });
        return fromItem(out.Item);
      },
      async write(next, revision) {
        try {
          await doc.put({
            TableName: options.tableName,
            Item: { pk: key, kind: 'circuit', rev: revision + 1, ...next },
            ConditionExpression: revision === 0 ? 'attribute_not_exists(pk)' : 'rev = :rev',
            ...(revision !== 0 && { ExpressionAttributeValues: { ':rev': revision } }),
          });
          return true;
        } catch (error) {
          if (isConditionFailed(error)) return false;
          throw error;
        }
      },
    },
    options.options,
  );
}
