/**
 * `GET /admin/leads/{leadId}`: the contract's body (`leadId, profile, status, idProspect?,
 * attempts, lastError?, receivedAt, deliveredAt?`) plus `reason` (parked: what is missing;
 * rejected: the upstream's messages joined) and `messages` (rejected: the upstream's own list).
 * `status` is the public one: a lead being sent shows as `queued`; `parked` (waiting for an
 * operator, e.g. required fields missing) is shown as itself, an extension of the contract's
 * list. For the console it adds what the person sent (`submitted`), the Prospect as mapped
 * (`prospect`), the person (`contact`) and an operator's `correction`: personal data, answered
 * to the `admin` role only and never logged. A lead on its way also says how its upstream account
 * is doing (`upstream.circuit`). 400 for a malformed id, 404 for an unknown one.
 */
import { IN_FLIGHT } from '../../domain/lead-lifecycle.ts';
import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import { type HttpResponse, json } from '../../kernel/http.ts';
import { NO_STORE } from '../../kernel/route-guard.ts';
import type { RouteContext } from '../operation.ts';
import { circuitView, type UpstreamHealth } from '../upstream-health.ts';
import { type DetailedLeadView, findLead, requireLeadId, toDetailedView } from './lead.ts';
import { zonesOf } from './zones.ts';

/** What `GET /admin/leads/{leadId}` answers. */
export type LeadDetail = DetailedLeadView & {
  /** A lead on its way: its upstream account (when not the default) and that account's circuit. */
  upstream?: { account?: string; circuit: UpstreamHealth['circuit'] };
};

export async function getLead({ deps, leadId }: RouteContext): Promise<HttpResponse> {
  const lead = await findLead(deps.ledger, requireLeadId(leadId));
  const view = toDetailedView(lead, await zonesOf(deps.config)(lead.profile));
  // A lead on its way waits for the upstream too: say how the upstream is doing.
  if (!IN_FLIGHT.has(lead.status)) return json(200, view, NO_STORE);
  const account = (await deps.config.accountOf?.(lead.profile)) ?? DEFAULT_ACCOUNT;
  const circuit = circuitView(await deps.upstream.circuit(account));
  const body: LeadDetail = {
    ...view,
    upstream: { ...(account !== DEFAULT_ACCOUNT && { account }), circuit },
  };
  return json(200, body, NO_STORE);
}
