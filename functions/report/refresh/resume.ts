/**
 * The first step of a debtors refresh (functions/report/refresh/refresh.ts): where the run
 * starts. `resume` reads the status and the saved checkpoint: a checkpoint that hangs together
 * and is within the age limit is continued; a request already answered is skipped (a `refresh`
 * asked before a refresh that has since succeeded, a `continue` with nothing to continue);
 * anything else starts over. `start` then reads the configuration and the upstream client, and a
 * fresh refresh records its start in the status.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_REPORT_TIME_ZONE } from '../../domain/debtors-report.ts';
import { localDay } from '../../domain/local-time.ts';
import {
  type RefreshCheckpoint,
  type RefreshStatus,
  ReportStoreError,
} from '../store/report-store.ts';
import type { RefreshMessage } from '../trigger/report-trigger.ts';
import {
  DEFAULT_MAX_CHECKPOINT_AGE_MS,
  DEFAULT_RATE_LIMIT_RETRIES,
  DEFAULT_RESERVE_MS,
  RefreshConfigError,
  type RefreshContext,
  type RefreshDeps,
  type RefreshEvents,
  type RefreshOutcome,
  type Running,
  reportAge,
  SILENT,
} from './context.ts';
import { newProgress, type Progress, restore } from './progress.ts';

type Saved = { checkpoint: RefreshCheckpoint; rows: unknown[] };

/** The run's context, or the outcome of a request that needs no run. */
export async function resume(
  deps: RefreshDeps,
  message: RefreshMessage,
): Promise<{ context: RefreshContext } | { outcome: RefreshOutcome }> {
  const now = deps.now ?? (() => new Date());
  const events = deps.events ?? SILENT;
  const status = await deps.store.readStatus();
  const saved = await readSaved(deps, events);
  const maxAgeMs = deps.maxCheckpointAgeMs ?? DEFAULT_MAX_CHECKPOINT_AGE_MS;
  const progress = saved && usable(saved, maxAgeMs, now, events);
  if (!progress) {
    const why = skipReason(message, saved, status);
    if (why) {
      events.skipped({
        kind: message.kind,
        ...(message.reason && { reason: message.reason }),
        why,
      });
      reportAge({ events, now, status });
      return { outcome: { status: 'skipped', why } };
    }
  }
  const context: RefreshContext = {
    deps,
    message,
    now,
    events,
    remainingMs: deps.remainingMs ?? (() => Number.POSITIVE_INFINITY),
    reserveMs: deps.reserveMs ?? DEFAULT_RESERVE_MS,
    rateLimitRetries: deps.rateLimitRetries ?? DEFAULT_RATE_LIMIT_RETRIES,
    refreshId: progress?.refreshId ?? (deps.newRefreshId ?? randomUUID)(),
    resumed: progress !== undefined,
    status,
    pagesRead: 0,
  };
  if (progress) context.progress = progress;
  return { context };
}

/** Reads the configuration and the client; a fresh refresh records its start. */
export async function start(c: RefreshContext): Promise<Running> {
  const source = await c.deps.source();
  c.source = source;
  const timeZone = source.report.timeZone ?? DEFAULT_REPORT_TIME_ZONE;
  checkTimeZone(timeZone);
  const progress = c.progress ?? (await startOver(c, source.report.branches));
  const running: Running = Object.assign(c, { progress, source, timeZone });
  c.events.started({
    refreshId: c.refreshId,
    resumed: c.resumed,
    ...(c.message.reason && { reason: c.message.reason }),
    branches: progress.remainingBranches,
  });
  return running;
}

/** A new refresh from the first page of the first branch, its start in the status. */
async function startOver(c: RefreshContext, branches: readonly number[]): Promise<Progress> {
  const progress = newProgress(c.refreshId, c.now().toISOString(), branches);
  c.progress = progress;
  c.status = { ...c.status, lastStartedAt: progress.startedAt };
  await c.deps.store.writeStatus(c.status);
  return progress;
}

/** The saved checkpoint; one the store cannot read is dropped. */
async function readSaved(deps: RefreshDeps, events: RefreshEvents): Promise<Saved | undefined> {
  try {
    return await deps.store.readCheckpoint();
  } catch (error) {
    if (!(error instanceof ReportStoreError)) throw error;
    events.checkpointDropped({ why: `unreadable: ${error.message}` });
    return undefined;
  }
}

/** The saved progress when it hangs together and is within the age limit; else dropped. */
function usable(
  saved: Saved,
  maxAgeMs: number,
  now: () => Date,
  events: RefreshEvents,
): Progress | undefined {
  const restored = restore(saved);
  const age = now().getTime() - Date.parse(saved.checkpoint.startedAt);
  if (restored && age <= maxAgeMs) return restored;
  events.checkpointDropped({
    refreshId: saved.checkpoint.refreshId,
    why: restored ? 'older than the limit' : 'inconsistent',
  });
  return undefined;
}

/** Why a request with no checkpoint to continue needs no run, if it does not. */
function skipReason(
  message: RefreshMessage,
  saved: Saved | undefined,
  status: RefreshStatus,
): string | undefined {
  if (message.kind === 'continue' && !saved) return 'no refresh in progress to continue';
  if (message.kind === 'refresh' && alreadyAnswered(status, message.requestedAt)) {
    return 'a refresh started after the request has already succeeded';
  }
  return undefined;
}

/** Whether a refresh that started at or after `requestedAt` has succeeded since. */
function alreadyAnswered(status: RefreshStatus, requestedAt: string): boolean {
  if (status.failures > 0 || !status.lastStartedAt || !status.lastSucceededAt) return false;
  const started = Date.parse(status.lastStartedAt);
  const succeeded = Date.parse(status.lastSucceededAt);
  return started >= Date.parse(requestedAt) && succeeded >= started;
}

function checkTimeZone(timeZone: string): void {
  try {
    localDay(new Date(0), timeZone);
  } catch {
    throw new RefreshConfigError(`report time zone "${timeZone}" is not an IANA time zone`);
  }
}
