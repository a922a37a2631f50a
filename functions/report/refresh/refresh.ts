/**
 * The debtors report refresh (use case): page the upstream for every configured branch with
 * take = 50, build a snapshot (functions/domain/debtors-report.ts) and replace the current one.
 *
 * - Paging: per branch, `skip` = rows read so far, until `skip >= total` or a short page, so a
 *   refresh makes exactly Σ max(1, ceil(rows_b / 50)) page calls. Calls go through the
 *   upstream client's pacer: both wirings give it the account-wide DynamoDB pacer delivery uses
 *   (pacedUpstream over sharedPacerFactory), so a refresh and delivery share one budget. A 429 pauses the pacer
 *   until its Retry-After (the client does that) and the same page is asked again, at most
 *   `rateLimitRetries` times; any other failure fails the refresh. The pacer's pending pause
 *   writes are awaited before a run returns (RefreshSource.flush).
 * - Checkpoints: before each page, if the invocation has less than `reserveMs` left, the
 *   refresh saves a checkpoint (position + every row read so far) and asks for a continuation
 *   through the trigger; the next run resumes there, so no page is fetched twice. A request
 *   that finds a checkpoint continues it rather than starting over, unless the checkpoint is
 *   older than `maxCheckpointAgeMs` (1 h): then it starts over.
 * - Success: the new snapshot replaces the old one in one write (the store's promise), the
 *   checkpoint is cleared and the status records the success.
 * - Failure: the current snapshot stays untouched (served, marked stale by isStale), the
 *   progress made is kept as a checkpoint, and the status records the failure: failures + 1
 *   and a `lastError` made of kinds, HTTP statuses, branch ids and counts only (no upstream
 *   text, which may quote personal data, and never a credential).
 * - Requests already answered are skipped: a `refresh` asked at T when a refresh that started
 *   at or after T has since succeeded (a schedule tick and an admin click at once), a
 *   `continue` when no refresh is in progress (a duplicate message).
 *
 * Each run reports the age of the current snapshot (ReportAgeSeconds), and counts
 * ReportRefreshSucceeded / ReportRefreshFailed (refreshEvents).
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { type ConfigSource, ConfigurationError } from '../../config/config-source.ts';
import {
  type DebtorsList,
  debtorSchema,
  debtorsSummarySchema,
  MAX_DEBTORS_PAGE,
} from '../../domain/debtors.ts';
import {
  buildSnapshot,
  calendarDate,
  DEFAULT_REPORT_TIME_ZONE,
} from '../../domain/debtors-report.ts';
import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import type { UpstreamAccess } from '../../upstream/paced-client.ts';
import { PacerWaitError } from '../../upstream/pacer.ts';
import { type UpstreamClient, UpstreamError } from '../../upstream/upstream-client.ts';
import {
  type RefreshCheckpoint,
  type RefreshStatus,
  type ReportStore,
  ReportStoreError,
  type ReportStores,
} from '../store/report-store.ts';
import type { RefreshMessage, ReportTrigger } from '../trigger/report-trigger.ts';

/** Rows per page: production's maximum. */
export const PAGE_SIZE = MAX_DEBTORS_PAGE;
/**
 * Time kept back at the end of an invocation: one upstream call (10 s timeout by default) plus
 * writing the checkpoint (megabytes to S3) and the continuation message.
 */
export const DEFAULT_RESERVE_MS = 30_000;
/** A checkpoint older than this is dropped and the refresh starts over. */
export const DEFAULT_MAX_CHECKPOINT_AGE_MS = 3_600_000;
/** Times one page is asked again after a 429 before the refresh fails. */
export const DEFAULT_RATE_LIMIT_RETRIES = 5;
/**
 * The refresher's Lambda timeout (infra/constructs/debtors-report.ts), also each local run's
 * time budget, so that a refresh is cut short and continued the same way on both.
 */
export const REFRESHER_TIMEOUT_SECONDS = 300;

/** What a refresh needs from the configuration, read when it runs. */
export interface RefreshSource {
  client: Pick<UpstreamClient, 'listDebtors'>;
  report: { branches: readonly number[]; refreshSeconds: number; timeZone?: string | undefined };
  /** Called when the upstream refused the credentials (re-read secrets next time). */
  onUnauthorized?: () => void;
  /**
   * Resolves once the pacer's pause writes are done (pacer-dynamodb.ts writes them in the
   * background); every run awaits it before returning, since a Lambda may be frozen after.
   */
  flush?: () => Promise<void>;
}

export interface RefreshEvents {
  started(event: {
    refreshId: string;
    resumed: boolean;
    reason?: string;
    branches: number[];
  }): void;
  skipped(event: { kind: string; reason?: string; why: string }): void;
  /** A saved checkpoint could not be used: the refresh starts over. */
  checkpointDropped(event: { refreshId?: string; why: string }): void;
  continued(event: { refreshId: string; pageCalls: number; rows: number }): void;
  interrupted(event: { refreshId: string; pageCalls: number; rows: number }): void;
  succeeded(event: {
    refreshId: string;
    pageCalls: number;
    rows: number;
    durationMs: number;
    warnings: number;
  }): void;
  failed(event: {
    refreshId: string;
    error: string;
    pageCalls: number;
    failures: number;
    cause?: unknown;
  }): void;
  /** Age of the current snapshot after this run; undefined when there is none. */
  age(seconds: number | undefined): void;
  /**
   * The largest `age / refreshSeconds` over the accounts with a report, at each scheduled tick
   * (the stale alarm: above 2, some account's report is stale, whatever its own interval).
   */
  ageRatio?(ratio: number): void;
  /** A scheduled tick asked for these accounts' refreshes. */
  scheduled?(event: { reason?: string; accounts: string[] }): void;
}

export interface RefreshDeps {
  store: ReportStore;
  trigger: ReportTrigger;
  /** Reads the configuration and builds the upstream client; a failure fails the refresh. */
  source: () => Promise<RefreshSource>;
  events?: RefreshEvents;
  now?: () => Date;
  /** Milliseconds left in this invocation (Lambda's getRemainingTimeInMillis); default unlimited. */
  remainingMs?: () => number;
  reserveMs?: number;
  maxCheckpointAgeMs?: number;
  rateLimitRetries?: number;
  /** Stops the refresh (local shutdown): it saves a checkpoint and asks for no continuation. */
  signal?: AbortSignal;
  newRefreshId?: () => string;
}

interface Progress {
  refreshId: string;
  startedAt: string;
  remainingBranches: number[];
  skip: number;
  pageCalls: number;
  /** One entry per branch started, in order; the last one may still be in progress. */
  branches: BranchProgress[];
}

/**
 * One branch's pages so far, as kept in the checkpoint's `rows` (the store keeps them
 * opaque): rows as the upstream sent them, and its last page's total and summary.
 */
export interface BranchProgress {
  branchId: number;
  total: number;
  summary: DebtorsList['summary'];
  rows: DebtorsList['results'];
  done: boolean;
}

const branchProgressSchema = z.object({
  branchId: z.int(),
  total: z.int(),
  summary: z.nullish(debtorsSummarySchema),
  rows: z.array(debtorSchema),
  done: z.boolean(),
});

export type RefreshOutcome =
  | {
      status: 'succeeded';
      refreshId: string;
      resumed: boolean;
      pageCalls: number;
      rows: number;
      etag: string;
      generatedAt: string;
    }
  | { status: 'continued'; refreshId: string; pageCalls: number; rows: number }
  | { status: 'interrupted'; refreshId: string; pageCalls: number; rows: number }
  | { status: 'failed'; refreshId: string; pageCalls: number; error: string }
  | { status: 'skipped'; why: string };

/** The invocation is about to run out: save and continue. */
class CutShort extends Error {
  override readonly name = 'CutShort';
}

/** The caller's signal stopped the refresh. */
class Interrupted extends Error {
  override readonly name = 'Interrupted';
}

const silent: RefreshEvents = {
  ageRatio() {},
  scheduled() {},
  started() {},
  skipped() {},
  checkpointDropped() {},
  continued() {},
  interrupted() {},
  succeeded() {},
  failed() {},
  age() {},
};

function rowCount(progress: Progress): number {
  return progress.branches.reduce((sum, b) => sum + b.rows.length, 0);
}

function checkpointOf(progress: Progress): RefreshCheckpoint {
  return {
    refreshId: progress.refreshId,
    startedAt: progress.startedAt,
    remainingBranches: progress.remainingBranches,
    skip: progress.skip,
    pageCalls: progress.pageCalls,
  };
}

/** The progress a saved checkpoint holds, or undefined when it does not hang together. */
function restore(saved: { checkpoint: RefreshCheckpoint; rows: unknown[] }): Progress | undefined {
  const { checkpoint } = saved;
  const parsed = z.array(branchProgressSchema).safeParse(saved.rows);
  if (!parsed.success) return undefined;
  const branches: BranchProgress[] = parsed.data.map((b) => ({
    branchId: b.branchId,
    total: b.total,
    summary: b.summary,
    rows: b.rows,
    done: b.done,
  }));
  const [current] = checkpoint.remainingBranches;
  const open = branches.find((b) => !b.done);
  // The branch being paged is the first remaining one, and its rows so far are `skip` rows.
  const readSoFar = open ? open.rows.length : 0;
  if (open && open.branchId !== current) return undefined;
  if (readSoFar !== checkpoint.skip) return undefined;
  if (Number.isNaN(Date.parse(checkpoint.startedAt))) return undefined;
  return { ...checkpoint, remainingBranches: [...checkpoint.remainingBranches], branches };
}

/** Safe text for `lastError`: kinds, statuses, ids and counts only (see the module comment). */
export function describeRefreshError(
  error: unknown,
  where?: { branchId: number; skip: number; attempts: number },
): string {
  const at = where ? ` listing branch ${where.branchId} at skip ${where.skip}` : '';
  if (error instanceof UpstreamError) {
    const status = error.status === undefined ? '' : ` (HTTP ${error.status})`;
    const tries = error.kind === 'rate-limited' && where ? ` after ${where.attempts} attempts` : '';
    return `upstream ${error.kind}${status}${at}${tries}`;
  }
  if (error instanceof Error) {
    // Our own configuration and store errors name settings and paths, never values.
    const own =
      error instanceof ConfigurationError ||
      error instanceof ReportStoreError ||
      error instanceof RefreshConfigError;
    if (own) return `${error.name}: ${error.message}`.slice(0, 500);
    return `${error.name}${at} (details in the refresher's log)`;
  }
  return `refresh failed${at}`;
}

/** The configured report cannot be refreshed as it stands. */
export class RefreshConfigError extends Error {
  override readonly name = 'RefreshConfigError';
}

function checkTimeZone(timeZone: string): void {
  try {
    calendarDate(0, timeZone);
  } catch {
    throw new RefreshConfigError(`report time zone "${timeZone}" is not an IANA time zone`);
  }
}

/** Whether a refresh that started at or after `requestedAt` has succeeded since. */
function alreadyAnswered(status: RefreshStatus, requestedAt: string): boolean {
  if (status.failures > 0 || !status.lastStartedAt || !status.lastSucceededAt) return false;
  const started = Date.parse(status.lastStartedAt);
  const succeeded = Date.parse(status.lastSucceededAt);
  return started >= Date.parse(requestedAt) && succeeded >= started;
}

/** Runs one refresh request (see the module comment); throws only when the store fails. */
export async function refreshDebtors(
  deps: RefreshDeps,
  message: RefreshMessage,
): Promise<RefreshOutcome> {
  const now = deps.now ?? (() => new Date());
  const events = deps.events ?? silent;
  const remaining = deps.remainingMs ?? (() => Number.POSITIVE_INFINITY);
  const reserveMs = deps.reserveMs ?? DEFAULT_RESERVE_MS;
  const maxAgeMs = deps.maxCheckpointAgeMs ?? DEFAULT_MAX_CHECKPOINT_AGE_MS;
  const retries = deps.rateLimitRetries ?? DEFAULT_RATE_LIMIT_RETRIES;
  const { store } = deps;

  let status = await store.readStatus();
  const reportAge = () => {
    const succeeded = status.lastSucceededAt ? Date.parse(status.lastSucceededAt) : Number.NaN;
    events.age(
      Number.isNaN(succeeded) ? undefined : Math.max(0, (now().getTime() - succeeded) / 1000),
    );
  };

  let saved: Awaited<ReturnType<ReportStore['readCheckpoint']>>;
  try {
    saved = await store.readCheckpoint();
  } catch (error) {
    if (!(error instanceof ReportStoreError)) throw error;
    events.checkpointDropped({ why: `unreadable: ${error.message}` });
    saved = undefined;
  }

  let progress: Progress | undefined;
  if (saved) {
    const restored = restore(saved);
    const age = now().getTime() - Date.parse(saved.checkpoint.startedAt);
    if (restored && age <= maxAgeMs) progress = restored;
    else {
      events.checkpointDropped({
        refreshId: saved.checkpoint.refreshId,
        why: restored ? 'older than the limit' : 'inconsistent',
      });
    }
  }
  const resumed = progress !== undefined;
  if (!progress) {
    const why =
      message.kind === 'continue' && !saved
        ? 'no refresh in progress to continue'
        : message.kind === 'refresh' && alreadyAnswered(status, message.requestedAt)
          ? 'a refresh started after the request has already succeeded'
          : undefined;
    if (why) {
      events.skipped({
        kind: message.kind,
        ...(message.reason && { reason: message.reason }),
        why,
      });
      reportAge();
      return { status: 'skipped', why };
    }
  }

  const refreshId = progress?.refreshId ?? (deps.newRefreshId ?? randomUUID)();
  let where: { branchId: number; skip: number; attempts: number } | undefined;
  let source: RefreshSource | undefined;
  /** Pages read by this run (a failed run keeps them as a checkpoint). */
  let pagesRead = 0;
  try {
    source = await deps.source();
    const { client } = source;
    const timeZone = source.report.timeZone ?? DEFAULT_REPORT_TIME_ZONE;
    checkTimeZone(timeZone);
    if (!progress) {
      progress = {
        refreshId,
        startedAt: now().toISOString(),
        remainingBranches: [...new Set(source.report.branches)].sort((a, b) => a - b),
        skip: 0,
        pageCalls: 0,
        branches: [],
      };
      status = { ...status, lastStartedAt: progress.startedAt };
      await store.writeStatus(status);
    }
    const state = progress;
    events.started({
      refreshId,
      resumed,
      ...(message.reason && { reason: message.reason }),
      branches: state.remainingBranches,
    });

    /** One page; a 429 asks again (the pacer waits out Retry-After). */
    async function fetchPage(branchId: number, skip: number): Promise<DebtorsList> {
      for (let attempt = 1; ; attempt += 1) {
        where = { branchId, skip, attempts: attempt };
        const budget = remaining() - reserveMs;
        if (!(budget > 0)) throw new CutShort('the invocation is running out of time');
        const deadline = new AbortController();
        const timer = Number.isFinite(budget)
          ? setTimeout(() => deadline.abort(new CutShort('deadline')), budget)
          : undefined;
        const signal = deps.signal
          ? AbortSignal.any([deadline.signal, deps.signal])
          : deadline.signal;
        try {
          const page = await client.listDebtors(
            { idBranch: branchId, take: PAGE_SIZE, skip },
            { signal },
          );
          state.pageCalls += 1;
          pagesRead += 1;
          return page;
        } catch (error) {
          // Aborted while waiting for the pacer or the answer, or a shared pacer refused a wait
          // longer than its limit (PacerWaitError, nothing sent): the page is asked again later.
          if (deadline.signal.aborted) throw new CutShort('deadline');
          if (error instanceof PacerWaitError) {
            throw new CutShort('the pacer has no slot in time');
          }
          if (deps.signal?.aborted) throw new Interrupted('stopped');
          state.pageCalls += 1;
          if (
            error instanceof UpstreamError &&
            error.kind === 'rate-limited' &&
            attempt <= retries
          ) {
            continue;
          }
          throw error;
        } finally {
          clearTimeout(timer);
        }
      }
    }

    for (let branchId = state.remainingBranches[0]; branchId !== undefined; ) {
      let entry = state.branches.find((b) => b.branchId === branchId && !b.done);
      const page = await fetchPage(branchId, state.skip);
      if (!entry) {
        entry = { branchId, total: page.total, summary: page.summary, rows: [], done: false };
        state.branches.push(entry);
      }
      entry.rows.push(...page.results);
      entry.total = page.total;
      entry.summary = page.summary;
      state.skip += page.results.length;
      if (page.results.length < PAGE_SIZE || state.skip >= page.total) {
        entry.done = true;
        state.remainingBranches.shift();
        state.skip = 0;
        branchId = state.remainingBranches[0];
      }
    }
    where = undefined;

    const generatedAt = now().toISOString();
    const snapshot = buildSnapshot({
      branches: state.branches,
      startedAt: state.startedAt,
      generatedAt,
      timeZone,
      pageCalls: state.pageCalls,
    });
    const stored = await store.writeSnapshot(snapshot);
    await store.clearCheckpoint();
    status = {
      ...status,
      lastStartedAt: state.startedAt,
      lastSucceededAt: generatedAt,
      failures: 0,
    };
    await store.writeStatus(status);
    events.succeeded({
      refreshId,
      pageCalls: state.pageCalls,
      rows: snapshot.rows.length,
      durationMs: Date.parse(generatedAt) - Date.parse(state.startedAt),
      warnings: snapshot.warnings.length,
    });
    reportAge();
    return {
      status: 'succeeded',
      refreshId,
      resumed,
      pageCalls: state.pageCalls,
      rows: snapshot.rows.length,
      etag: stored.etag,
      generatedAt,
    };
  } catch (error) {
    if (progress && (error instanceof CutShort || error instanceof Interrupted)) {
      await store.writeCheckpoint(checkpointOf(progress), progress.branches);
      const counts = { refreshId, pageCalls: progress.pageCalls, rows: rowCount(progress) };
      reportAge();
      if (error instanceof Interrupted) {
        events.interrupted(counts);
        return { status: 'interrupted', ...counts };
      }
      await deps.trigger.requestRefresh({ kind: 'continue', reason: 'continuation', refreshId });
      events.continued(counts);
      return { status: 'continued', ...counts };
    }
    if (error instanceof UpstreamError && error.kind === 'unauthorized') {
      // The next run re-reads the credentials (they may have been rotated).
      source?.onUnauthorized?.();
    }
    const text = describeRefreshError(error, where);
    if (progress && pagesRead > 0) {
      // Keep what was read: the next request continues from here (within the age limit).
      await store.writeCheckpoint(checkpointOf(progress), progress.branches);
    }
    status = {
      ...status,
      lastFailedAt: now().toISOString(),
      lastError: text,
      failures: status.failures + 1,
    };
    await store.writeStatus(status);
    events.failed({
      refreshId,
      error: text,
      pageCalls: progress?.pageCalls ?? 0,
      failures: status.failures,
      // An upstream error's message may quote the upstream's body: only our own errors are
      // passed on whole (with their stack).
      ...(!(error instanceof UpstreamError) && { cause: error }),
    });
    reportAge();
    return { status: 'failed', refreshId, pageCalls: progress?.pageCalls ?? 0, error: text };
  } finally {
    // A 429's pause must reach the shared schedule before the invocation ends (a failed write
    // is reported by the pacer itself and still holds this run back).
    await source?.flush?.().catch(() => undefined);
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
export interface AccountsRefreshDeps extends Omit<RefreshDeps, 'store' | 'source' | 'trigger'> {
  config: Pick<ConfigSource, 'accounts' | 'report'>;
  /** Each account's report store. */
  stores: ReportStores;
  /** Each account's configuration and paced upstream. */
  source: (account: string) => Promise<RefreshSource>;
  trigger: ReportTrigger;
}

/** The age ratio reported for an account whose report never succeeded but failed: stale. */
export const NEVER_REFRESHED_RATIO = 100;

/** Reasons that mean "whatever is due" when they name no account. */
const TICKS = new Set(['schedule', 'timer', 'start']);

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
  const events = deps.events ?? silent;
  if (message.upstream === undefined && message.reason && TICKS.has(message.reason)) {
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
  const { stores, source, trigger, config: _config, ...rest } = deps;
  return refreshDebtors(
    {
      ...rest,
      store: stores(account),
      source: () => source(account),
      // Continuations stay with the account.
      trigger: {
        requestRefresh: (request = {}) => trigger.requestRefresh({ ...request, upstream: account }),
      },
    },
    message,
  );
}
