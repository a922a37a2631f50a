/**
 * How a captured lead starts its life (the lifecycle after it is lead-lifecycle.ts's): its first
 * status, and how long its dedup key recognises the same lead sent again. Pure; the ledger's
 * recording step (ledger/record-capture.ts) records the lead in this state, whichever way it
 * came in (the intake's webhooks and forms, the admin backfill).
 *
 * The first status: `queued` (mapped, or pending its platform lookup), `test` (a platform's test
 * lead, kept with the Prospect it would have become, unless the profile delivers test leads) or
 * `parked` with the required fields it lacks.
 *
 * Dedup windows, by the dedup key's kind (the part before `:`):
 * - platform lead ids (`meta:`, `google:`, `tiktok:`, `whatsapp-flow:`...): as long as the ledger
 *   keeps leads;
 * - `hash:` (content hashes) 10 minutes; `key:` (Idempotency-Key) 24 hours;
 * - `whatsapp:` (a WhatsApp conversation, keyed by the person's `wa_id`) 72 hours: Meta's
 *   Click-to-WhatsApp free entry point window, the life of the conversation an ad opens;
 * - any key of a test lead: TEST_LEAD_DEDUP_WINDOW_SECONDS.
 */
import type { NamedBranch } from './branch-match.ts';
import type { LeadCapture } from './lead.ts';
import { type CaptureProfile, mapCapture } from './map-capture.ts';
import { missingFieldsReason, type Prospect } from './prospect.ts';

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

/** The part of a profile the first status reads (a `Profile` from the config satisfies it). */
export type ArrivalProfile = CaptureProfile & { deliverTestLeads?: boolean | undefined };

/** A captured lead's first state: what the ledger records it with. */
export interface FirstState {
  source: string;
  dedupKey: string;
  capture: LeadCapture;
  /** How long the dedup key stays recognised; absent = as long as the ledger keeps leads. */
  dedupWindowSeconds?: number;
  status: 'queued' | 'parked' | 'test';
  /** Why it is parked. */
  reason?: string;
  prospect?: Prospect;
}

function dedupWindow(capture: LeadCapture): number | undefined {
  if (capture.isTest) return TEST_LEAD_DEDUP_WINDOW_SECONDS;
  const kind = capture.dedupKey.slice(0, capture.dedupKey.indexOf(':'));
  return Object.hasOwn(DEDUP_WINDOW_SECONDS, kind) ? DEDUP_WINDOW_SECONDS[kind] : undefined;
}

/**
 * The first state of a captured lead (see above), mapped for `profile`; `sourceLabel` is how
 * people call its platform (sources/registry.ts `sourceLabel`: the domain knows no source);
 * `branches` the named branches of the profile's account (a "Qual unidade?" answer's choice).
 */
export function initialState(
  capture: LeadCapture,
  profile: ArrivalProfile,
  sourceLabel: string,
  branches: readonly NamedBranch[] = [],
): FirstState {
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
  const mapped = mapCapture(capture, profile, sourceLabel, branches);
  if (capture.isTest && !profile.deliverTestLeads) {
    return { ...base, ...windowed, status: 'test', prospect: mapped.prospect };
  }
  if (mapped.missing.length) {
    const reason = missingFieldsReason(mapped.missing);
    return { ...base, ...windowed, status: 'parked', reason, prospect: mapped.prospect };
  }
  return { ...base, ...windowed, status: 'queued', prospect: mapped.prospect };
}
