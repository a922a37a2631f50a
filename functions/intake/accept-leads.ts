/**
 * Recording a request's leads, for both intake use cases (intake.ts, prospect-api.ts): each lead
 * recorded in the ledger and woken through the shared record step (ledger/record-capture.ts), one
 * `accepted` event per recorded lead, one `erasedDropped` event per request for the leads dropped
 * because their person's data was erased; and what became of them, as the answer tells it
 * (`outcome`).
 */
import { publicStatus } from '../domain/lead-lifecycle.ts';
import type { LeadRecord } from '../ledger/lead-ledger.ts';
import { type Dropped, isDropped, type LeadState, recordLead } from '../ledger/record-capture.ts';
import type { AcceptedOutcome } from '../sources/source.ts';
import type { IntakeDeps } from './intake-deps.ts';

export interface Accepted {
  record: LeadRecord;
  duplicate: boolean;
}

/** Records one lead (or recognises it as erased: nothing stored) and tells the events. */
export async function accept(
  deps: IntakeDeps,
  profileName: string,
  lead: LeadState,
  receivedAt: Date,
): Promise<Accepted | Dropped> {
  // The ledger is the truth: once the lead is recorded it is accepted. Its first message starts
  // its delivery chain; a redelivery sends nothing (one chain per lead), and a lead whose
  // message could not be sent is woken by the reconciler, so neither case fails the request.
  const outcome = await recordLead(
    {
      ledger: deps.ledger,
      queue: deps.queue,
      wakeUpDeferred: (event) => deps.events?.wakeUpDeferred(event),
    },
    profileName,
    lead,
    receivedAt,
  );
  // An erased lead sent again: nothing was stored; the caller counts it.
  if (isDropped(outcome)) return outcome;
  const { record, duplicate } = outcome;
  deps.events?.accepted({
    leadId: record.leadId,
    profile: profileName,
    source: record.source,
    status: record.status,
    duplicate,
  });
  return { record, duplicate };
}

/**
 * Records a request's leads one by one: the records, and how many were dropped as erased (told
 * to the events once for the request).
 */
export async function acceptAll(
  deps: IntakeDeps,
  profileName: string,
  leads: readonly LeadState[],
  receivedAt: Date,
): Promise<{ records: LeadRecord[]; erased: number }> {
  const records: LeadRecord[] = [];
  let erased = 0;
  for (const lead of leads) {
    const accepted = await accept(deps, profileName, lead, receivedAt);
    if (isDropped(accepted)) erased += 1;
    else records.push(accepted.record);
  }
  noteDropped(deps, profileName, leads[0]?.source ?? '', erased);
  return { records, erased };
}

/** Tells the events how many leads of a request were dropped as erased (none: nothing). */
export function noteDropped(
  deps: IntakeDeps,
  profile: string,
  source: string,
  leads: number,
): void {
  if (leads > 0) deps.events?.erasedDropped?.({ profile, source, leads });
}

/**
 * What became of the leads of one request, for the answer: the status they share, else `parked`
 * when any is (with every reason), else `queued`.
 */
export function outcomeOf(records: readonly LeadRecord[]): AcceptedOutcome | undefined {
  if (records.length === 0) return undefined;
  const statuses = new Set(records.map((record) => publicStatus(record.status)));
  const reasons = [
    ...new Set(records.map((record) => record.reason).filter((r): r is string => r !== undefined)),
  ];
  const reason = reasons.length > 0 ? { reason: reasons.join('; ') } : {};
  if (statuses.has('parked')) return { status: 'parked', ...reason };
  if (statuses.size === 1) {
    const [status] = [...statuses] as [AcceptedOutcome['status']];
    return status === 'rejected' || status === 'dead' ? { status, ...reason } : { status };
  }
  return { status: 'queued' };
}

/**
 * What became of a request's leads when `erased` of them were dropped as erased: the recorded
 * ones' outcome with the count beside it, or `erased` when none was recorded.
 */
export function outcomeWithDrops(
  records: readonly LeadRecord[],
  erased: number,
): AcceptedOutcome | undefined {
  const outcome = outcomeOf(records);
  if (erased === 0) return outcome;
  return outcome ? { ...outcome, erased } : { status: 'erased', erased };
}
