/**
 * What the lead routes share: the public statuses an operator names, the lead as the admin
 * shows it (in a listing, and in full on its page), and the lookups of one lead by its
 * `{leadId}` with their refusals (400 for a malformed id, 404 for an unknown one or one out of
 * the operator's scope, 409 for a lead whose personal data was removed). Personal data (what the
 * person typed) is answered to the `admin` role only, and never logged.
 */
import {
  CORRECTABLE,
  isLeadId,
  type LeadStatus,
  type PublicLeadStatus,
} from '../../domain/lead-lifecycle.ts';
import { leadReasonPt } from '../../domain/lead-reasons.ts';
import { DEFAULT_TIME_ZONE, localDateTime } from '../../domain/local-time.ts';
import { say, type Text, t } from '../../kernel/language.ts';
import {
  type LeadLedger,
  type LeadRecord,
  type LeadSummary,
  toLeadSummary,
} from '../../ledger/lead-ledger.ts';
import { type AdminRefusal, refusal } from '../route-context.ts';
import { contactOf } from './lead-views.ts';

/** The statuses `GET /admin/leads?status=` accepts (`queued` includes `sending`). */
export const PUBLIC_STATUSES: readonly PublicLeadStatus[] = [
  'queued',
  'delivered',
  'rejected',
  'dead',
  'test',
  'parked',
];

/** The public status a `?status=` names; 400 `invalid_status` listing the others. */
export function publicStatusOf(status: string): PublicLeadStatus {
  const found = PUBLIC_STATUSES.find((candidate) => candidate === status);
  if (found) return found;
  throw refusal(
    400,
    'invalid_status',
    t(
      `status deve ser um de: ${PUBLIC_STATUSES.join(', ')}`,
      `status must be one of: ${PUBLIC_STATUSES.join(', ')}`,
    ),
    PUBLIC_STATUSES,
  );
}

/** Which ledger statuses one public status lists, in order. */
export function ledgerStatuses(status: PublicLeadStatus): readonly LeadStatus[] {
  return status === 'queued' ? ['queued', 'sending'] : [status];
}

/**
 * The admin body of one lead: the contract's fields, `reason` (in Portuguese: a reason stored
 * in English before is said in Portuguese, domain/lead-reasons.ts), and `messages` when
 * rejected; with its account's time zone, `timeZone` and `receivedAtLocal`
 * (`26/11/2026 08:41:47` there, domain/local-time.ts) beside the UTC `receivedAt`.
 */
export interface AdminLeadView extends LeadSummary {
  messages?: string[];
  timeZone?: string;
  receivedAtLocal?: string;
}

export function toAdminLeadView(lead: LeadRecord, timeZone?: string): AdminLeadView {
  return {
    ...toLeadSummary(lead),
    ...(lead.reason !== undefined && { reason: leadReasonPt(lead.reason) }),
    ...(lead.messages !== undefined && { messages: lead.messages }),
    ...(timeZone !== undefined && {
      timeZone,
      receivedAtLocal: localDateTime(lead.receivedAt, timeZone),
    }),
  };
}

/**
 * The one delivery count a person reads (the console's timeline, `triesText`): every send since
 * the lead was last queued (`tries`), and how many of them failed on the lead's own account
 * (`attempts`, the count `delivery.maxAttempts` is against), so that `"attempts": 0, "tries": 1`
 * reads "Tentativas de entrega: 1". Undefined before the first send.
 */
export function deliveryTriesText(tries: number, attempts: number): string | undefined {
  const count = Math.max(tries, attempts);
  if (count === 0) return undefined;
  if (attempts === 0) return say(t(`Tentativas de entrega: ${count}`, `Delivery tries: ${count}`));
  const failures = attempts === 1 ? '1 falha deste lead' : `${attempts} falhas deste lead`;
  return say(
    t(
      `Tentativas de entrega: ${count} (${failures})`,
      `Delivery tries: ${count} (${attempts} counted as this lead's own failures)`,
    ),
  );
}

/** A lead in full: the admin view plus what the person sent, the Prospect and the correction. */
export function toDetailedView(lead: LeadRecord, timeZone?: string) {
  const triesText = deliveryTriesText(lead.tries, lead.attempts);
  return {
    ...toAdminLeadView(lead, timeZone),
    ...(triesText !== undefined && { triesText }),
    contact: contactOf(lead),
    submitted: {
      answers: lead.capture.answers,
      attribution: lead.capture.attribution,
      ...(lead.capture.submittedAt !== undefined && { submittedAt: lead.capture.submittedAt }),
      ...(lead.capture.externalId !== undefined && { externalId: lead.capture.externalId }),
      ...(lead.capture.formId !== undefined && { formId: lead.capture.formId }),
      ...(lead.capture.prospect !== undefined && { prospect: lead.capture.prospect }),
      ...(lead.capture.pending !== undefined && { pending: true }),
      test: lead.capture.isTest,
    },
    ...(lead.prospect !== undefined && { prospect: lead.prospect }),
    ...(lead.correction !== undefined && { correction: lead.correction }),
    ...(lead.correctedAt !== undefined && { correctedAt: lead.correctedAt }),
    ...(lead.correctedBy !== undefined && { correctedBy: lead.correctedBy }),
    // A lead whose personal data was removed is never filled in again (and never sent).
    correctable: CORRECTABLE.has(lead.status) && lead.redactedAt === undefined,
  };
}

/** A lead in full, as `GET /admin/leads/{leadId}` and a correction answer it. */
export type DetailedLeadView = ReturnType<typeof toDetailedView>;

export function requireLeadId(leadId: string): string {
  if (!isLeadId(leadId)) {
    throw refusal(
      400,
      'invalid_lead_id',
      t(
        'não é um id de lead (ld_ seguido de 22 caracteres)',
        'not a lead id (ld_ followed by 22 characters)',
      ),
    );
  }
  return leadId;
}

export async function findLead(ledger: LeadLedger, leadId: string): Promise<LeadRecord> {
  const lead = await ledger.get(leadId);
  if (!lead) throw refusal(404, 'lead_not_found', t(`não há lead ${leadId}`, `no lead ${leadId}`));
  return lead;
}

/**
 * 409 `personal_data_removed`: the lead's personal data was erased on request or removed after
 * the retention, so it can be neither sent nor corrected (an erased person stays erased).
 */
export function personalDataRemoved(lead: LeadRecord, consequence: Text): AdminRefusal {
  const why =
    lead.redaction === 'erasure'
      ? t('apagados a pedido da pessoa', "erased at the person's request")
      : lead.redaction === 'retention'
        ? t('removidos ao fim do prazo de guarda', 'removed after the retention period')
        : t('removidos', 'removed');
  return refusal(
    409,
    'personal_data_removed',
    t(
      `o lead ${lead.leadId} não guarda mais dados pessoais (${why.pt} em ${lead.redactedAt ? localDateTime(lead.redactedAt, DEFAULT_TIME_ZONE) : '?'}): ${consequence.pt}`,
      `lead ${lead.leadId} no longer holds personal data (${why.en} on ${lead.redactedAt}): ${consequence.en}`,
    ),
  );
}
