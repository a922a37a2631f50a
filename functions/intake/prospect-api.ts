/**
 * The Prospect API use case: the seed's `POST /api/v1/prospects` (the route table's
 * `create-prospect`), and a `POST /leads/{profile}` to a profile whose source is `prospect`.
 * intake.ts runs the checks every profile's request gets and hands the request here. No AWS
 * imports: ports come in `deps`. The caller is admitted (kernel/route-guard.ts) and scoped
 * (kernel/scope.ts), the body read (sources/prospect.ts), the lead recorded, then the answer
 * waits a bounded time for the delivery (PROSPECT_WAIT), as the contract asks: 200 with the
 * upstream's id, 400 as the upstream rejected it, or 202 with the lead's status. Each refusal
 * and answer in order: docs/architecture.md.
 */
import { accountOfProfile } from '../config/config-accounts.ts';
import type { LeadStatus } from '../domain/lead-lifecycle.ts';
import { publicStatus } from '../domain/lead-lifecycle.ts';
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import { type HttpResponse, json, problem } from '../kernel/http.ts';
import { say, type Text, t } from '../kernel/language.ts';
import { type Admission, admitCaller } from '../kernel/route-guard.ts';
import { basicRoutesOf } from '../kernel/routes.ts';
import { coversPlace, type Scope, seesAccount, visibleAccounts } from '../kernel/scope.ts';
import { DedupConflictError, type LeadRecord } from '../ledger/lead-ledger.ts';
import {
  type Dropped,
  initialState,
  isDropped,
  noteDropped,
  type Recorded,
  recordLead,
} from '../ledger/record-capture.ts';
import { scopeToClient } from '../sources/prospect.ts';
import type { IntakeRequest } from '../sources/source.ts';
import { branchesOf } from '../upstream/branch-directory.ts';
import { type IntakeCall, refuse, withCors } from './cors-and-refusals.ts';
import type { IntakeDeps, IntakeInvocation, ProspectWait } from './intake-deps.ts';

export const PROSPECT_WAIT: ProspectWait = { budgetMs: 8000, firstPollMs: 200, maxPollMs: 1000 };

/** The wait ends at least this long before the function's own timeout. */
export const WAIT_RESERVE_MS = 1500;

/** The route table's `create-prospect` route: its path, method and role admit the caller. */
const CREATE_PROSPECT_PATH =
  basicRoutesOf('intake').find((route) => route.name === 'create-prospect')?.path ?? '';

/** The Prospect API's answer to a Prospect whose person's data was erased: done, nothing made. */
function erasedProspect(): HttpResponse {
  return json(200, {
    status: 'erased',
    code: 'personal_data_erased',
    message: say(
      t(
        'os dados desta pessoa foram apagados a pedido dela (LGPD): o Prospect não foi guardado e não será criado; não o envie de novo',
        "this person's data was erased at their request (LGPD): the Prospect was not stored and will not be created; do not send it again",
      ),
    ),
  });
}

const IDEMPOTENCY_KEY_REUSED = t(
  'esta Idempotency-Key já foi usada por este usuário para outro Prospect nas últimas 24 horas: envie o mesmo corpo de novo para ter a resposta original, ou use uma chave nova para um Prospect novo',
  'this Idempotency-Key was already used by this client for a different Prospect within the last 24 hours: send the same body again to get the original answer, or use a new key for a new Prospect',
);

/** A caller the route guard admitted (kernel/route-guard.ts). */
export type ProspectCaller = Extract<Admission<unknown>, { ok: true }>;

/** Admits the caller of the Prospect API (see the module comment). */
export function admitProspectCaller(deps: IntakeDeps, request: IntakeRequest) {
  return admitCaller('intake', CREATE_PROSPECT_PATH, request, () => deps.config.clients());
}

/**
 * The `prospect` profile a `POST /api/v1/prospects` goes to, for the admitted caller: the
 * account `?upstream=` names (one the caller may see: an unknown account and another tenant's
 * get the same 400 `unknown_upstream`), else the caller's only account, else `default`; 404
 * `no_prospect_profile` when that account has no profile of source `prospect`.
 */
export async function prospectProfileFor(
  deps: IntakeDeps,
  caller: ProspectCaller,
  asked: string | undefined,
): Promise<{ ok: true; name: string } | { ok: false; result: HttpResponse; code: string }> {
  const accounts = visibleAccounts(caller.scope, await deps.config.accounts());
  const refused = (status: number, code: string, message: Text) => ({
    ok: false as const,
    code,
    result: problem(status, code, message, [{ field: 'upstream', message }]),
  });
  if (asked !== undefined && !accounts.includes(asked)) {
    return refused(
      400,
      'unknown_upstream',
      t(
        `não há conta "${asked}"; as contas são ${accounts.join(', ')}`,
        `no upstream account "${asked}"; accounts: ${accounts.join(', ')}`,
      ),
    );
  }
  const only = accounts.length === 1 ? accounts[0] : undefined;
  const account =
    asked ?? only ?? (accounts.includes(DEFAULT_ACCOUNT) ? DEFAULT_ACCOUNT : undefined);
  if (account === undefined) {
    return refused(
      400,
      'upstream_required',
      t(
        `diga a conta com ?upstream= (uma de ${accounts.join(', ')})`,
        `name the account with ?upstream= (one of ${accounts.join(', ')})`,
      ),
    );
  }
  const name = await deps.config.profileNameFor('prospect', account);
  if (name !== undefined) return { ok: true, name };
  return refused(
    404,
    'no_prospect_profile',
    t(
      `a conta "${account}" não tem perfil da API de Prospects (um perfil com "source": "prospect"${account === DEFAULT_ACCOUNT ? '' : ` e "upstream": "${account}"`}); peça a quem cuida da configuração para criá-lo`,
      `the account "${account}" has no Prospect API profile (a profile with "source": "prospect"${account === DEFAULT_ACCOUNT ? '' : ` and "upstream": "${account}"`}); ask whoever runs the configuration to add one`,
    ),
  );
}

/** Handles a POST to the Prospect API's profile (see the module comment). */
export async function handleProspect(
  call: IntakeCall,
  deps: IntakeDeps,
  invocation?: IntakeInvocation,
  admitted?: ProspectCaller,
): Promise<HttpResponse> {
  const { profile, request } = call;
  const admission = admitted ?? (await admitProspectCaller(deps, request));
  if (!admission.ok) return refuse(deps, call, admission.result, admission.code);
  const { client, scope } = admission;
  const account = accountOfProfile(profile);
  if (!seesAccount(scope, account)) {
    return refuse(deps, call, upstreamForbidden(scope, account), 'upstream_forbidden');
  }

  // The prospect source's `authenticate` always passes: the admission above is its check.
  const captured = await call.adapter.capture(request, profile);
  if ('problem' in captured) {
    const invalid = problem(400, 'invalid_body', captured.problem, captured.details ?? []);
    return refuse(deps, call, invalid, 'invalid_body');
  }
  const [lead] = captured.leads;
  if (!lead) throw new Error('the prospect source captures one Prospect per request');
  const branch = lead.prospect?.idBranch ?? undefined;
  if (!coversPlace(scope, { account, branch })) {
    return refuse(deps, call, branchForbidden(scope, branch), 'branch_forbidden');
  }

  // The Idempotency-Key (or content hash) is the client's own, bound to the body it came with.
  const scoped = scopeToClient(lead, client.username);
  let accepted: Recorded | Dropped;
  try {
    const branches = await branchesOf(deps.branches, account);
    const state = {
      ...initialState(scoped.capture, profile, branches),
      fingerprint: scoped.fingerprint,
    };
    accepted = await recordLead(deps, call.profileName, state, request.receivedAt);
  } catch (error) {
    if (!(error instanceof DedupConflictError)) throw error;
    const reused = problem(422, 'idempotency_key_reused', IDEMPOTENCY_KEY_REUSED);
    return refuse(deps, call, reused, 'idempotency_key_reused');
  }
  if (isDropped(accepted)) {
    noteDropped(deps, call.profileName, profile.source, 1);
    return withCors(erasedProspect(), request, profile);
  }
  const settled = await waitForDelivery(accepted.record, deps, invocation);
  return withCors(prospectAnswer(settled, call), request, profile);
}

/** The 403 for a profile of an account the client may not post to (the scope has accounts). */
function upstreamForbidden(scope: Scope, account: string): HttpResponse {
  const accounts = (scope.upstreams ?? []).join(', ');
  const message = t(
    `este usuário não pode enviar à conta "${account}"; indique uma de ${accounts} com ?upstream=`,
    `this client may not post to the account "${account}"; name one of ${accounts} with ?upstream=`,
  );
  return problem(403, 'upstream_forbidden', message, [{ field: 'upstream', message }]);
}

/** The 403 for a Prospect outside the client's branches (the scope has branches, then). */
function branchForbidden(scope: Scope, branch: number | undefined): HttpResponse {
  const branches = scope.branches ?? [];
  const many = branches.length > 1;
  const message = t(
    `este usuário só pode criar prospects ${many ? 'nas unidades' : 'na unidade'} ${branches.join(', ')}, não em ${branch ?? '(nenhuma informada)'}`,
    `this client may create prospects in branch${many ? 'es' : ''} ${branches.join(', ')} only, not ${branch ?? '(none given)'}`,
  );
  return problem(403, 'branch_forbidden', message, [{ field: 'idBranch', message }]);
}

// ---------------------------------------------------------------------------------------------
// The bounded wait

const IN_FLIGHT: ReadonlySet<LeadStatus> = new Set(['queued', 'sending']);

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls the ledger until the lead leaves queued/sending or the wait ends; the lead as last read.
 * A lead that is not in flight (a duplicate of a delivered one, a parked one) returns at once.
 */
async function waitForDelivery(
  lead: LeadRecord,
  deps: IntakeDeps,
  invocation: IntakeInvocation | undefined,
): Promise<LeadRecord> {
  if (!IN_FLIGHT.has(lead.status)) return lead;
  const wait = { ...PROSPECT_WAIT, ...deps.prospectWait };
  const sleep = deps.sleep ?? timer;
  const clock = () => (deps.now?.() ?? new Date()).getTime();
  const remaining = invocation ? invocation.remainingMs() - WAIT_RESERVE_MS : wait.budgetMs;
  const deadline = clock() + Math.min(wait.budgetMs, remaining);
  let current = lead;
  let delay = Math.max(wait.firstPollMs, 1);
  for (let left = deadline - clock(); left > 0; left = deadline - clock()) {
    await sleep(Math.min(delay, left));
    try {
      current = (await deps.ledger.get(lead.leadId)) ?? current;
    } catch {
      return current; // recorded and queued: the 202 answer stays true
    }
    if (!IN_FLIGHT.has(current.status)) return current;
    delay = Math.min(delay * 1.5, Math.max(wait.maxPollMs, 1));
  }
  return current;
}

/** The Prospect API's answer for the lead's state (see the module comment). */
function prospectAnswer(lead: LeadRecord, call: IntakeCall): HttpResponse {
  switch (lead.status) {
    case 'delivered':
      return json(200, { idProspect: lead.idProspect });
    case 'rejected': {
      const messages = lead.messages ?? [];
      const refused = lead.reason ?? messages.join('; ');
      const message = say(
        t(
          `o sistema da academia recusou o Prospect: ${refused}`,
          `the upstream refused the Prospect: ${refused}`,
        ),
      );
      return json(400, {
        error: { code: 'rejected_upstream', message, details: messages },
        leadId: lead.leadId,
      });
    }
    case 'queued':
    case 'sending':
      return call.adapter.accepted([lead.leadId]);
    default:
      return json(202, {
        leadId: lead.leadId,
        status: publicStatus(lead.status),
        ...(lead.reason !== undefined && { reason: lead.reason }),
      });
  }
}
