/**
 * The local DynamoDB's server: dynalite (a DynamoDB-protocol server on LevelDB), patched, on
 * 127.0.0.1. It runs in a thread of its own (dynalite-thread.ts, started by dynamodb-local.ts),
 * so that the local runtime's handlers and dynalite's parsing and LevelDB work use two cores,
 * as the functions and DynamoDB do on AWS; tests may import it directly to check the patches.
 *
 * The patches, applied when this module is loaded: dynalite's Scans and Queries left their
 * LevelDB iterators open (closeLevelIteratorsWhenStreamsEnd), and it wrote an item's index
 * entries and the item itself as separate LevelDB writes, so a kill -9 between them left an
 * index that disagreed with the table (writeItemsWithTheirIndexesInOneBatch).
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

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

export interface DynaliteServer {
  port: number;
  /** Stops listening; resolves once dynalite has closed its LevelDB. */
  close(): Promise<void>;
}

/** dynalite on 127.0.0.1:`port` (0: a free one), its data under `path` (omitted: in memory). */
export async function listenDynalite(
  path: string | undefined,
  port: number,
): Promise<DynaliteServer> {
  if (path !== undefined) await assertDataDirUsable(path);
  const server: Server = dynalite({
    ...(path !== undefined && { path }),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
