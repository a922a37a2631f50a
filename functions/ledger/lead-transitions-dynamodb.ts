/**
 * The lead's moves along its lifecycle (domain/lead-lifecycle.ts says which is allowed from
 * where), each one conditional UpdateItem through lead-writes-dynamodb.ts: a delivery chain
 * claims the lead with a lease, releases it until its next attempt, or ends it (delivered,
 * rejected, dead, parked, test); an operator requeues it (a new chain); the reconciler wakes it.
 *
 * A lead on its way (queued, sending) carries `duepk`/`dueAt` on the reconciler's sparse index:
 * recording, claiming, releasing and requeueing set `dueAt` the wake-up grace after the moment
 * the lead should be picked up; every final move removes them (`statusChange`).
 */
import type { ExternalId } from '../domain/json.ts';
import { LeadStateError, TRANSITIONS } from '../domain/lead-lifecycle.ts';
import { DUE } from './lead-item-dynamodb.ts';
import { boundMessages, boundText, type LeadRecord, type Release } from './lead-ledger.ts';
import {
  dueAfter,
  fenced,
  get,
  type LedgerContext,
  statusChange,
  statusIn,
  update,
  versionIs,
} from './lead-writes-dynamodb.ts';

export async function claim(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  leaseMs: number,
  now: Date,
): Promise<LeadRecord | undefined> {
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
  return await update(
    ctx,
    leadId,
    {
      set: {
        ...statusChange(ctx, 'sending', now),
        leaseUntil,
        duepk: DUE,
        dueAt: dueAfter(ctx, leaseUntil),
        nextAttemptAt: undefined,
      },
      increment: ['version', 'tries'],
    },
    condition,
    values,
    now,
    { '#c0': 'nextAttemptAt', '#c1': 'leaseUntil' },
  );
}

export async function markDelivered(
  ctx: LedgerContext,
  leadId: string,
  idProspect: ExternalId,
  now: Date,
): Promise<void> {
  const values: Record<string, unknown> = {};
  const condition = statusIn(TRANSITIONS.markDelivered.from, values);
  const done = await update(
    ctx,
    leadId,
    {
      set: {
        ...statusChange(ctx, 'delivered', now),
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
  const current = await get(ctx, leadId);
  // The same delivery recorded twice (a redelivered message, a retried call): fine.
  if (current?.status === 'delivered' && String(current.idProspect) === String(idProspect)) {
    return;
  }
  throw new LeadStateError(leadId, 'markDelivered', current?.status);
}

export async function markRejected(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  messages: readonly string[],
  now: Date,
): Promise<void> {
  const bounded = boundMessages(messages);
  await fenced(ctx, leadId, 'markRejected', version, now, {
    set: {
      messages: bounded,
      reason: boundText(bounded.join('; ') || 'rejected'),
      leaseUntil: undefined,
    },
  });
}

export async function release(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  release: Release,
  now: Date,
): Promise<LeadRecord> {
  const nextAttemptAt = release.nextAttemptAt.toISOString();
  return await fenced(ctx, leadId, 'release', version, now, {
    set: {
      leaseUntil: undefined,
      nextAttemptAt,
      duepk: DUE,
      dueAt: dueAfter(ctx, nextAttemptAt),
      lastError: boundText(release.error),
      ...(release.failed && { lastFailureAt: now.toISOString() }),
      ...(release.ambiguousSince !== undefined && {
        ambiguousSince: release.ambiguousSince,
        ambiguousSettle: release.ambiguousSettle === true ? true : undefined,
      }),
    },
    ...(release.counted && { increment: ['attempts'] }),
  });
}

export async function markDead(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  error: string,
  now: Date,
  deadOptions: { counted?: boolean } = {},
): Promise<void> {
  await fenced(ctx, leadId, 'markDead', version, now, {
    set: { lastError: boundText(error), leaseUntil: undefined },
    ...(deadOptions.counted && { increment: ['attempts'] }),
  });
}

/** A move that ends the sending with a reason a person reads: parked, or a test lead kept. */
async function settleWithReason(
  name: 'markParked' | 'markTest',
  ctx: LedgerContext,
  leadId: string,
  version: number,
  reason: string,
  now: Date,
): Promise<void> {
  await fenced(ctx, leadId, name, version, now, {
    set: { reason: boundText(reason), leaseUntil: undefined },
  });
}

export function markParked(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  reason: string,
  now: Date,
): Promise<void> {
  return settleWithReason('markParked', ctx, leadId, version, reason, now);
}

export function markTest(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  reason: string,
  now: Date,
): Promise<void> {
  return settleWithReason('markTest', ctx, leadId, version, reason, now);
}

export async function requeue(
  ctx: LedgerContext,
  leadId: string,
  now: Date,
): Promise<LeadRecord | undefined> {
  const values: Record<string, unknown> = {};
  const at = now.toISOString();
  return await update(
    ctx,
    leadId,
    {
      set: {
        ...statusChange(ctx, 'queued', now),
        queuedAt: at,
        nextAttemptAt: at,
        duepk: DUE,
        dueAt: dueAfter(ctx, at),
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
}

export async function wake(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  wakeOptions: { dueAt: Date; now: Date; attemptNow?: boolean; onlyIfDue?: boolean },
): Promise<LeadRecord | undefined> {
  const values: Record<string, unknown> = { ':queued': 'queued', ':sending': 'sending' };
  let condition = `(#status = :queued OR #status = :sending) AND ${versionIs(version, values)}`;
  if (wakeOptions.onlyIfDue) {
    values[':now'] = wakeOptions.now.toISOString();
    condition += ' AND #c0 <= :now';
  }
  return await update(
    ctx,
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
}

/** What marks a lead waiting for its account's circuit (listWaiting reads it). */
export const waitingFor = (account: string) => `circuit#${account}`;

export async function waitFor(
  ctx: LedgerContext,
  leadId: string,
  version: number,
  wait: { circuit?: string; recheckAt: Date; note: string; now: Date },
): Promise<LeadRecord | undefined> {
  const values: Record<string, unknown> = { ':queued': 'queued', ':sending': 'sending' };
  const condition = `(#status = :queued OR #status = :sending) AND ${versionIs(version, values)}`;
  return await update(
    ctx,
    leadId,
    {
      set: {
        dueAt: wait.recheckAt.toISOString(),
        lastError: boundText(wait.note),
        ...(wait.circuit !== undefined && { waitpk: waitingFor(wait.circuit) }),
      },
    },
    condition,
    values,
    wait.now,
  );
}
