/**
 * Recording a captured lead and waking it for delivery: the one step every way in shares (the
 * intake's webhooks and forms, the admin backfill of leads a platform kept). It records the lead
 * in its first state (the lead lifecycle's rules: its first status and its dedup window,
 * domain/lead-arrival.ts `initialState`) in the ledger under its dedup key, and, when the lead is
 * new and deliverable, puts its id on the lead queue. The ledger is the truth: once recorded the
 * lead is accepted, and a wake-up message that cannot be sent is not a failure (the reconciler
 * wakes the lead within minutes).
 *
 * A lead erased at its person's request and sent again (a platform's redelivery, a backfill
 * listing it again) is not recorded: the ledger recognises its tombstones before writing
 * anything (ErasedLeadError), and the step answers `{ erased: true }`, to be acknowledged to
 * the platform and counted, never stored or sent.
 */
import { accountOfProfile } from '../config/config-accounts.ts';
import type { Profile } from '../config/config-schema.ts';
import type { NamedBranch } from '../domain/branch-match.ts';
import type { LeadCapture } from '../domain/lead.ts';
import { initialState as firstState } from '../domain/lead-arrival.ts';
import { sourceLabel } from '../sources/registry.ts';
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

export interface RecordDeps {
  ledger: LeadLedger;
  queue: LeadQueue;
  /** The lead's first message could not be sent; the reconciler wakes it within minutes. */
  wakeUpDeferred?(event: { leadId: string; error: unknown }): void;
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
 * Records a lead in the state given and wakes it when it is new and queued. A duplicate sends
 * nothing: its delivery chain already exists (one chain per lead); an erased lead sent again is
 * neither recorded nor sent.
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
      deps.wakeUpDeferred?.({ leadId: record.leadId, error });
    }
  }
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
