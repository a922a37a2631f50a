/**
 * Recording a captured lead and waking it for delivery: the one step every way in shares (the
 * intake's webhooks and forms, the admin backfill of leads a platform kept). It decides the
 * lead's first status (mapping it when nothing is pending), records it in the ledger under its
 * dedup key, and, when the lead is new and deliverable, puts its id on the lead queue. The ledger
 * is the truth: once recorded the lead is accepted, and a wake-up message that cannot be sent is
 * not a failure (the reconciler wakes the lead within minutes).
 *
 * Dedup windows, by the dedup key's kind (the part before `:`):
 * - platform lead ids (`meta:`, `google:`, `tiktok:`, `whatsapp-flow:`...): as long as the ledger
 *   keeps leads;
 * - `hash:` (content hashes) 10 minutes; `key:` (Idempotency-Key) 24 hours;
 * - `whatsapp:` (a WhatsApp conversation, keyed by the person's `wa_id`) 72 hours: Meta's
 *   Click-to-WhatsApp free entry point window, the life of the conversation an ad opens;
 * - any key of a test lead: TEST_LEAD_DEDUP_WINDOW_SECONDS.
 *
 * A lead erased at its person's request and sent again (a platform's redelivery, a backfill
 * listing it again) is not recorded: the ledger recognises its tombstones before writing
 * anything (ErasedLeadError), and the step answers `{ erased: true }`, to be acknowledged to
 * the platform and counted, never stored or sent.
 */
import type { Profile } from '../config/config-schema.ts';
import type { LeadCapture } from '../domain/lead.ts';
import { mapCapture } from '../domain/map-capture.ts';
import { sourceLabel } from '../sources/registry.ts';
import { ErasedLeadError, type LeadLedger, type LeadRecord, type NewLead } from './lead-ledger.ts';
import type { LeadQueue } from './lead-queue.ts';

/** How long a dedup key is remembered, by its kind (platform ids: as long as the ledger keeps leads). */
export const DEDUP_WINDOW_SECONDS: Readonly<Record<string, number>> = {
  hash: 10 * 60,
  key: 24 * 60 * 60,
  whatsapp: 72 * 60 * 60,
};

/**
 * How long a test lead's dedup key is remembered, whatever its kind: long enough for the
 * platform's own retry of one delivery, short enough that the next test is a new lead (every
 * Google "Send test data" carries the same `lead_id`).
 */
export const TEST_LEAD_DEDUP_WINDOW_SECONDS = 2 * 60;

/** A lead as it will be recorded, without where and when it arrived. */
export type LeadState = Omit<NewLead, 'receivedAt' | 'profile'>;

function dedupWindow(capture: LeadCapture): number | undefined {
  if (capture.isTest) return TEST_LEAD_DEDUP_WINDOW_SECONDS;
  const kind = capture.dedupKey.slice(0, capture.dedupKey.indexOf(':'));
  return Object.hasOwn(DEDUP_WINDOW_SECONDS, kind) ? DEDUP_WINDOW_SECONDS[kind] : undefined;
}

/**
 * The first status of a captured lead: `queued` (mapped, or pending its platform lookup),
 * `test` (a platform's test lead, kept with the Prospect it would have become, unless the
 * profile delivers test leads) or `parked` with the required fields it lacks.
 */
export function initialState(capture: LeadCapture, profile: Profile): LeadState {
  const base = { source: capture.source, dedupKey: capture.dedupKey, capture };
  const dedupWindowSeconds = dedupWindow(capture);
  const windowed = dedupWindowSeconds === undefined ? {} : { dedupWindowSeconds };
  if (capture.pending) {
    return {
      ...base,
      ...windowed,
      status: capture.isTest && !profile.deliverTestLeads ? 'test' : 'queued',
    };
  }
  const mapped = mapCapture(capture, profile, sourceLabel(capture.source));
  if (capture.isTest && !profile.deliverTestLeads) {
    return { ...base, ...windowed, status: 'test', prospect: mapped.prospect };
  }
  if (mapped.missing.length) {
    const reason = `required fields missing: ${mapped.missing.join(', ')}`;
    return { ...base, ...windowed, status: 'parked', reason, prospect: mapped.prospect };
  }
  return { ...base, ...windowed, status: 'queued', prospect: mapped.prospect };
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
      await deps.queue.send(record.leadId, { version: record.version });
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
): Promise<Recorded | Dropped> {
  return recordLead(deps, profileName, initialState(capture, profile), receivedAt);
}
