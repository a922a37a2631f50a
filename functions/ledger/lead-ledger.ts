/**
 * The lead ledger: the durable record of every accepted lead and where it is on its way
 * upstream. The port, its types and pure helpers; the DynamoDB adapter is
 * lead-ledger-dynamodb.ts. No AWS imports here.
 *
 * State machine. Every transition is one conditional write on the lead's own item, so two
 * writers can never both win and a final state cannot be left by a late or duplicate message:
 *
 * | operation       | allowed from                                   | to          |
 * |-----------------|------------------------------------------------|-------------|
 * | `record`        | (nothing recorded for the dedup key)           | queued, parked, test |
 * | `claim`         | queued; sending whose lease has expired        | sending     |
 * | `markDelivered` | any status but delivered                       | delivered   |
 * | `markRejected`  | sending                                        | rejected    |
 * | `release`       | sending (attempts + 1)                         | queued      |
 * | `markDead`      | queued, sending (attempts + 1)                 | dead        |
 * | `markParked`    | queued, sending                                | parked      |
 * | `requeue`       | parked, dead, rejected, test (attempts := 0)   | queued      |
 *
 * `delivered` is the only state nothing leaves. `markDelivered` is accepted from every other
 * state because it records a fact (the upstream created the prospect): losing an idProspect
 * because a lease had expired would be worse than the state it overrides.
 * `claim` and `requeue` answer `undefined` when refused (a duplicate queue message, an operator
 * retrying a delivered lead: expected); the other transitions throw `LeadStateError` (the
 * caller held a lease and lost it, which is worth a log line).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SourceName } from '../config/config-schema.ts';
import type { ExternalId } from '../domain/json.ts';
import type { LeadCapture } from '../domain/lead.ts';
import type { Prospect } from '../domain/prospect.ts';

export const LEAD_STATUSES = [
  'queued',
  'sending',
  'delivered',
  'rejected',
  'dead',
  'test',
  'parked',
] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export interface LeadRecord {
  leadId: string;
  /** The configuration profile the lead came in through (`site`, `meta`...). */
  profile: string;
  source: SourceName;
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
  source: SourceName;
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

export type LeadTransition =
  | 'claim'
  | 'markDelivered'
  | 'markRejected'
  | 'release'
  | 'markDead'
  | 'markParked'
  | 'requeue';

/** Which statuses each transition starts from (claim also needs an expired lease on 'sending'). */
export const TRANSITIONS: Record<LeadTransition, { from: readonly LeadStatus[]; to: LeadStatus }> =
  {
    claim: { from: ['queued', 'sending'], to: 'sending' },
    markDelivered: { from: LEAD_STATUSES.filter((s) => s !== 'delivered'), to: 'delivered' },
    markRejected: { from: ['sending'], to: 'rejected' },
    release: { from: ['sending'], to: 'queued' },
    markDead: { from: ['queued', 'sending'], to: 'dead' },
    markParked: { from: ['queued', 'sending'], to: 'parked' },
    requeue: { from: ['parked', 'dead', 'rejected', 'test'], to: 'queued' },
  };

/** A transition the lead's current state does not allow (or the lead does not exist). */
export class LeadStateError extends Error {
  override readonly name = 'LeadStateError';
  readonly leadId: string;
  readonly transition: LeadTransition;
  /** The status found after the refusal; undefined when the lead does not exist. */
  readonly status: LeadStatus | undefined;

  constructor(leadId: string, transition: LeadTransition, status: LeadStatus | undefined) {
    super(
      status === undefined
        ? `${transition}: lead ${leadId} does not exist`
        : `${transition}: not allowed for lead ${leadId} in status '${status}'`,
    );
    this.leadId = leadId;
    this.transition = transition;
    this.status = status;
  }
}

/** A `cursor` that this ledger did not hand out for this listing. */
export class InvalidCursorError extends RangeError {
  override readonly name = 'InvalidCursorError';
  constructor() {
    super('invalid cursor');
  }
}

export function isLeadStatus(value: unknown): value is LeadStatus {
  return typeof value === 'string' && (LEAD_STATUSES as readonly string[]).includes(value);
}

/** Crockford's base32: sorts the same as the number it encodes, no I/L/O/U. */
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10; // 50 bits: milliseconds until the year 37000
const RANDOM_CHARS = 12; // 60 bits
const LEAD_ID = new RegExp(`^ld_[${BASE32}]{${TIME_CHARS + RANDOM_CHARS}}$`);

/**
 * A new lead id: `ld_` + 10 base32 characters of the time in milliseconds + 12 random ones
 * (`ld_01JB6V3Q8M4Z7K2XWQ9RTE5N0H`). Ids sort by creation time; they carry nothing about the
 * person.
 */
export function newLeadId(now: Date = new Date(), random: Uint8Array = randomBytes(8)): string {
  let time = now.getTime();
  if (!Number.isSafeInteger(time) || time < 0) throw new RangeError('newLeadId: invalid date');
  let head = '';
  for (let i = 0; i < TIME_CHARS; i++) {
    head = BASE32.charAt(time % 32) + head;
    time = Math.floor(time / 32);
  }
  // 60 random bits from 8 bytes: 12 × 5 bits.
  let bits = 0n;
  for (const byte of random.subarray(0, 8)) bits = (bits << 8n) | BigInt(byte);
  let tail = '';
  for (let i = 0; i < RANDOM_CHARS; i++) {
    tail += BASE32.charAt(Number(bits & 31n));
    bits >>= 5n;
  }
  return `ld_${head}${tail}`;
}

export function isLeadId(value: unknown): value is string {
  return typeof value === 'string' && LEAD_ID.test(value);
}

/** When the lead id was minted. */
export function leadIdTime(leadId: string): Date {
  if (!isLeadId(leadId)) throw new RangeError('leadIdTime: not a lead id');
  let time = 0;
  for (const char of leadId.slice(3, 3 + TIME_CHARS)) time = time * 32 + BASE32.indexOf(char);
  return new Date(time);
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

/**
 * The public status of the contract's admin routes: a lead being sent is still `queued` to
 * the outside. `parked` is shown as itself (an extension of the contract's list).
 */
export type PublicLeadStatus = Exclude<LeadStatus, 'sending'>;

export function publicStatus(status: LeadStatus): PublicLeadStatus {
  return status === 'sending' ? 'queued' : status;
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
