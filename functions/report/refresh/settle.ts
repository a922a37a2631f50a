/**
 * The last step of a debtors refresh (functions/report/refresh/refresh.ts): how a run ends.
 * - Success: the new snapshot replaces the old one in one write, the checkpoint is cleared and
 *   the status records the success.
 * - Cut short (the invocation runs out) or interrupted (the caller's signal): the progress is
 *   saved as a checkpoint; a cut-short run asks the trigger for its continuation.
 * - Failure: the current snapshot stays untouched, the pages this run read are kept as a
 *   checkpoint, and the status records the failure (failures + 1, a `lastError` of kinds, HTTP
 *   statuses, branch ids and counts only: no upstream text, never a credential).
 * Each one reports the age of the current snapshot. The store's failures are thrown.
 */
import { ConfigurationError } from '../../config/config-source.ts';
import { buildSnapshot } from '../../domain/debtors-report.ts';
import { learnedNames } from '../../upstream/branch-directory.ts';
import { UpstreamError } from '../../upstream/upstream-errors.ts';
import { ReportStoreError } from '../store/report-store.ts';
import {
  CutShort,
  Interrupted,
  type PageAt,
  RefreshConfigError,
  type RefreshContext,
  type RefreshOutcome,
  type Running,
  reportAge,
} from './context.ts';
import { checkpointOf, type Progress, rowCount } from './progress.ts';

/** Every page read: the snapshot replaces the current one. */
export async function succeed(r: Running): Promise<RefreshOutcome> {
  const { progress: state, deps } = r;
  const generatedAt = r.now().toISOString();
  const snapshot = buildSnapshot({
    branches: state.branches,
    startedAt: state.startedAt,
    generatedAt,
    timeZone: r.timeZone,
    pageCalls: state.pageCalls,
  });
  const stored = await deps.store.writeSnapshot(snapshot);
  await deps.store.clearCheckpoint();
  r.status = {
    ...r.status,
    lastStartedAt: state.startedAt,
    lastSucceededAt: generatedAt,
    failures: 0,
  };
  await deps.store.writeStatus(r.status);
  await recordBranchNames(r, snapshot);
  r.events.succeeded({
    refreshId: r.refreshId,
    pageCalls: state.pageCalls,
    rows: snapshot.rows.length,
    durationMs: Date.parse(generatedAt) - Date.parse(state.startedAt),
    warnings: snapshot.warnings.length,
  });
  reportAge(r);
  return {
    status: 'succeeded',
    refreshId: r.refreshId,
    resumed: r.resumed,
    pageCalls: state.pageCalls,
    rows: snapshot.rows.length,
    etag: stored.etag,
    generatedAt,
  };
}

/**
 * The branch names the new snapshot's rows carry, recorded for the chain forms' branch matching;
 * a failure to record them is reported and leaves the refresh a success (the names are kept
 * from the last time, and the next refresh records them again).
 */
async function recordBranchNames(r: Running, snapshot: Parameters<typeof learnedNames>[0]) {
  if (!r.deps.branchNames) return;
  try {
    await r.deps.branchNames.write(learnedNames(snapshot));
  } catch (error) {
    r.events.branchNamesFailed?.({ refreshId: r.refreshId, error });
  }
}

/** A run that did not succeed: cut short, interrupted or failed. */
export async function settleError(c: RefreshContext, error: unknown): Promise<RefreshOutcome> {
  if (c.progress && (error instanceof CutShort || error instanceof Interrupted)) {
    return pause(c, c.progress, error);
  }
  return fail(c, error);
}

/** Saves the progress; a cut-short run asks for its continuation. */
async function pause(
  c: RefreshContext,
  progress: Progress,
  error: CutShort | Interrupted,
): Promise<RefreshOutcome> {
  await c.deps.store.writeCheckpoint(checkpointOf(progress), progress.branches);
  const counts = {
    refreshId: c.refreshId,
    pageCalls: progress.pageCalls,
    rows: rowCount(progress),
  };
  reportAge(c);
  if (error instanceof Interrupted) {
    c.events.interrupted(counts);
    return { status: 'interrupted', ...counts };
  }
  // Cut short by the pacer (no slot in time, or the account's leads going first): not before
  // its slot is free.
  const delaySeconds = Math.ceil(error.resumeAfterMs / 1000);
  await c.deps.trigger.requestRefresh({
    kind: 'continue',
    reason: 'continuation',
    refreshId: c.refreshId,
    ...(delaySeconds > 0 && { delaySeconds }),
  });
  c.events.continued(counts);
  return { status: 'continued', ...counts };
}

/** Records the failure; the pages read so far are kept for the next request. */
async function fail(c: RefreshContext, error: unknown): Promise<RefreshOutcome> {
  const { progress } = c;
  if (error instanceof UpstreamError && error.kind === 'unauthorized') {
    // The next run re-reads the credentials (they may have been rotated).
    c.source?.onUnauthorized?.();
  }
  const text = describeRefreshError(error, c.where);
  if (progress && c.pagesRead > 0) {
    // Keep what was read: the next request continues from here (within the age limit).
    await c.deps.store.writeCheckpoint(checkpointOf(progress), progress.branches);
  }
  c.status = {
    ...c.status,
    lastFailedAt: c.now().toISOString(),
    lastError: text,
    failures: c.status.failures + 1,
  };
  await c.deps.store.writeStatus(c.status);
  c.events.failed({
    refreshId: c.refreshId,
    error: text,
    pageCalls: progress?.pageCalls ?? 0,
    failures: c.status.failures,
    // An upstream error's message may quote the upstream's body: only our own errors are
    // passed on whole (with their stack).
    ...(!(error instanceof UpstreamError) && { cause: error }),
  });
  reportAge(c);
  return {
    status: 'failed',
    refreshId: c.refreshId,
    pageCalls: progress?.pageCalls ?? 0,
    error: text,
  };
}

/** Safe text for `lastError`: kinds, statuses, ids and counts only (see the module comment). */
export function describeRefreshError(error: unknown, where?: PageAt): string {
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
