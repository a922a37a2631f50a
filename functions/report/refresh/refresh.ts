/**
 * The debtors report refresh (use case): page the upstream for every configured branch with
 * take = 50, through the account-wide pacer delivery uses, build a snapshot
 * (domain/debtors-report.ts) and replace the current one in one write; short of time, save a
 * checkpoint and ask for a continuation. A failure leaves the current snapshot served (stale).
 * One run is three steps over one RefreshContext (context.ts): resume.ts, page.ts, settle.ts
 * (progress.ts: the checkpoint). This file runs them, and for several accounts asks for each
 * one's refresh when due (refreshRequest). Paging, checkpoints and skips: docs/architecture.md.
 */
import type { ConfigSource } from '../../config/config-source.ts';
import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import type { LearnedBranchNames } from '../../upstream/branch-directory.ts';
import type { UpstreamAccess } from '../../upstream/paced-client.ts';
import type { ReportStores } from '../store/report-store.ts';
import type { RefreshMessage, ReportTrigger } from '../trigger/report-trigger.ts';
import { type RefreshDeps, type RefreshOutcome, type RefreshSource, SILENT } from './context.ts';
import { readPages } from './page.ts';
import { resume, start } from './resume.ts';
import { settleError, succeed } from './settle.ts';

/**
 * The refresher's Lambda timeout (infra/constructs/debtors-report.ts), also each local run's
 * time budget, so that a refresh is cut short and continued the same way on both.
 */
export const REFRESHER_TIMEOUT_SECONDS = 300;

/**
 * Leads before report pages: the refresh takes no slot of an account's pacer within this long
 * after one of its leads took one (pacer-dynamodb.ts `yieldToLeadsMs`); it saves its checkpoint
 * and continues that much later (page.ts, settle.ts). With few leads it is rarely held at all.
 */
export const YIELD_TO_LEADS_MS = 2_000;

/** Runs one refresh request (see the module comment); throws only when the store fails. */
export async function refreshDebtors(
  deps: RefreshDeps,
  message: RefreshMessage,
): Promise<RefreshOutcome> {
  const resumed = await resume(deps, message);
  if ('outcome' in resumed) return resumed.outcome;
  const { context } = resumed;
  try {
    const running = await start(context);
    await readPages(running);
    return await succeed(running);
  } catch (error) {
    return await settleError(context, error);
  } finally {
    // A 429's pause must reach the shared schedule before the invocation ends (a failed write
    // is reported by the pacer itself and still holds this run back).
    await context.source?.flush?.().catch(() => undefined);
  }
}

/**
 * An account's RefreshDeps.source over a ConfigSource and the account's paced upstream
 * (pacedUpstream, as delivery's, so that a refresh's GETs and delivery's POSTs to that account
 * share one budget).
 */
export function refreshSource(
  config: Pick<ConfigSource, 'report'>,
  upstream: (account: string) => Promise<UpstreamAccess>,
  options: { onUnauthorized?: () => void } = {},
): (account: string) => Promise<RefreshSource> {
  return async (account) => {
    const [access, report] = await Promise.all([upstream(account), config.report(account)]);
    const { flush } = access.pacer;
    return {
      client: access.client,
      report,
      ...(options.onUnauthorized && { onUnauthorized: options.onUnauthorized }),
      ...(flush && { flush: () => flush.call(access.pacer) }),
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Upstream accounts: one report each

/** What a refresh request needs when the stack serves several upstream accounts. */
export interface AccountsRefreshDeps
  extends Omit<RefreshDeps, 'store' | 'source' | 'trigger' | 'branchNames'> {
  config: Pick<ConfigSource, 'accounts' | 'report'>;
  /** Each account's report store. */
  stores: ReportStores;
  /** Each account's learned branch names (RefreshDeps.branchNames). */
  branchNames?: LearnedBranchNames;
  /** Each account's configuration and paced upstream. */
  source: (account: string) => Promise<RefreshSource>;
  trigger: ReportTrigger;
}

/** The age ratio reported for an account whose report never succeeded but failed: stale. */
export const NEVER_REFRESHED_RATIO = 100;

/** Reasons that mean "whatever is due" when they name no account. */
const TICKS = new Set(['schedule', 'timer', 'start']);

/**
 * A tick: a request of the schedule (or the local timer, or the local start) that names no
 * account. It only asks for the refreshes now due, so it needs no lease (lease.ts).
 */
export function isTick(message: RefreshMessage): boolean {
  return (
    message.upstream === undefined && message.reason !== undefined && TICKS.has(message.reason)
  );
}

/**
 * Runs one refresh request for the account it names (`default` when it names none), or, for a
 * tick of the schedule (or the local timer, or the local start) that names none, asks for a
 * refresh of every account whose report is due: it has branches, and no refresh started within
 * its `refreshSeconds` (at start: its stored report is not fresh). Each account then refreshes
 * on its own message, with its own checkpoints and continuations.
 */
export async function refreshRequest(
  deps: AccountsRefreshDeps,
  message: RefreshMessage,
): Promise<RefreshOutcome | { status: 'scheduled'; accounts: string[] }> {
  const events = deps.events ?? SILENT;
  if (isTick(message)) {
    const now = (deps.now ?? (() => new Date()))().getTime();
    const due: string[] = [];
    let worst = 0;
    for (const account of await deps.config.accounts()) {
      const report = await deps.config.report(account);
      if (report.branches.length === 0) continue;
      const store = deps.stores(account);
      const status = await store.readStatus();
      const succeeded = status.lastSucceededAt ? Date.parse(status.lastSucceededAt) : Number.NaN;
      const started = status.lastStartedAt ? Date.parse(status.lastStartedAt) : Number.NaN;
      const periodMs = report.refreshSeconds * 1000;
      if (!Number.isNaN(succeeded)) worst = Math.max(worst, (now - succeeded) / periodMs);
      else if (status.lastFailedAt) worst = Math.max(worst, NEVER_REFRESHED_RATIO);
      // A tick may come a little early: leave some slack (30 s at most) on the interval.
      const slackMs = Math.min(30_000, periodMs / 10);
      const recently = !Number.isNaN(started) && now - started < periodMs - slackMs;
      const fresh =
        message.reason === 'start' &&
        status.failures === 0 &&
        !Number.isNaN(succeeded) &&
        now - succeeded < periodMs &&
        (await store.readCheckpoint().catch(() => undefined)) === undefined;
      if (message.reason === 'start' ? !fresh : !recently) due.push(account);
    }
    events.ageRatio?.(worst);
    for (const account of due) {
      await deps.trigger.requestRefresh({
        kind: 'refresh',
        ...(message.reason !== undefined && { reason: message.reason }),
        upstream: account,
      });
    }
    events.scheduled?.({
      ...(message.reason !== undefined && { reason: message.reason }),
      accounts: due,
    });
    return { status: 'scheduled', accounts: due };
  }
  const account = message.upstream ?? DEFAULT_ACCOUNT;
  const { stores, source, trigger, branchNames, config: _config, ...rest } = deps;
  return refreshDebtors(
    {
      ...rest,
      store: stores(account),
      ...(branchNames && {
        branchNames: { write: (names) => branchNames.write(account, names) },
      }),
      source: () => source(account),
      // Continuations stay with the account.
      trigger: {
        requestRefresh: (request = {}) => trigger.requestRefresh({ ...request, upstream: account }),
      },
    },
    message,
  );
}
