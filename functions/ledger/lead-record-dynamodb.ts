/**
 * Recording a lead under its dedup key, and finding it again by that key (the ledger's `record`
 * and `findByDedupKey`; lead-ledger-dynamodb.ts assembles them).
 *
 * Recording: (0) read the new lead's two erasure tombstones (one BatchGetItem,
 * erasure-dynamodb.ts `isErased`) and refuse a lead found there (ErasedLeadError) before
 * anything is written: a platform's redelivery or a backfill cannot bring an erased person
 * back; add the lead's id to its subject items (a pointer to a lead never written is harmless);
 * (1) put the dedup item if absent or its window has ended
 * (`attribute_not_exists(pk) OR expiresAt < :now`), (2) put the lead item
 * (`attribute_not_exists(pk)`). A crash between (1) and (2) leaves a dedup item pointing at a
 * missing lead; the next record() with that key finds it and writes the lead under the id the
 * dedup item holds. Of concurrent callers, only the one whose lead put succeeds gets
 * `duplicate: false`.
 *
 * Dedup items expire when their window ends (`dedupWindowSeconds`, the lead lifecycle's:
 * domain/lead-arrival.ts); a window never outlasts `retentionDays`, so a dedup item cannot point
 * at a lead the TTL already removed. An erasure ends the window at once
 * (lead-personal-data-dynamodb.ts).
 */
import { isLeadId, newLeadId } from '../domain/lead-lifecycle.ts';
import { subjectKey } from './erasure-dynamodb.ts';
import {
  DUE,
  decodeLead,
  dedupPkOf,
  encodePayload,
  epochSeconds,
  type Item,
  leadPk,
  statusPk,
  withoutUndefined,
} from './lead-item-dynamodb.ts';
import {
  boundText,
  DedupConflictError,
  ErasedLeadError,
  type LeadRecord,
  type NewLead,
} from './lead-ledger.ts';
import { personalData } from './lead-personal-data-dynamodb.ts';
import {
  dueAfter,
  get,
  getItem,
  type LedgerContext,
  putIf,
  ttlFor,
  WRITE_ROUNDS,
} from './lead-writes-dynamodb.ts';

type Recorded = { lead: LeadRecord; duplicate: boolean };

function validateNewLead(lead: NewLead): void {
  if (!lead.profile) throw new TypeError('record: profile is required');
  if (lead.account !== undefined && !lead.account) {
    throw new TypeError('record: account, when given, is a name');
  }
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

export async function record(ctx: LedgerContext, lead: NewLead): Promise<Recorded> {
  validateNewLead(lead);
  const receivedAt = lead.receivedAt.toISOString();
  const now = epochSeconds(lead.receivedAt);
  const window = Math.min(lead.dedupWindowSeconds ?? ctx.retentionSeconds, ctx.retentionSeconds);
  const dedupPk = dedupPkOf(lead.profile, lead.dedupKey);
  const payload = encodePayload({
    capture: lead.capture,
    ...(lead.prospect !== undefined && { prospect: lead.prospect }),
  });
  const { erasureMarks, subjectsOf } = await personalData();
  // Before anything of the lead is written: an erased person's lead, sent again, leaves nothing.
  if (await ctx.erasure.isErased(erasureMarks(lead.capture, lead.dedupKey), lead.receivedAt)) {
    throw new ErasedLeadError();
  }
  const subjects = subjectsOf(lead.capture, lead.prospect).map(subjectKey);
  const written = { payload, subjects };

  for (let round = 0; round < WRITE_ROUNDS; round++) {
    const leadId = newLeadId(lead.receivedAt);
    // The subject items first: a pointer to a lead never written is harmless, a lead that an
    // erasure request cannot find is not.
    await ctx.erasure.addSubjects(leadId, subjects);
    const dedup: Item = {
      pk: dedupPk,
      kind: 'dedup',
      leadId,
      profile: lead.profile,
      createdAt: receivedAt,
      expiresAt: now + window,
      ...(lead.fingerprint !== undefined && { fingerprint: lead.fingerprint }),
    };
    if (await putIf(ctx, dedup, 'attribute_not_exists(pk) OR expiresAt < :now', { ':now': now })) {
      return await writeLead(ctx, lead, leadId, written);
    }
    const holder = await getItem(ctx, dedupPk);
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
    const existing = await get(ctx, holder.leadId);
    if (existing) return { lead: existing, duplicate: true };
    // The dedup item points at a lead that was never written: its writer crashed, or is
    // still on its way. Write it ourselves under that id; the lead put decides who won.
    return await writeLead(ctx, lead, holder.leadId, written);
  }
  throw new Error('record: the dedup item kept changing; try again');
}

/** Writes the lead item under `leadId`; whoever writes it first is the non-duplicate. */
async function writeLead(
  ctx: LedgerContext,
  lead: NewLead,
  leadId: string,
  written: { payload: string | Uint8Array; subjects: readonly string[] },
): Promise<Recorded> {
  const receivedAt = lead.receivedAt.toISOString();
  const { payload, subjects } = written;
  const queued = lead.status === 'queued';
  const item: Item = withoutUndefined({
    pk: leadPk(leadId),
    kind: 'lead',
    gsi1pk: statusPk(lead.status),
    gsi1sk: `${receivedAt}#${leadId}`,
    leadId,
    profile: lead.profile,
    account: lead.account,
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
    ...(queued && { nextAttemptAt: receivedAt, duepk: DUE, dueAt: dueAfter(ctx, receivedAt) }),
    expiresAt: ttlFor(ctx, lead.status, lead.receivedAt),
    subjects: subjects.length > 0 ? new Set(subjects) : undefined,
  });
  if (await putIf(ctx, item, 'attribute_not_exists(pk)')) {
    return { lead: decodeLead(item), duplicate: false };
  }
  const existing = await get(ctx, leadId);
  if (!existing) throw new Error(`record: lead ${leadId} vanished while being written`);
  return { lead: existing, duplicate: true };
}

/** The lead recorded under that dedup key for the profile, within its window at `now`. */
export async function findByDedupKey(
  ctx: LedgerContext,
  profile: string,
  dedupKey: string,
  now: Date = new Date(),
): Promise<LeadRecord | undefined> {
  const holder = await getItem(ctx, dedupPkOf(profile, dedupKey));
  if (!holder || !isLeadId(holder.leadId)) return undefined;
  if (typeof holder.expiresAt === 'number' && holder.expiresAt < epochSeconds(now)) {
    return undefined;
  }
  return await get(ctx, holder.leadId);
}
