/**
 * `POST /admin/replay`: requeues and sends every dead lead (paging through the `dead` listing),
 * then redrives the dead-letter queue: 202 `{requeued, skipped, more, redrive}`. `skipped`
 * counts leads that were no longer dead when their turn came (requeue refuses them), so running
 * it twice, or twice at once, sends nothing twice. `more: true` when it stopped early (time or
 * MAX_REPLAY_LEADS) with dead leads left: run it again. A requeued lead whose wake-up message
 * fails is not lost (leads/retry.ts `sendWakeUp`): the answer counts it in `unsent`. 503
 * `replay_interrupted` or `redrive_failed` when the ledger, the queue or the redrive fails
 * (safe to run again).
 */
import { type HttpResponse, json } from '../kernel/http.ts';
import { say, t } from '../kernel/language.ts';
import { NO_STORE } from '../kernel/route-guard.ts';
import type { LeadRecord } from '../ledger/lead-ledger.ts';
import type { RedriveResult } from './dlq-redrive.ts';
import { sendWakeUp } from './leads/retry.ts';
import { type RouteContext, refusal } from './route-context.ts';

/** Leads one replay requeues at most; the answer says `more: true` when some are left. */
export const MAX_REPLAY_LEADS = 2000;
/** A replay stops requeueing when less than this is left of the invocation (for the redrive). */
export const REPLAY_RESERVE_MS = 5000;
const REPLAY_PAGE = 100;
/** Requeue + send of this many leads at once. */
const REPLAY_CONCURRENCY = 10;

export interface ReplayResult {
  requeued: number;
  skipped: number;
  more: boolean;
  redrive: RedriveResult;
  /** Requeued leads whose wake-up message failed (the reconciler sends them). */
  unsent?: number;
  note?: string;
}

/** What the requeue step counted, and whether it stopped with dead leads left. */
interface Requeued {
  requeued: number;
  skipped: number;
  unsent: number;
  more: boolean;
}

/** Requeues and wakes the dead leads, page by page, until none is left, the cap or the time. */
async function requeueDead(context: RouteContext): Promise<Requeued> {
  const { deps, now } = context;
  const counts: Requeued = { requeued: 0, skipped: 0, unsent: 0, more: false };
  let cursor: string | undefined;

  const requeueOne = async (lead: LeadRecord) => {
    const requeuedLead = await deps.ledger.requeue(lead.leadId, now());
    if (!requeuedLead) {
      counts.skipped += 1;
      return;
    }
    if (!(await sendWakeUp(deps, requeuedLead, 'replay'))) counts.unsent += 1;
    counts.requeued += 1;
  };

  try {
    do {
      const done = counts.requeued + counts.skipped;
      if (done >= MAX_REPLAY_LEADS || context.remainingMs() < REPLAY_RESERVE_MS) {
        counts.more = true;
        break;
      }
      const page = await deps.ledger.listByStatus('dead', {
        limit: Math.min(REPLAY_PAGE, MAX_REPLAY_LEADS - done),
        ...(cursor !== undefined && { cursor }),
      });
      for (let i = 0; i < page.leads.length; i += REPLAY_CONCURRENCY) {
        // Settled, not all: every started send finishes (or is put back) before we answer.
        const batch = page.leads.slice(i, i + REPLAY_CONCURRENCY);
        const failure = (await Promise.allSettled(batch.map(requeueOne))).find(
          (outcome) => outcome.status === 'rejected',
        );
        if (failure) throw failure.reason;
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  } catch (error) {
    deps.events?.failed({ route: 'replay', error });
    throw refusal(
      503,
      'replay_interrupted',
      t(
        `leads esgotados de volta à fila: ${counts.requeued}; então o banco de leads ou a fila falhou; rode o reenvio de novo (é seguro)`,
        `requeued ${counts.requeued} dead leads, then the lead store or queue failed; run the replay again (it is safe to)`,
      ),
      [],
      { 'retry-after': '5' },
    );
  }
  return counts;
}

export async function replay(context: RouteContext): Promise<HttpResponse> {
  const { deps } = context;
  const { requeued, skipped, unsent, more } = await requeueDead(context);

  let redrive: RedriveResult;
  try {
    redrive = await deps.redrive.redrive();
  } catch (error) {
    deps.events?.failed({ route: 'replay', error });
    throw refusal(
      503,
      'redrive_failed',
      t(
        `leads esgotados de volta à fila: ${requeued}; mas a fila de mensagens mortas não pôde ser reprocessada; rode o reenvio de novo (é seguro)`,
        `requeued ${requeued} dead leads, but the dead-letter queue could not be redriven; run the replay again (it is safe to)`,
      ),
      [],
      { 'retry-after': '5' },
    );
  }
  deps.events?.replayed({
    requeued,
    skipped,
    more,
    redrive: redrive.status,
    client: context.client,
  });
  const body: ReplayResult = {
    requeued,
    skipped,
    more,
    redrive,
    ...(unsent > 0 && {
      unsent,
      note: say(
        t(
          `${unsent} leads voltaram para a fila mas não puderam ser enviados agora; o reconciliador os envia em instantes`,
          `${unsent} requeued leads could not be sent now; the reconciler sends them shortly`,
        ),
      ),
    }),
  };
  return json(202, body, NO_STORE);
}
