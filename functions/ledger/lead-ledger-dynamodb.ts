/**
 * The lead ledger on one DynamoDB table, with single-item conditional writes only (no
 * transactions: dynalite, the local store, does not implement them, and none is needed).
 *
 * Item layout (partition key `pk`, no sort key):
 *
 * | item  | pk                                   | attributes |
 * |-------|--------------------------------------|------------|
 * | lead  | `lead#<leadId>`                      | kind='lead', leadId, profile, source, status, version, dedupKey, payload, attempts, tries, lastError?, lastFailureAt?, ambiguousSince?, ambiguousSettle?, reason?, messages?, idProspect?, receivedAt, queuedAt, updatedAt, deliveredAt?, leaseUntil?, nextAttemptAt?, expiresAt?, subjects? (the keys of the subject items it was added to), gsi1pk=`status#<status>`, gsi1sk=`<receivedAt>#<leadId>`, and while on its way duepk=`due`, dueAt |
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
 * The reconciler's index `gsi2` is sparse too: only leads on their way (queued, sending) carry
 * `duepk`/`dueAt`; every other transition removes them, so the reconciler reads the few leads
 * that may need waking, never the whole table.
 *
 * TTL (`expiresAt`, epoch seconds; DynamoDB deletes up to ~48 h late, so code that cares
 * compares it itself, as the dedup condition does):
 * - lead items in `delivered`, `rejected` and `test` expire `retentionDays` after their last
 *   transition; a requeue removes the TTL again;
 * - `queued`, `sending`, `parked` and `dead` leads never expire: they still need delivery or an
 *   operator's decision, and dropping them silently is the failure this product exists to avoid;
 * - dedup items expire when their window ends; a window never outlasts `retentionDays`, so a
 *   dedup item cannot point at a lead the TTL already removed;
 * - erasure tombstones expire ERASURE_TOMBSTONE_DAYS after the erasure (erasure-dynamodb.ts).
 * The table's TTL must be enabled on `expiresAt` (LEDGER_TABLE_DEFINITION.timeToLiveAttribute).
 *
 * Personal data (docs/privacy.md): `record`, `saveMapping` (once a source completed the
 * capture) and `correct` (what an operator typed) add the lead's id to one subject item per
 * e-mail, phone and CPF it names, before the lead item is written (a pointer to a lead that was
 * never written is harmless), and the lead item lists the subject items it was added to. An
 * erasure request reads those items (`findBySubjects`: GetItem per subject, no scan) and
 * `redact`s each lead: the payload keeps no answer, the lead leaves every subject item it
 * listed (an emptied item gets a TTL of now), and for an erasure the lead's tombstones are
 * written and its dedup item's window ends at once. `record` reads the new lead's two
 * tombstones (one BatchGetItem) before it writes anything, and refuses a lead found there
 * (ErasedLeadError): a platform's redelivery or a backfill cannot bring an erased person back.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ExternalId } from '../domain/json.ts';
import type { LeadCapture } from '../domain/lead.ts';
import type { ProspectCorrection } from '../domain/lead-correction.ts';
import {
  CORRECTABLE,
  IN_FLIGHT,
  isLeadId,
  isLeadStatus,
  LeadStateError,
  type LeadStatus,
  newLeadId,
  TRANSITIONS,
} from '../domain/lead-lifecycle.ts';
import type * as PersonalData from '../domain/personal-data.ts';
import type { Prospect } from '../domain/prospect.ts';
import { type DynamoDb, isConditionFailed } from '../kernel/aws/dynamodb.ts';
import { createErasureStore, SUBJECT_KEY_PREFIX, subjectKey } from './erasure-dynamodb.ts';
import {
  boundMessages,
  boundText,
  DEFAULT_WAKE_GRACE_MS,
  DedupConflictError,
  ErasedLeadError,
  type ErasureSalt,
  hashDedupKey,
  InvalidCursorError,
  type LeadLedger,
  type LeadPage,
  type LeadRecord,
  type NewLead,
  type RecentPage,
  type RecentQuery,
  type RedactionReason,
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

export interface DynamoLedgerOptions {
  client: DynamoDb;
  tableName: string;
  /** How long final leads (delivered, rejected, test) are kept after their last change. */
  retentionDays?: number;
  /**
   * How long after a lead is recorded, released or claimed the reconciler may wake it if nothing
   * did (its message lost, its worker dead): its `dueAt` is that much after the moment it should
   * have been picked up. Default 2 minutes.
   */
  wakeGraceMs?: number;
  /**
   * The secret that salts the erasure tombstones (erasure-dynamodb.ts). Functions that record
   * leads or erase people (the intake, the admin API) need it; without it `record` and an
   * erasure's `redact` fail, so no lead is ever recorded unchecked.
   */
  erasureSalt?: ErasureSalt;
}

export { ERASED_KEY_PREFIX, SUBJECT_KEY_PREFIX } from './erasure-dynamodb.ts';

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
/** The due index's one partition key value. */
const DUE = 'due';
/** The bounds of the status index's sort key (`<receivedAt ISO>#<leadId>`) when none is given. */
const LOWEST_POSITION = '0';
const HIGHEST_POSITION = '9~';
const POSITION = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#ld_[0-9A-Z]{22}$/;
/** Final states that the TTL may remove after retentionDays. */
const EXPIRING: ReadonlySet<LeadStatus> = new Set(['delivered', 'rejected', 'test']);

/** The statuses whose leads lose their personal data after the privacy retention. */
export const RETAINED_STATUSES: ReadonlySet<LeadStatus> = new Set(['parked', 'dead', 'test']);

/** The key prefixes of lead and dedup items: all `record` ever puts (the intake's grant). */
export const LEAD_KEY_PREFIX = 'lead#';
export const DEDUP_KEY_PREFIX = 'dedup#';
const leadPk = (leadId: string) => `${LEAD_KEY_PREFIX}${leadId}`;
const dedupPkOf = (profile: string, dedupKey: string) =>
  `${DEDUP_KEY_PREFIX}${profile}#${hashDedupKey(dedupKey)}`;
const statusPk = (status: LeadStatus) => `status#${status}`;
const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

type Item = Record<string, unknown>;

interface Payload {
  capture: LeadCapture;
  prospect?: Prospect;
  /** The operator's correction: personal data too, so it lives in the payload. */
  correction?: ProspectCorrection;
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

const OPTIONAL_TEXT = [
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

function decodeLead(item: Item): LeadRecord {
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
function listedSubjects(item: Item): string[] {
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
function withoutUndefined(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined));
}

function encodeCursor(key: Item): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** A cursor this ledger handed out for the index `keys` names, with `partition` as its pk. */
function decodeCursor(cursor: string, keys: { pk: string; sk: string }, partition: string): Item {
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

/** One UpdateItem: what to set (undefined removes), remove, add, and the condition. */
interface UpdateSpec {
  set: Item;
  remove?: readonly string[];
  /** Attributes incremented by one (missing counts as 0). */
  increment?: readonly string[];
  /** `attempts := 0, tries := 0`. */
  resetCounts?: boolean;
  /** String sets the values are added to (`ADD`); an empty set adds nothing. */
  add?: Record<string, ReadonlySet<string>>;
}

/**
 * The personal-data rules (a lead's subjects: its e-mail, phone and CPF normalised as the
 * mapping does), loaded when a lead is recorded, mapped or redacted: with them come the mapping's
 * normalisers and libphonenumber-js, which a function that only lists and wakes leads (the
 * reconciler, the watch) never needs at its cold start.
 */
const personalData = (): Promise<typeof PersonalData> => import('../domain/personal-data.ts');

export function createDynamoLedger(options: DynamoLedgerOptions): LeadLedger {
  const { tableName } = options;
  const retentionDays = options.retentionDays ?? 90;
  if (!(retentionDays > 0)) throw new RangeError('retentionDays must be positive');
  const retentionSeconds = Math.round(retentionDays * DAY_SECONDS);
  const wakeGraceMs = options.wakeGraceMs ?? DEFAULT_WAKE_GRACE_MS;
  if (!(wakeGraceMs >= 0)) throw new RangeError('wakeGraceMs must be ≥ 0');
  const doc = options.client;
  const erasure = createErasureStore({ client: doc, tableName, salt: options.erasureSalt });

  const ttlFor = (status: LeadStatus, now: Date) =>
    EXPIRING.has(status) ? epochSeconds(now) + retentionSeconds : undefined;
  const dueAfter = (moment: Date | string) =>
    new Date(new Date(moment).getTime() + wakeGraceMs).toISOString();

  async function getItem(pk: string): Promise<Item | undefined> {
    const out = await doc.get({ TableName: tableName, Key: { pk }, ConsistentRead: true });
    return out.Item;
  }

  /** Puts an item under a condition; false when the condition failed. */
  async function putIf(
    item: Item,
    condition: string,
    values?: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      await doc.put({
        TableName: tableName,
        Item: item,
        ConditionExpression: condition,
        ...(values && { ExpressionAttributeValues: values }),
      });
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  /**
   * One UpdateItem under `condition` (written with `#status`, `#version` and the placeholders
   * in `values`); the new record, or undefined when the condition failed.
   */
  async function update(
    leadId: string,
    spec: UpdateSpec,
    condition: string,
    values: Record<string, unknown>,
    now: Date,
    conditionNames: Record<string, string> = {},
  ): Promise<LeadRecord | undefined> {
    if (!isLeadId(leadId)) return undefined;
    const names: Record<string, string> = {
      '#status': 'status',
      '#version': 'version',
      ...conditionNames,
    };
    const vals: Record<string, unknown> = { ...values };
    const sets: string[] = [];
    const removes: string[] = [];
    let index = 0;
    for (const [attr, value] of Object.entries({ ...spec.set, updatedAt: now.toISOString() })) {
      const n = attr === 'status' ? '#status' : attr === 'version' ? '#version' : `#a${index}`;
      names[n] = attr;
      if (value === undefined) removes.push(n);
      else {
        vals[`:a${index}`] = value;
        sets.push(`${n} = :a${index}`);
      }
      index++;
    }
    for (const attr of spec.remove ?? []) {
      names[`#r${index}`] = attr;
      removes.push(`#r${index}`);
      index++;
    }
    if (spec.increment?.length || spec.resetCounts) vals[':zero'] = 0;
    if (spec.increment?.length) vals[':one'] = 1;
    for (const attr of spec.increment ?? []) {
      const n = attr === 'version' ? '#version' : `#i${index}`;
      names[n] = attr;
      sets.push(`${n} = if_not_exists(${n}, :zero) + :one`);
      index++;
    }
    if (spec.resetCounts) {
      names['#attempts'] = 'attempts';
      names['#tries'] = 'tries';
      sets.push('#attempts = :zero', '#tries = :zero');
    }
    const adds: string[] = [];
    for (const [attr, values] of Object.entries(spec.add ?? {})) {
      if (values.size === 0) continue;
      names[`#s${index}`] = attr;
      vals[`:s${index}`] = new Set(values);
      adds.push(`#s${index} :s${index}`);
      index++;
    }
    const expression = `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}${adds.length > 0 ? ` ADD ${adds.join(', ')}` : ''}`;
    // DynamoDB refuses names and values that no expression uses.
    const used = (placeholder: string) =>
      new RegExp(`${placeholder}(?![\\w])`).test(`${expression} ${condition}`);
    try {
      const out = await doc.update({
        TableName: tableName,
        Key: { pk: leadPk(leadId) },
        UpdateExpression: expression,
        ConditionExpression: condition,
        ExpressionAttributeNames: Object.fromEntries(
          Object.entries(names).filter(([name]) => used(name)),
        ),
        ExpressionAttributeValues: Object.fromEntries(
          Object.entries(vals).filter(([name]) => used(name)),
        ),
        ReturnValues: 'ALL_NEW',
      });
      return out.Attributes ? decodeLead(out.Attributes) : undefined;
    } catch (error) {
      if (isConditionFailed(error)) return undefined;
      throw error;
    }
  }

  /** `#version = :version`, where a lead without the attribute counts as version 0. */
  function versionIs(version: number, values: Record<string, unknown>): string {
    values[':version'] = version;
    return version === 0
      ? '(attribute_not_exists(#version) OR #version = :version)'
      : '#version = :version';
  }

  /** `#status IN (...)` of a transition's `from`. */
  function statusIn(statuses: readonly LeadStatus[], values: Record<string, unknown>): string {
    const placeholders = statuses.map((status, i) => {
      values[`:from${i}`] = status;
      return `:from${i}`;
    });
    return `#status IN (${placeholders.join(', ')})`;
  }

  /** What moving to status `to` sets besides it: its index keys, TTL, no longer due when final. */
  function statusChange(to: LeadStatus, now: Date): Item {
    return {
      status: to,
      gsi1pk: statusPk(to),
      expiresAt: ttlFor(to, now),
      ...(!IN_FLIGHT.has(to) && { duepk: undefined, dueAt: undefined, nextAttemptAt: undefined }),
    };
  }

  async function get(leadId: string): Promise<LeadRecord | undefined> {
    if (!isLeadId(leadId)) return undefined;
    const item = await getItem(leadPk(leadId));
    return item ? decodeLead(item) : undefined;
  }

  /** A fenced transition that must succeed: LeadStateError (with the status found) otherwise. */
  async function fenced(
    leadId: string,
    name: keyof typeof TRANSITIONS,
    version: number,
    now: Date,
    spec: UpdateSpec,
  ): Promise<LeadRecord> {
    const values: Record<string, unknown> = {};
    const condition = `${statusIn(TRANSITIONS[name].from, values)} AND ${versionIs(version, values)}`;
    const done = await update(
      leadId,
      { ...spec, set: { ...statusChange(TRANSITIONS[name].to, now), ...spec.set } },
      condition,
      values,
      now,
    );
    if (done) return done;
    const current = await get(leadId);
    throw new LeadStateError(leadId, name, current?.status);
  }

  async function record(lead: NewLead): Promise<{ lead: LeadRecord; duplicate: boolean }> {
    validateNewLead(lead);
    const receivedAt = lead.receivedAt.toISOString();
    const now = epochSeconds(lead.receivedAt);
    const window = Math.min(lead.dedupWindowSeconds ?? retentionSeconds, retentionSeconds);
    const dedupPk = dedupPkOf(lead.profile, lead.dedupKey);
    const payload = encodePayload({
      capture: lead.capture,
      ...(lead.prospect !== undefined && { prospect: lead.prospect }),
    });
    const queued = lead.status === 'queued';
    const { erasureMarks, subjectsOf } = await personalData();
    // Before anything of the lead is written: an erased person's lead, sent again, leaves nothing.
    if (await erasure.isErased(erasureMarks(lead.capture, lead.dedupKey), lead.receivedAt)) {
      throw new ErasedLeadError();
    }
    const subjects = subjectsOf(lead.capture, lead.prospect).map(subjectKey);

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
        version: 0,
        dedupKey: lead.dedupKey,
        payload,
        reason: lead.reason === undefined ? undefined : boundText(lead.reason),
        attempts: 0,
        tries: 0,
        receivedAt,
        queuedAt: receivedAt,
        updatedAt: receivedAt,
        ...(queued && { nextAttemptAt: receivedAt, duepk: DUE, dueAt: dueAfter(receivedAt) }),
        expiresAt: ttlFor(lead.status, lead.receivedAt),
        subjects: subjects.length > 0 ? new Set(subjects) : undefined,
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
      // The subject items first: a pointer to a lead never written is harmless, a lead that an
      // erasure request cannot find is not.
      await erasure.addSubjects(leadId, subjects);
      const dedup: Item = {
        pk: dedupPk,
        kind: 'dedup',
        leadId,
        profile: lead.profile,
        createdAt: receivedAt,
        expiresAt: now + window,
        ...(lead.fingerprint !== undefined && { fingerprint: lead.fingerprint }),
      };
      if (await putIf(dedup, 'attribute_not_exists(pk) OR expiresAt < :now', { ':now': now })) {
        return writeLead(leadId);
      }
      const holder = await getItem(dedupPk);
      // Gone or replaced between our put and our read (its window ended): try again.
      if (!holder || !isLeadId(holder.leadId)) continue;
      // The same key for something else (an Idempotency-Key reused for another body).
      if (
        lead.fingerprint !== undefined &&
        typeof holder.fingerprint === 'string' &&
        holder.fingerprint !== lead.fingerprint
      ) {
        throw new DedupConflictError(holder.leadId);
      }
      const existing = await get(holder.leadId);
      if (existing) return { lead: existing, duplicate: true };
      // The dedup item points at a lead that was never written: its writer crashed, or is
      // still on its way. Write it ourselves under that id; the lead put decides who won.
      return writeLead(holder.leadId);
    }
    throw new Error('record: the dedup item kept changing; try again');
  }

  async function query(
    index: string,
    keys: { pk: string; sk: string },
    partition: string,
    page: { limit?: number; cursor?: string },
    extra: { condition?: string; values?: Record<string, unknown> } = {},
  ): Promise<LeadPage> {
    const limit = Math.min(Math.max(Math.trunc(page.limit ?? DEFAULT_PAGE), 1), MAX_PAGE);
    const out = await doc.query({
      TableName: tableName,
      IndexName: index,
      KeyConditionExpression: `${keys.pk} = :pk${extra.condition ? ` AND ${extra.condition}` : ''}`,
      ExpressionAttributeValues: { ':pk': partition, ...extra.values },
      ScanIndexForward: true,
      Limit: limit,
      ...(page.cursor !== undefined && {
        ExclusiveStartKey: decodeCursor(page.cursor, keys, partition),
      }),
    });
    const leads = (out.Items ?? []).map(decodeLead);
    return out.LastEvaluatedKey ? { leads, cursor: encodeCursor(out.LastEvaluatedKey) } : { leads };
  }

  /** Adds the lead to the subject items of `subjects`; their keys. */
  async function addSubjects(leadId: string, subjects: readonly string[]): Promise<string[]> {
    const keys = subjects.map(subjectKey);
    await erasure.addSubjects(leadId, keys);
    return keys;
  }

  /**
   * After a refused write that added the lead to subject items: when the lead was erased
   * meanwhile, it leaves them again (it no longer holds what they point at). The lead as read.
   */
  async function forgetIfRedacted(
    leadId: string,
    keys: readonly string[],
    now: Date,
  ): Promise<LeadRecord | undefined> {
    const after = await get(leadId);
    if (after?.redactedAt !== undefined) await erasure.removeSubjects(leadId, keys, now);
    return after;
  }

  /** An erasure ends the lead's dedup item now: the (hashed) key no longer recognises it. */
  async function endDedup(lead: LeadRecord): Promise<void> {
    if (lead.dedupKey === 'redacted') return;
    await doc
      .update({
        TableName: tableName,
        Key: { pk: dedupPkOf(lead.profile, lead.dedupKey) },
        UpdateExpression: 'SET expiresAt = :zero REMOVE fingerprint',
        ConditionExpression: 'leadId = :leadId',
        ExpressionAttributeValues: { ':zero': 0, ':leadId': lead.leadId },
      })
      .catch((error: unknown) => {
        if (!isConditionFailed(error)) throw error;
      });
  }

  /** The lead item without personal data (see `redact`); undefined when it changed meanwhile. */
  async function redactItem(
    lead: LeadRecord,
    reason: RedactionReason,
    now: Date,
  ): Promise<LeadRecord | undefined> {
    const stop = reason === 'erasure' && IN_FLIGHT.has(lead.status);
    const values: Record<string, unknown> = {};
    const { redactCapture } = await personalData();
    return update(
      lead.leadId,
      {
        set: {
          payload: encodePayload({ capture: redactCapture(lead.capture) }),
          dedupKey: 'redacted',
          redactedAt: now.toISOString(),
          redaction: reason,
          ...(lead.status === 'rejected' && { reason: 'rejected by the upstream' }),
          ...(stop && {
            ...statusChange('dead', now),
            lastError: "erased at the person's request before delivery",
            leaseUntil: undefined,
          }),
        },
        remove: ['messages', 'subjects'],
        ...(stop && { increment: ['version'] }),
      },
      versionIs(lead.version, values),
      values,
      now,
    );
  }

  /** One status partition of `listRecent`, `limit` leads within [lo, hi] in `order`. */
  async function queryRange(
    status: LeadStatus,
    range: { lo: string; hi: string },
    order: RecentQuery['order'],
    limit: number,
  ): Promise<{ leads: LeadRecord[]; more: boolean }> {
    const out = await doc.query({
      TableName: tableName,
      IndexName: LEDGER_STATUS_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': statusPk(status), ':lo': range.lo, ':hi': range.hi },
      ScanIndexForward: order === 'oldest',
      Limit: limit,
    });
    return { leads: (out.Items ?? []).map(decodeLead), more: out.LastEvaluatedKey !== undefined };
  }

  async function listRecent(query: RecentQuery): Promise<RecentPage> {
    const limit = Math.min(Math.max(Math.trunc(query.limit), 1), MAX_PAGE);
    if (query.after !== undefined && !POSITION.test(query.after)) throw new InvalidCursorError();
    for (const status of query.statuses) {
      if (!isLeadStatus(status)) throw new RangeError(`unknown status '${String(status)}'`);
    }
    let lo = query.since ? query.since.toISOString() : LOWEST_POSITION;
    // Received before `until`: its own timestamp sorts after every key that starts with it.
    let hi = query.until ? query.until.toISOString() : HIGHEST_POSITION;
    // The position itself is within the range (BETWEEN is inclusive): dropped below.
    if (query.after !== undefined) {
      if (query.order === 'newest' && query.after < hi) hi = query.after;
      if (query.order === 'oldest' && query.after > lo) lo = query.after;
    }
    if (lo > hi) return { entries: [], more: false };
    const pages = await Promise.all(
      [...new Set(query.statuses)].map((status) =>
        queryRange(status, { lo, hi }, query.order, limit + 1),
      ),
    );
    const positionOf = (lead: LeadRecord) => `${lead.receivedAt}#${lead.leadId}`;
    const merged = pages
      .flatMap((page) => page.leads)
      .map((lead) => ({ lead, position: positionOf(lead) }))
      .filter((entry) => entry.position !== query.after)
      .sort((a, b) =>
        query.order === 'newest'
          ? b.position.localeCompare(a.position)
          : a.position.localeCompare(b.position),
      );
    const entries = merged.slice(0, limit);
    const more = merged.length > limit || pages.some((page) => page.more);
    return { entries, more };
  }

  return {
    record,
    get,
    listRecent,

    isPosition(position: string): boolean {
      return POSITION.test(position);
    },

    async findByDedupKey(profile, dedupKey, now = new Date()) {
      const holder = await getItem(dedupPkOf(profile, dedupKey));
      if (!holder || !isLeadId(holder.leadId)) return undefined;
      if (typeof holder.expiresAt === 'number' && holder.expiresAt < epochSeconds(now)) {
        return undefined;
      }
      return get(holder.leadId);
    },

    async correct(leadId, version, change, now) {
      const current = await get(leadId);
      if (
        !current ||
        current.version !== version ||
        !CORRECTABLE.has(current.status) ||
        current.redactedAt !== undefined
      ) {
        return undefined;
      }
      const payload = encodePayload({
        capture: current.capture,
        prospect: change.prospect,
        correction: change.correction,
      });
      // What the operator typed is the person's too: an erasure request must find it.
      const { subjectsOf } = await personalData();
      const subjects = subjectsOf(current.capture, change.prospect, change.correction);
      const keys = await addSubjects(leadId, subjects);
      const values: Record<string, unknown> = {};
      const condition = `${statusIn([...CORRECTABLE], values)} AND ${versionIs(version, values)} AND attribute_not_exists(#c0)`;
      const done = await update(
        leadId,
        {
          set: { payload, correctedAt: now.toISOString(), correctedBy: boundText(change.by, 200) },
          add: { subjects: new Set(keys) },
        },
        condition,
        values,
        now,
        { '#c0': 'redactedAt' },
      );
      if (!done) await forgetIfRedacted(leadId, keys, now);
      return done;
    },

    async listByStatus(status, page = {}): Promise<LeadPage> {
      if (!isLeadStatus(status)) throw new RangeError(`unknown status '${String(status)}'`);
      const before = page.receivedBefore;
      return query(
        LEDGER_STATUS_INDEX,
        { pk: 'gsi1pk', sk: 'gsi1sk' },
        statusPk(status),
        page,
        before
          ? { condition: 'gsi1sk < :before', values: { ':before': before.toISOString() } }
          : {},
      );
    },

    async findBySubjects(subjects) {
      const ids = await erasure.leadsOf(subjects);
      return [...ids].filter(isLeadId).sort();
    },

    async redact(leadId, how) {
      const erasing = how.reason === 'erasure';
      const asked = (how.subjects ?? []).map(subjectKey);
      for (let round = 0; round < RECORD_ROUNDS; round++) {
        const item = isLeadId(leadId) ? await getItem(leadPk(leadId)) : undefined;
        if (!item) return undefined;
        const current = decodeLead(item);
        const pending = erasing && IN_FLIGHT.has(current.status);
        if (current.redactedAt !== undefined && !pending) {
          // Found again through a pointer left behind: it leaves the items the request named.
          await erasure.removeSubjects(leadId, asked, how.now);
          return current;
        }
        // Retention only ever touches leads that wait for nobody (a requeue may race it).
        if (!erasing && !RETAINED_STATUSES.has(current.status)) return current;
        const { erasureMarks, subjectsOf } = await personalData();
        const subjects = [
          ...listedSubjects(item),
          ...subjectsOf(current.capture, current.prospect, current.correction).map(subjectKey),
          ...asked,
        ];
        if (erasing) {
          // The tombstones first: a redelivery from now on is dropped, whatever happens next.
          await erasure.remember(erasureMarks(current.capture, current.dedupKey), how.now);
          await endDedup(current);
        }
        // Fenced by the version read: an attempt that moved the lead meanwhile makes us read again.
        const done = await redactItem(current, how.reason, how.now);
        if (!done) continue;
        await erasure.removeSubjects(leadId, subjects, how.now);
        return done;
      }
      throw new Error(`redact: lead ${leadId} kept changing; try again`);
    },

    async listDue(now, page = {}): Promise<LeadPage> {
      return query(LEDGER_DUE_INDEX, { pk: 'duepk', sk: 'dueAt' }, DUE, page, {
        condition: 'dueAt <= :now',
        values: { ':now': now.toISOString() },
      });
    },

    async countInFlight(): Promise<number> {
      let count = 0;
      let start: Item | undefined;
      do {
        const out = await doc.query({
          TableName: tableName,
          IndexName: LEDGER_DUE_INDEX,
          KeyConditionExpression: 'duepk = :pk',
          ExpressionAttributeValues: { ':pk': DUE },
          Select: 'COUNT',
          ...(start && { ExclusiveStartKey: start }),
        });
        count += out.Count ?? 0;
        start = out.LastEvaluatedKey;
      } while (start);
      return count;
    },

    async claim(leadId, version, leaseMs, now) {
      if (!(Number.isFinite(leaseMs) && leaseMs > 0)) throw new RangeError('leaseMs must be > 0');
      const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
      const values: Record<string, unknown> = {
        ':queued': 'queued',
        ':sending': 'sending',
        ':now': now.toISOString(),
      };
      // ISO 8601 UTC timestamps of one format compare correctly as strings.
      const condition =
        `${versionIs(version, values)} AND (` +
        '(#status = :queued AND (attribute_not_exists(#c0) OR #c0 <= :now)) ' +
        'OR (#status = :sending AND #c1 < :now))';
      return update(
        leadId,
        {
          set: {
            ...statusChange('sending', now),
            leaseUntil,
            duepk: DUE,
            dueAt: dueAfter(leaseUntil),
            nextAttemptAt: undefined,
          },
          increment: ['version', 'tries'],
        },
        condition,
        values,
        now,
        { '#c0': 'nextAttemptAt', '#c1': 'leaseUntil' },
      );
    },

    async markDelivered(leadId, idProspect: ExternalId, now) {
      const values: Record<string, unknown> = {};
      const condition = statusIn(TRANSITIONS.markDelivered.from, values);
      const done = await update(
        leadId,
        {
          set: {
            ...statusChange('delivered', now),
            idProspect,
            deliveredAt: now.toISOString(),
            leaseUntil: undefined,
          },
        },
        condition,
        values,
        now,
      );
      if (done) return;
      const current = await get(leadId);
      // The same delivery recorded twice (a redelivered message, a retried call): fine.
      if (current?.status === 'delivered' && String(current.idProspect) === String(idProspect)) {
        return;
      }
      throw new LeadStateError(leadId, 'markDelivered', current?.status);
    },

    async markRejected(leadId, version, messages, now) {
      const bounded = boundMessages(messages);
      await fenced(leadId, 'markRejected', version, now, {
        set: {
          messages: bounded,
          reason: boundText(bounded.join('; ') || 'rejected'),
          leaseUntil: undefined,
        },
      });
    },

    async release(leadId, version, release, now) {
      const nextAttemptAt = release.nextAttemptAt.toISOString();
      return fenced(leadId, 'release', version, now, {
        set: {
          leaseUntil: undefined,
          nextAttemptAt,
          duepk: DUE,
          dueAt: dueAfter(nextAttemptAt),
          lastError: boundText(release.error),
          ...(release.failed && { lastFailureAt: now.toISOString() }),
          ...(release.ambiguousSince !== undefined && {
            ambiguousSince: release.ambiguousSince,
            ambiguousSettle: release.ambiguousSettle === true ? true : undefined,
          }),
        },
        ...(release.counted && { increment: ['attempts'] }),
      });
    },

    async markDead(leadId, version, error, now, deadOptions = {}) {
      await fenced(leadId, 'markDead', version, now, {
        set: { lastError: boundText(error), leaseUntil: undefined },
        ...(deadOptions.counted && { increment: ['attempts'] }),
      });
    },

    async markParked(leadId, version, reason, now) {
      await fenced(leadId, 'markParked', version, now, {
        set: { reason: boundText(reason), leaseUntil: undefined },
      });
    },

    async markTest(leadId, version, reason, now) {
      await fenced(leadId, 'markTest', version, now, {
        set: { reason: boundText(reason), leaseUntil: undefined },
      });
    },

    async saveMapping(leadId, version, mapping, now) {
      const current = await get(leadId);
      if (!current) throw new LeadStateError(leadId, 'saveMapping', undefined);
      const payload = encodePayload({
        capture: mapping.capture ?? current.capture,
        ...((mapping.prospect ?? current.prospect) !== undefined && {
          prospect: mapping.prospect ?? current.prospect,
        }),
        ...(current.correction !== undefined && { correction: current.correction }),
      });
      const { subjectsOf } = await personalData();
      const subjects = subjectsOf(
        mapping.capture ?? current.capture,
        mapping.prospect ?? current.prospect,
        current.correction,
      );
      const keys = await addSubjects(leadId, subjects);
      const values: Record<string, unknown> = { ':sending': 'sending' };
      const done = await update(
        leadId,
        { set: { payload }, add: { subjects: new Set(keys) } },
        `#status = :sending AND ${versionIs(version, values)}`,
        values,
        now,
      );
      if (done) return;
      const after = await forgetIfRedacted(leadId, keys, now);
      throw new LeadStateError(leadId, 'saveMapping', after?.status);
    },

    async requeue(leadId, now) {
      const values: Record<string, unknown> = {};
      const at = now.toISOString();
      return update(
        leadId,
        {
          set: {
            ...statusChange('queued', now),
            queuedAt: at,
            nextAttemptAt: at,
            duepk: DUE,
            dueAt: dueAfter(at),
            leaseUntil: undefined,
          },
          remove: ['reason', 'messages', 'lastFailureAt'],
          increment: ['version'],
          resetCounts: true,
        },
        // A lead whose personal data was removed has nothing left to deliver.
        `${statusIn(TRANSITIONS.requeue.from, values)} AND attribute_not_exists(#c0)`,
        values,
        now,
        { '#c0': 'redactedAt' },
      );
    },

    async wake(leadId, version, wakeOptions) {
      const values: Record<string, unknown> = { ':queued': 'queued', ':sending': 'sending' };
      let condition = `(#status = :queued OR #status = :sending) AND ${versionIs(version, values)}`;
      if (wakeOptions.onlyIfDue) {
        values[':now'] = wakeOptions.now.toISOString();
        condition += ' AND #c0 <= :now';
      }
      return update(
        leadId,
        {
          set: {
            dueAt: wakeOptions.dueAt.toISOString(),
            ...(wakeOptions.attemptNow && { nextAttemptAt: wakeOptions.now.toISOString() }),
          },
        },
        condition,
        values,
        wakeOptions.now,
        wakeOptions.onlyIfDue ? { '#c0': 'dueAt' } : {},
      );
    },
  };
}
