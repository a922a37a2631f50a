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
import { currentProfileName } from '../config/profile-names.ts';
import { LEAD_STATUSES, type LeadStatus } from '../domain/lead-lifecycle.ts';
import { secretKeysOf } from '../sources/registry.ts';
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

/**
 * The profiles of `before` that `after` no longer has under any name (a profile renamed with
 * `formerly` does not leave), the ones it adds, and for each leaving profile the added ones that
 * look like it renamed (same source and settings but for secrets and `formerly`).
 */
export function leavingProfiles(
  before: { profiles: Record<string, unknown> },
  after: { profiles: Record<string, unknown> },
): { leaving: string[]; added: string[]; renamedTo: Record<string, string[]> } {
  const was = Object.keys(before.profiles);
  const is = Object.keys(after.profiles);
  const leaving = was.filter(
    (name) => currentProfileName(after.profiles as Record<string, object>, name) === undefined,
  );
  // A profile that names a profile of before as its former name is that profile, renamed.
  const renamedFrom = new Set(
    was.map((name) => currentProfileName(after.profiles as Record<string, object>, name)),
  );
  const added = is.filter(
    (name) => !Object.hasOwn(before.profiles, name) && !renamedFrom.has(name),
  );
  const renamedTo: Record<string, string[]> = {};
  for (const name of leaving) {
    const like = added.filter((n) =>
      sameSettings(before.profiles[name] as object, after.profiles[n] as object),
    );
    if (like.length > 0) renamedTo[name] = like;
  }
  return { leaving: leaving.sort(), added: added.sort(), renamedTo };
}

/** Settings that do not make a profile another one: its name's history and its keys. */
const NOT_SETTINGS = new Set(['formerly', 'secretName']);

/** Whether two profiles read the same (their secret keys, which differ per file, left out). */
function sameSettings(a: object | undefined, b: object | undefined): boolean {
  if (!a || !b) return false;
  const secrets = new Set(secretKeysOf(String((a as { source?: unknown }).source)));
  const kept = (profile: object) =>
    JSON.stringify(
      Object.entries(profile)
        .filter(([key]) => !NOT_SETTINGS.has(key) && !secrets.has(key))
        .sort(([x], [y]) => x.localeCompare(y)),
    );
  return kept(a) === kept(b);
}

/** The advice for a leaving profile that an added one looks like (a rename without `formerly`). */
export function renameAdvice(name: string, to: readonly string[]): string {
  const target = to.length === 1 ? `'${to[0]}'` : `um de ${to.map((n) => `'${n}'`).join(', ')}`;
  return (
    `'${name}' parece renomeado para ${target}: acrescente "formerly": ["${name}"] ao perfil novo ` +
    `(num stack implantado, também "secretName": "${name}", para manter as chaves): o endereço /leads/${name}, ` +
    'o token e os leads que aguardam passam para ele.'
  );
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
  change: {
    leaving: readonly string[];
    added: readonly string[];
    renamedTo?: Readonly<Record<string, readonly string[]>>;
  },
  now: Date,
): Promise<string[]> {
  const { activity, complete } = await profileActivity(ledger, change.leaving, now);
  const atLeast = complete ? '' : 'pelo menos ';
  return change.leaving.flatMap((name) => {
    const counts = activity.get(name);
    const like = change.renamedTo?.[name];
    const advice = like ? ` ${renameAdvice(name, like)}` : renameHint(change.added, name);
    if (!counts || counts.received === 0) return like ? [`aviso: ${renameAdvice(name, like)}`] : [];
    return [
      `aviso: o perfil '${name}' sai da configuração e recebeu ${atLeast}${counts.received} lead(s) nos últimos ${PROFILE_ACTIVITY_DAYS} dias; ` +
        `${counts.waiting} aguardando entrega. Eles não são perdidos: esperam o perfil voltar à configuração (até o prazo de entrega) ` +
        `ou que um operador os mova para outro perfil, e as novas requisições para '${name}' recebem 404.${advice}`,
    ];
  });
}

/** For a rename whose new profile reads otherwise: how to keep the old name's leads. */
function renameHint(added: readonly string[], name: string): string {
  if (added.length === 0) return '';
  const names = added.map((n) => `'${n}'`).join(', ');
  return ` Se é uma renomeação (novo: ${names}), acrescente "formerly": ["${name}"] ao perfil novo para que os leads já aceitos passem para ele.`;
}
