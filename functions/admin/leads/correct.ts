/**
 * `PATCH /admin/leads/{leadId}` `{"prospect": {...}}`: an operator's correction of a parked,
 * rejected, dead or test lead (domain/lead-correction.ts: kept apart and laid over every mapping,
 * so delivery never maps it away), saved at the version read; then a retry sends it. Answers the
 * lead in full with what is still `missing`. 400 for a body that is not `{"prospect": {...}}` or
 * fields that cannot be used, 409 `not_correctable`, `personal_data_removed`, `unknown_profile`
 * or `conflict` (the lead changed meanwhile). Logs the names of the fields, never their values.
 */
import { accountOfProfile } from '../../config/config-schema.ts';
import { applyCorrection, mergeCorrections, readCorrection } from '../../domain/lead-correction.ts';
import { CORRECTABLE, STATUS_LABELS } from '../../domain/lead-lifecycle.ts';
import { mapCapture } from '../../domain/map-capture.ts';
import { type HttpResponse, json } from '../../kernel/http.ts';
import { t } from '../../kernel/language.ts';
import { NO_STORE } from '../../kernel/route-guard.ts';
import { sourceLabel } from '../../sources/registry.ts';
import { branchesOf } from '../../upstream/branch-directory.ts';
import { type RouteContext, refusal, tryJson } from '../operation.ts';
import {
  findLead,
  personalDataRemoved,
  requireLeadId,
  toAdminLeadView,
  toDetailedView,
} from './lead.ts';
import { zonesOf } from './zones.ts';

export async function correctLead(context: RouteContext): Promise<HttpResponse> {
  const { deps, request, now } = context;
  const leadId = requireLeadId(context.leadId);
  const parsed = tryJson(request.body.toString('utf8'));
  const body = parsed.ok ? parsed.value : undefined;
  if (!parsed.ok || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw refusal(
      400,
      'invalid_body',
      t(
        'envie um objeto JSON: {"prospect": {"cellphone": "..."}}',
        'send a JSON object: {"prospect": {"cellphone": "..."}}',
      ),
    );
  }
  const extra = Object.keys(body).filter((key) => key !== 'prospect');
  if (extra.length > 0 || !('prospect' in body)) {
    throw refusal(
      400,
      'invalid_body',
      t(
        'envie um objeto JSON com uma só chave, "prospect"',
        'send a JSON object with one key, "prospect"',
      ),
      extra,
    );
  }
  const read = readCorrection((body as { prospect: unknown }).prospect);
  if (!read.ok) {
    throw refusal(
      400,
      'invalid_prospect',
      t('alguns campos não podem ser usados', 'some fields cannot be used'),
      read.details,
    );
  }
  const lead = await findLead(deps.ledger, leadId);
  if (lead.redactedAt !== undefined) {
    throw personalDataRemoved(lead, t('ele não pode ser corrigido', 'it cannot be corrected'));
  }
  if (!CORRECTABLE.has(lead.status)) {
    throw refusal(
      409,
      'not_correctable',
      t(
        `o lead ${leadId} está ${STATUS_LABELS[toAdminLeadView(lead).status].toLowerCase()}; só leads parados, recusados, esgotados ou de teste podem ser corrigidos`,
        `lead ${leadId} is ${toAdminLeadView(lead).status}; only parked, rejected, dead or test leads can be corrected`,
      ),
    );
  }
  const profile = await deps.config.profile(lead.profile);
  if (!profile) {
    throw refusal(
      409,
      'unknown_profile',
      t(
        `o perfil ${lead.profile} não está mais configurado`,
        `profile ${lead.profile} is no longer configured`,
      ),
    );
  }
  const correction = mergeCorrections(lead.correction, read.correction);
  const branches = await branchesOf(deps.branches, accountOfProfile(profile));
  const mapped = applyCorrection(
    mapCapture(lead.capture, profile, sourceLabel(lead.capture.source), branches),
    correction,
  );
  const saved = await deps.ledger.correct(
    leadId,
    lead.version,
    { correction, prospect: mapped.prospect, by: context.client },
    now(),
  );
  if (!saved)
    throw refusal(
      409,
      'conflict',
      t(
        `o lead ${leadId} mudou nesse meio-tempo; recarregue e tente de novo`,
        `lead ${leadId} changed meanwhile; reload and try again`,
      ),
    );
  deps.events?.corrected?.({
    leadId,
    fields: Object.keys(read.correction),
    client: context.client,
  });
  return json(
    200,
    {
      ...toDetailedView(saved, await zonesOf(deps.config)(saved.profile)),
      missing: mapped.missing,
    },
    NO_STORE,
  );
}
