/**
 * Step 2 of an attempt, `complete`: the prospect to send. A capture left `pending` (a webhook
 * that carries ids only, such as Meta's) is completed by its source's `complete()` step and kept
 * in the ledger, its lookup failures settled by kind; a platform's test lead then becomes
 * `test`; the capture is mapped with the profile's current settings, an operator's correction
 * laid over the result (missing fields → parked).
 */
import { accountOfProfile } from '../../config/config-accounts.ts';
import type { LeadCapture } from '../../domain/lead.ts';
import { applyCorrection } from '../../domain/lead-correction.ts';
import { mapCapture } from '../../domain/map-capture.ts';
import { missingFieldsReason, type Prospect } from '../../domain/prospect.ts';
import { METRICS } from '../../kernel/metrics.ts';
import { adapterFor, sourceLabel } from '../../sources/registry.ts';
import { SourceLookupError } from '../../sources/source.ts';
import { branchesOf } from '../../upstream/branch-directory.ts';
import type { ForwardOutcome, Held } from './attempt.ts';
import { failed, finish, park, release, spread } from './transitions.ts';

/** The prospect to send: the capture completed by its source if pending, then mapped. */
export async function complete(
  held: Held,
): Promise<{ prospect: Prospect } | { outcome: ForwardOutcome }> {
  let capture: LeadCapture = held.lead.capture;
  const wasPending = capture.pending !== undefined;
  if (capture.pending) {
    const completed = await completeCapture(held, capture);
    if ('outcome' in completed) return completed;
    capture = completed.capture;
  }
  // An operator's correction is laid over the mapping, so it always wins over the profile's
  // current settings while everything it does not touch follows them (lead-correction.ts); a
  // "Qual unidade?" answer chooses among the account's named branches as they are now.
  const branches = await branchesOf(held.deps.branches, accountOfProfile(held.profile));
  const mapped = applyCorrection(
    mapCapture(capture, held.profile, sourceLabel(capture.source), branches),
    held.lead.correction,
  );
  // What the person sent (the platform's answers once looked up) and the Prospect they make
  // are kept, so that an operator can read and fix them.
  if (wasPending || JSON.stringify(mapped.prospect) !== JSON.stringify(held.lead.prospect)) {
    await held.deps.ledger.saveMapping(
      held.leadId,
      held.lead.version,
      { ...(wasPending && { capture }), prospect: mapped.prospect },
      held.now(),
    );
  }
  if (capture.isTest && !held.profile.deliverTestLeads) {
    const label = adapterFor(held.profile).label;
    const reason = `lead de teste de ${label}: guardado, não entregue (deliverTestLeads no perfil entrega os leads de teste)`;
    await held.deps.ledger.markTest(held.leadId, held.lead.version, reason, held.now());
    held.events.metric(METRICS.leadTest);
    return { outcome: finish(held, { kind: 'done', reason: 'test-lead' }, 'test') };
  }
  if (mapped.missing.length > 0) {
    const reason = missingFieldsReason(mapped.missing);
    return { outcome: await park(held, reason, 'missing-fields') };
  }
  return { prospect: mapped.prospect };
}

/** The source's `complete()` step (Meta's Graph lookup), its failures settled by kind. */
async function completeCapture(
  held: Held,
  pending: LeadCapture,
): Promise<{ capture: LeadCapture } | { outcome: ForwardOutcome }> {
  const source = adapterFor(held.profile);
  if (!source.complete) {
    const reason = `o lead espera uma consulta ${pending.pending?.kind}, mas o perfil '${held.lead.profile}' é de ${held.profile.source}`;
    return { outcome: await park(held, reason, 'pending-without-lookup') };
  }
  try {
    return { capture: await source.complete(pending, held.profile, held.deps.lookups ?? {}) };
  } catch (error) {
    if (!(error instanceof SourceLookupError)) throw error;
    const code = `${lookupPrefix(pending)}-${error.kind}`;
    held.event.errorKind = code;
    if (error.status !== undefined) held.event.errorStatus = error.status;
    switch (error.kind) {
      case 'rejected':
        return { outcome: await park(held, `${error.service}: ${error.message}`, code) };
      case 'unauthorized':
        // The platform's token: an operator fixes it; the lead waits, counted against nothing.
        return {
          outcome: await release(held, code, {
            error: error.message,
            delayMs: 5 * 60_000 + spread(held),
            counted: false,
            failed: true,
          }),
        };
      case 'rate-limited':
        return {
          outcome: await release(held, code, {
            error: error.message,
            delayMs: (error.retryAfterMs ?? 60_000) + spread(held),
            counted: false,
            failed: true,
          }),
        };
      case 'unavailable':
        return { outcome: await failed(held, error.message, code, false) };
    }
  }
}

/** `graph` for Meta's lookups (the codes operators and alarms know), else the pending kind. */
function lookupPrefix(capture: LeadCapture): string {
  const kind = capture.pending?.kind ?? 'lookup';
  return kind === 'meta-graph' ? 'graph' : kind;
}
