/**
 * The local stand-in for the SQS queue and its dead-letter queue, with SQS's semantics, kept in
 * the local DynamoDB (dynalite on disk) so that a message survives a crash of the process:
 * - `send` with an optional delay, capped at 900 s as SQS caps it (`queueDelaySeconds`); a
 *   message becomes visible at `visibleAt`;
 * - `receive` takes visible messages and hides each for the visibility timeout, counting the
 *   receive; with `waitMs` it waits that long for a message when none is visible, and a message
 *   sent in this process meanwhile ends the wait at once (SQS's long polling); a message received more than `maxReceiveCount` times moves to the dead-letter queue
 *   instead of being handed out (SQS's redrive policy);
 * - fairness between tenants (a message's `group`: the lead's account), as SQS fair queues give
 *   it, in a simple and stricter form: `receive` hands out the oldest visible message of the
 *   tenant with the fewest messages in flight (received and still hidden), so a tenant with a
 *   backlog never holds another tenant's fresh message behind it (`fairOrder`). SQS only steps
 *   in once a tenant takes a disproportionate share of the consumers (docs/operations.md);
 * - `delete` by receipt handle (a stale receipt, after the message became visible again and was
 *   received by someone else, deletes nothing); `changeVisibility` to hand a message back early
 *   or delay its retry; `redrive` moves dead-letter messages back (SQS's StartMessageMoveTask).
 * Each step is one conditional write, so two workers never receive the same message at once.
 */
import { randomBytes } from 'node:crypto';
import { type DynamoDb, isConditionFailed } from '../kernel/dynamodb-aws.ts';
import type { DynamoTableDefinition } from './lead-item-dynamodb.ts';
import {
  checkGroup,
  type LeadQueue,
  type LeadQueueSendOptions,
  queueDelaySeconds,
} from './lead-queue.ts';

export const LOCAL_QUEUE_TABLE_DEFINITION = {
  partitionKey: { name: 'id', type: 'S' },
  globalSecondaryIndexes: [],
  billingMode: 'PAY_PER_REQUEST',
} as const satisfies DynamoTableDefinition;

export interface LocalQueueMessage {
  id: string;
  leadId: string;
  /** The delivery chain the message was sent for (lead-queue.ts). */
  version?: number;
  /** The message's tenant (the lead's account), when it was sent with one. */
  group?: string;
  receiptHandle: string;
  receiveCount: number;
  sentAt: number;
}

export interface LocalLeadQueue extends LeadQueue {
  receive(options: {
    max: number;
    visibilityMs: number;
    /** How long to wait for a message when none is visible (long polling); default 0. */
    waitMs?: number;
    now?: number;
  }): Promise<LocalQueueMessage[]>;
  delete(receiptHandle: string): Promise<boolean>;
  changeVisibility(receiptHandle: string, visibleInMs: number, now?: number): Promise<boolean>;
  /** Messages waiting (visible or not) and in the dead-letter queue. */
  depth(): Promise<{ queued: number; dead: number; oldestSentAt?: number }>;
  /** Moves every dead-letter message back to the queue, receive count reset. */
  redrive(now?: number): Promise<number>;
}

/** A message as the queue's table keeps it. */
export interface QueueItem {
  id: string;
  leadId: string;
  version?: number;
  group?: string;
  queue: 'main' | 'dead';
  visibleAt: number;
  receiveCount: number;
  sentAt: number;
  receipt?: string;
}

/** The queue's table, what each operation below is given. */
interface QueueTable {
  db: DynamoDb;
  TableName: string;
  maxReceiveCount: number;
}

export function createLocalLeadQueue(options: {
  client: DynamoDb;
  tableName: string;
  maxReceiveCount: number;
}): LocalLeadQueue {
  const table: QueueTable = {
    db: options.client,
    TableName: options.tableName,
    maxReceiveCount: options.maxReceiveCount,
  };
  return {
    send: (leadId, sendOptions) => send(table, leadId, sendOptions),
    receive: async ({ waitMs = 0, ...receiveOptions }) => {
      const received = await receive(table, receiveOptions);
      if (received.length > 0 || waitMs <= 0) return received;
      await sentOrAfter(table.TableName, waitMs);
      return receive(table, { ...receiveOptions, now: Date.now() });
    },
    delete: (receiptHandle) => deleteMessage(table, receiptHandle),
    changeVisibility: (receiptHandle, visibleInMs, now) =>
      changeVisibility(table, receiptHandle, visibleInMs, now),
    depth: () => depth(table),
    redrive: (now) => redrive(table, now),
  };
}

async function scan(
  { db, TableName }: QueueTable,
  queue: QueueItem['queue'],
): Promise<QueueItem[]> {
  const items: QueueItem[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.scan({
      TableName,
      FilterExpression: '#queue = :queue',
      ExpressionAttributeNames: { '#queue': 'queue' },
      ExpressionAttributeValues: { ':queue': queue },
      ConsistentRead: true,
      ExclusiveStartKey,
    });
    items.push(...((page.Items ?? []) as QueueItem[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * Long polling in this process: receivers waiting on a table, each woken by one message sent to it
 * (or made visible again at once), or at the end of its wait. A message sent by another process
 * is seen at the end of the wait, as a delayed message is.
 */
const waitingOn = new Map<string, (() => void)[]>();

function sentOrAfter(tableName: string, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const waiting = waitingOn.get(tableName) ?? [];
    waitingOn.set(tableName, waiting);
    const done = () => {
      clearTimeout(timer);
      const at = waiting.indexOf(done);
      if (at >= 0) waiting.splice(at, 1);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    waiting.push(done);
  });
}

const wakeOne = (tableName: string) => waitingOn.get(tableName)?.[0]?.();

/** Receipt handles name the message: `<id>.<random>`. */
const messageId = (receiptHandle: string) => receiptHandle.split('.')[0] ?? '';

async function send(
  { db, TableName }: QueueTable,
  leadId: string,
  sendOptions: LeadQueueSendOptions = {},
): Promise<void> {
  checkGroup(sendOptions.group);
  const now = Date.now();
  const item: QueueItem = {
    id: `${now.toString(36)}-${randomBytes(6).toString('hex')}`,
    leadId,
    ...(sendOptions.version !== undefined && { version: sendOptions.version }),
    ...(sendOptions.group !== undefined && { group: sendOptions.group }),
    queue: 'main',
    visibleAt: now + (queueDelaySeconds(sendOptions.delaySeconds) ?? 0) * 1000,
    receiveCount: 0,
    sentAt: now,
  };
  await db.put({ TableName, Item: item });
  if (item.visibleAt <= now) wakeOne(TableName);
}

async function receive(
  table: QueueTable,
  { max, visibilityMs, now = Date.now() }: { max: number; visibilityMs: number; now?: number },
): Promise<LocalQueueMessage[]> {
  const { db, TableName } = table;
  const received: LocalQueueMessage[] = [];
  for (const item of fairOrder(await scan(table, 'main'), now)) {
    if (received.length >= max) break;
    const toDead = item.receiveCount >= table.maxReceiveCount;
    const receipt = `${item.id}.${randomBytes(8).toString('hex')}`;
    try {
      await db.update({
        TableName,
        Key: { id: item.id },
        ConditionExpression: '#queue = :main AND visibleAt = :seen',
        UpdateExpression: toDead
          ? 'SET #queue = :dead REMOVE receipt'
          : 'SET visibleAt = :hidden, receiveCount = receiveCount + :one, receipt = :receipt',
        ExpressionAttributeNames: { '#queue': 'queue' },
        ExpressionAttributeValues: toDead
          ? { ':main': 'main', ':seen': item.visibleAt, ':dead': 'dead' }
          : {
              ':main': 'main',
              ':seen': item.visibleAt,
              ':hidden': now + visibilityMs,
              ':one': 1,
              ':receipt': receipt,
            },
      });
    } catch (error) {
      if (isConditionFailed(error)) continue; // another worker took it
      throw error;
    }
    if (!toDead) {
      received.push({
        id: item.id,
        leadId: item.leadId,
        ...(item.version !== undefined && { version: item.version }),
        ...(item.group !== undefined && { group: item.group }),
        receiptHandle: receipt,
        receiveCount: item.receiveCount + 1,
        sentAt: item.sentAt,
      });
    }
  }
  return received;
}

/** A message's tenant: its group, or itself alone when it was sent without one (as SQS does). */
const tenantOf = (item: QueueItem) => item.group ?? `~${item.id}`;

const bySent = (a: QueueItem, b: QueueItem) => a.sentAt - b.sentAt || a.id.localeCompare(b.id);

/**
 * The visible messages of `items` in the order `receive` hands them out: each next one is the
 * oldest visible message of the tenant with the fewest messages in flight (hidden after a
 * receive), counting the ones handed out before it; among tenants with as many in flight, the
 * one whose oldest visible message is oldest. Tenants thus take turns, and the one with the most
 * work under way waits for the others.
 */
export function fairOrder(items: readonly QueueItem[], now: number): QueueItem[] {
  const inFlight = new Map<string, number>();
  const waiting = new Map<string, QueueItem[]>();
  for (const item of items) {
    const tenant = tenantOf(item);
    if (item.visibleAt > now) {
      if (item.receipt !== undefined) inFlight.set(tenant, (inFlight.get(tenant) ?? 0) + 1);
    } else {
      const list = waiting.get(tenant);
      if (list) list.push(item);
      else waiting.set(tenant, [item]);
    }
  }
  for (const list of waiting.values()) list.sort(bySent);
  const order: QueueItem[] = [];
  for (;;) {
    let next: { tenant: string; head: QueueItem; busy: number } | undefined;
    for (const [tenant, list] of waiting) {
      const head = list[0];
      if (!head) continue;
      const busy = inFlight.get(tenant) ?? 0;
      if (!next || busy < next.busy || (busy === next.busy && bySent(head, next.head) < 0)) {
        next = { tenant, head, busy };
      }
    }
    if (!next) return order;
    waiting.get(next.tenant)?.shift();
    inFlight.set(next.tenant, next.busy + 1);
    order.push(next.head);
  }
}

async function deleteMessage(
  { db, TableName }: QueueTable,
  receiptHandle: string,
): Promise<boolean> {
  try {
    await db.delete({
      TableName,
      Key: { id: messageId(receiptHandle) },
      ConditionExpression: 'receipt = :receipt',
      ExpressionAttributeValues: { ':receipt': receiptHandle },
    });
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

async function changeVisibility(
  { db, TableName }: QueueTable,
  receiptHandle: string,
  visibleInMs: number,
  now = Date.now(),
): Promise<boolean> {
  try {
    await db.update({
      TableName,
      Key: { id: messageId(receiptHandle) },
      ConditionExpression: 'receipt = :receipt',
      UpdateExpression: 'SET visibleAt = :visibleAt',
      ExpressionAttributeValues: {
        ':receipt': receiptHandle,
        ':visibleAt': now + visibleInMs,
      },
    });
    if (visibleInMs <= 0) wakeOne(TableName);
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

async function depth(
  table: QueueTable,
): Promise<{ queued: number; dead: number; oldestSentAt?: number }> {
  const [queued, dead] = await Promise.all([scan(table, 'main'), scan(table, 'dead')]);
  const oldest = queued.reduce<number | undefined>(
    (min, item) => (min === undefined || item.sentAt < min ? item.sentAt : min),
    undefined,
  );
  return { queued: queued.length, dead: dead.length, ...(oldest && { oldestSentAt: oldest }) };
}

async function redrive(table: QueueTable, now = Date.now()): Promise<number> {
  const { db, TableName } = table;
  let moved = 0;
  for (const item of await scan(table, 'dead')) {
    try {
      await db.update({
        TableName,
        Key: { id: item.id },
        ConditionExpression: '#queue = :dead',
        UpdateExpression: 'SET #queue = :main, visibleAt = :now, receiveCount = :zero',
        ExpressionAttributeNames: { '#queue': 'queue' },
        ExpressionAttributeValues: {
          ':dead': 'dead',
          ':main': 'main',
          ':now': now,
          ':zero': 0,
        },
      });
      moved += 1;
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
  return moved;
}
