/**
 * The admin's data as a scoped operator may have it (kernel/scope.ts): the guard of the admin
 * function (admin.ts `handleAdmin`) hands every route these dependencies instead of the whole
 * ledger and configuration, so no route checks scope itself and none can forget to.
 *
 * - Leads: `get` answers only leads whose place (account and branch) is in scope, so a route
 *   answers 404 for any other, as for an unknown id (no existence oracle); listings, searches,
 *   the CSV, the backlog and an erasure's lookup leave the others out; a change (correct, retry,
 *   requeue, wake, redact) to a lead out of scope changes nothing. A correction is checked where
 *   it leads as well: a branch, or a profile (and so an account), outside the scope is refused
 *   403 `outside_scope` with nothing written, so no operator moves a lead out of its own sight.
 * - Profiles: `profile` and `profileSettings` show only profiles whose every possible branch is
 *   in scope (config-accounts.ts `reachOfProfile`), so a preview, a test lead, a backfill or a
 *   set-up kit of another profile answers 404 and the console lists only the client's.
 * - Accounts: only the client's (`GET /admin/upstream`).
 * - The dead-letter redrive is left to unscoped operators: its messages are every account's
 *   wake-ups (the reconciler wakes those leads anyway).
 * An unscoped client gets the dependencies unchanged.
 */

import { type ReachInput, reachOfProfile } from '../config/config-accounts.ts';
import type { ProfileSettings } from '../config/config-source.ts';
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import { t } from '../kernel/language.ts';
import {
  coversPlace,
  coversReach,
  isScoped,
  type Place,
  type Scope,
  visibleAccounts,
} from '../kernel/scope.ts';
import { accountOfLead, type LeadLedger, type LeadRecord } from '../ledger/lead-ledger.ts';
import type { AdminDeps } from './admin.ts';
import { refusal } from './route-context.ts';

/** The leads one backlog count reads at most for a scoped client. */
const MAX_BACKLOG_READ = 5000;
/** Index pages one listing call reads at most while every lead on them is out of scope. */
const MAX_HIDDEN_PAGES = 10;

/** The lead's branch as mapped (an operator's correction first); undefined while not known. */
export function branchOfLead(lead: LeadRecord): number | undefined {
  return (
    lead.correction?.idBranch ??
    lead.prospect?.idBranch ??
    lead.capture.prospect?.idBranch ??
    undefined
  );
}

export function scopedAdminDeps(deps: AdminDeps, scope: Scope): AdminDeps {
  if (!isScoped(scope)) return deps;
  const accountOf = async (profile: string) =>
    (await deps.config.accountOf?.(profile)) ?? DEFAULT_ACCOUNT;
  const placeOf = async (lead: LeadRecord): Promise<Place> => ({
    account: await accountOfLead(lead, accountOf),
    branch: branchOfLead(lead),
  });
  const visible = async (lead: LeadRecord | undefined) =>
    lead !== undefined && coversPlace(scope, await placeOf(lead));
  /** The place a correction leads to: the new profile's account, the branch as it now maps. */
  const targetOf = async (lead: LeadRecord, change: Correction): Promise<Place> => ({
    account: change.move?.account ?? (await accountOfLead(lead, accountOf)),
    branch: change.prospect.idBranch ?? undefined,
  });
  const reaches = async (lead: LeadRecord, change: Correction) => {
    const target = await targetOf(lead, change);
    if (!coversPlace(scope, target)) throw outsideScope(scope, target);
  };

  const check = (place: Place) => {
    if (!coversPlace(scope, place)) throw outsideScope(scope, place);
  };
  return {
    ...deps,
    scoped: { check },
    ledger: scopedLedger(deps.ledger, visible, reaches, check),
    config: scopedConfig(deps.config, scope),
    redrive: { redrive: async () => ({ status: 'skipped' }) },
  };
}

type Visible = (lead: LeadRecord | undefined) => Promise<boolean>;
type Correction = Parameters<LeadLedger['correct']>[2];
/** Throws the 403 when a correction would take the lead outside the scope. */
type Reaches = (lead: LeadRecord, change: Correction) => Promise<void>;

/** 403 `outside_scope`: the write would put the lead where this operator may not act. */
function outsideScope(scope: Scope, target: Place) {
  const branch = target.branch;
  const accounts = scope.upstreams?.join(', ');
  const branches = scope.branches?.join(', ');
  const ownPt = [accounts && `contas ${accounts}`, branches && `unidades ${branches}`];
  const ownEn = [accounts && `accounts ${accounts}`, branches && `branches ${branches}`];
  const message = t(
    `a mudança levaria o lead para ${branch === undefined ? 'nenhuma unidade (a conta inteira)' : `a unidade ${branch}`} da conta ${target.account}, fora do que este usuário pode mudar (${ownPt.filter(Boolean).join('; ')}); nada foi alterado`,
    `the change would take the lead to ${branch === undefined ? 'no branch (the whole account)' : `branch ${branch}`} of account ${target.account}, outside what this client may change (${ownEn.filter(Boolean).join('; ')}); nothing was changed`,
  );
  return refusal(403, 'outside_scope', message, [{ field: 'idBranch', message }]);
}

async function keep(leads: readonly LeadRecord[], visible: Visible): Promise<LeadRecord[]> {
  const shown = await Promise.all(leads.map(visible));
  return leads.filter((_, index) => shown[index]);
}

function scopedLedger(
  ledger: LeadLedger,
  visible: Visible,
  reaches: Reaches,
  check: (place: Place) => void,
): LeadLedger {
  const get = async (leadId: string) => {
    const lead = await ledger.get(leadId);
    return lead && (await visible(lead)) ? lead : undefined;
  };
  /** Runs `change` only on a lead in scope; anything else is treated as not there. */
  const guarded =
    <A extends unknown[], R>(change: (leadId: string, ...rest: A) => Promise<R | undefined>) =>
    async (leadId: string, ...rest: A): Promise<R | undefined> =>
      (await get(leadId)) ? change(leadId, ...rest) : undefined;
  return {
    ...ledger,
    get,
    async listRecent(query) {
      let after = query.after;
      for (let pages = 0; ; pages++) {
        const page = await ledger.listRecent({ ...query, ...(after !== undefined && { after }) });
        const shown = await keep(
          page.entries.map((entry) => entry.lead),
          visible,
        );
        const entries = page.entries.filter((entry) => shown.includes(entry.lead));
        const last = page.entries.at(-1)?.position ?? page.last;
        if (entries.length > 0 || !page.more || last === undefined || pages >= MAX_HIDDEN_PAGES) {
          const tail = entries.at(-1)?.position;
          return { entries, more: page.more, ...(last !== tail && last && { last }) };
        }
        after = last;
      }
    },
    async listByStatus(status, options) {
      const page = await ledger.listByStatus(status, options);
      return { ...page, leads: await keep(page.leads, visible) };
    },
    async findByDedupKey(profile, dedupKey, now) {
      const lead = await ledger.findByDedupKey(profile, dedupKey, now);
      return (await visible(lead)) ? lead : undefined;
    },
    async findBySubjects(subjects) {
      const ids = await ledger.findBySubjects(subjects);
      const shown = await Promise.all(ids.map(async (id) => (await get(id)) !== undefined));
      return ids.filter((_, index) => shown[index]);
    },
    async countInFlight() {
      let count = 0;
      for (const status of ['queued', 'sending'] as const) {
        let cursor: string | undefined;
        let read = 0;
        do {
          const page = await ledger.listByStatus(status, {
            limit: 500,
            ...(cursor !== undefined && { cursor }),
          });
          read += page.leads.length;
          count += (await keep(page.leads, visible)).length;
          cursor = page.cursor;
        } while (cursor !== undefined && read < MAX_BACKLOG_READ);
      }
      return count;
    },
    // A lead recorded from the admin (a backfill) must land in scope when its branch is known;
    // one waiting for its platform's answers goes to its profile's branches, already in scope.
    async record(lead) {
      const branch = lead.prospect?.idBranch ?? undefined;
      if (branch !== undefined) check({ account: lead.account ?? DEFAULT_ACCOUNT, branch });
      return ledger.record(lead);
    },
    redact: guarded(ledger.redact),
    requeue: guarded(ledger.requeue),
    wake: guarded(ledger.wake),
    async correct(leadId, version, change, now) {
      const lead = await get(leadId);
      if (!lead) return undefined;
      await reaches(lead, change);
      return ledger.correct(leadId, version, change, now);
    },
  };
}

function scopedConfig(config: AdminDeps['config'], scope: Scope): AdminDeps['config'] {
  const inScope = (settings: ProfileSettings | undefined) =>
    settings !== undefined && coversReach(scope, reachOfProfile(settings as ReachInput));
  const settingsOf = async (name: string) => {
    const current = (await config.currentName?.(name)) ?? name;
    return (await config.profileSettings())[current];
  };
  return {
    ...config,
    async profile(name) {
      return inScope(await settingsOf(name)) ? config.profile(name) : undefined;
    },
    async profileSettings() {
      const all = await config.profileSettings();
      return Object.fromEntries(Object.entries(all).filter(([, settings]) => inScope(settings)));
    },
    accounts: async () => visibleAccounts(scope, (await config.accounts?.()) ?? [DEFAULT_ACCOUNT]),
  };
}
