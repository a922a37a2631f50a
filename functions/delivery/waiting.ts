/**
 * Waiting for an account's circuit costs nothing (docs/operations.md, "Waiting for an
 * upstream"). While an account's circuit is open (upstream/circuit.ts), its leads do not keep
 * messages going round the queue:
 * - one lead carries the probe (`Circuit.carry`, a conditional write on the circuit item): it
 *   keeps a message due at the next probe, and its ledger `dueAt` moves past that probe so the
 *   reconciler adds no copy;
 * - every other lead waits in the ledger with no message (`LeadLedger.waitFor`): its
 *   `lastError` says so, its `dueAt` is a safety-net recheck minutes away, and its message is
 *   acknowledged;
 * - the attempt that closes the circuit wakes the account's waiting leads, received first, one
 *   message each for its version (`wakeWaiting`); a lead whose recheck passes first is woken by
 *   the reconciler (and waits again if the circuit is still open).
 * So attempts and messages per minute stay flat however long the outage lasts: one probe, plus
 * each waiting lead once per recheck interval.
 *
 * A lead whose profile left the configuration waits the same way, listed under PROFILE_WAIT
 * (a key no account can be named: account names have no `:`), its message rechecking now and
 * then as a safety net; the configuration that brings the profile back wakes it at once
 * (`wakeReturnedProfiles`): the local runtime's reload, and on AWS the reconciler's minute,
 * which compares the waiting leads with the settings it reads (the new version within 45 s).
 * No AWS imports.
 */
import type { LeadLedger, LeadRecord } from '../ledger/lead-ledger.ts';
import type { LeadQueue } from '../ledger/lead-queue.ts';

/** What a lead waiting for its account's circuit shows as its `lastError` (people read it). */
export function circuitWaitNote(account: string): string {
  return `aguardando a conta '${account}' do upstream voltar a responder (circuito aberto); sem novas tentativas até lá`;
}

/** How long a probe's carrier keeps its turn after its probe: past the longest probe interval. */
export const CARRIER_MARGIN_MS = 60_000;

/** Leads woken per page (each one ledger write and one message). */
const PAGE = 100;

type WakeDeps = { ledger: Pick<LeadLedger, 'wake'>; queue: Pick<LeadQueue, 'send'> };

/**
 * One waiting lead's next attempt due now (fenced by its version, which ends its wait) and its
 * message in `group`'s queue group; false when the lead moved on meanwhile.
 */
async function wakeOne(
  deps: WakeDeps,
  lead: Pick<LeadRecord, 'leadId' | 'version'>,
  group: string | undefined,
  options: { now: () => Date; wakeGraceMs: number },
): Promise<boolean> {
  const now = options.now();
  const awake = await deps.ledger.wake(lead.leadId, lead.version, {
    dueAt: new Date(now.getTime() + options.wakeGraceMs),
    now,
    attemptNow: true,
  });
  if (!awake) return false;
  await deps.queue.send(lead.leadId, {
    version: awake.version,
    ...(group !== undefined && { group }),
  });
  return true;
}

/**
 * Wakes the leads waiting for `account`'s circuit: each one's next attempt becomes due now
 * (fenced by its version, which also ends its wait) and gets one message in its account's group.
 * Returns how many were woken. Stops early, leaving the rest to their recheck, when `remainingMs`
 * says time is short.
 */
export async function wakeWaiting(
  deps: { ledger: Pick<LeadLedger, 'listWaiting' | 'wake'>; queue: Pick<LeadQueue, 'send'> },
  account: string,
  options: {
    now: () => Date;
    wakeGraceMs: number;
    remainingMs?: () => number;
    /** Wake at most this many. */
    max?: number;
  },
): Promise<number> {
  const max = options.max ?? Number.POSITIVE_INFINITY;
  let woken = 0;
  let cursor: string | undefined;
  do {
    if ((options.remainingMs?.() ?? Number.POSITIVE_INFINITY) < 5_000) break;
    const page = await deps.ledger.listWaiting(account, {
      limit: Math.min(PAGE, max - woken),
      ...(cursor !== undefined && { cursor }),
    });
    for (const lead of page.leads) {
      if (!(await wakeOne(deps, lead, account, options))) continue;
      woken += 1;
      if (woken >= max) return woken;
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return woken;
}

/** The wait key of leads waiting for their profile to come back (see the module comment). */
export const PROFILE_WAIT = ':profile';

/**
 * Wakes the leads waiting for a profile that `configured` now has (the reload or the version
 * that brought it back): each one's next attempt due now, one message in its account's group.
 * A lead whose profile is still missing keeps waiting. Returns how many were woken.
 */
export async function wakeReturnedProfiles(
  deps: { ledger: Pick<LeadLedger, 'listWaiting' | 'wake'>; queue: Pick<LeadQueue, 'send'> },
  configured: (profile: string) => boolean,
  options: { now: () => Date; wakeGraceMs: number; remainingMs?: () => number },
): Promise<number> {
  let woken = 0;
  let cursor: string | undefined;
  do {
    if ((options.remainingMs?.() ?? Number.POSITIVE_INFINITY) < 5_000) break;
    const page = await deps.ledger.listWaiting(PROFILE_WAIT, {
      limit: PAGE,
      ...(cursor !== undefined && { cursor }),
    });
    for (const lead of page.leads) {
      if (!configured(lead.profile)) continue;
      if (await wakeOne(deps, lead, lead.account, options)) woken += 1;
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return woken;
}
