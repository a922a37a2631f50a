/**
 * Before a profile leaves the configuration (removed, or renamed: the old name leaves), what its
 * leads say about it: how many it received in the last PROFILE_ACTIVITY_DAYS days and how many
 * of them still wait for delivery (queued or sending). `npm run config -- diff/push`
 * (scripts/config-store.ts) and the local runtime's reload (local/runtime-config.ts) print the
 * warnings, in Portuguese, for an operator. A read-only check: the ledger's status index, read
 * through `listRecent` (the received leads of the period, every status), nothing written. Its
 * leads are not lost: a lead whose profile is missing waits for it (delivery/forward/claim.ts).
 * No AWS imports.
 */
import { LEAD_STATUSES, type LeadStatus } from '../domain/lead-lifecycle.ts';
import type { LeadLedger } from './lead-ledger.ts';

/** The period whose leads make a profile's removal worth a warning. */
export const PROFILE_ACTIVITY_DAYS = 30;

/** Statuses of a lead still on its way to the upstream. */
const WAITING: ReadonlySet<LeadStatus> = new Set(['queued', 'sending']);

/** The most leads read for one check (1,000 a page): beyond it the counts say "at least". */
const MAX_LEADS = 200_000;

export interface ProfileActivity {
  /** Leads received in the period. */
  received: number;
  /** Of them, still queued or sending. */
  waiting: number;
}

/** The profiles of `before` that `after` no longer has, and the ones it adds (maybe a rename). */
export function leavingProfiles(
  before: { profiles: Record<string, unknown> },
  after: { profiles: Record<string, unknown> },
): { leaving: string[]; added: string[] } {
  const was = Object.keys(before.profiles);
  const is = Object.keys(after.profiles);
  return {
    leaving: was.filter((name) => !(name in after.profiles)).sort(),
    added: is.filter((name) => !(name in before.profiles)).sort(),
  };
}

/**
 * The activity of `profiles` in the PROFILE_ACTIVITY_DAYS days before `now`, read from the
 * status index (every status, newest first). `complete` is false when MAX_LEADS were read first.
 */
export async function profileActivity(
  ledger: Pick<LeadLedger, 'listRecent'>,
  profiles: readonly string[],
  now: Date,
): Promise<{ activity: Map<string, ProfileActivity>; complete: boolean }> {
  const activity = new Map(profiles.map((name) => [name, { received: 0, waiting: 0 }]));
  if (profiles.length === 0) return { activity, complete: true };
  const since = new Date(now.getTime() - PROFILE_ACTIVITY_DAYS * 86_400_000);
  let after: string | undefined;
  let read = 0;
  for (;;) {
    const page = await ledger.listRecent({
      statuses: LEAD_STATUSES,
      order: 'newest',
      since,
      limit: 1000,
      ...(after !== undefined && { after }),
    });
    for (const { lead } of page.entries) {
      const counts = activity.get(lead.profile);
      if (!counts) continue;
      counts.received += 1;
      if (WAITING.has(lead.status)) counts.waiting += 1;
    }
    read += page.entries.length;
    after = page.last ?? page.entries.at(-1)?.position;
    if (!page.more || after === undefined) return { activity, complete: true };
    if (read >= MAX_LEADS) return { activity, complete: false };
  }
}

/**
 * One warning per leaving profile that received leads in the period (none for an unused one):
 * how many, how many wait, what happens to them, and the added profiles when it may be a rename.
 */
export async function profileRemovalWarnings(
  ledger: Pick<LeadLedger, 'listRecent'>,
  change: { leaving: readonly string[]; added: readonly string[] },
  now: Date,
): Promise<string[]> {
  const { activity, complete } = await profileActivity(ledger, change.leaving, now);
  const atLeast = complete ? '' : 'pelo menos ';
  const rename =
    change.added.length > 0
      ? ` Se é uma renomeação (novo: ${change.added.map((n) => `'${n}'`).join(', ')}), os leads já aceitos não passam para o novo nome.`
      : '';
  return change.leaving.flatMap((name) => {
    const counts = activity.get(name);
    if (!counts || counts.received === 0) return [];
    return [
      `aviso: o perfil '${name}' sai da configuração e recebeu ${atLeast}${counts.received} lead(s) nos últimos ${PROFILE_ACTIVITY_DAYS} dias; ` +
        `${counts.waiting} aguardando entrega. Eles não são perdidos: esperam o perfil voltar à configuração (até o prazo de entrega), ` +
        `e as novas requisições para '${name}' recebem 404.${rename}`,
    ];
  });
}
