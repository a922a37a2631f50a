/**
 * `POST /admin/preview/{profile}`: a body mapped as the platform's would be, through the
 * profile's own source (capture) and the mapping the delivery uses (domain/map-capture.ts):
 * the Prospect, what is missing, warnings and notices for each lead; nothing stored, nothing
 * sent. A lead whose webhook carries ids only is shown as sent (`pending`): its answers are
 * fetched from the platform at delivery. Each lead's `branch` says which branch it would go to
 * and why (domain/branch-answer.ts `explainBranch`: the answer that named it, the profile's
 * default after an answer that named none, or none: parked for its branch), the account's named
 * branches (configured, then learned) read as the delivery reads them. A scoped operator's body
 * that would land in a branch outside its scope is refused 403 `outside_scope`. 400 `unreadable_body` for a body the source cannot read, 404 for an unknown
 * profile (or one out of the operator's scope).
 */
import { accountOfProfile } from '../config/config-accounts.ts';
import { explainBranch } from '../domain/branch-answer.ts';
import { mapCapture } from '../domain/map-capture.ts';
import { missingFieldsReason } from '../domain/prospect.ts';
import { type HttpResponse, json } from '../kernel/http.ts';
import { NO_STORE } from '../kernel/route-guard.ts';
import { adapterFor, sourceLabel } from '../sources/registry.ts';
import { branchesOf } from '../upstream/branch-directory.ts';
import { type RouteContext, refusal, requireProfile } from './route-context.ts';

export async function preview({
  deps,
  request,
  profile: name,
}: RouteContext): Promise<HttpResponse> {
  const profile = await requireProfile(deps, name);
  const adapter = adapterFor(profile);
  const captured = await adapter.capture(request, profile);
  if ('problem' in captured) {
    throw refusal(400, 'unreadable_body', captured.problem, captured.details ?? []);
  }
  const branches = await branchesOf(deps.branches, accountOfProfile(profile));
  const leads = captured.leads.map((capture) => {
    if (capture.pending) {
      return {
        pending: true,
        note: 'the platform sent ids only: the answers are fetched from it at delivery',
        submitted: { answers: capture.answers, attribution: capture.attribution },
      };
    }
    const mapped = mapCapture(capture, profile, sourceLabel(capture.source), branches);
    // A scoped operator previews only what lands in its scope (the guard's check, scoped-deps.ts).
    const branch = mapped.prospect.idBranch ?? undefined;
    if (branch !== undefined) deps.scoped?.check({ account: accountOfProfile(profile), branch });
    return {
      prospect: mapped.prospect,
      missing: mapped.missing,
      warnings: mapped.warnings,
      notices: mapped.notices,
      branch: explainBranch(mapped.branch, mapped.prospect.idBranch ?? undefined, branches),
      test: capture.isTest,
      ...(mapped.missing.length > 0 && {
        reason: missingFieldsReason(mapped.missing),
      }),
    };
  });
  return json(
    200,
    { profile: name, source: profile.source, leads, ...(captured.spam && { spam: true }) },
    NO_STORE,
  );
}
