/**
 * `GET /admin/leads/{leadId}`: the contract's body (`leadId, profile, status, idProspect?,
 * attempts, lastError?, receivedAt, deliveredAt?`; `attempts` counts the lead's own failures and
 * `tries` every send, so a lead delivered at its first send shows `attempts: 0, tries: 1`:
 * docs/operations.md "Counted attempts") plus `reason` (parked: what is missing;
 * rejected: the upstream's messages joined) and `messages` (rejected: the upstream's own list).
 * `status` is the public one: a lead being sent shows as `queued`; `parked` (waiting for an
 * operator, e.g. required fields missing) is shown as itself, an extension of the contract's
 * list. For the console it adds what the person sent (`submitted`), the Prospect as mapped
 * (`prospect`), the person (`contact`) and an operator's `correction`: personal data, answered
 * to the `admin` role only and never logged. A lead on its way also says how its upstream account
 * is doing (`upstream.circuit`). A lead whose answers asked for its branch ("Qual unidade?", its
 * account naming branches) says which branch it goes to and why (`branch`, domain/branch-answer.ts
 * `explainBranch`: an answer that named no branch is a warning), and a lead whose mapping warns
 * says what (`warnings`, as in its notes), its capture mapped again with its profile and its
 * account's named branches. A lead not yet delivered lists the operator's other profiles of its
 * source (`moveTo`), and says when its own profile is gone (`profileGone`). A lead lists the
 * branches of its own account by name (`branchChoices`: configured and learned from the debtors
 * report, upstream/branch-directory.ts), the only ones its correction may choose (correct.ts
 * refuses another). 400 for a malformed id, 404 for an unknown one.
 */
import { accountOfProfile } from '../../config/config-accounts.ts';
import { type BranchExplanation, explainBranch } from '../../domain/branch-answer.ts';
import { IN_FLIGHT } from '../../domain/lead-lifecycle.ts';
import { mapCapture } from '../../domain/map-capture.ts';
import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import { type HttpResponse, json } from '../../kernel/http.ts';
import { NO_STORE } from '../../kernel/route-guard.ts';
import { accountOfLead, type LeadRecord } from '../../ledger/lead-ledger.ts';
import { sourceLabel } from '../../sources/registry.ts';
import { branchesOf } from '../../upstream/branch-directory.ts';
import type { AdminDeps } from '../admin.ts';
import type { RouteContext } from '../route-context.ts';
import { circuitView, type UpstreamHealth } from '../upstream-health.ts';
import { type DetailedLeadView, findLead, requireLeadId, toDetailedView } from './lead.ts';
import { zonesOf } from './zones.ts';

/** What `GET /admin/leads/{leadId}` answers. */
export type LeadDetail = DetailedLeadView & {
  /** A lead on its way: its upstream account (when not the default) and that account's circuit. */
  upstream?: { account?: string; circuit: UpstreamHealth['circuit'] };
  /** Which branch it goes to and why. */
  branch?: BranchExplanation;
  /** What its mapping warns about (an unknown branch, a phone that is not one...). */
  warnings?: string[];
  /** Its profile left the configuration: it waits for it, or for an operator to move it. */
  profileGone?: true;
  /** The operator's other profiles of the lead's source: where `PATCH {"profile"}` may move it. */
  moveTo?: string[];
  /** The branches of the lead's own account, by name: what a correction may choose. */
  branchChoices?: { idBranch: number; name: string }[];
};

/**
 * The lead's branch explained and its mapping's warnings, from its capture mapped again as
 * delivery maps it; nothing for a lead whose answers are not known yet (pending its platform's
 * lookup), were removed, or whose profile is gone.
 */
async function mappingOf(
  deps: AdminDeps,
  lead: LeadRecord,
): Promise<Pick<LeadDetail, 'branch' | 'warnings' | 'branchChoices'>> {
  if (lead.capture.pending !== undefined || lead.redactedAt !== undefined) return {};
  const profile = await deps.config.profile(lead.profile);
  if (!profile) return {};
  const branches = await branchesOf(deps.branches, lead.account ?? accountOfProfile(profile));
  const mapped = mapCapture(lead.capture, profile, sourceLabel(lead.capture.source), branches);
  const corrected = lead.correction?.idBranch ?? undefined;
  const idBranch = corrected ?? lead.prospect?.idBranch ?? mapped.prospect.idBranch ?? undefined;
  const choices = branches.map(({ idBranch, name }) => ({ idBranch, name }));
  return {
    // Only a lead whose answers asked for the branch: every other keeps the contract's body.
    ...(mapped.branch && {
      branch: explainBranch(mapped.branch, idBranch, branches, corrected !== undefined),
    }),
    ...(mapped.warnings.length > 0 && { warnings: mapped.warnings }),
    ...(choices.length > 0 && { branchChoices: choices }),
  };
}

/** Whether the lead's profile is gone, and where the operator may move the lead. */
async function movesOf(
  deps: AdminDeps,
  lead: LeadRecord,
): Promise<Pick<LeadDetail, 'profileGone' | 'moveTo'>> {
  if (lead.redactedAt !== undefined || lead.status === 'delivered') return {};
  const [own, settings] = await Promise.all([
    deps.config.profile(lead.profile),
    deps.config.profileSettings(),
  ]);
  const current = (await deps.config.currentName?.(lead.profile)) ?? lead.profile;
  const moveTo = Object.entries(settings)
    .filter(([name, profile]) => profile.source === lead.source && name !== current)
    .map(([name]) => name);
  return { ...(!own && { profileGone: true }), ...(moveTo.length > 0 && { moveTo }) };
}

export async function getLead({ deps, leadId }: RouteContext): Promise<HttpResponse> {
  const lead = await findLead(deps.ledger, requireLeadId(leadId));
  const view: LeadDetail = {
    ...toDetailedView(lead, await zonesOf(deps.config)(lead.profile)),
    ...(await mappingOf(deps, lead)),
    ...(await movesOf(deps, lead)),
  };
  // A lead on its way waits for the upstream too: say how the upstream is doing.
  if (!IN_FLIGHT.has(lead.status)) return json(200, view, NO_STORE);
  const account = await accountOfLead(
    lead,
    async (profile) => (await deps.config.accountOf?.(profile)) ?? DEFAULT_ACCOUNT,
  );
  const circuit = circuitView(await deps.upstream.circuit(account));
  const body: LeadDetail = {
    ...view,
    upstream: { ...(account !== DEFAULT_ACCOUNT && { account }), circuit },
  };
  return json(200, body, NO_STORE);
}
