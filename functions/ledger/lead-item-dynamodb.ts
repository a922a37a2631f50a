/**
 * The ledger's table and its lead items as they are stored (lead-ledger-dynamodb.ts assembles
 * the ledger over them): the table's definition, the keys, the lead item's payload, reading a
 * lead item back as a LeadRecord, and the cursors handed out for an index's next page. No I/O.
 *
 * Item layout (partition key `pk`, no sort key):
 *
 * | item  | pk                                   | attributes |
 * |-------|--------------------------------------|------------|
 * | lead  | `lead#<leadId>`                      | kind='lead', leadId, profile, account?, source, status, version, dedupKey, payload, attempts, tries, lastError?, lastFailureAt?, ambiguousSince?, ambiguousSettle?, reason?, messages?, idProspect?, receivedAt, queuedAt, updatedAt, deliveredAt?, leaseUntil?, nextAttemptAt?, expiresAt?, subjects? (the keys of the subject items it was added to), gsi1pk=`status#<status>`, gsi1sk=`<receivedAt>#<leadId>`, and while on its way duepk=`due`, dueAt |
 * | dedup | `dedup#<profile>#<sha256(dedupKey)>` | kind='dedup', leadId, profile, createdAt, expiresAt, fingerprint? (a digest of the body: the same key with another fingerprint is a DedupConflictError) |
 * | subject | `subject#<sha256(subject)>`        | the leads that named one e-mail, phone or CPF (erasure-dynamodb.ts) |
 * | erased | `erased#<hmac(salt, mark)>`         | an erased lead's tombstone (erasure-dynamodb.ts) |
 * | pacer | `pacer#upstream`                     | kind='pacer', next: the shared upstream pacing (upstream/pacer-dynamodb.ts) |
 * | circuit | `circuit#upstream`                 | kind='circuit': the upstream's health (upstream/circuit-dynamodb.ts) |
 *
 * No key (pk, gsi1pk, gsi1sk) carries personal data: lead ids are time + random, dedup keys
 * are hashed, statuses and timestamps are not personal. The capture and the prospect live in
 * `payload`: JSON text, or gzip-compressed JSON (binary) when the text exceeds 64 KiB.
 * Intake bodies are limited to ~256 KiB and an item to 400 KB, so a lead whose capture and
 * prospect together do not fit even compressed (> 350 KB) is refused with LeadTooLargeError
 * before anything is written.
 *
 * Two sparse indexes: `gsi1` (only lead items have gsi1pk), each status one partition, oldest
 * first (lead-listing-dynamodb.ts); `gsi2`, the reconciler's, where only leads on their way
 * (queued, sending) carry `duepk`/`dueAt` (lead-writes-dynamodb.ts `statusChange` removes them).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { LeadCapture } from '../domain/lead.ts';
import type { ProspectCorrection } from '../domain/lead-correction.ts';
import { isLeadId, isLeadStatus, type LeadStatus } from '../domain/lead-lifecycle.ts';
import type { Prospect } from '../domain/prospect.ts';
import { SUBJECT_KEY_PREFIX } from './erasure-dynamodb.ts';
import { hashDedupKey, InvalidCursorError, type LeadRecord } from './lead-ledger.ts';

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
/** The reconciler's sparse index: leads on their way, by when they are due. */
export const LEDGER_DUE_INDEX = 'gsi2';

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
    {
      indexName: LEDGER_DUE_INDEX,
      partitionKey: { name: 'duepk', type: 'S' },
      sortKey: { name: 'dueAt', type: 'S' },
      projection: 'ALL',
    },
  ],
  timeToLiveAttribute: 'expiresAt',
  billingMode: 'PAY_PER_REQUEST',
} as const satisfies DynamoTableDefinition;

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

/** The due index's one partition key value. */
export const DUE = 'due';

/** The key prefixes of lead and dedup items: all `record` ever puts (the intake's grant). */
export const LEAD_KEY_PREFIX = 'lead#';
export const DEDUP_KEY_PREFIX = 'dedup#';
export const leadPk = (leadId: string) => `${LEAD_KEY_PREFIX}${leadId}`;
export const dedupPkOf = (profile: string, dedupKey: string) =>
  `${DEDUP_KEY_PREFIX}${profile}#${hashDedupKey(dedupKey)}`;
export const statusPk = (status: LeadStatus) => `status#${status}`;
/** The TTL attribute's unit. */
export const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

export type Item = Record<string, unknown>;

/** What a lead item's `payload` holds: the person's data. */
export interface Payload {
  capture: LeadCapture;
  prospect?: Prospect;
  /** The operator's correction: personal data too, so it lives in the payload. */
  correction?: ProspectCorrection;
}

export function encodePayload(payload: Payload): string | Uint8Array {
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

const OPTIONAL_TEXT = [
  'account',
  'reason',
  'lastError',
  'lastFailureAt',
  'ambiguousSince',
  'deliveredAt',
  'leaseUntil',
  'nextAttemptAt',
  'dueAt',
  'correctedAt',
  'correctedBy',
] as const;

export function decodeLead(item: Item): LeadRecord {
  const { status, leadId } = item;
  if (!isLeadId(leadId) || !isLeadStatus(status)) throw new Error('malformed lead item');
  const { capture, prospect, correction } = decodePayload(item.payload);
  const receivedAt = item.receivedAt as string;
  const attempts = Number(item.attempts ?? 0);
  const record: LeadRecord = {
    leadId,
    profile: item.profile as string,
    source: item.source as string,
    status,
    dedupKey: item.dedupKey as string,
    capture,
    ...(prospect !== undefined && { prospect }),
    ...(correction !== undefined && { correction }),
    attempts,
    // Leads recorded before these attributes existed: their chain is version 0.
    tries: Number(item.tries ?? attempts),
    version: Number(item.version ?? 0),
    receivedAt,
    queuedAt: typeof item.queuedAt === 'string' ? item.queuedAt : receivedAt,
    updatedAt: item.updatedAt as string,
  };
  for (const key of OPTIONAL_TEXT) {
    const value = item[key];
    if (typeof value === 'string') record[key] = value;
  }
  if (item.ambiguousSettle === true) record.ambiguousSettle = true;
  if (Array.isArray(item.messages)) record.messages = item.messages.map(String);
  if (typeof item.idProspect === 'string' || typeof item.idProspect === 'number') {
    record.idProspect = item.idProspect;
  }
  if (typeof item.expiresAt === 'number') record.expiresAt = item.expiresAt;
  if (typeof item.redactedAt === 'string') record.redactedAt = item.redactedAt;
  if (item.redaction === 'erasure' || item.redaction === 'retention') {
    record.redaction = item.redaction;
  }
  return record;
}

/** The keys of the subject items a lead item says it was added to. */
export function listedSubjects(item: Item): string[] {
  const listed = item.subjects;
  if (!(listed instanceof Set)) return [];
  return [...listed].filter(
    (key): key is string => typeof key === 'string' && key.startsWith(SUBJECT_KEY_PREFIX),
  );
}

/**
 * The item as it is stored (the client leaves undefined values out of what it writes): what
 * `decodeLead` reads back for the record a write returns.
 */
export function withoutUndefined(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined));
}

export function encodeCursor(key: Item): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** A cursor this ledger handed out for the index `keys` names, with `partition` as its pk. */
export function decodeCursor(
  cursor: string,
  keys: { pk: string; sk: string },
  partition: string,
): Item {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (typeof key !== 'object' || key === null || Array.isArray(key)) throw new InvalidCursorError();
  const { pk, [keys.pk]: indexPk, [keys.sk]: indexSk, ...rest } = key as Item;
  if (
    Object.keys(rest).length > 0 ||
    typeof pk !== 'string' ||
    !pk.startsWith('lead#') ||
    indexPk !== partition ||
    typeof indexSk !== 'string'
  ) {
    throw new InvalidCursorError();
  }
  return { pk, [keys.pk]: indexPk, [keys.sk]: indexSk };
}
