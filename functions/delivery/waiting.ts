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
 * each waiting lead once per recheck interval. No AWS imports.
 */
import type { LeadLedger } from '../ledger/lead-ledger.ts';
import type { LeadQueue } from '../ledger/lead-queue.ts';

/** What a lead waiting for its account's circuit shows as its `lastError` (people read it). */
export function circuitWaitNote(account: string): string {
  return `aguardando a conta '${account}' do upstream voltar a responder (circuito aberto); sem novas tentativas até lá`;
}

/** How long a probe's carrier keeps its turn after its probe: past the longest probe interval. */
export const CARRIER_MARGIN_MS = 60_000;

/** Leads woken per page (each one ledger write and one message). */
const PAGE = 100;

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
      const now = options.now();
      const awake = await deps.ledger.wake(lead.leadId, lead.version, {
        dueAt: new Date(now.getTime() + options.wakeGraceMs),
        now,
        attemptNow: true,
      });
      if (!awake) continue;
      await deps.queue.send(lead.leadId, { version: awake.version, group: account });
      woken += 1;
      if (woken >= max) return woken;
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return woken;
}
