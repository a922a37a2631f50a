/**
 * The lead ledger on one DynamoDB table, with single-item conditional writes only (no
 * transactions: dynalite, the local store, does not implement them, and none is needed).
 *
 * Item layout (partition key `pk`, no sort key):
 *
 * | item  | pk                                   | attributes |
 * |-------|--------------------------------------|------------|
 * | lead  | `lead#<leadId>`                      | kind='lead', leadId, profile, source, status, dedupKey, payload, attempts, lastError?, ambiguousSince?, reason?, messages?, idProspect?, receivedAt, updatedAt, deliveredAt?, leaseUntil?, expiresAt?, gsi1pk=`status#<status>`, gsi1sk=`<receivedAt>#<leadId>` |
 * | dedup | `dedup#<profile>#<sha256(dedupKey)>` | kind='dedup', leadId, profile, createdAt, expiresAt |
 * | pacer | `pacer#upstream`                     | kind='pacer', next: the shared upstream pacing (pacer-dynamodb.ts) |
 *
 * No key (pk, gsi1pk, gsi1sk) carries personal data: lead ids are time + random, dedup keys
 * are hashed, statuses and timestamps are not personal. The capture and the prospect live in
 * `payload`: JSON text, or gzip-compressed JSON (binary) when the text exceeds 64 KiB.
 * Intake bodies are limited to ~256 KiB and an item to 400 KB, so a lead whose capture and
 * prospect together do not fit even compressed (> 350 KB) is refused with LeadTooLargeError
 * before anything is written.
 *
 * Recording: (1) put the dedup item if absent or its window has ended
 * (`attribute_not_exists(pk) OR expiresAt < :now`), (2) put the lead item
 * (`attribute_not_exists(pk)`). A crash between (1) and (2) leaves a dedup item pointing at a
 * missing lead; the next record() with that key finds it and writes the lead under the id the
 * dedup item holds. Of concurrent callers, only the one whose lead put succeeds gets
 * `duplicate: false`.
 *
 * Listing: the sparse index `gsi1` (only lead items have gsi1pk), oldest first. Each status is
 * one index partition; at lead volumes (far below 1,000 writes/s) that is no hot spot.
 *
 * TTL (`expiresAt`, epoch seconds; DynamoDB deletes up to ~48 h late, so code that cares
 * compares it itself, as the dedup condition does):
 * - lead items in `delivered`, `rejected` and `test` expire `retentionDays` after their last
 *   transition; a requeue removes the TTL again;
 * - `queued`, `sending`, `parked` and `dead` leads never expire: they still need delivery or an
 *   operator's decision, and dropping them silently is the failure this product exists to avoid;
 * - dedup items expire when their window ends; a window never outlasts `retentionDays`, so a
 *   dedup item cannot point at a lead the TTL already removed.
 * The table's TTL must be enabled on `expiresAt` (LEDGER_TABLE_DEFINITION.timeToLiveAttribute).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ExternalId } from '../domain/json.ts';
import type { LeadCapture } from '../domain/lead.ts';
import {
  isLeadId,
  isLeadStatus,
  LeadStateError,
  type LeadStatus,
  type LeadTransition,
  newLeadId,
  TRANSITIONS,
} from '../domain/lead-lifecycle.ts';
import type { Prospect } from '../domain/prospect.ts';
import {
  boundMessages,
  boundText,
  type FailureDetails,
  hashDedupKey,
  InvalidCursorError,
  type LeadLedger,
  type LeadPage,
  type LeadRecord,
  type NewLead,
} from './lead-ledger.ts';

/** A table's shape, neutral enough for both CreateTable (local) and the CDK construct. */
export interface DynamoTableDefinition {
  partitionKey: { name: string; type: 'S' | 'N' | 'B' };
  sortKey?: { name: string; type: 'S' | 'N' | 'B' };
  globalSecondaryIndexes: readonly {
    indexName: string;
    partitionKey: { name: string; type: 'S' | 'N' | 'B' };
    sortKey?: { name: string; type: 'S' | 'N' | 'B' };
    projection: 'ALL' | 'KEYS_ONLY';
  }[];
  timeToLiveAttribute?: string;
  billingMode: 'PAY_PER_REQUEST';
}

export const LEDGER_STATUS_INDEX = 'gsi1';

/** The ledger table. CDK: `partitionKey`/`sortKey` types are AttributeType's values ('S'). */
export const LEDGER_TABLE_DEFINITION = {
  partitionKey: { name: 'pk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: LEDGER_STATUS_INDEX,
      partitionKey: { name: 'gsi1pk', type: 'S' },
      sortKey: { name: 'gsi1sk', type: 'S' },
      projection: 'ALL',
    },
  ],
  timeToLiveAttribute: 'expiresAt',
  billingMode: 'PAY_PER_REQUEST',
} as const satisfies DynamoTableDefinition;

export interface DynamoLedgerOptions {
  client: DynamoDBDocumentClient | DynamoDBClient;
  tableName: string;
  /** How long final leads (delivered, rejected, test) are kept after their last change. */
  retentionDays?: number;
}

/** The capture and prospect do not fit in one item even compressed. */
export class LeadTooLargeError extends Error {
  override readonly name = 'LeadTooLargeError';
  readonly bytes: number;
  constructor(bytes: number) {
    super(
      `lead payload is ${bytes} bytes compressed; at most ${MAX_PAYLOAD_BYTES} fit in one item`,
    );
    this.bytes = bytes;
  }
}

const COMPRESS_ABOVE_BYTES = 64 * 1024;
const MAX_PAYLOAD_BYTES = 350_000;
const DAY_SECONDS = 86_400;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 1000;
const RECORD_ROUNDS = 3;
/** Final states that the TTL may remove after retentionDays. */
const EXPIRING: ReadonlySet<LeadStatus> = new Set(['delivered', 'rejected', 'test']);

const leadPk = (leadId: string) => `lead#${leadId}`;
const statusPk = (status: LeadStatus) => `status#${status}`;
const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

type Item = Record<string, unknown>;

interface Payload {
  capture: LeadCapture;
  prospect?: Prospect;
}

function encodePayload(payload: Payload): string | Uint8Array {
  const json = JSON.stringify(payload);
  if (Buffer.byteLength(json, 'utf8') <= COMPRESS_ABOVE_BYTES) return json;
  const gz = gzipSync(json);
  if (gz.byteLength > MAX_PAYLOAD_BYTES) throw new LeadTooLargeError(gz.byteLength);
  return new Uint8Array(gz.buffer, gz.byteOffset, gz.byteLength);
}

function decodePayload(value: unknown): Payload {
  const json = value instanceof Uint8Array ? gunzipSync(value).toString('utf8') : value;
  if (typeof json !== 'string') throw new Error('lead item without payload');
  return JSON.parse(json) as Payload;
}

function decodeLead(item: Item): LeadRecord {
  const { status, leadId } = item;
  if (!isLeadId(leadId) || !isLeadStatus(status)) throw new Error('malformed lead item');
  const { capture, prospect } = decodePayload(item.payload);
  const record: LeadRecord = {
    leadId,
    profile: item.profile as string,
    source: item.source as string,
    status,
    dedupKey: item.dedupKey as string,
    capture,
    ...(prospect !== undefined && { prospect }),
    attempts: Number(item.attempts ?? 0),
    receivedAt: item.receivedAt as string,
    updatedAt: item.updatedAt as string,
  };
  if (typeof item.reason === 'string') record.reason = item.reason;
  if (Array.isArray(item.messages)) record.messages = item.messages.map(String);
  if (typeof item.lastError === 'string') record.lastError = item.lastError;
  if (typeof item.ambiguousSince === 'string') record.ambiguousSince = item.ambiguousSince;
  if (typeof item.idProspect === 'string' || typeof item.idProspect === 'number') {
    record.idProspect = item.idProspect;
  }
  if (typeof item.deliveredAt === 'string') record.deliveredAt = item.deliveredAt;
  if (typeof item.leaseUntil === 'string') record.leaseUntil = item.leaseUntil;
  if (typeof item.expiresAt === 'number') record.expiresAt = item.expiresAt;
  return record;
}

function isConditionFailure(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { name?: unknown }).name === 'ConditionalCheckFailedException'
  );
}

function withoutUndefined(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined));
}

function encodeCursor(key: Item): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, status: LeadStatus): Item {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (typeof key !== 'object' || key === null || Array.isArray(key)) throw new InvalidCursorError();
  const { pk, gsi1pk, gsi1sk, ...rest } = key as Item;
  if (
    Object.keys(rest).length > 0 ||
    typeof pk !== 'string' ||
    !pk.startsWith('lead#') ||
    gsi1pk !== statusPk(status) ||
    typeof gsi1sk !== 'string'
  ) {
    throw new InvalidCursorError();
  }
  return { pk, gsi1pk, gsi1sk };
}

function validateNewLead(lead: NewLead): void {
  if (!lead.profile) throw new TypeError('record: profile is required');
  if (!lead.dedupKey) throw new TypeError('record: dedupKey is required');
  if (!['queued', 'parked', 'test'].includes(lead.status)) {
    throw new TypeError(`record: a lead cannot start as '${lead.status}'`);
  }
  if (Number.isNaN(lead.receivedAt.getTime())) throw new TypeError('record: invalid receivedAt');
  const window = lead.dedupWindowSeconds;
  if (window !== undefined && !(Number.isInteger(window) && window > 0)) {
    throw new RangeError('record: dedupWindowSeconds must be a positive integer');
  }
}

/** `ambiguousSince` to set, only when given (an undefined value in `set` would remove it). */
function ambiguity(details: FailureDetails): Item {
  return details.ambiguousSince === undefined ? {} : { ambiguousSince: details.ambiguousSince };
}

interface UpdateSpec {
  /** Attributes to set; an undefined value removes the attribute. */
  set: Item;
  /** Attributes to remove. */
  remove?: readonly string[];
  /** attempts := attempts + 1, or := 0. */
  attempts?: 'increment' | 'reset';
}

export function createDynamoLedger(options: DynamoLedgerOptions): LeadLedger {
  const { tableName } = options;
  const retentionDays = options.retentionDays ?? 90;
  if (!(retentionDays > 0)) throw new RangeError('retentionDays must be positive');
  const retentionSeconds = Math.round(retentionDays * DAY_SECONDS);
  const doc =
    options.client instanceof DynamoDBDocumentClient
      ? options.client
      : DynamoDBDocumentClient.from(options.client, {
          marshallOptions: { removeUndefinedValues: true },
        });

  const ttlFor = (status: LeadStatus, now: Date) =>
    EXPIRING.has(status) ? epochSeconds(now) + retentionSeconds : undefined;

  async function getItem(pk: string): Promise<Item | undefined> {
    const out = await doc.send(
      new GetCommand({ TableName: tableName, Key: { pk }, ConsistentRead: true }),
    );
    return out.Item;
  }

  /** Puts an item under a condition; false when the condition failed. */
  async function putIf(
    item: Item,
    condition: string,
    values?: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: withoutUndefined(item),
          ConditionExpression: condition,
          ...(values && { ExpressionAttributeValues: values }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * One transition = one UpdateItem whose condition is the transition's `from` list (and, for
   * claim, an expired lease). Returns the new record, or undefined when the condition failed.
   */
  async function transition(
    leadId: string,
    name: LeadTransition,
    now: Date,
    spec: UpdateSpec,
  ): Promise<LeadRecord | undefined> {
    if (!isLeadId(leadId)) return undefined;
    const { from, to } = TRANSITIONS[name];
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const removes: string[] = [];

    const set = { ...spec.set, status: to, gsi1pk: statusPk(to), updatedAt: now.toISOString() };
    const ttl = ttlFor(to, now);
    let index = 0;
    for (const [attr, value] of Object.entries({ ...set, expiresAt: ttl })) {
      const n = attr === 'status' ? '#status' : `#a${index}`;
      names[n] = attr;
      if (value === undefined) {
        removes.push(n);
      } else {
        values[`:a${index}`] = value;
        sets.push(`${n} = :a${index}`);
      }
      index++;
    }
    for (const attr of spec.remove ?? []) {
      names[`#r${index}`] = attr;
      removes.push(`#r${index}`);
      index++;
    }
    if (spec.attempts) {
      names['#attempts'] = 'attempts';
      values[':zero'] = 0;
      if (spec.attempts === 'increment') {
        values[':one'] = 1;
        sets.push('#attempts = if_not_exists(#attempts, :zero) + :one');
      } else {
        sets.push('#attempts = :zero');
      }
    }

    let condition: string;
    if (name === 'claim') {
      // ISO 8601 UTC timestamps of one format compare correctly as strings.
      names['#leaseUntil'] = 'leaseUntil';
      values[':queued'] = 'queued';
      values[':sending'] = 'sending';
      values[':now'] = now.toISOString();
      condition = '#status = :queued OR (#status = :sending AND #leaseUntil < :now)';
    } else {
      const placeholders = from.map((status, i) => {
        values[`:from${i}`] = status;
        return `:from${i}`;
      });
      condition = `#status IN (${placeholders.join(', ')})`;
    }

    try {
      const out = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: leadPk(leadId) },
          UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? decodeLead(out.Attributes) : undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async function get(leadId: string): Promise<LeadRecord | undefined> {
    if (!isLeadId(leadId)) return undefined;
    const item = await getItem(leadPk(leadId));
    return item ? decodeLead(item) : undefined;
  }

  /** A refused transition: say what the lead's state actually is. */
  async function refused(leadId: string, name: LeadTransition): Promise<never> {
    const current = await get(leadId);
    throw new LeadStateError(leadId, name, current?.status);
  }

  async function required(
    leadId: string,
    name: LeadTransition,
    now: Date,
    spec: UpdateSpec,
  ): Promise<LeadRecord> {
    return (await transition(leadId, name, now, spec)) ?? refused(leadId, name);
  }

  async function record(lead: NewLead): Promise<{ lead: LeadRecord; duplicate: boolean }> {
    validateNewLead(lead);
    const receivedAt = lead.receivedAt.toISOString();
    const now = epochSeconds(lead.receivedAt);
    const window = Math.min(lead.dedupWindowSeconds ?? retentionSeconds, retentionSeconds);
    const dedupPk = `dedup#${lead.profile}#${hashDedupKey(lead.dedupKey)}`;
    const payload = encodePayload({
      capture: lead.capture,
      ...(lead.prospect !== undefined && { prospect: lead.prospect }),
    });

    /** Writes the lead item under `leadId`; whoever writes it first is the non-duplicate. */
    async function writeLead(leadId: string): Promise<{ lead: LeadRecord; duplicate: boolean }> {
      const item: Item = withoutUndefined({
        pk: leadPk(leadId),
        kind: 'lead',
        gsi1pk: statusPk(lead.status),
        gsi1sk: `${receivedAt}#${leadId}`,
        leadId,
        profile: lead.profile,
        source: lead.source,
        status: lead.status,
        dedupKey: lead.dedupKey,
        payload,
        reason: lead.reason === undefined ? undefined : boundText(lead.reason),
        attempts: 0,
        receivedAt,
        updatedAt: receivedAt,
        expiresAt: ttlFor(lead.status, lead.receivedAt),
      });
      if (await putIf(item, 'attribute_not_exists(pk)')) {
        return { lead: decodeLead(item), duplicate: false };
      }
      const existing = await get(leadId);
      if (!existing) throw new Error(`record: lead ${leadId} vanished while being written`);
      return { lead: existing, duplicate: true };
    }

    for (let round = 0; round < RECORD_ROUNDS; round++) {
      const leadId = newLeadId(lead.receivedAt);
      const dedup: Item = {
        pk: dedupPk,
        kind: 'dedup',
        leadId,
        profile: lead.profile,
        createdAt: receivedAt,
        expiresAt: now + window,
      };
      if (await putIf(dedup, 'attribute_not_exists(pk) OR expiresAt < :now', { ':now': now })) {
        return writeLead(leadId);
      }
      const holder = await getItem(dedupPk);
      // Gone or replaced between our put and our read (its window ended): try again.
      if (!holder || !isLeadId(holder.leadId)) continue;
      const existing = await get(holder.leadId);
      if (existing) return { lead: existing, duplicate: true };
      // The dedup item points at a lead that was never written: its writer crashed, or is
      // still on its way. Write it ourselves under that id; the lead put decides who won.
      return writeLead(holder.leadId);
    }
    throw new Error('record: the dedup item kept changing; try again');
  }

  return {
    record,
    get,

    async listByStatus(status, listOptions = {}): Promise<LeadPage> {
      if (!isLeadStatus(status)) throw new RangeError(`unknown status '${String(status)}'`);
      const limit = Math.min(Math.max(Math.trunc(listOptions.limit ?? DEFAULT_PAGE), 1), MAX_PAGE);
      const out = await doc.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: LEDGER_STATUS_INDEX,
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': statusPk(status) },
          ScanIndexForward: true,
          Limit: limit,
          ...(listOptions.cursor !== undefined && {
            ExclusiveStartKey: decodeCursor(listOptions.cursor, status),
          }),
        }),
      );
      const leads = (out.Items ?? []).map(decodeLead);
      return out.LastEvaluatedKey
        ? { leads, cursor: encodeCursor(out.LastEvaluatedKey) }
        : { leads };
    },

    async claim(leadId, leaseMs, now) {
      if (!(Number.isFinite(leaseMs) && leaseMs > 0)) throw new RangeError('leaseMs must be > 0');
      const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
      return transition(leadId, 'claim', now, { set: { leaseUntil } });
    },

    async markDelivered(leadId, idProspect: ExternalId, now) {
      const done = await transition(leadId, 'markDelivered', now, {
        set: { idProspect, deliveredAt: now.toISOString() },
        remove: ['leaseUntil'],
      });
      if (done) return;
      const current = await get(leadId);
      // The same delivery recorded twice (a redelivered message, a retried call): fine.
      if (current?.status === 'delivered' && String(current.idProspect) === String(idProspect)) {
        return;
      }
      throw new LeadStateError(leadId, 'markDelivered', current?.status);
    },

    async markRejected(leadId, messages, now) {
      const bounded = boundMessages(messages);
      await required(leadId, 'markRejected', now, {
        set: { messages: bounded, reason: boundText(bounded.join('; ') || 'rejected') },
        remove: ['leaseUntil'],
      });
    },

    async release(leadId, error, now, details = {}) {
      return required(leadId, 'release', now, {
        set: { lastError: boundText(error), ...ambiguity(details) },
        remove: ['leaseUntil'],
        ...(details.countAttempt !== false && { attempts: 'increment' as const }),
      });
    },

    async markDead(leadId, error, now, details = {}) {
      await required(leadId, 'markDead', now, {
        set: { lastError: boundText(error), ...ambiguity(details) },
        remove: ['leaseUntil'],
        attempts: 'increment',
      });
    },

    async markParked(leadId, reason, now) {
      await required(leadId, 'markParked', now, {
        set: { reason: boundText(reason) },
        remove: ['leaseUntil'],
      });
    },

    async requeue(leadId, now) {
      return transition(leadId, 'requeue', now, {
        set: {},
        remove: ['leaseUntil', 'reason', 'messages'],
        attempts: 'reset',
      });
    },
  };
}
