/**
 * `PATCH /admin/leads/{leadId}` `{"prospect": {...}, "profile": "..."}` (either or both): an
 * operator's correction of a parked, rejected, dead or test lead (domain/lead-correction.ts: kept
 * apart and laid over every mapping, so delivery never maps it away), saved at the version read;
 * then a retry sends it. `profile` moves the lead to another profile of the same source (a lead
 * whose profile left the configuration has no other way through): a queued lead may move too,
 * and is woken at once. The guard (scoped-deps.ts) refuses a change whose branch or profile is
 * outside the operator's scope (403 `outside_scope`). Answers the lead in full with what is
 * still `missing`. 400 for a body that is not that object or fields that cannot be used, 404 for
 * a profile that does not exist (403 `outside_scope` for a scoped operator, whether it exists
 * elsewhere or not), 400 `unknown_branch` for an `idBranch` that is not a branch of the lead's
 * account when that account's branches are known (configured or learned from its debtors
 * report: a lead is never sent to another account's branch through its own account's key),
 * 409 `not_correctable`, `personal_data_removed`,
 * `unknown_profile`, `other_source` or `conflict` (the lead changed meanwhile). Logs the names of
 * the fields, never their values.
 */

import { accountOfProfile } from '../../config/config-accounts.ts';
import type { Profile } from '../../config/config-schema.ts';
import { applyCorrection, mergeCorrections, readCorrection } from '../../domain/lead-correction.ts';
import { CORRECTABLE, IN_FLIGHT } from '../../domain/lead-lifecycle.ts';
import { mapCapture } from '../../domain/map-capture.ts';
import { STATUS_LABELS } from '../../domain/status-labels.ts';
import { type HttpResponse, json } from '../../kernel/http.ts';
import { t } from '../../kernel/language.ts';
import { NO_STORE } from '../../kernel/route-guard.ts';
import { DEFAULT_WAKE_GRACE_MS } from '../../ledger/lead-ledger.ts';
import { sourceLabel } from '../../sources/registry.ts';
import { branchesOf } from '../../upstream/branch-directory.ts';
import { type RouteContext, refusal, requireProfile, tryJson } from '../route-context.ts';
import {
  findLead,
  personalDataRemoved,
  requireLeadId,
  toAdminLeadView,
  toDetailedView,
} from './lead.ts';
import { sendWakeUp } from './retry.ts';
import { zonesOf } from './zones.ts';

const BODY_KEYS = new Set(['prospect', 'profile']);

/** The body: `prospect` (fields to correct) and/or `profile` (the profile to move to). */
function readBody(text: string) {
  const parsed = tryJson(text);
  const body = parsed.ok ? parsed.value : undefined;
  if (!parsed.ok || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw refusal(
      400,
      'invalid_body',
      t(
        'envie um objeto JSON: {"prospect": {"cellphone": "..."}} ou {"profile": "outro-perfil"}',
        'send a JSON object: {"prospect": {"cellphone": "..."}} or {"profile": "another-profile"}',
      ),
    );
  }
  const fields = body as Record<string, unknown>;
  const extra = Object.keys(fields).filter((key) => !BODY_KEYS.has(key));
  if (extra.length > 0 || !('prospect' in fields || 'profile' in fields)) {
    throw refusal(
      400,
      'invalid_body',
      t(
        'envie um objeto JSON com "prospect", "profile" ou os dois',
        'send a JSON object with "prospect", "profile" or both',
      ),
      extra,
    );
  }
  if ('profile' in fields && (typeof fields.profile !== 'string' || fields.profile === '')) {
    const message = t('o nome de um perfil', "a profile's name");
    throw refusal(400, 'invalid_body', message, [{ field: 'profile', message }]);
  }
  const read = readCorrection(fields.prospect ?? {});
  if (!read.ok) {
    throw refusal(
      400,
      'invalid_prospect',
      t('alguns campos não podem ser usados', 'some fields cannot be used'),
      read.details,
    );
  }
  return { correction: read.correction, moveTo: fields.profile as string | undefined };
}

/** The profile the lead is corrected under: the one it moves to, else its own. */
async function targetProfile(
  context: RouteContext,
  lead: { profile: string; source: string },
  moveTo: string | undefined,
): Promise<Profile> {
  const profile =
    moveTo === undefined
      ? await context.deps.config.profile(lead.profile)
      : await requireProfile(context.deps, moveTo);
  if (!profile) {
    throw refusal(
      409,
      'unknown_profile',
      t(
        `o perfil ${lead.profile} não está mais configurado; mova o lead para outro perfil da mesma origem: {"profile": "nome"}`,
        `profile ${lead.profile} is no longer configured; move the lead to another profile of the same source: {"profile": "name"}`,
      ),
    );
  }
  if (profile.source !== lead.source) {
    throw refusal(
      409,
      'other_source',
      t(
        `o perfil ${moveTo} é de outra origem (${profile.source}); o lead veio de ${lead.source}`,
        `profile ${moveTo} has another source (${profile.source}); the lead came from ${lead.source}`,
      ),
    );
  }
  return profile;
}

export async function correctLead(context: RouteContext): Promise<HttpResponse> {
  const { deps, request, now } = context;
  const leadId = requireLeadId(context.leadId);
  const { correction: asked, moveTo } = readBody(request.body.toString('utf8'));
  const lead = await findLead(deps.ledger, leadId);
  if (lead.redactedAt !== undefined) {
    throw personalDataRemoved(lead, t('ele não pode ser corrigido', 'it cannot be corrected'));
  }
  const moving = moveTo !== undefined && moveTo !== lead.profile;
  if (!CORRECTABLE.has(lead.status) && !(moving && lead.status === 'queued')) {
    throw refusal(
      409,
      'not_correctable',
      t(
        `o lead ${leadId} está ${STATUS_LABELS[toAdminLeadView(lead).status].toLowerCase()}; só leads parados, recusados, esgotados ou de teste podem ser corrigidos (e os da fila, movidos para outro perfil)`,
        `lead ${leadId} is ${toAdminLeadView(lead).status}; only parked, rejected, dead or test leads can be corrected (and queued ones moved to another profile)`,
      ),
    );
  }
  const profile = await targetProfile(context, lead, moving ? moveTo : undefined);
  const correction = mergeCorrections(lead.correction, asked);
  const account = accountOfProfile(profile);
  const branches = await branchesOf(deps.branches, account);
  requireOwnBranch(asked.idBranch, branches);
  const mapped = applyCorrection(
    mapCapture(lead.capture, profile, sourceLabel(lead.capture.source), branches),
    correction,
  );
  const move = moving ? { move: { profile: moveTo, account } } : {};
  const saved = await deps.ledger.correct(
    leadId,
    lead.version,
    { correction, prospect: mapped.prospect, by: context.client, ...move },
    now(),
  );
  if (!saved) throw conflict(leadId);
  deps.events?.corrected?.({
    leadId,
    fields: [...Object.keys(asked), ...(moving ? ['profile'] : [])],
    client: context.client,
  });
  const current = IN_FLIGHT.has(saved.status) ? await wakeMoved(context, saved) : saved;
  return json(
    200,
    {
      ...toDetailedView(current, await zonesOf(deps.config)(current.profile)),
      missing: mapped.missing,
    },
    NO_STORE,
  );
}

/** A corrected branch must be one of the account's, when the account names any. */
function requireOwnBranch(
  idBranch: number | null | undefined,
  branches: readonly { idBranch: number; name: string }[],
): void {
  if (typeof idBranch !== 'number' || branches.length === 0) return;
  if (branches.some((branch) => branch.idBranch === idBranch)) return;
  const known = branches.map((branch) => `${branch.idBranch} (${branch.name})`).join(', ');
  const message = t(
    `a unidade ${idBranch} não é uma unidade da conta deste lead; escolha uma destas: ${known}`,
    `branch ${idBranch} is not a branch of this lead's account; choose one of: ${known}`,
  );
  throw refusal(400, 'unknown_branch', message, [{ field: 'idBranch', message }]);
}

/** A queued lead moved to a live profile: its next attempt is due now, with a message. */
async function wakeMoved(context: RouteContext, lead: Parameters<typeof sendWakeUp>[1]) {
  const now = context.now();
  const awake = await context.deps.ledger.wake(lead.leadId, lead.version, {
    dueAt: new Date(now.getTime() + DEFAULT_WAKE_GRACE_MS),
    now,
    attemptNow: true,
  });
  if (awake) await sendWakeUp(context.deps, awake, 'correct-lead');
  return awake ?? lead;
}

function conflict(leadId: string) {
  return refusal(
    409,
    'conflict',
    t(
      `o lead ${leadId} mudou nesse meio-tempo; recarregue e tente de novo`,
      `lead ${leadId} changed meanwhile; reload and try again`,
    ),
  );
}
