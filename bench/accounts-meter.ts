/**
 * What a run of the accounts bench asks of AWS, counted on this machine: every DynamoDB request
 * the functions' SDK clients send and get an answer to, seen on Node's `http.client.request.created`
 * diagnostics channel (the SDK's node:http handler makes one ClientRequest per attempt; its
 * `x-amz-target` names the operation and its body is read as it is written), told apart by
 * table. Requests to the ledger table are DynamoDB's own bill (reads and writes,
 * failed conditional writes included: DynamoDB bills them too). Requests to the local queue's
 * table stand for SQS (functions/ledger/lead-queue-local.ts keeps the queue in DynamoDB): a put
 * is a SendMessage, a receive-count increment a message received, a delete a DeleteMessage, any
 * other update a ChangeMessageVisibility; its scans are the local worker's polls (on AWS the
 * event source's long polls, a fixed cost per hour, not per lead) and are left out. The same
 * receive-then-settle pairs give the forwarder's busy time per message (its measured duration).
 *
 * `installAwsMeter` listens once for the process; `start()` empties the counts and starts
 * counting, `stop()` freezes them.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';

export interface AwsCounts {
  /** Ledger table: read requests (GetItem, Query, Scan, BatchGetItem, TransactGetItems). */
  dynamoReads: number;
  /** Ledger table: write requests (PutItem, UpdateItem, DeleteItem; batch and transact items). */
  dynamoWrites: number;
  /** Ledger table: of the writes, the transactional ones (billed twice). */
  dynamoTransactWrites: number;
  /** Bytes of the items PutItem wrote to the ledger table (sizes the write units). */
  dynamoPutBytes: number;
  dynamoPuts: number;
  sqsSends: number;
  /** Messages received (each one at most one ReceiveMessage on AWS, usually fewer). */
  sqsReceives: number;
  sqsDeletes: number;
  sqsVisibilityChanges: number;
  /** Sum over received messages of the time from receive to delete or visibility change. */
  forwarderBusyMs: number;
  /** Received messages whose settle was seen (the pairs forwarderBusyMs sums). */
  forwarderSettled: number;
}

export interface AwsMeter {
  start(): void;
  /** Messages received and not yet deleted or handed back (the worker still settling them). */
  inFlight(): number;
  stop(): AwsCounts;
}

const DYNAMO_TARGET = 'DynamoDB_20120810.';
const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

export function emptyCounts(): AwsCounts {
  return {
    dynamoReads: 0,
    dynamoWrites: 0,
    dynamoTransactWrites: 0,
    dynamoPutBytes: 0,
    dynamoPuts: 0,
    sqsSends: 0,
    sqsReceives: 0,
    sqsDeletes: 0,
    sqsVisibilityChanges: 0,
    forwarderBusyMs: 0,
    forwarderSettled: 0,
  };
}

export interface DynamoBody {
  TableName?: string;
  /** The queue item's key, in DynamoDB's JSON as sent (`{"S": "..."}`), or plain. */
  Key?: { id?: string | { S?: string } };
  Item?: unknown;
  UpdateExpression?: string;
  RequestItems?: Record<string, unknown[]>;
  TransactItems?: unknown[];
}

/** The key `id` of a queue item, plain or in DynamoDB's JSON (`{"S": "..."}`). */
function queueId(body: DynamoBody): string | undefined {
  const id = body.Key?.id;
  return typeof id === 'string' ? id : id?.S;
}

/** Counts one DynamoDB request; `ok` is whether it succeeded (2xx). */
export function countDynamo(
  counts: AwsCounts,
  received: Map<string, number>,
  queueTable: string,
  operation: string,
  body: DynamoBody,
  ok: boolean,
  now: number,
): void {
  if (body.TableName === queueTable) {
    if (!ok || operation === 'Scan') return;
    const id = queueId(body);
    const settle = () => {
      const at = id === undefined ? undefined : received.get(id);
      if (at === undefined || id === undefined) return;
      counts.forwarderBusyMs += now - at;
      counts.forwarderSettled += 1;
      received.delete(id);
    };
    if (operation === 'PutItem') counts.sqsSends += 1;
    else if (operation === 'DeleteItem') {
      counts.sqsDeletes += 1;
      settle();
    } else if (
      operation === 'UpdateItem' &&
      /receiveCount\s*=\s*receiveCount\s*\+/.test(body.UpdateExpression ?? '')
    ) {
      counts.sqsReceives += 1;
      if (id !== undefined) received.set(id, now);
    } else if (operation === 'UpdateItem') {
      counts.sqsVisibilityChanges += 1;
      settle();
    }
    return;
  }
  if (READS.has(operation)) {
    counts.dynamoReads += 1;
    return;
  }
  if (operation === 'TransactWriteItems') {
    const items = body.TransactItems?.length ?? 1;
    counts.dynamoWrites += items;
    counts.dynamoTransactWrites += items;
    return;
  }
  if (operation === 'BatchWriteItem') {
    counts.dynamoWrites += Object.values(body.RequestItems ?? {}).reduce((n, r) => n + r.length, 0);
    return;
  }
  counts.dynamoWrites += 1;
  if (operation === 'PutItem' && body.Item !== undefined) {
    counts.dynamoPuts += 1;
    counts.dynamoPutBytes += Buffer.byteLength(JSON.stringify(body.Item));
  }
}

let installed: AwsMeter | undefined;

type Chunk = string | Uint8Array;

/**
 * Calls `answered` with each DynamoDB request sent over node:http(s) in this thread, its body and
 * its answer's status, once the answer's head has arrived.
 */
function observeDynamoRequests(
  answered: (operation: string, body: string, status: number) => void,
): void {
  subscribe('http.client.request.created', (message) => {
    const { request } = message as { request: ClientRequest };
    const target = String(request.getHeader('x-amz-target') ?? '');
    if (!target.startsWith(DYNAMO_TARGET)) return;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    // biome-ignore lint/suspicious/noExplicitAny: write's and end's overloads, passed through.
    const { write, end } = request as any;
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    (request as any).write = function (this: ClientRequest, chunk: Chunk, ...rest: unknown[]) {
      keep(chunk);
      return write.call(this, chunk, ...rest);
    };
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    (request as any).end = function (this: ClientRequest, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== 'function') keep(chunk);
      return end.call(this, chunk, ...rest);
    };
    request.once('response', (response: IncomingMessage) => {
      const operation = target.slice(DYNAMO_TARGET.length);
      answered(operation, Buffer.concat(chunks).toString('utf8'), response.statusCode ?? 0);
    });
  });
}

/** Listens (once per process) to the AWS clients' requests to count those to DynamoDB. */
export function installAwsMeter(queueTable: string): AwsMeter {
  if (installed) return installed;
  let counts = emptyCounts();
  let counting = false;
  const received = new Map<string, number>();
  observeDynamoRequests((operation, text, status) => {
    if (!counting) return;
    let body: DynamoBody = {};
    try {
      body = JSON.parse(text) as DynamoBody;
    } catch {
      // not JSON: counted by its operation alone
    }
    const ok = status >= 200 && status <= 299;
    countDynamo(counts, received, queueTable, operation, body, ok, Date.now());
  });
  installed = {
    start() {
      counts = emptyCounts();
      received.clear();
      counting = true;
    },
    inFlight: () => received.size,
    stop() {
      counting = false;
      return { ...counts };
    },
  };
  return installed;
}
