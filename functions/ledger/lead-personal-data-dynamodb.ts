/**
 * What the ledger does with a lead's personal data once it is recorded (docs/privacy.md):
 * `saveMapping` (once a source completed the capture) and `correct` (what an operator typed)
 * add the lead's id to one subject item per e-mail, phone and CPF it names, before the lead item
 * is written (a pointer to a lead that was never written is harmless), and the lead item lists
 * the subject items it was added to (`record` does the same: lead-record-dynamodb.ts). An
 * erasure request reads those items (`findBySubjects`: GetItem per subject, no scan) and
 * `redact`s each lead: the payload keeps no answer, the lead leaves every subject item it
 * listed (an emptied item gets a TTL of now), and for an erasure the lead's tombstones are
 * written and its dedup item's window ends at once. The subject and tombstone items themselves
 * are erasure-dynamodb.ts's.
 *
 * The personal-data rules (domain/personal-data.ts) are loaded here lazily (`personalData`).
 */
import type { LeadCapture } from '../domain/lead.ts';
import {
  CORRECTABLE,
  IN_FLIGHT,
  isLeadId,
  LeadStateError,
  type LeadStatus,
} from '../domain/lead-lifecycle.ts';
import type * as PersonalData from '../domain/personal-data.ts';
import type { Prospect } from '../domain/prospect.ts';
import { isConditionFailed } from '../kernel/dynamodb-aws.ts';
import { subjectKey } from './erasure-dynamodb.ts';
import {
  decodeLead,
  dedupPkOf,
  encodePayload,
  leadPk,
  listedSubjects,
} from './lead-item-dynamodb.ts';
import {
  boundText,
  type LeadCorrectionChange,
  type LeadRecord,
  type RedactionReason,
} from './lead-ledger.ts';
import {
  get,
  getItem,
  type LedgerContext,
  statusChange,
  statusIn,
  update,
  versionIs,
  WRITE_ROUNDS,
} from './lead-writes-dynamodb.ts';

/**
 * The personal-data rules (a lead's subjects: its e-mail, phone and CPF normalised as the
 * mapping does), loaded when a lead is recorded, mapped or redacted: with them come the mapping's
 * normalisers and libphonenumber-js, which a function that only lists and wakes leads (the
 * reconciler, the watch) never needs at its cold start.
 */
export const personalData = (): Promise<typeof PersonalData> =>
  import('../domain/personal-data.ts');

/** The statuses whose leads lose their personal data after the privacy retention. */
export const RETAINED_STATUSES: ReadonlySet<LeadStatus> = new Set(['parked', 'dead', 'test']);

/** Adds the lead to the subject items of `subjects`; their keys. */
async function addSubjects(
  ctx: LedgerContext,
  leadId: string,
  subjects: readonly string[],
): Promise<string[]> {
  const keys = subjects.map(subjectKey);
  await ctx.erasure.addSubjects(leadId, keys);
  return keys;
}

/**
 * After a refused write that added the lead to subject items: when the lead was erased
 * meanwhile, it leaves them again (it no longer holds what they point at). The lead as read.
 */
async function forgetIfRedacted(
  ctx: LedgerContext,
  leadId: string,
  keys: readonly string[],
  now: Date,
): Promise<LeadRecord | undefined> {
  const after = await get(ctx, leadId);
  if (after?.redactedAt !== undefined) await ctx.erasure.removeSubjects(leadId, keys, now);
  return after;
}

export async function saveMapping(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  mapping: { capture?: LeadCapture; prospect?: Prospect },
  now: Date,
): Promise<void> {
  const current = await get(ctx, leadId);
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
  const keys = await addSubjects(ctx, leadId, subjects);
  const values: Record<string, unknown> = { ':sending': 'sending' };
  const done = await update(
    ctx,
    leadId,
    { set: { payload }, add: { subjects: new Set(keys) } },
    `#status = :sending AND ${versionIs(version, values)}`,
    values,
    now,
  );
  if (done) return;
  const after = await forgetIfRedacted(ctx, leadId, keys, now);
  throw new LeadStateError(leadId, 'saveMapping', after?.status);
}

export async function correct(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  change: LeadCorrectionChange,
  now: Date,
): Promise<LeadRecord | undefined> {
  const current = await get(ctx, leadId);
  // A move also takes a queued lead (one waiting for its missing profile); never one sending.
  const allowed = change.move ? [...CORRECTABLE, 'queued' as const] : [...CORRECTABLE];
  if (
    !current ||
    current.version !== version ||
    !allowed.includes(current.status) ||
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
  const keys = await addSubjects(ctx, leadId, subjects);
  const values: Record<string, unknown> = {};
  const condition = `${statusIn(allowed, values)} AND ${versionIs(version, values)} AND attribute_not_exists(#c0)`;
  const moved = change.move && { profile: change.move.profile, account: change.move.account };
  const done = await update(
    ctx,
    leadId,
    {
      set: {
        payload,
        correctedAt: now.toISOString(),
        correctedBy: boundText(change.by, 200),
        ...moved,
      },
      add: { subjects: new Set(keys) },
    },
    condition,
    values,
    now,
    { '#c0': 'redactedAt' },
  );
  if (!done) await forgetIfRedacted(ctx, leadId, keys, now);
  return done;
}

export async function findBySubjects(
  ctx: LedgerContext,
  subjects: readonly string[],
): Promise<string[]> {
  const ids = await ctx.erasure.leadsOf(subjects);
  return [...ids].filter(isLeadId).sort();
}

export async function redact(
  ctx: LedgerContext,
  leadId: string,
  how: { reason: RedactionReason; now: Date; subjects?: readonly string[] },
): Promise<LeadRecord | undefined> {
  const erasing = how.reason === 'erasure';
  const asked = (how.subjects ?? []).map(subjectKey);
  for (let round = 0; round < WRITE_ROUNDS; round++) {
    const item = isLeadId(leadId) ? await getItem(ctx, leadPk(leadId)) : undefined;
    if (!item) return undefined;
    const current = decodeLead(item);
    const pending = erasing && IN_FLIGHT.has(current.status);
    if (current.redactedAt !== undefined && !pending) {
      // Found again through a pointer left behind: it leaves the items the request named.
      await ctx.erasure.removeSubjects(leadId, asked, how.now);
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
      await ctx.erasure.remember(erasureMarks(current.capture, current.dedupKey), how.now);
      await endDedup(ctx, current);
    }
    // Fenced by the version read: an attempt that moved the lead meanwhile makes us read again.
    const done = await redactItem(ctx, current, how.reason, how.now);
    if (!done) continue;
    await ctx.erasure.removeSubjects(leadId, subjects, how.now);
    return done;
  }
  throw new Error(`redact: lead ${leadId} kept changing; try again`);
}

/** An erasure ends the lead's dedup item now: the (hashed) key no longer recognises it. */
async function endDedup(ctx: LedgerContext, lead: LeadRecord): Promise<void> {
  if (lead.dedupKey === 'redacted') return;
  await ctx.doc
    .update({
      TableName: ctx.tableName,
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
  ctx: LedgerContext,
  lead: LeadRecord,
  reason: RedactionReason,
  now: Date,
): Promise<LeadRecord | undefined> {
  const stop = reason === 'erasure' && IN_FLIGHT.has(lead.status);
  const values: Record<string, unknown> = {};
  const { redactCapture } = await personalData();
  return await update(
    ctx,
    lead.leadId,
    {
      set: {
        payload: encodePayload({ capture: redactCapture(lead.capture) }),
        dedupKey: 'redacted',
        redactedAt: now.toISOString(),
        redaction: reason,
        ...(lead.status === 'rejected' && { reason: 'recusado pelo sistema da academia' }),
        ...(stop && {
          ...statusChange(ctx, 'dead', now),
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
