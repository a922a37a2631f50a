/**
 * The failed-sign-in counters and familiar addresses (auth-throttle.ts) as items of the ledger
 * table, shared by every authorizer instance:
 * - counters: `pk = authfail#user#<sha256>` or `authfail#addr#<sha256>`, `kind = 'authfail'`,
 *   `failures`, `lastFailureAt` (epoch ms), `expiresAt` (the table's TTL);
 * - familiar addresses: `pk = authfail#seen#<sha256>`, `kind = 'authseen'`, `seenAt` (epoch ms),
 *   `expiresAt`. One unconditional UpdateItem writes it (the last right password wins).
 *
 * A failure is one conditional UpdateItem, no read-modify-write:
 * - while the record still counts (`lastFailureAt >= forgetBefore`, or no item):
 *   `failures = failures + 1` (an atomic increment: concurrent failures each count);
 * - once it is stale: `failures = 1`, conditional on it still being stale.
 * A caller whose condition failed (the record turned stale, or was restarted by another caller
 * between the two forms) tries the other form. IAM: GetItem and UpdateItem on the table,
 * restricted by `dynamodb:LeadingKeys` to `authfail#*`; nothing is ever deleted (TTL does it).
 */
import type { AuthThrottleStore, FailureRecord } from './auth-throttle.ts';
import { type DynamoDb, type Item, isConditionFailed } from './dynamodb-aws.ts';

/** The DynamoDB actions of this store (infra grants exactly these on `authfail#*`). */
export const AUTH_THROTTLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

export interface DynamoAuthThrottleOptions {
  client: DynamoDb;
  tableName: string;
}

const ROUNDS = 4;

function recordOf(item: Item | undefined): FailureRecord | undefined {
  const failures = Number(item?.failures);
  const lastFailureAt = Number(item?.lastFailureAt);
  if (!Number.isFinite(failures) || !Number.isFinite(lastFailureAt)) return undefined;
  return { failures, lastFailureAt };
}

export function createDynamoAuthThrottleStore(
  options: DynamoAuthThrottleOptions,
): AuthThrottleStore {
  const { client, tableName } = options;
  const key = (pk: string) => ({ pk });

  /** One form of the failure update; the record after it, undefined when its condition failed. */
  async function update(
    pk: string,
    form: 'increment' | 'restart',
    now: number,
    forgetBefore: number,
    expiresAt: number,
  ): Promise<FailureRecord | undefined> {
    try {
      const out = await client.update({
        TableName: tableName,
        Key: key(pk),
        UpdateExpression:
          form === 'increment'
            ? 'SET failures = if_not_exists(failures, :zero) + :one, lastFailureAt = :now, expiresAt = :exp, kind = :kind'
            : 'SET failures = :one, lastFailureAt = :now, expiresAt = :exp, kind = :kind',
        ConditionExpression:
          form === 'increment'
            ? 'attribute_not_exists(pk) OR lastFailureAt >= :forget'
            : 'lastFailureAt < :forget',
        ExpressionAttributeValues: {
          ...(form === 'increment' && { ':zero': 0 }),
          ':one': 1,
          ':now': now,
          ':exp': expiresAt,
          ':kind': 'authfail',
          ':forget': forgetBefore,
        },
        ReturnValues: 'ALL_NEW',
      });
      return recordOf(out.Attributes);
    } catch (error) {
      if (isConditionFailed(error)) return undefined;
      throw error;
    }
  }

  const get = async (pk: string) =>
    (await client.get({ TableName: tableName, Key: key(pk), ConsistentRead: true })).Item;

  return {
    async read(pk) {
      return recordOf(await get(pk));
    },

    async recordFailure(pk, now, forgetBefore, expiresAt) {
      for (let round = 0; round < ROUNDS; round++) {
        const form = round % 2 === 0 ? 'increment' : 'restart';
        const record = await update(pk, form, now, forgetBefore, expiresAt);
        if (record) return record;
      }
      throw new Error('auth throttle: the failure counter kept changing; try again');
    },

    async readSeen(pk) {
      const seenAt = Number((await get(pk))?.seenAt);
      return Number.isFinite(seenAt) ? seenAt : undefined;
    },

    async recordSeen(pk, now, expiresAt) {
      await client.update({
        TableName: tableName,
        Key: key(pk),
        UpdateExpression: 'SET seenAt = :now, expiresAt = :exp, kind = :kind',
        ExpressionAttributeValues: { ':now': now, ':exp': expiresAt, ':kind': 'authseen' },
      });
    },
  };
}
