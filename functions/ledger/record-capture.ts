/**
 * Recording a captured lead and waking it for delivery: the one step every way in shares (the
 * intake's webhooks and forms and its Prospect API, the admin backfill of leads a platform kept).
 * It records the lead in its first state (the lead lifecycle's rules: its first status and its
 * dedup window, domain/lead-arrival.ts `initialState`) in the ledger under its dedup key, and,
 * when the lead is new and deliverable, puts its id on the lead queue. The ledger is the truth:
 * once recorded the lead is accepted (one `accepted` event per recorded lead), and a wake-up
 * message that cannot be sent is not a failure (the reconciler wakes the lead within minutes).
 * For the intake's answer it also tells what became of a request's leads (`outcomeWithDrops`).
 *
 * A lead erased at its person's request and sent again (a platform's redelivery, a backfill
 * listing it again) is not recorded: the ledger recognises its tombstones before writing
 * anything (ErasedLeadError), and the step answers `{ erased: true }`, to be acknowledged to
 * the platform and counted (one `erasedDropped` event per request), never stored or sent.
 */
import { accountOfProfile } from '../config/config-accounts.ts';
import type { Profile } from '../config/config-schema.ts';
import type { NamedBranch } from '../domain/branch-match.ts';
import type { LeadCapture } from '../domain/lead.ts';
import { initialState as firstState } from '../domain/lead-arrival.ts';
import { publicStatus } from '../domain/lead-lifecycle.ts';
import { sourceLabel } from '../sources/registry.ts';
import type { AcceptedOutcome } from '../sources/source.ts';
import { ErasedLeadError, type LeadLedger, type LeadRecord, type NewLead } from './lead-ledger.ts';
import type { LeadQueue } from './lead-queue.ts';

/** A lead as it will be recorded, without where and when it arrived. */
export type LeadState = Omit<NewLead, 'receivedAt' | 'profile'>;

/**
 * The first state of a captured lead (domain/lead-arrival.ts `initialState`), labelled with its
 * source's name from the registry, its branch chosen among `branches` (the named branches of the
 * profile's account, upstream/branch-directory.ts) when an answer asks for it, and the upstream
 * account the profile sends it to now: the lead keeps it (LeadRecord.account), whatever the
 * configuration says later.
 */
export function initialState(
  capture: LeadCapture,
  profile: Profile,
  branches: readonly NamedBranch[] = [],
): LeadState {
  return {
    ...firstState(capture, profile, sourceLabel(capture.source), branches),
    account: accountOfProfile(profile),
  };
}

/** What the record step tells (the intake's events implement them; the backfill counts). */
export interface RecordEvents {
  /** One per recorded lead (a duplicate too); never personal data. */
  accepted?(event: {
    leadId: string;
    profile: string;
    source: string;
    status: string;
    duplicate: boolean;
  }): void;
  /** The lead's first message could not be sent; the reconciler wakes it within minutes. */
  wakeUpDeferred?(event: { leadId: string; error: unknown }): void;
  /** Leads of one request dropped as erased: how many, never what they carried. */
  erasedDropped?(event: { profile: string; source: string; leads: number }): void;
}

export interface RecordDeps {
  ledger: LeadLedger;
  queue: LeadQueue;
  events?: RecordEvents | undefined;
}

export interface Recorded {
  record: LeadRecord;
  /** The dedup key was already recorded (within its window): `record` is the earlier lead. */
  duplicate: boolean;
}

/** A lead erased at its person's request, sent again: nothing of it was stored. */
export interface Dropped {
  erased: true;
}

/** Whether a recording step dropped the lead as erased. */
export const isDropped = (outcome: Recorded | Dropped): outcome is Dropped => 'erased' in outcome;

/**
 * Records a lead in the state given, wakes it when it is new and queued, and tells it accepted.
 * A duplicate sends nothing: its delivery chain already exists (one chain per lead); an erased
 * lead sent again is neither recorded nor sent (the caller counts it: `noteDropped`).
 */
export async function recordLead(
  deps: RecordDeps,
  profileName: string,
  lead: LeadState,
  receivedAt: Date,
): Promise<Recorded | Dropped> {
  let recorded: { lead: LeadRecord; duplicate: boolean };
  try {
    recorded = await deps.ledger.record({ ...lead, profile: profileName, receivedAt });
  } catch (error) {
    if (error instanceof ErasedLeadError) return { erased: true };
    throw error;
  }
  const { lead: record, duplicate } = recorded;
  if (record.status === 'queued' && !duplicate) {
    try {
      await deps.queue.send(record.leadId, {
        version: record.version,
        ...(record.account !== undefined && { group: record.account }),
      });
    } catch (error) {
      deps.events?.wakeUpDeferred?.({ leadId: record.leadId, error });
    }
  }
  deps.events?.accepted?.({
    leadId: record.leadId,
    profile: profileName,
    source: record.source,
    status: record.status,
    duplicate,
  });
  return { record, duplicate };
}

/** Records a captured lead (its first status decided by `initialState`) and wakes it. */
export function recordCapture(
  deps: RecordDeps,
  profileName: string,
  profile: Profile,
  capture: LeadCapture,
  receivedAt: Date,
  branches: readonly NamedBranch[] = [],
): Promise<Recorded | Dropped> {
  return recordLead(deps, profileName, initialState(capture, profile, branches), receivedAt);
}

/**
 * Records a request's leads one by one: the records, and how many were dropped as erased (told
 * to the events once for the request).
 */
export async function recordLeads(
  deps: RecordDeps,
  profileName: string,
  leads: readonly LeadState[],
  receivedAt: Date,
): Promise<{ records: LeadRecord[]; erased: number }> {
  const records: LeadRecord[] = [];
  let erased = 0;
  for (const lead of leads) {
    const accepted = await recordLead(deps, profileName, lead, receivedAt);
    if (isDropped(accepted)) erased += 1;
    else records.push(accepted.record);
  }
  noteDropped(deps, profileName, leads[0]?.source ?? '', erased);
  return { records, erased };
}

/** Tells the events how many leads of a request were dropped as erased (none: nothing). */
export function noteDropped(
  deps: RecordDeps,
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
