/**
 * The functions' DynamoDB port on the SDK's document client (functions/kernel/dynamodb-aws.ts)
 * against dynalite, the DynamoDB protocol on this machine: values round-trip, a failed condition
 * is `ConditionalCheckFailedException`, pages carry their key, and what the service refuses comes
 * back as the SDK's error with its name. The SDK settings the delivery relies on (attempts, the
 * per-attempt deadline, the failed condition's item) are tested on a scripted server in
 * test/kernel/sdk-aws.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDynamoDb,
  type DynamoDb,
  isConditionFailed,
} from '../../functions/kernel/dynamodb-aws.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';

let dynamo: TestDynamo;
let db: DynamoDb;
let table: string;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  db = createDynamoDb({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  table = await dynamo.createLedgerTable();
});
afterAll(() => dynamo.close());

describe('DynamoDB port on the SDK client against dynalite', () => {
  it('writes and reads back strings, numbers, booleans, null, lists, maps, sets and bytes', async () => {
    const item = {
      pk: 'item#1',
      text: 'Ana Teste',
      count: 42,
      ratio: 0.25,
      ok: true,
      nothing: null,
      list: ['a', 1, { b: false }],
      map: { nested: { deep: 'yes' } },
      ids: new Set(['ld_1', 'ld_2']),
      bytes: new Uint8Array([0x1f, 0x8b, 0, 255]),
      skipped: undefined,
    };
    await db.put({ TableName: table, Item: item });
    const { Item } = await db.get({
      TableName: table,
      Key: { pk: 'item#1' },
      ConsistentRead: true,
    });
    const { skipped: _skipped, ...written } = item;
    expect(Item).toEqual(written);
    expect(Item && 'skipped' in Item).toBe(false);
  });

  it('answers an empty object for an item that does not exist', async () => {
    expect(await db.get({ TableName: table, Key: { pk: 'missing' } })).toEqual({});
  });

  it('updates with expressions and returns the new attributes', async () => {
    await db.put({ TableName: table, Item: { pk: 'counter', n: 1 } });
    const out = await db.update({
      TableName: table,
      Key: { pk: 'counter' },
      UpdateExpression: 'SET n = n + :one, #s = :s',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':one': 1, ':s': 'queued' },
      ReturnValues: 'ALL_NEW',
    });
    expect(out.Attributes).toEqual({ pk: 'counter', n: 2, status: 'queued' });
  });

  it('rejects a failed condition as ConditionalCheckFailedException, with the old item when asked', async () => {
    await db.put({ TableName: table, Item: { pk: 'cond', v: 1 } });
    const error = await db
      .put({
        TableName: table,
        Item: { pk: 'cond', v: 2 },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      })
      .catch((e: unknown) => e);
    expect(isConditionFailed(error)).toBe(true);
    expect(error).toMatchObject({ $metadata: { httpStatusCode: 400 } });
    const { Item } = await db.get({ TableName: table, Key: { pk: 'cond' }, ConsistentRead: true });
    expect(Item).toEqual({ pk: 'cond', v: 1 });
  });

  it('queries an index page by page with LastEvaluatedKey', async () => {
    for (let i = 0; i < 5; i++) {
      await db.put({
        TableName: table,
        Item: { pk: `lead#${i}`, kind: 'lead', status: 'parked', receivedAt: `2026-01-0${i + 1}` },
      });
    }
    const seen: string[] = [];
    let start: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const page = await db.scan({
        TableName: table,
        FilterExpression: 'kind = :k',
        ExpressionAttributeValues: { ':k': 'lead' },
        Limit: 3,
        ...(start && { ExclusiveStartKey: start }),
      });
      pages += 1;
      seen.push(...page.Items.map((item) => String(item.pk)));
      start = page.LastEvaluatedKey;
    } while (start);
    expect(seen.sort()).toEqual(['lead#0', 'lead#1', 'lead#2', 'lead#3', 'lead#4']);
    expect(pages).toBeGreaterThan(1);
  });

  it('reads several keys in one BatchGetItem: the items that exist, values round-tripped, nothing left over', async () => {
    // Prepare
    await db.put({ TableName: table, Item: { pk: 'batch#1', bytes: new Uint8Array([1, 2, 255]) } });
    await db.put({ TableName: table, Item: { pk: 'batch#2', ids: new Set(['a', 'b']), n: 7 } });

    // Act
    const out = await db.batchGet({
      RequestItems: {
        [table]: {
          Keys: [{ pk: 'batch#1' }, { pk: 'batch#2' }, { pk: 'batch#missing' }],
          ConsistentRead: true,
        },
      },
    });

    // Assess
    const items = [...(out.Responses[table] ?? [])].sort((a, b) => a.pk.localeCompare(b.pk));
    expect(items).toEqual([
      { pk: 'batch#1', bytes: new Uint8Array([1, 2, 255]) },
      { pk: 'batch#2', ids: new Set(['a', 'b']), n: 7 },
    ]);
    expect(out.UnprocessedKeys).toEqual({});
  });

  it('names the refusal of a BatchGetItem that repeats a key', async () => {
    const error = await db
      .batchGet({ RequestItems: { [table]: { Keys: [{ pk: 'twice' }, { pk: 'twice' }] } } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ValidationException' });
  });

  it('deletes and returns the old item', async () => {
    await db.put({ TableName: table, Item: { pk: 'gone', v: 'x' } });
    const out = await db.delete({ TableName: table, Key: { pk: 'gone' }, ReturnValues: 'ALL_OLD' });
    expect(out.Attributes).toEqual({ pk: 'gone', v: 'x' });
    expect(await db.get({ TableName: table, Key: { pk: 'gone' } })).toEqual({});
  });

  it("names the service's refusal (a table that does not exist)", async () => {
    const error = await db
      .get({ TableName: 'no-such-table', Key: { pk: 'x' } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
