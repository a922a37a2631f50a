/**
 * The reconciler (use case): wakes the leads that nothing is working on. The ledger is the
 * truth and a queue message only a wake-up, so a lead can be left without one: the process died
 * between recording it and sending its message, a message was lost or dead-lettered, an attempt
 * died holding the lead's lease. Every such lead is still `queued` or `sending` with a `dueAt`
 * in the past (the ledger pushes `dueAt` a grace period past the moment someone should have
 * picked the lead up), and the ledger's sparse due index lists exactly those.
 *
 * For each due lead: note the wake-up in the ledger (its `dueAt` moves a grace period on, fenced
 * by its version, so two reconcilers never both wake it), then send a message for its chain,
 * delayed until its next attempt (or its account's circuit's next probe, while that upstream is
 * down). A
 * duplicate wake-up is harmless: a message for a chain that already moved on is a no-op.
 *
 * Then, for every configured account whose circuit is closed, the leads still waiting for it
 * (delivery/waiting.ts: the attempt that closed it died before waking them) are woken. A lead
 * waiting for a circuit still open is due only at its recheck, minutes away, and when woken then
 * it waits again: the reconciler never multiplies an outage's messages. But an open circuit
 * must always have a lead carrying its probe: when its carrier was settled another way (a lookup
 * found its prospect) or its turn ran out, one waiting lead is woken to take it (one a run).
 *
 * Last, the leads waiting for a profile that left the configuration (delivery/waiting.ts
 * PROFILE_WAIT) whose profile the settings have again are woken: a `config push` that brings a
 * profile back delivers its leads within a minute or so (the settings' 45 s cache, this run),
 * not at their recheck.
 *
 * It runs every minute on AWS (EventBridge Scheduler) and on a timer locally. No AWS imports.
 */
import {
  accountOfLead,
  DEFAULT_WAKE_GRACE_MS,
  type LeadLedger,
  type LeadRecord,
} from '../../ledger/lead-ledger.ts';
import type { LeadQueue } from '../../ledger/lead-queue.ts';
import type { Circuit, CircuitState } from '../../upstream/circuit.ts';
import { wakeReturnedProfiles, wakeWaiting } from '../waiting.ts';

export interface ReconcileOptions {
  /** How long a woken lead has before the reconciler looks at it again. Default 2 minutes. */
  wakeGraceMs?: number;
  /** Leads read per page of the due index. Default 100. */
  pageSize?: number;
  /** Leads woken per run at most; `more` says when some are left. Default 2 000. */
  maxLeads?: number;
  /** Time kept back at the end of an invocation. Default 5 s. */
  reserveMs?: number;
}

export interface ReconcileResult {
  /** Leads found due. */
  due: number;
  /** Leads woken (noted in the ledger and sent a message). */
  woken: number;
  /** Due leads another reconciler or attempt moved on first. */
  skipped: number;
  /** The run stopped early (time or maxLeads) with due leads left. */
  more: boolean;
}

export interface ReconcileEvents {
  woke(event: { leadId: string; status: string; version: number; delayMs: number }): void;
  /** `openCircuits`: the accounts whose circuit was open during the run. */
  finished(event: ReconcileResult & { openCircuits: string[] }): void;
}

export interface ReconcileDeps {
  /** listByStatus and redact: the retention pass the handler runs with the same ledger. */
  ledger: Pick<LeadLedger, 'get' | 'listDue' | 'wake' | 'listByStatus' | 'redact' | 'listWaiting'>;
  queue: Pick<LeadQueue, 'send'>;
  /** The circuit of an upstream account. */
  circuitOf(account: string): Pick<Circuit, 'read' | 'release'>;
  /**
   * The upstream account of a profile (its settings'; `default` when unknown): the account of a
   * lead recorded before leads recorded their own.
   */
  accountOf(profile: string): Promise<string>;
  /**
   * The configured accounts: for each whose circuit is closed, the leads still waiting for it
   * (the attempt that closed it died before waking them) are woken (delivery/waiting.ts).
   */
  accounts?(): Promise<readonly string[]>;
  /** The configured profiles: the leads waiting for one of them to come back are woken. */
  profileNames?(): Promise<readonly string[]>;
  options?: ReconcileOptions;
  events?: ReconcileEvents;
  now?: () => Date;
  /** Milliseconds left in this invocation; default unlimited. */
  remainingMs?: () => number;
}

const SILENT: ReconcileEvents = { woke() {}, finished() {} };

/** When the lead's woken message should be looked at: its next attempt, or the next probe. */
function wakeAt(lead: LeadRecord, now: number, probeAt: number | undefined): number {
  const next =
    lead.status === 'queued' && lead.nextAttemptAt ? Date.parse(lead.nextAttemptAt) : now;
  return Math.max(now, next, probeAt ?? now);
}

/**
 * An open circuit whose probe nobody carries (its carrier was settled another way, or its turn
 * ran out) would leave its waiting leads, which hold no message, waiting until their recheck:
 * the settled carrier is released and one waiting lead woken, to carry the probe or take it.
 */
async function keepProbeCarried(
  deps: ReconcileDeps,
  account: string,
  circuit: CircuitState,
  options: { now: Date; wakeGraceMs: number; remainingMs: () => number },
): Promise<number> {
  const { carrier, carrierUntil = 0 } = circuit;
  if (carrier !== undefined && carrierUntil > options.now.getTime()) {
    const lead = await deps.ledger.get(carrier);
    if (lead?.status === 'queued' || lead?.status === 'sending') return 0;
    await deps.circuitOf(account).release(options.now.getTime(), carrier);
  }
  return wakeWaiting(deps, account, { ...options, now: () => options.now, max: 1 });
}

export async function reconcile(deps: ReconcileDeps): Promise<ReconcileResult> {
  const events = deps.events ?? SILENT;
  const clock = deps.now ?? (() => new Date());
  const options = deps.options ?? {};
  const wakeGraceMs = options.wakeGraceMs ?? DEFAULT_WAKE_GRACE_MS;
  const maxLeads = options.maxLeads ?? 2_000;
  const reserveMs = options.reserveMs ?? 5_000;
  const remainingMs = deps.remainingMs ?? (() => Number.POSITIVE_INFINITY);

  // Each account's circuit, read once per run; its next probe while it is open.
  const circuits = new Map<string, Promise<CircuitState>>();
  const openCircuits = new Set<string>();
  const circuitOfRun = (account: string) => {
    let circuit = circuits.get(account);
    if (!circuit) {
      circuit = deps
        .circuitOf(account)
        .read()
        .then((state) => {
          if (state.state === 'open') openCircuits.add(account);
          return state;
        });
      circuits.set(account, circuit);
    }
    return circuit;
  };
  const probeOf = async (account: string) => {
    const circuit = await circuitOfRun(account);
    return circuit.state === 'open' ? circuit.probeAt : undefined;
  };
  const result: ReconcileResult = { due: 0, woken: 0, skipped: 0, more: false };
  const start = clock();
  let cursor: string | undefined;
  do {
    if (result.due >= maxLeads || remainingMs() < reserveMs) {
      result.more = true;
      break;
    }
    const page = await deps.ledger.listDue(start, {
      limit: Math.min(options.pageSize ?? 100, maxLeads - result.due),
      ...(cursor !== undefined && { cursor }),
    });
    for (const lead of page.leads) {
      result.due += 1;
      const now = clock();
      const account = await accountOfLead(lead, deps.accountOf);
      const probeAt = await probeOf(account);
      const at = wakeAt(lead, now.getTime(), probeAt);
      const woken = await deps.ledger.wake(lead.leadId, lead.version, {
        dueAt: new Date(at + wakeGraceMs),
        now,
        onlyIfDue: true,
      });
      if (!woken) {
        result.skipped += 1;
        continue;
      }
      const delayMs = at - now.getTime();
      await deps.queue.send(lead.leadId, {
        delaySeconds: delayMs / 1000,
        version: woken.version,
        group: account,
      });
      result.woken += 1;
      events.woke({ leadId: lead.leadId, status: lead.status, version: woken.version, delayMs });
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  for (const account of (await deps.accounts?.()) ?? []) {
    const circuit = await circuitOfRun(account);
    result.woken +=
      circuit.state === 'open'
        ? await keepProbeCarried(deps, account, circuit, { now: clock(), wakeGraceMs, remainingMs })
        : await wakeWaiting(deps, account, { now: clock, wakeGraceMs, remainingMs });
  }
  if (deps.profileNames) {
    const profiles = new Set(await deps.profileNames());
    const configured = (profile: string) => profiles.has(profile);
    result.woken += await wakeReturnedProfiles(deps, configured, {
      now: clock,
      wakeGraceMs,
      remainingMs,
    });
  }
  events.finished({ ...result, openCircuits: [...openCircuits] });
  return result;
}
