/**
 * A local DynamoDB for the local runtime and the tests: dynalite (a DynamoDB-protocol server on
 * LevelDB) on 127.0.0.1, kept on disk under `<dataDir>/dynamodb`, plus `ensureTable` to create
 * the tables a process needs if they are missing. Local-only: never imported by a Lambda.
 *
 * dynalite runs in a worker thread of its own (dynalite-thread.ts, dynalite-server.ts): the
 * handlers of the local runtime and dynalite's request parsing and LevelDB work then use two
 * cores, as the functions and DynamoDB do on AWS (the accounts bench drained 6 × 30 leads in
 * 1.8× one account's floor with it on the same thread; docs/performance.md).
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
 * lead missing from the due index): patched (dynalite-server.ts) to write them in one batch.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AttributeDefinition,
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb';
import { createDynamoDb, type DynamoDb } from '../functions/kernel/dynamodb-aws.ts';
import type { DynamoTableDefinition } from '../functions/ledger/lead-item-dynamodb.ts';
import type { DynaliteThreadData } from './dynalite-thread.ts';
import { nextMessage, startTsWorker } from './ts-worker.ts';

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
   * The functions' DynamoDB client (kernel/dynamodb-aws.ts, the SDK's document client) on this endpoint: what
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

interface DynaliteThread {
  port: number;
  /** Asks the thread to close dynalite (LevelDB closed) and resolves when it has ended. */
  close(): Promise<void>;
}

/** Starts dynalite in its own thread; rejects with the thread's reason if it cannot. */
async function startThread(data: DynaliteThreadData): Promise<DynaliteThread> {
  const worker = startTsWorker(new URL('./dynalite-thread.ts', import.meta.url), data);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const started = await nextMessage<{ port?: number; error?: string }>(worker);
  if (started.port === undefined) {
    throw new Error(started.error ?? 'the local DynamoDB thread did not start');
  }
  return {
    port: started.port,
    close: async () => {
      worker.postMessage('close');
      await exited;
    },
  };
}

export async function startLocalDynamo(options: LocalDynamoOptions = {}): Promise<LocalDynamo> {
  const path = options.dataDir === undefined ? undefined : join(options.dataDir, 'dynamodb');
  if (path !== undefined) await mkdir(path, { recursive: true });
  const thread = await startThread({
    ...(path !== undefined && { path }),
    port: options.port ?? 0,
  });
  const { port } = thread;
  const endpoint = `http://127.0.0.1:${port}`;
  const admin = createLocalDynamoClient(endpoint);
  const client = createLocalDynamoDb(endpoint);

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      admin.destroy();
      await thread.close();
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
