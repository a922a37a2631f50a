/**
 * DynamoDB for the functions: the port the adapters use (GetItem, BatchGetItem, PutItem,
 * UpdateItem, DeleteItem, Query, Scan with plain JavaScript values in and out) over the SDK's
 * `DynamoDBDocumentClient` (`@aws-sdk/lib-dynamodb` on `@aws-sdk/client-dynamodb`), with
 * undefined values left out of what is written (`removeUndefinedValues`).
 *
 * Inputs and outputs carry the API's own names (`TableName`, `Key`, `ConditionExpression`,
 * `Item`, `Attributes`, `Items`, `LastEvaluatedKey`, `RequestItems`, `Responses`,
 * `UnprocessedKeys`). A failed condition rejects with the SDK's
 * `ConditionalCheckFailedException` (`isConditionFailed`), its `Item` (when the call asked for
 * it with `ReturnValuesOnConditionCheckFailure`) unmarshalled to plain values.
 *
 * One client per function instance (the wirings make it once), its SDK modules loaded at its first
 * call (in the deployed bundle a chunk of their own, read while the first request waits for its
 * settings, not at init: docs/performance.md); the SDK's standard retry mode
 * with DynamoDB's defaults (4 attempts, 25 ms back-off base), a 3 s deadline per attempt
 * (sdk-aws.ts). Tested against dynalite (test/kernel/dynamodb-aws.test.ts).
 */
import { type AwsClientOptions, sdkClientConfig } from './sdk-aws.ts';

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

/** A failed condition, as the SDK names it; `Item` is the item's values when it was asked for. */
export interface ConditionFailed extends Error {
  name: 'ConditionalCheckFailedException';
  Item?: Item;
  $metadata?: { httpStatusCode?: number };
}

export function isConditionFailed(error: unknown): error is ConditionFailed {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** The SDK leaves a failed condition's `Item` marshalled (AttributeValues): plain values here. */
async function plainConditionItem(error: unknown): Promise<unknown> {
  if (isConditionFailed(error) && error.Item && typeof error.Item === 'object') {
    const { unmarshall } = await import('@aws-sdk/util-dynamodb');
    error.Item = unmarshall(error.Item as never);
  }
  return error;
}

/** The SDK's client and commands, loaded once. */
async function loadSdk(options: AwsClientOptions) {
  const [{ DynamoDBClient }, lib] = await Promise.all([
    import('@aws-sdk/client-dynamodb'),
    import('@aws-sdk/lib-dynamodb'),
  ]);
  const client = lib.DynamoDBDocumentClient.from(new DynamoDBClient(sdkClientConfig(options)), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { client, lib };
}
type Lib = Awaited<ReturnType<typeof loadSdk>>['lib'];

const withoutUndefined = <T extends object>(value: T | undefined) => value ?? {};

export function createDynamoDb(options: AwsClientOptions = {}): DynamoDb {
  let sdk: ReturnType<typeof loadSdk> | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: any of the document client's commands and answers.
  async function send(command: (lib: Lib) => any): Promise<any> {
    sdk ??= loadSdk(options);
    const { client, lib } = await sdk;
    try {
      return await client.send(command(lib));
    } catch (error) {
      throw await plainConditionItem(error);
    }
  }
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  const attributes = async (command: (lib: Lib) => any) => {
    const { Attributes } = await send(command);
    return Attributes ? { Attributes: Attributes as Item } : {};
  };
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  const page = async (command: (lib: Lib) => any): Promise<Page> => {
    const out = await send(command);
    const items = (out.Items ?? []) as Item[];
    return {
      Items: items,
      Count: out.Count ?? items.length,
      ...(out.LastEvaluatedKey && { LastEvaluatedKey: out.LastEvaluatedKey as Item }),
    };
  };
  return {
    async get(input) {
      const { Item } = await send((lib) => new lib.GetCommand(input));
      return Item ? { Item: Item as Item } : {};
    },
    async batchGet(input) {
      const out = await send((lib) => new lib.BatchGetCommand(input));
      return {
        Responses: withoutUndefined(out.Responses),
        UnprocessedKeys: withoutUndefined(out.UnprocessedKeys),
      };
    },
    put: (input) => attributes((lib) => new lib.PutCommand(input)),
    update: (input) => attributes((lib) => new lib.UpdateCommand(input)),
    delete: (input) => attributes((lib) => new lib.DeleteCommand(input)),
    query: (input) => page((lib) => new lib.QueryCommand(input)),
    scan: (input) => page((lib) => new lib.ScanCommand(input)),
  };
}
