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
import { type LeadStatus, type PublicLeadStatus, publicStatus } from '../domain/lead-lifecycle.ts';
import type { Prospect } from '../domain/prospect.ts';

export interface LeadRecord {
  leadId: string;
  /** The configuration profile the lead came in through (`site`, `meta`...). */
  profile: string;
  source: string;
  status: LeadStatus;
  /** What makes a redelivery recognisable (see LeadCapture.dedupKey). Never part of a key. */
  dedupKey: string;
  capture: LeadCapture;
  /** The mapped Prospect, once it could be mapped. */
  prospect?: Prospect;
  /** Why the lead is parked (missing fields) or was rejected (the upstream's messages joined). */
  reason?: string;
  /** The upstream's own messages when it rejected the lead. */
  messages?: string[];
  /** Failed delivery attempts since the lead was (re)queued. */
  attempts: number;
  lastError?: string;
  /**
   * ISO 8601: when the first delivery attempt whose POST had an unknown outcome (timeout,
   * network error, 5xx after sending) started. The upstream may have created the prospect, so
   * the next attempt looks it up before posting again (docs/operations.md). Kept until delivered.
   */
  ambiguousSince?: string;
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
}

export interface NewLead {
  profile: string;
  source: string;
  dedupKey: string;
  /** How long the dedup key stays recognised; undefined = as long as the ledger keeps leads. */
  dedupWindowSeconds?: number;
  capture: LeadCapture;
  prospect?: Prospect;
  status: 'queued' | 'parked' | 'test';
  /** Why it is parked. */
  reason?: string;
  receivedAt: Date;
}

/** What a failed attempt adds to `release` / `markDead` (both optional, additive). */
export interface FailureDetails {
  /** Records `ambiguousSince` (ISO 8601). Nothing removes it: leaving it out keeps the old value. */
  ambiguousSince?: string;
  /**
   * false: the failure says nothing about this lead (401, 429, a paused pacer), so `attempts`
   * is left as it is. Default true. Only `release` reads it; `markDead` always counts.
   */
  countAttempt?: boolean;
}

export interface LeadPage {
  leads: LeadRecord[];
  /** Opaque; pass it back for the next page. Absent on the last page. */
  cursor?: string;
}

export interface LeadLedger {
  /**
   * Records a lead unless its (profile, dedupKey) was recorded within the window; on a
   * duplicate it returns the existing record. Exactly one of any number of concurrent calls
   * with the same key gets `duplicate: false`, and only that caller should enqueue the lead.
   */
  record(lead: NewLead): Promise<{ lead: LeadRecord; duplicate: boolean }>;
  /** A consistent read; undefined for an unknown or malformed id. */
  get(leadId: string): Promise<LeadRecord | undefined>;
  /** Oldest first. Reads an index: a transition may take a moment to show (eventual consistency). */
  listByStatus(
    status: LeadStatus,
    options?: { limit?: number; cursor?: string },
  ): Promise<LeadPage>;
  /** Takes a lease to send: only from 'queued' (or an expired 'sending' lease); undefined if someone else holds it or it is final. */
  claim(leadId: string, leaseMs: number, now: Date): Promise<LeadRecord | undefined>;
  /** Records the upstream's id. Idempotent for the same idProspect; throws LeadStateError when already delivered with another. */
  markDelivered(leadId: string, idProspect: ExternalId, now: Date): Promise<void>;
  /** The upstream refused the lead for good (4xx with messages). From 'sending'. */
  markRejected(leadId: string, messages: readonly string[], now: Date): Promise<void>;
  /** Back to 'queued' after a retryable failure: attempts+1 (unless details.countAttempt is false), lastError. From 'sending'. */
  release(leadId: string, error: string, now: Date, details?: FailureDetails): Promise<LeadRecord>;
  /** Retries exhausted (or the queue gave up on it): attempts+1, lastError. From 'queued' or 'sending'. */
  markDead(leadId: string, error: string, now: Date, details?: FailureDetails): Promise<void>;
  /** Cannot be sent until an operator acts (e.g. required fields missing). From 'queued' or 'sending'. */
  markParked(leadId: string, reason: string, now: Date): Promise<void>;
  /** Operator retry: parked/dead/rejected/test → queued (attempts reset); returns the record or undefined when not allowed. */
  requeue(leadId: string, now: Date): Promise<LeadRecord | undefined>;
}

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
  attempts: number;
  lastError?: string;
  reason?: string;
  receivedAt: string;
  deliveredAt?: string;
}

export function toLeadSummary(lead: LeadRecord): LeadSummary {
  return {
    leadId: lead.leadId,
    profile: lead.profile,
    status: publicStatus(lead.status),
    ...(lead.idProspect !== undefined && { idProspect: lead.idProspect }),
    attempts: lead.attempts,
    ...(lead.lastError !== undefined && { lastError: lead.lastError }),
    ...(lead.reason !== undefined && { reason: lead.reason }),
    receivedAt: lead.receivedAt,
    ...(lead.deliveredAt !== undefined && { deliveredAt: lead.deliveredAt }),
  };
}
