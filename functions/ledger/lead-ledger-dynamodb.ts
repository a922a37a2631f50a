/**
 * The lead ledger (lead-ledger.ts) on one DynamoDB table, with single-item conditional writes
 * only (no transactions: dynalite, the local store, does not implement them, and none is
 * needed). `createDynamoLedger` checks its options, builds the context every operation is given
 * (`LedgerContext`) and assembles the operations, each in the room that owns it:
 *
 * | file | owns |
 * |------|------|
 * | lead-item-dynamodb.ts | the table's definition and item layout, keys, the lead item's payload (JSON, gzip past 64 KiB), decoding a lead, cursors |
 * | lead-writes-dynamodb.ts | the context; conditional writes on a lead item (`update`), fenced by version and status; what a status change sets (index keys, TTL) |
 * | lead-record-dynamodb.ts | `record` under the dedup key (after the erasure tombstone check), `findByDedupKey` |
 * | lead-transitions-dynamodb.ts | the lifecycle's moves: `claim`, `markDelivered`, `markRejected`, `release`, `markDead`, `markParked`, `markTest`, `requeue`, `wake`, `waitFor` |
 * | lead-personal-data-dynamodb.ts | the lead's personal data after recording: `saveMapping`, `correct`, `findBySubjects`, `redact` (docs/privacy.md) |
 * | lead-listing-dynamodb.ts | the status and due indexes: `listByStatus`, `listRecent`, `isPosition`, `listDue`, `countInFlight`, `listWaiting` |
 * | erasure-dynamodb.ts | the subject items and the salted erasure tombstones |
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
 */
import type { DynamoDb } from '../kernel/dynamodb-aws.ts';
import { createErasureStore } from './erasure-dynamodb.ts';
import { DEFAULT_WAKE_GRACE_MS, type ErasureSalt, type LeadLedger } from './lead-ledger.ts';
import {
  countInFlight,
  isPosition,
  listByStatus,
  listDue,
  listRecent,
  listWaiting,
} from './lead-listing-dynamodb.ts';
import { correct, findBySubjects, redact, saveMapping } from './lead-personal-data-dynamodb.ts';
import { findByDedupKey, record } from './lead-record-dynamodb.ts';
import {
  claim,
  markDead,
  markDelivered,
  markParked,
  markRejected,
  markTest,
  release,
  requeue,
  waitFor,
  wake,
} from './lead-transitions-dynamodb.ts';
import { get, type LedgerContext } from './lead-writes-dynamodb.ts';

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

const DAY_SECONDS = 86_400;

/** The context every operation is given, from the options (a RangeError names a bad one). */
function ledgerContext(options: DynamoLedgerOptions): LedgerContext {
  const { tableName } = options;
  const retentionDays = options.retentionDays ?? 90;
  if (!(retentionDays > 0)) throw new RangeError('retentionDays must be positive');
  const wakeGraceMs = options.wakeGraceMs ?? DEFAULT_WAKE_GRACE_MS;
  if (!(wakeGraceMs >= 0)) throw new RangeError('wakeGraceMs must be ≥ 0');
  const doc = options.client;
  return {
    doc,
    tableName,
    retentionSeconds: Math.round(retentionDays * DAY_SECONDS),
    wakeGraceMs,
    erasure: createErasureStore({ client: doc, tableName, salt: options.erasureSalt }),
  };
}

export function createDynamoLedger(options: DynamoLedgerOptions): LeadLedger {
  const ctx = ledgerContext(options);
  /** An operation of this ledger: `step` bound to the context (a call goes straight to it). */
  const on = <A extends unknown[], R>(step: (context: LedgerContext, ...args: A) => R) =>
    step.bind(undefined, ctx) as (...args: A) => R;
  return {
    record: on(record),
    get: on(get),
    findByDedupKey: on(findByDedupKey),
    listRecent: on(listRecent),
    isPosition,
    listByStatus: on(listByStatus),
    listDue: on(listDue),
    countInFlight: on(countInFlight),
    findBySubjects: on(findBySubjects),
    redact: on(redact),
    saveMapping: on(saveMapping),
    correct: on(correct),
    claim: on(claim),
    markDelivered: on(markDelivered),
    markRejected: on(markRejected),
    release: on(release),
    markDead: on(markDead),
    markParked: on(markParked),
    markTest: on(markTest),
    requeue: on(requeue),
    wake: on(wake),
    waitFor: on(waitFor),
    listWaiting: on(listWaiting),
  };
}
