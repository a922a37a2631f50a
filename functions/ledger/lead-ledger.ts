/**
 * The lead ledger: the durable record of every accepted lead and where it is on its way
 * upstream. The port, its types and pure helpers; the DynamoDB adapter is
 * lead-ledger-dynamodb.ts. No AWS imports here.
 *
 * Every transition is one conditional write on the lead's own item, so two writers can never
 * both win and a final state cannot be left by a late or duplicate message. Which transition
 * is allowed from which status is the lifecycle's (domain/lead-lifecycle.ts).
 * `claim` and `requeue` answer `undefined` when refused (a duplicate queue message, an operator
 * retrying a delivered lead: expected); the other transitions throw `LeadStateError` (the
 * caller held a lease and lost it, which is worth a log line).
 */
import { createHash } from 'node:crypto';
import type { ExternalId } from '../domain/json.ts';
import type { LeadCapture } from '../domain/lead.ts';
import type { ProspectCorrection } from '../domain/lead-correction.ts';
import {
  IN_FLIGHT,
  type LeadStatus,
  type PublicLeadStatus,
  publicStatus,
} from '../domain/lead-lifecycle.ts';
import type { Prospect } from '../domain/prospect.ts';

export interface LeadRecord {
  leadId: string;
  /** The configuration profile the lead came in through (`site`, `meta`...). */
  profile: string;
  /**
   * The upstream account the lead was accepted for (its profile's `upstream` then): its tenant
   * on the lead queue, its circuit, pacer and credentials, whatever the configuration says
   * later. Absent on leads recorded before accounts were recorded: `accountOfLead`.
   */
  account?: string;
  source: string;
  status: LeadStatus;
  /** What makes a redelivery recognisable (see LeadCapture.dedupKey). Never part of a key. */
  dedupKey: string;
  /** What the person sent, as captured (completed by the source's lookup once it ran). */
  capture: LeadCapture;
  /** The Prospect as last mapped (with the operator's correction laid over it). */
  prospect?: Prospect;
  /**
   * The fields an operator corrected (domain/lead-correction.ts): laid over every mapping of the
   * lead, so that delivery never maps the correction away. Personal data, like the capture.
   */
  correction?: ProspectCorrection;
  /** ISO 8601: when an operator last corrected the lead, and who (their client's username). */
  correctedAt?: string;
  correctedBy?: string;
  /** Why the lead is parked (missing fields) or was rejected (the upstream's messages joined). */
  reason?: string;
  /** The upstream's own messages when it rejected the lead. */
  messages?: string[];
  /**
   * Failures counted against this lead since it was (re)queued: only failures that are its own
   * (the upstream kept serving other leads meanwhile). At maxAttempts the lead is dead.
   */
  attempts: number;
  /** Every delivery attempt since the lead was (re)queued, counted or not. */
  tries: number;
  lastError?: string;
  /** ISO 8601: when the last failed attempt failed. */
  lastFailureAt?: string;
  /**
   * ISO 8601: when the first delivery attempt whose POST had an unknown outcome (a timeout, a
   * connection lost after sending, a 500/502/504) started. The upstream may have created the
   * prospect, so the next attempt looks it up before posting again (docs/operations.md).
   */
  ambiguousSince?: string;
  /** Whether that ambiguity needs time to settle (the request may still be processing). */
  ambiguousSettle?: boolean;
  /** The delivery chain's fencing token: `claim` and `requeue` increment it (lead-lifecycle.ts). */
  version: number;
  /** ISO 8601: the earliest moment of the next attempt (queued leads). */
  nextAttemptAt?: string;
  /**
   * ISO 8601: when the reconciler should look at the lead if nothing has (queued and sending
   * leads only; the sparse index the reconciler reads).
   */
  dueAt?: string;
  /** ISO 8601: when the lead was (last) queued; the delivery horizon counts from here. */
  queuedAt: string;
  idProspect?: ExternalId;
  /** ISO 8601. */
  receivedAt: string;
  /** ISO 8601, the last transition. */
  updatedAt: string;
  deliveredAt?: string;
  /** ISO 8601, while `sending`: until then nobody else may claim the lead. */
  leaseUntil?: string;
  /** Epoch seconds after which the store may delete the lead (see the adapter's TTL rules). */
  expiresAt?: number;
  /**
   * ISO 8601: when its personal data was removed (`redact`): the capture keeps only its source,
   * form and times, the Prospect and the upstream's messages are gone.
   */
  redactedAt?: string;
  /** Why: a person's erasure request, or the retention of parked, dead and test leads. */
  redaction?: RedactionReason;
}

/** Why a lead's personal data was removed (docs/privacy.md). */
export type RedactionReason = 'erasure' | 'retention';

export interface NewLead {
  profile: string;
  /** The profile's upstream account when the lead was accepted (LeadRecord.account). */
  account?: string;
  source: string;
  dedupKey: string;
  /** How long the dedup key stays recognised; undefined = as long as the ledger keeps leads. */
  dedupWindowSeconds?: number;
  /**
   * What the request carried, as a digest (the Prospect API: a SHA-256 of the body's canonical
   * form). Kept with the dedup key: a later lead with the same key and another fingerprint is
   * not a duplicate but a reused key (DedupConflictError).
   */
  fingerprint?: string;
  capture: LeadCapture;
  prospect?: Prospect;
  status: 'queued' | 'parked' | 'test';
  /** Why it is parked. */
  reason?: string;
  receivedAt: Date;
}

/**
 * A lead's upstream account: the one it was accepted for, or, for a lead recorded before leads
 * recorded their account, its profile's as configured now (`accountOf`: ConfigSource's).
 */
/** An operator's correction as the ledger keeps it (`LeadLedger.correct`). */
export interface LeadCorrectionChange {
  correction: ProspectCorrection;
  prospect: Prospect;
  by: string;
  /** The profile (and its account) the lead moves to. */
  move?: { profile: string; account: string };
}

export async function accountOfLead(
  lead: Pick<LeadRecord, 'account' | 'profile'>,
  accountOf: (profile: string) => Promise<string>,
): Promise<string> {
  return lead.account ?? accountOf(lead.profile);
}

/**
 * How long after a lead should have been picked up (recorded, released until a moment, claimed
 * with a lease) the reconciler may wake it if nothing did: the `dueAt` the ledger writes.
 */
export const DEFAULT_WAKE_GRACE_MS = 2 * 60_000;

/** How a delivery attempt that did not finish the lead hands it back (`release`). */
export interface Release {
  /** When the next attempt may start. */
  nextAttemptAt: Date;
  /** What went wrong (kinds and statuses; never the person's data). */
  error: string;
  /** A failure of this lead's own: attempts + 1. */
  counted: boolean;
  /** The attempt failed (as opposed to waiting its turn): lastFailureAt := now. */
  failed: boolean;
  /** Records the ambiguity (nothing removes it before delivery). */
  ambiguousSince?: string;
  ambiguousSettle?: boolean;
}

export interface LeadPage {
  leads: LeadRecord[];
  /** Opaque; pass it back for the next page. Absent on the last page. */
  cursor?: string;
}

/** Which leads `listRecent` reads: by status, in the order they were received. */
export interface RecentQuery {
  statuses: readonly LeadStatus[];
  /** `newest` first (the console's default) or `oldest` first. */
  order: 'newest' | 'oldest';
  /** Received at or after this moment. */
  since?: Date;
  /** Received before this moment. */
  until?: Date;
  /** Leads after this position (a `position` of an earlier answer), in `order`. */
  after?: string;
  /** At most this many leads (1..1000). */
  limit: number;
}

export interface RecentPage {
  /** The leads, each with its position: pass one back as `after` to go on from it. */
  entries: { lead: LeadRecord; position: string }[];
  /** More leads match beyond the last entry. */
  more: boolean;
  /**
   * The position of the last lead read when it is not the last entry's: a reader that leaves
   * leads out (a scoped operator's view, admin/scoped-deps.ts) goes on from here.
   */
  last?: string;
}

/**
 * The lead ledger: the truth about every lead. Every transition after `record` is fenced by the
 * lead's `version` (lead-lifecycle.ts): a caller whose version is no longer the lead's changes
 * nothing (`undefined` from claim/wake/requeue, LeadStateError from the others).
 */
export interface LeadLedger {
  /**
   * Records a lead unless its (profile, dedupKey) was recorded within the window; on a
   * duplicate it returns the existing record. Exactly one of any number of concurrent calls
   * with the same key gets `duplicate: false`, and only that caller should enqueue the lead.
   * Throws DedupConflictError when the key was recorded within the window with another
   * `fingerprint` (the same Idempotency-Key for another body), and ErasedLeadError when the
   * lead's dedup key or what it carries matches a lead erased at its person's request within
   * ERASURE_TOMBSTONE_DAYS (one read of the two salted marks, before anything is written).
   */
  record(lead: NewLead): Promise<{ lead: LeadRecord; duplicate: boolean }>;
  /** A consistent read; undefined for an unknown or malformed id. */
  get(leadId: string): Promise<LeadRecord | undefined>;
  /**
   * The leads of several statuses as one list, merged in the order they were received (newest or
   * oldest first), within a period. Reads the status index only, one query per status.
   */
  listRecent(query: RecentQuery): Promise<RecentPage>;
  /** Whether `position` is one `listRecent` could have handed out. */
  isPosition(position: string): boolean;
  /** The lead recorded under that dedup key for the profile, within its window at `now`. */
  findByDedupKey(profile: string, dedupKey: string, now?: Date): Promise<LeadRecord | undefined>;
  /** Oldest first. Reads an index: a transition may take a moment to show (eventual consistency). */
  listByStatus(
    status: LeadStatus,
    options?: { limit?: number; cursor?: string; receivedBefore?: Date },
  ): Promise<LeadPage>;
  /**
   * The ids of the leads recorded with any of these subjects (domain/personal-data.ts: an
   * e-mail, phone or CPF, normalised), read from the hashed subject items: one read per subject,
   * never a scan. Ids only; a lead may have been removed since (its TTL).
   */
  findBySubjects(subjects: readonly string[]): Promise<string[]>;
  /**
   * Removes the lead's personal data (domain/personal-data.ts `redactCapture`; the Prospect, an
   * operator's correction, the upstream's messages, a rejection's reason and the dedup key go),
   * keeps the anonymous rest (id, profile, source, status, times, idProspect), and takes the
   * lead off every subject item it was added to (and off those of `subjects`: the ones an
   * erasure request named, should an earlier erasure have left a pointer behind). An erasure
   * also leaves the lead's salted tombstones (its dedup key and a digest of what was sent: a
   * redelivery is then dropped by `record`), ends its dedup item, and stops a lead still on its
   * way: it becomes `dead` ("erased") in a new chain, so no attempt under way can move it on.
   * The record after it (as it was, when already redacted); undefined for an unknown id.
   * Idempotent.
   */
  redact(
    leadId: string,
    how: { reason: RedactionReason; now: Date; subjects?: readonly string[] },
  ): Promise<LeadRecord | undefined>;
  /**
   * The leads the reconciler should look at: queued or sending, with `dueAt` at or before `now`,
   * the most overdue first. Reads the sparse due index only.
   */
  listDue(now: Date, options?: { limit?: number; cursor?: string }): Promise<LeadPage>;
  /** How many leads are on their way (queued or sending): the backlog. */
  countInFlight(): Promise<number>;
  /**
   * Takes the lead for one attempt: from `queued` when its next attempt is due, or `sending` whose
   * lease has expired, and only at `version`. The record returned carries the new version.
   */
  claim(
    leadId: string,
    version: number,
    leaseMs: number,
    now: Date,
  ): Promise<LeadRecord | undefined>;
  /** Records the upstream's id. Idempotent for the same idProspect; throws LeadStateError when already delivered with another. */
  markDelivered(leadId: string, idProspect: ExternalId, now: Date): Promise<void>;
  /** The upstream refused the lead for good (4xx with messages). From 'sending' at `version`. */
  markRejected(
    leadId: string,
    version: number,
    messages: readonly string[],
    now: Date,
  ): Promise<void>;
  /** Back to 'queued' until `release.nextAttemptAt`. From 'sending' at `version`. */
  release(leadId: string, version: number, release: Release, now: Date): Promise<LeadRecord>;
  /** Given up (its own failures exhausted, or the horizon passed). From queued or sending. */
  markDead(
    leadId: string,
    version: number,
    error: string,
    now: Date,
    options?: { counted?: boolean },
  ): Promise<void>;
  /** Cannot be sent until an operator acts (e.g. required fields missing). */
  markParked(leadId: string, version: number, reason: string, now: Date): Promise<void>;
  /** A platform's test lead, recognised only once completed (Meta's testing tool). */
  markTest(leadId: string, version: number, reason: string, now: Date): Promise<void>;
  /**
   * Keeps what an attempt learnt about the lead: the capture as completed by its source, the
   * Prospect as mapped. From 'sending' at `version`.
   */
  saveMapping(
    leadId: string,
    version: number,
    mapping: { capture?: LeadCapture; prospect?: Prospect },
    now: Date,
  ): Promise<void>;
  /**
   * An operator's correction of a parked or rejected lead at `version` (the version they read):
   * kept as the lead's `correction` (laid over every mapping) with `prospect` as it now maps,
   * and the e-mails, phones and CPFs it names added to the subject items (an erasure request
   * finds what an operator typed). Its status is unchanged (a retry sends it). The record, or
   * undefined when the lead moved on meanwhile (another version or status) or its personal data
   * was removed. With `move`, the lead also changes profile (and so maybe account): an
   * operator's way out for a lead whose profile left the configuration; a queued lead may move
   * too (it waits for its profile: the caller wakes it).
   */
  correct(
    leadId: string,
    version: number,
    change: LeadCorrectionChange,
    now: Date,
  ): Promise<LeadRecord | undefined>;
  /**
   * Operator retry: parked/dead/rejected/test → queued, a new delivery chain (version + 1),
   * attempts reset, due now; the record, or undefined when not allowed.
   */
  requeue(leadId: string, now: Date): Promise<LeadRecord | undefined>;
  /**
   * Notes a wake-up of a lead still on its way at `version` (the reconciler's, an operator's):
   * its `dueAt` moves to `dueAt`, and with `now` given, its next attempt becomes due now. The
   * record, or undefined when the lead moved on (another version, final, or not yet due when
   * `onlyIfDue`).
   */
  wake(
    leadId: string,
    version: number,
    options: { dueAt: Date; now: Date; attemptNow?: boolean; onlyIfDue?: boolean },
  ): Promise<LeadRecord | undefined>;
  /**
   * The lead (queued or sending, at `version`) waits, visibly: its `lastError` the `note`, its
   * `dueAt` `recheckAt` (the reconciler wakes it then if nothing did). With `circuit` (an
   * account), it waits for that account's circuit to close with no message in the queue:
   * listed by `listWaiting(account)` until any later transition or wake-up (the circuit closing
   * wakes it, delivery/waiting.ts). The record, or undefined when the lead moved on.
   */
  waitFor(
    leadId: string,
    version: number,
    wait: { circuit?: string; recheckAt: Date; note: string; now: Date },
  ): Promise<LeadRecord | undefined>;
  /** The leads waiting for `account`'s circuit (`waitFor`), received first within a page. */
  listWaiting(account: string, page?: { limit?: number; cursor?: string }): Promise<LeadPage>;
}

/**
 * A dedup key recorded within its window with another fingerprint: the same Idempotency-Key
 * for a different body. Nothing was recorded.
 */
export class DedupConflictError extends Error {
  override readonly name = 'DedupConflictError';
  /** The lead the key belongs to. */
  readonly leadId: string;
  constructor(leadId: string) {
    super('the dedup key was recorded with another fingerprint');
    this.leadId = leadId;
  }
}

/**
 * A lead whose dedup key or content matches a lead erased at its person's request (a platform
 * sending it again, a backfill listing it again): nothing was recorded, and nothing of it was
 * written anywhere. The caller acknowledges it and drops it.
 */
export class ErasedLeadError extends Error {
  override readonly name = 'ErasedLeadError';
  constructor() {
    super("the lead was erased at its person's request: it is not recorded again");
  }
}

/**
 * How long an erasure's tombstones recognise the erased lead: Meta and TikTok keep a form's
 * leads 90 days and the admin backfill lists them again for that long (a lead listed on its
 * last day was erased after it was created, so 90 days from the erasure cover it); platforms
 * redeliver a webhook for hours to days. 120 days leaves a month for clocks and late retries.
 */
export const ERASURE_TOMBSTONE_DAYS = 120;

/**
 * The secret that salts the erasure tombstones' keys (ledger/erasure-dynamodb.ts): Secrets
 * Manager on AWS (ledger/erasure-salt-aws.ts), a file under DATA_DIR locally. Read at first use.
 */
export type ErasureSalt = () => Promise<string>;

/** A `cursor` that this ledger did not hand out for this listing. */
export class InvalidCursorError extends RangeError {
  override readonly name = 'InvalidCursorError';
  constructor() {
    super('invalid cursor');
  }
}

/**
 * The dedup key as it may appear in a storage key: its SHA-256, hex. Dedup keys can carry
 * personal data (a client's Idempotency-Key, an email inside a content hash input).
 */
export function hashDedupKey(dedupKey: string): string {
  return createHash('sha256').update(dedupKey, 'utf8').digest('hex');
}

const MAX_TEXT = 2000;
const MAX_MESSAGES = 20;

/** Bounds an error or reason text so that one huge upstream page cannot bloat the record. */
export function boundText(text: string, max = MAX_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** At most 20 messages of at most 2000 characters each. */
export function boundMessages(messages: readonly string[]): string[] {
  return messages.slice(0, MAX_MESSAGES).map((m) => boundText(String(m)));
}

/** The contract's `GET /admin/leads/{leadId}` body (plus `reason`), without the capture. */
export interface LeadSummary {
  leadId: string;
  profile: string;
  status: PublicLeadStatus;
  idProspect?: ExternalId;
  /** Failures counted against the lead (its own, since it was last queued). */
  attempts: number;
  /** Every attempt since it was last queued, counted or not. */
  tries: number;
  lastError?: string;
  reason?: string;
  receivedAt: string;
  /** While on its way: when the next attempt may start. */
  nextAttemptAt?: string;
  deliveredAt?: string;
}

export function toLeadSummary(lead: LeadRecord): LeadSummary {
  return {
    leadId: lead.leadId,
    profile: lead.profile,
    status: publicStatus(lead.status),
    ...(lead.idProspect !== undefined && { idProspect: lead.idProspect }),
    attempts: lead.attempts,
    tries: lead.tries,
    ...(lead.lastError !== undefined &&
      lead.status !== 'delivered' && { lastError: lead.lastError }),
    ...(lead.reason !== undefined && { reason: lead.reason }),
    receivedAt: lead.receivedAt,
    ...(lead.nextAttemptAt !== undefined &&
      IN_FLIGHT.has(lead.status) && { nextAttemptAt: lead.nextAttemptAt }),
    ...(lead.deliveredAt !== undefined && { deliveredAt: lead.deliveredAt }),
  };
}
