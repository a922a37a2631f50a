/**
 * `POST /admin/leads/{leadId}/retry`: parked, dead, rejected or test → queued, a new delivery
 * chain (attempts reset); a queued or sending lead is woken (its next attempt due now); then a
 * wake-up message: 202 `{leadId, status: "queued"}`. 409 `already_delivered` for a delivered
 * lead, `personal_data_removed` for an erased one, `conflict` for one that changed meanwhile. A
 * message the queue refuses is not lost: the ledger says the lead is due, and the reconciler
 * sends it (the answer says so in `note`). The wake-up is the replay's too (replay.ts).
 */
import { IN_FLIGHT } from '../../domain/lead-lifecycle.ts';
import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import { type HttpResponse, json } from '../../kernel/http.ts';
import { say, t } from '../../kernel/language.ts';
import { NO_STORE } from '../../kernel/route-guard.ts';
import { accountOfLead, DEFAULT_WAKE_GRACE_MS, type LeadRecord } from '../../ledger/lead-ledger.ts';
import type { AdminDeps, AdminRoute } from '../admin.ts';
import { type RouteContext, refusal } from '../route-context.ts';
import { findLead, personalDataRemoved, requireLeadId } from './lead.ts';

/** What a retry answers (202). */
export interface RetryResult {
  leadId: string;
  status: 'queued';
  /** The wake-up message could not be sent: the reconciler sends the lead shortly. */
  note?: string;
}

/**
 * Sends the wake-up message of a lead an operator requeued or woke. The ledger already says the
 * lead is due, so a message the queue refuses is not lost: the reconciler wakes the lead within
 * its grace period. Answers whether the message went out.
 */
export async function sendWakeUp(
  deps: AdminDeps,
  lead: LeadRecord,
  route: AdminRoute,
): Promise<boolean> {
  try {
    // The lead's tenant on the queue: its account (fair between accounts, lead-queue.ts).
    const group = await accountOfLead(
      lead,
      async (profile) => (await deps.config.accountOf?.(profile)) ?? DEFAULT_ACCOUNT,
    );
    await deps.queue.send(lead.leadId, { version: lead.version, group });
    return true;
  } catch (error) {
    deps.events?.failed({ route, error });
    return false;
  }
}

export async function retryLead(context: RouteContext): Promise<HttpResponse> {
  const { deps, now } = context;
  const leadId = requireLeadId(context.leadId);
  const before = await findLead(deps.ledger, leadId);
  if (before.redactedAt !== undefined) {
    throw personalDataRemoved(
      before,
      t('não há mais nada a entregar', 'there is nothing left to deliver'),
    );
  }
  if (before.status === 'delivered') {
    throw refusal(
      409,
      'already_delivered',
      t(
        `o lead ${leadId} já foi entregue${before.idProspect === undefined ? '' : ` como prospect ${before.idProspect}`}`,
        `lead ${leadId} was already delivered${before.idProspect === undefined ? '' : ` as prospect ${before.idProspect}`}`,
      ),
    );
  }
  // A lead on its way is woken: its next attempt becomes due now (a stranded lead, a long
  // backoff an operator wants to cut short). A final one starts a new delivery chain.
  const moved = IN_FLIGHT.has(before.status)
    ? await deps.ledger.wake(leadId, before.version, {
        dueAt: new Date(now().getTime() + DEFAULT_WAKE_GRACE_MS),
        now: now(),
        attemptNow: true,
      })
    : await deps.ledger.requeue(leadId, now());
  if (!moved) {
    throw refusal(
      409,
      'conflict',
      t(
        `o lead ${leadId} mudou enquanto era reenviado; tente de novo`,
        `lead ${leadId} changed while being retried; try again`,
      ),
    );
  }
  const sent = await sendWakeUp(deps, moved, 'retry-lead');
  deps.events?.retried({ leadId, from: before.status, client: context.client });
  const body: RetryResult = {
    leadId,
    status: 'queued',
    ...(!sent && {
      note: say(
        t(
          'na fila; o reconciliador o envia em instantes',
          'queued; the reconciler sends it shortly',
        ),
      ),
    }),
  };
  return json(202, body, NO_STORE);
}
