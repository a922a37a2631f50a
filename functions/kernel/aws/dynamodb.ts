/**
 * DynamoDB for the functions: the operations the adapters use (GetItem, BatchGetItem, PutItem,
 * UpdateItem, DeleteItem, Query, Scan) over kernel/aws/http.ts, with plain JavaScript values in and out as
 * the SDK's document client has them (`@aws-sdk/util-dynamodb`, the SDK's own marshaller, converts
 * them: strings, numbers, booleans, null, arrays, objects, `Set`s of strings or numbers,
 * `Uint8Array`). Undefined values are left out of what is written, as the adapters' document
 * clients were configured (`removeUndefinedValues`).
 *
 * Inputs and outputs carry the API's own names (`TableName`, `Key`, `ConditionExpression`,
 * `ExpressionAttributeValues`, `ReturnValues`, `Item`, `Attributes`, `Items`,
 * `LastEvaluatedKey`, `RequestItems`, `Responses`, `UnprocessedKeys`), so each call reads as the
 * DynamoDB documentation has it. A failed
 * condition rejects with an `AwsError` named `ConditionalCheckFailedException`
 * (`isConditionFailed`), its `details.Item` unmarshalled when the call asked for it.
 *
 * Requests, answers, errors and retries are the SDK's (`DynamoDBDocumentClient` over
 * `DynamoDBClient`: 4 attempts, 25 ms back-off base, kernel/aws/retry.ts), checked side by side
 * in test/kernel/aws-dynamodb-differential.test.ts.
 */
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { serviceEndpoint } from './endpoints.ts';
import { AwsError, type AwsHttpOptions, createAwsHttp } from './http.ts';
import { createJsonProtocol } from './json-protocol.ts';

// biome-ignore lint/suspicious/noExplicitAny: an item holds any attribute values.
export type Item = Record<string, any>;

interface Common {
  TableName: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
}

export interface GetInput {
  TableName: string;
  Key: Item;
  ConsistentRead?: boolean;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
}

/** What BatchGetItem reads of one table: up to 100 keys. */
export interface KeysAndAttributes {
  Keys: Item[];
  ConsistentRead?: boolean;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
}

export interface BatchGetInput {
  /** Table name → the keys to read there. */
  RequestItems: Record<string, KeysAndAttributes>;
}

export interface BatchGetOutput {
  /** Table name → the items found (in no particular order; a missing key has no item). */
  Responses: Record<string, Item[]>;
  /**
   * Table name → the keys the service did not read this time (throttling, a 16 MB answer): ask
   * for them again. Empty when every key was read.
   */
  UnprocessedKeys: Record<string, KeysAndAttributes>;
}

type ReturnValues = 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';

/** What the writes share: a condition and the values to return. */
interface Write extends Common {
  ConditionExpression?: string;
  ReturnValues?: ReturnValues;
  ReturnValuesOnConditionCheckFailure?: 'ALL_OLD' | 'NONE';
}

export interface PutInput extends Write {
  Item: Item;
}

export interface UpdateInput extends Write {
  Key: Item;
  UpdateExpression: string;
}

export interface DeleteInput extends Write {
  Key: Item;
}

export interface ScanInput extends Common {
  IndexName?: string;
  FilterExpression?: string;
  ProjectionExpression?: string;
  Limit?: number;
  ExclusiveStartKey?: Item;
  ConsistentRead?: boolean;
  Select?: 'ALL_ATTRIBUTES' | 'ALL_PROJECTED_ATTRIBUTES' | 'SPECIFIC_ATTRIBUTES' | 'COUNT';
}

export interface QueryInput extends ScanInput {
  KeyConditionExpression: string;
  ScanIndexForward?: boolean;
}

export interface Page {
  Items: Item[];
  LastEvaluatedKey?: Item;
  Count: number;
}

export interface DynamoDb {
  get(input: GetInput): Promise<{ Item?: Item }>;
  batchGet(input: BatchGetInput): Promise<BatchGetOutput>;
  put(input: PutInput): Promise<{ Attributes?: Item }>;
  update(input: UpdateInput): Promise<{ Attributes?: Item }>;
  delete(input: DeleteInput): Promise<{ Attributes?: Item }>;
  query(input: QueryInput): Promise<Page>;
  scan(input: ScanInput): Promise<Page>;
}

/** The errors DynamoDB's model marks retryable (@aws-sdk/client-dynamodb's `$retryable`). */
export const RETRYABLE_ERRORS: readonly string[] = ['ReplicatedWriteConflictException'];

const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;
const MARSHALLED_FIELDS = ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'];

/**
 * Binary attributes travel as base64 in the JSON protocol (the SDK's serializer does the same):
 * `B` and `BS` values are converted on the way out and back, at any depth of `M` and `L`.
 */
// biome-ignore lint/suspicious/noExplicitAny: an attribute value of any type.
function mapBinary(value: any, convert: (bytes: any) => any): any {
  if (!value || typeof value !== 'object') return value;
  if ('B' in value) return { B: convert(value.B) };
  if ('BS' in value) return { BS: value.BS.map(convert) };
  if ('L' in value) return { L: value.L.map((v: unknown) => mapBinary(v, convert)) };
  if ('M' in value) return { M: mapAttributes(value.M, convert) };
  return value;
}

// biome-ignore lint/suspicious/noExplicitAny: a map of attribute values.
function mapAttributes(map: Record<string, any>, convert: (bytes: any) => any) {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(map)) out[name] = mapBinary(value, convert);
  return out;
}

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const fromBase64 = (text: string) => {
  const buffer = Buffer.from(text, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
};

function toWire(input: object): Record<string, unknown> {
  const wire: Record<string, unknown> = { ...input };
  for (const field of MARSHALLED_FIELDS) {
    const value = wire[field];
    if (value !== undefined)
      wire[field] = mapAttributes(marshall(value as Item, MARSHALL), toBase64);
  }
  return wire;
}

// biome-ignore lint/suspicious/noExplicitAny: the wire form of an item.
const fromWire = (item: any): Item | undefined =>
  item ? unmarshall(mapAttributes(item, fromBase64) as never) : undefined;

/** Each table's keys of a BatchGetItem request (or of its UnprocessedKeys), marshalled or back. */
function mapRequestKeys(
  requests: Record<string, KeysAndAttributes> | undefined,
  convert: (key: Item) => Item,
): Record<string, KeysAndAttributes> {
  return Object.fromEntries(
    Object.entries(requests ?? {}).map(([table, request]) => [
      table,
      { ...request, Keys: request.Keys.map(convert) },
    ]),
  );
}

const keyToWire = (key: Item): Item => mapAttributes(marshall(key, MARSHALL), toBase64);

export function isConditionFailed(error: unknown): error is AwsError {
  return error instanceof AwsError && error.name === 'ConditionalCheckFailedException';
}

export function createDynamoDb(options: AwsHttpOptions = {}): DynamoDb {
  const http = createAwsHttp(
    'dynamodb',
    (settings) => serviceEndpoint('dynamodb', settings),
    options,
  );
  const json = createJsonProtocol(http, {
    targetPrefix: 'DynamoDB_20120810',
    retryableErrors: RETRYABLE_ERRORS,
  });
  // biome-ignore lint/suspicious/noExplicitAny: the wire answer of one operation.
  async function call(operation: string, input: object): Promise<any> {
    try {
      return await json(operation, toWire(input));
    } catch (error) {
      if (error instanceof AwsError && error.details.Item) {
        error.details.Item = fromWire(error.details.Item);
      }
      throw error;
    }
  }
  const page = async (operation: string, input: object): Promise<Page> => {
    const out = await call(operation, input);
    const items = ((out.Items ?? []) as unknown[]).map((item) => fromWire(item) as Item);
    const last = fromWire(out.LastEvaluatedKey);
    return {
      Items: items,
      Count: out.Count ?? items.length,
      ...(last && { LastEvaluatedKey: last }),
    };
  };
  const attributes = async (operation: string, input: object) => {
    const attributes = fromWire((await call(operation, input)).Attributes);
    return attributes ? { Attributes: attributes } : {};
  };
  return {
    async get(input) {
      const item = fromWire((await call('GetItem', input)).Item);
      return item ? { Item: item } : {};
    },
    async batchGet(input) {
      const out = await call('BatchGetItem', {
        RequestItems: mapRequestKeys(input.RequestItems, keyToWire),
      });
      const responses = (out.Responses ?? {}) as Record<string, unknown[]>;
      return {
        Responses: Object.fromEntries(
          Object.entries(responses).map(([table, items]) => [
            table,
            items.map((item) => fromWire(item) as Item),
          ]),
        ),
        UnprocessedKeys: mapRequestKeys(out.UnprocessedKeys, (key) => fromWire(key) as Item),
      };
    },
    put: (input) => attributes('PutItem', input),
    update: (input) => attributes('UpdateItem', input),
    delete: (input) => attributes('DeleteItem', input),
    query: (input) => page('Query', input),
    scan: (input) => page('Scan', input),
  };
}
