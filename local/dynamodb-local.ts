/**
 * A local DynamoDB for the local runtime and the tests: dynalite (a DynamoDB-protocol server on
 * LevelDB) on 127.0.0.1, kept on disk under `<dataDir>/dynamodb`, plus `ensureTable` to create
 * the tables a process needs if they are missing. Local-only: never imported by a Lambda.
 *
 * Durability: dynalite answers a write after LevelDB has appended it to its log file (without
 * fsync), so an acknowledged write survives the process being killed (SIGKILL included), not a
 * power loss of the machine. Only one process can open a data dir at a time (LevelDB's LOCK).
 *
 * What dynalite lacks and what we do about it: no transactions (the ledger uses single-item
 * conditional writes), no UpdateTimeToLive (TTL is not enabled locally, so nothing expires on
 * its own; code that cares compares `expiresAt` itself), no streams. And it wrote an item's
 * index entries and the item itself as separate LevelDB writes, so a kill -9 between them left
 * an index that disagreed with the table (a lead listed as queued that did not exist, or a due
 * lead missing from the due index): patched below to write them in one batch.
 */
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  type AttributeDefinition,
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb';
import { createDynamoDb, type DynamoDb } from '../functions/kernel/aws/dynamodb.ts';
import type { DynamoTableDefinition } from '../functions/ledger/lead-ledger-dynamodb.ts';

interface DynaliteOptions {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}

interface LevelDb {
  open(): Promise<void>;
  close(): Promise<void>;
}

// dynalite is CommonJS without type declarations; `level` is its own LevelDB binding.
const requireCjs = createRequire(import.meta.url);
const dynalite = requireCjs('dynalite') as (options: DynaliteOptions) => Server;
const requireFromDynalite = createRequire(requireCjs.resolve('dynalite'));
const { Level } = requireFromDynalite('level') as {
  Level: new (path: string) => LevelDb;
};

interface LevelIterator {
  close(): Promise<void>;
  return?: () => Promise<IteratorReturnResult<undefined>>;
}

/**
 * dynalite 4 reads every Scan and Query through a stream over a level iterator and, once the
 * stream ends, releases the iterator with `iterator.return()`. abstract-level 3's iterators
 * have `close()` but no `return()`, so each Scan or Query left its iterator open in the
 * database until the process ended: the soak found the local worker's polls (a Scan 4 times a
 * second) growing the heap and LevelDB's memory without bound. A `return` that closes the
 * iterator, on the classes dynalite's `level` uses, releases them.
 */
function closeLevelIteratorsWhenStreamsEnd(): void {
  // Resolved from classic-level, dynalite's on-disk store, so the classes are the ones it uses.
  const fromLevel = createRequire(requireFromDynalite.resolve('level'));
  const fromClassicLevel = createRequire(fromLevel.resolve('classic-level'));
  const classes = fromClassicLevel('abstract-level') as Record<
    string,
    { prototype: LevelIterator } | undefined
  >;
  for (const name of ['AbstractIterator', 'AbstractKeyIterator', 'AbstractValueIterator']) {
    const prototype = classes[name]?.prototype;
    if (!prototype || typeof prototype.return === 'function') continue;
    prototype.return = async function (this: LevelIterator) {
      await this.close();
      return { done: true, value: undefined };
    };
  }
}
closeLevelIteratorsWhenStreamsEnd();

interface IndexAction {
  index: string;
  key: string;
  item?: unknown;
}
interface DynaliteTable {
  TableName: string;
  LocalSecondaryIndexes?: unknown[];
  GlobalSecondaryIndexes?: unknown[];
}
type Callback = (error?: Error | null) => void;
interface LevelOp {
  type: 'put' | 'del';
  key: string;
  value?: unknown;
}
interface DynaliteStore {
  db: { batch(ops: LevelOp[], callback: Callback): void };
  getItemDb(name: string): ItemDb;
}
interface ItemDb {
  put(key: string, value: unknown, callback: Callback): void;
  del(key: string, callback: Callback): void;
  atomic?: boolean;
}
interface DynaliteDbModule {
  create(options: unknown): DynaliteStore;
  updateIndexes(
    store: DynaliteStore,
    table: DynaliteTable,
    existingItem: unknown,
    item: unknown,
    callback: Callback,
  ): void;
  getIndexActions(
    indexes: unknown[],
    existingItem: unknown,
    item: unknown,
    table: DynaliteTable,
  ): { puts: IndexAction[]; deletes: IndexAction[] };
  createKey(item: unknown, table: DynaliteTable): string;
}

/**
 * dynalite's PutItem, UpdateItem and DeleteItem call `updateIndexes` (index entries written at
 * once) and then write the item. Patched: `updateIndexes` only stages the index operations, and
 * the item's write that follows (under the same per-item lock) applies them and itself in one
 * LevelDB batch, which LevelDB applies atomically, whatever kills the process.
 */
function writeItemsWithTheirIndexesInOneBatch(): void {
  const dynaliteDb = requireFromDynalite('./db') as DynaliteDbModule;
  if ((dynaliteDb as { patched?: boolean }).patched) return;
  const staged = new WeakMap<DynaliteStore, Map<string, LevelOp[]>>();
  const createStore = dynaliteDb.create;
  dynaliteDb.create = (options) => {
    const store = createStore(options);
    const pending = new Map<string, LevelOp[]>();
    staged.set(store, pending);
    const getItemDb = store.getItemDb;
    store.getItemDb = (name) => {
      const itemDb = getItemDb(name);
      if (itemDb.atomic) return itemDb;
      const { put, del } = itemDb;
      const write = (key: string, op: LevelOp, fallback: () => void, callback: Callback) => {
        const ops = pending.get(`${name}\u0000${key}`);
        if (!ops) return fallback();
        pending.delete(`${name}\u0000${key}`);
        store.db.batch([...ops, op], callback);
      };
      itemDb.put = (key, value, callback) =>
        write(
          key,
          { type: 'put', key: `item-${name}~${key}`, value },
          () => put(key, value, callback),
          callback,
        );
      itemDb.del = (key, callback) =>
        write(key, { type: 'del', key: `item-${name}~${key}` }, () => del(key, callback), callback);
      itemDb.atomic = true;
      return itemDb;
    };
    return store;
  };
  const updateIndexes = dynaliteDb.updateIndexes;
  dynaliteDb.updateIndexes = (store, table, existingItem, item, callback) => {
    const pending = staged.get(store);
    if (!pending || (!existingItem && !item)) {
      updateIndexes(store, table, existingItem, item, callback);
      return;
    }
    const ops: LevelOp[] = [];
    for (const type of ['Local', 'Global'] as const) {
      const indexes = table[`${type}SecondaryIndexes`] ?? [];
      const actions = dynaliteDb.getIndexActions(indexes, existingItem, item, table);
      const prefix = (index: string) => `index-${type.toLowerCase()}~${table.TableName}~${index}~`;
      for (const { index, key } of actions.deletes)
        ops.push({ type: 'del', key: prefix(index) + key });
      for (const { index, key, item: value } of actions.puts) {
        ops.push({ type: 'put', key: prefix(index) + key, value });
      }
    }
    const key = dynaliteDb.createKey(item ?? existingItem, table);
    pending.set(`${table.TableName}\u0000${key}`, ops);
    callback();
  };
  (dynaliteDb as { patched?: boolean }).patched = true;
}
writeItemsWithTheirIndexesInOneBatch();

/**
 * Opens and closes the LevelDB at `path` once. dynalite opens it lazily and, when the open
 * fails (another process holds the LOCK), throws from a stream without an error handler,
 * which would take the whole process down; checking first turns that into a plain error.
 */
async function assertDataDirUsable(path: string): Promise<void> {
  const db = new Level(path);
  try {
    await db.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    throw new Error(
      cause?.code === 'LEVEL_LOCKED'
        ? `local DynamoDB data dir ${path} is in use by another process`
        : `local DynamoDB data dir ${path} cannot be opened`,
      { cause: error },
    );
  }
  await db.close();
}

export interface LocalDynamoOptions {
  /** The data is kept in `<dataDir>/dynamodb`; omitted = in memory (tests). */
  dataDir?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Tables to create when missing. */
  tables?: readonly { name: string; definition: DynamoTableDefinition }[];
}

export interface LocalDynamo {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /**
   * The functions' DynamoDB client (kernel/aws/dynamodb.ts, signed fetch) on this endpoint: what
   * every adapter uses locally, as on AWS.
   */
  client: DynamoDb;
  /** An AWS SDK client for this endpoint, for table administration (`ensureTable`). */
  admin: DynamoDBClient;
  /** Closes the client and the server; waits until LevelDB is closed. */
  close(): Promise<void>;
}

/** A client for a local endpoint: never looks for real AWS credentials. */
export function createLocalDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
  });
}

/**
 * The functions' client for a local endpoint (dummy credentials, region 'local'). dynalite on a
 * busy laptop can take seconds over a large scan, which is not the hung connection the
 * deployed 3 s per-attempt timeout is there for: locally an attempt may take 30 s.
 */
export function createLocalDynamoDb(endpoint: string): DynamoDb {
  return createDynamoDb({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    attemptTimeoutMs: 30_000,
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
  });
}

export async function startLocalDynamo(options: LocalDynamoOptions = {}): Promise<LocalDynamo> {
  const path = options.dataDir === undefined ? undefined : join(options.dataDir, 'dynamodb');
  if (path !== undefined) {
    await mkdir(path, { recursive: true });
    await assertDataDirUsable(path);
  }

  const server = dynalite({
    ...(path !== undefined && { path }),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const admin = createLocalDynamoClient(endpoint);
  const client = createLocalDynamoDb(endpoint);

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      admin.destroy();
      await closeServer(server);
    })();
    return closed;
  };

  try {
    // LevelDB opens lazily: a locked or unreadable data dir shows up on the first request.
    await admin.send(new ListTablesCommand({ Limit: 1 }));
    for (const table of options.tables ?? []) {
      await ensureTable(admin, table.definition, table.name);
    }
  } catch (error) {
    await close().catch(() => undefined);
    const where = path === undefined ? '' : ` on ${path}`;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`local DynamoDB could not start${where}: ${message}`, { cause: error });
  }
  return { endpoint, client, admin, close };
}

/** CreateTable's input for a definition. */
export function toCreateTableInput(
  definition: DynamoTableDefinition,
  tableName: string,
): CreateTableCommandInput {
  const attributes = new Map<string, AttributeDefinition>();
  const keySchema = (keys: { partitionKey: { name: string }; sortKey?: { name: string } }) => [
    { AttributeName: keys.partitionKey.name, KeyType: 'HASH' as const },
    ...(keys.sortKey ? [{ AttributeName: keys.sortKey.name, KeyType: 'RANGE' as const }] : []),
  ];
  const define = (key: { name: string; type: 'S' | 'N' | 'B' } | undefined) => {
    if (key) attributes.set(key.name, { AttributeName: key.name, AttributeType: key.type });
  };
  define(definition.partitionKey);
  define(definition.sortKey);
  for (const index of definition.globalSecondaryIndexes) {
    define(index.partitionKey);
    define(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: definition.billingMode,
    KeySchema: keySchema(definition),
    AttributeDefinitions: [...attributes.values()],
    ...(definition.globalSecondaryIndexes.length > 0 && {
      GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index),
        Projection: { ProjectionType: index.projection },
      })),
    }),
  };
}

const errorName = (error: unknown) =>
  typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;

async function describe(client: DynamoDBClient, tableName: string) {
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return out.Table;
  } catch (error) {
    if (errorName(error) === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

/**
 * Creates the table when it does not exist and waits until it is ACTIVE. An existing table
 * must have the definition's indexes (a data dir from an older version may not); if it lacks
 * one, this throws an error naming it rather than migrating local data.
 */
export async function ensureTable(
  client: DynamoDBClient,
  definition: DynamoTableDefinition,
  tableName: string,
): Promise<void> {
  let table = await describe(client, tableName);
  if (!table) {
    try {
      await client.send(new CreateTableCommand(toCreateTableInput(definition, tableName)));
    } catch (error) {
      // Created meanwhile by another caller: fine.
      if (errorName(error) !== 'ResourceInUseException') throw error;
    }
  }
  const deadline = Date.now() + 10_000;
  for (;;) {
    table = await describe(client, tableName);
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every(
      (index) => index.IndexStatus === 'ACTIVE',
    );
    if (table?.TableStatus === 'ACTIVE' && indexesActive) break;
    if (Date.now() > deadline) throw new Error(`table ${tableName} did not become ACTIVE`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const present = new Set((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  const missing = definition.globalSecondaryIndexes.filter((i) => !present.has(i.indexName));
  if (missing.length > 0) {
    throw new Error(
      `table ${tableName} exists without index ${missing.map((i) => i.indexName).join(', ')}; ` +
        'delete the local data dir to recreate it',
    );
  }
}
