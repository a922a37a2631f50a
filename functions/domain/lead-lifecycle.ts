/**
 * The lead lifecycle: the statuses a lead goes through, which transition may move it from which
 * status, the error a refused transition raises, and lead ids. Pure: the ledger
 * (functions/ledger/) stores leads by these rules; delivery, the reconciler and the admin routes
 * move them. Which status a captured lead starts in, and how long its dedup key recognises it,
 * is lead-arrival.ts's.
 *
 * | operation       | allowed from                                        | to          |
 * |-----------------|-----------------------------------------------------|-------------|
 * | `record`        | (nothing recorded for the dedup key)                | queued, parked, test |
 * | `claim`         | queued and due; sending whose lease has expired     | sending     |
 * | `markDelivered` | any status but delivered                            | delivered   |
 * | `markRejected`  | sending                                             | rejected    |
 * | `release`       | sending                                             | queued      |
 * | `markDead`      | queued, sending                                     | dead        |
 * | `markParked`    | queued, sending                                     | parked      |
 * | `markTest`      | queued, sending                                     | test        |
 * | `requeue`       | parked, dead, rejected, test (a new delivery chain) | queued      |
 * | `wake`          | queued, sending (the same status: a wake-up noted)  | (unchanged) |
 * | `correct`       | parked, rejected, dead, test (an operator's fields) | (unchanged) |
 *
 * One delivery chain owns a lead at a time: every transition after `record` names the lead's
 * `version` (a fencing token that `claim` and `requeue` increment), so a message or an attempt
 * from a chain that is no longer the lead's own changes nothing.
 *
 * `delivered` is the only state nothing leaves. `markDelivered` is accepted from every other
 * state whatever the version, because it records a fact (the upstream created the prospect):
 * losing an idProspect because a lease had expired would be worse than the state it overrides.
 */
import { randomBytes } from 'node:crypto';

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

export type LeadTransition =
  | 'claim'
  | 'markDelivered'
  | 'markRejected'
  | 'release'
  | 'markDead'
  | 'markParked'
  | 'markTest'
  | 'requeue'
  | 'wake'
  | 'saveMapping'
  | 'correct';

/**
 * Which statuses each status-changing transition starts from (claim also needs the lead due, or
 * an expired lease on 'sending'). `wake` and `saveMapping` change no status.
 */
export const TRANSITIONS: Record<
  Exclude<LeadTransition, 'wake' | 'saveMapping' | 'correct'>,
  { from: readonly LeadStatus[]; to: LeadStatus }
> = {
  claim: { from: ['queued', 'sending'], to: 'sending' },
  markDelivered: { from: LEAD_STATUSES.filter((s) => s !== 'delivered'), to: 'delivered' },
  markRejected: { from: ['sending'], to: 'rejected' },
  release: { from: ['sending'], to: 'queued' },
  markDead: { from: ['queued', 'sending'], to: 'dead' },
  markParked: { from: ['queued', 'sending'], to: 'parked' },
  markTest: { from: ['queued', 'sending'], to: 'test' },
  requeue: { from: ['parked', 'dead', 'rejected', 'test'], to: 'queued' },
};

/**
 * Statuses whose fields an operator may correct: final and not delivered, so that no delivery
 * chain maps the lead meanwhile (a retry then sends it with the correction).
 */
export const CORRECTABLE: ReadonlySet<LeadStatus> = new Set(['parked', 'rejected', 'dead', 'test']);

/** Statuses a delivery chain may still act on; every other status is final until an operator acts. */
export const IN_FLIGHT: ReadonlySet<LeadStatus> = new Set(['queued', 'sending']);

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
 * The public status of the contract's admin routes: a lead being sent is still `queued` to
 * the outside. `parked` is shown as itself (an extension of the contract's list).
 */
export type PublicLeadStatus = Exclude<LeadStatus, 'sending'>;

export function publicStatus(status: LeadStatus): PublicLeadStatus {
  return status === 'sending' ? 'queued' : status;
}
