/**
 * The refresh lease (lease.ts) as one item of the ledger table, `pk = lease#report-refresh`:
 * `holder` (the Lambda request id that took it) and `leaseUntil` (epoch ms). Taking it is one
 * conditional UpdateItem (free, expired, or already ours); releasing it sets `leaseUntil` to 0 if
 * it is still ours. The refresher's role may touch this key alone (LeadStore.grantLease,
 * `dynamodb:LeadingKeys`).
 */
import { type DynamoDb, isConditionFailed } from '../../kernel/dynamodb-aws.ts';
import type { RefreshLease } from './lease.ts';

/** The lease item's partition key in the ledger table. */
export const REFRESH_LEASE_KEY = 'lease#report-refresh';

export function createDynamoRefreshLease(options: {
  client: DynamoDb;
  tableName: string;
}): RefreshLease {
  const { client, tableName } = options;
  const Key = { pk: REFRESH_LEASE_KEY };
  return {
    async acquire(holder, now, ttlMs) {
      try {
        await client.update({
          TableName: tableName,
          Key,
          UpdateExpression: 'SET holder = :holder, leaseUntil = :until',
          ConditionExpression:
            'attribute_not_exists(leaseUntil) OR leaseUntil <= :now OR holder = :holder',
          ExpressionAttributeValues: {
            ':holder': holder,
            ':until': now.getTime() + ttlMs,
            ':now': now.getTime(),
          },
        });
        return { taken: true };
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
      }
      const { Item } = await client.get({ TableName: tableName, Key, ConsistentRead: true });
      const until = Number(Item?.leaseUntil);
      // Released or expired between the two calls: the caller asks again a little later.
      return { taken: false, heldUntil: new Date(Number.isFinite(until) ? until : now.getTime()) };
    },
    async release(holder) {
      try {
        await client.update({
          TableName: tableName,
          Key,
          UpdateExpression: 'SET leaseUntil = :zero',
          ConditionExpression: 'holder = :holder',
          ExpressionAttributeValues: { ':holder': holder, ':zero': 0 },
        });
      } catch (error) {
        // Taken over after ours expired: nothing of ours to give back.
        if (!isConditionFailed(error)) throw error;
      }
    },
  };
}
