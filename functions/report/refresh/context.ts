/**
 * What one debtors refresh runs over and what its steps share (functions/report/refresh/
 * refresh.ts): the ports (RefreshDeps: the store, the trigger, the configuration's source, the
 * events), the defaults of its limits, the outcome it reports, and the RefreshContext that the
 * steps pass along (resume.ts makes it, page.ts reads the pages into it, settle.ts ends the run
 * from it), with the errors that steer a run: cut short, interrupted, misconfigured.
 */

import type { LearnedNames } from '../../upstream/branch-directory.ts';
import type { UpstreamClient } from '../../upstream/upstream-client.ts';
import type { RefreshStatus, ReportStore } from '../store/report-store.ts';
import type { RefreshMessage, ReportTrigger } from '../trigger/report-trigger.ts';
import type { Progress } from './progress.ts';

/**
 * Time kept back at the end of an invocation: one upstream call (10 s timeout by default) plus
 * writing the checkpoint (megabytes to S3) and the continuation message.
 */
export const DEFAULT_RESERVE_MS = 30_000;
/** A checkpoint older than this is dropped and the refresh starts over. */
export const DEFAULT_MAX_CHECKPOINT_AGE_MS = 3_600_000;
/** Times one page is asked again after a 429 before the refresh fails. */
export const DEFAULT_RATE_LIMIT_RETRIES = 5;

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
  /** The branch names a successful refresh learned could not be recorded (the report is). */
  branchNamesFailed?(event: { refreshId: string; error: unknown }): void;
}

export interface RefreshDeps {
  store: ReportStore;
  /**
   * Where the branch names a successful refresh learned (the rows' `branchName`) are recorded
   * for the chain forms' branch matching (upstream/branch-directory.ts); absent: not kept.
   */
  branchNames?: { write(names: LearnedNames): Promise<void> };
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

/** The page being asked for: a failure's `lastError` names it (describeRefreshError). */
export interface PageAt {
  branchId: number;
  skip: number;
  attempts: number;
}

/** What every step of one refresh shares: resume.ts makes it, the others fill it in. */
export interface RefreshContext {
  deps: RefreshDeps;
  message: RefreshMessage;
  now: () => Date;
  events: RefreshEvents;
  /** Milliseconds left in this invocation. */
  remainingMs: () => number;
  reserveMs: number;
  rateLimitRetries: number;
  refreshId: string;
  /** This run continues a saved checkpoint. */
  resumed: boolean;
  /** The refresh status as last read or written. */
  status: RefreshStatus;
  /** Where the refresh stands: restored from the checkpoint, or made when the run starts. */
  progress?: Progress;
  /** The configuration and the upstream client, once read. */
  source?: RefreshSource;
  /** The page being asked for; cleared once every page is read. */
  where?: PageAt | undefined;
  /** Pages read by this run (a failed run keeps them as a checkpoint). */
  pagesRead: number;
}

/** A run that has started: its source read, its progress made or restored. */
export interface Running extends RefreshContext {
  progress: Progress;
  source: RefreshSource;
  timeZone: string;
}

/** The invocation is about to run out: save and continue. */
export class CutShort extends Error {
  override readonly name = 'CutShort';
}

/** The caller's signal stopped the refresh. */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
}

/** Events nobody listens to (the default). */
export const SILENT: RefreshEvents = {
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

/** The configured report cannot be refreshed as it stands. */
export class RefreshConfigError extends Error {
  override readonly name = 'RefreshConfigError';
}

/** Reports the age of the current snapshot (by the status's last success), if there is one. */
export function reportAge(c: Pick<RefreshContext, 'events' | 'now' | 'status'>): void {
  const succeeded = c.status.lastSucceededAt ? Date.parse(c.status.lastSucceededAt) : Number.NaN;
  c.events.age(
    Number.isNaN(succeeded) ? undefined : Math.max(0, (c.now().getTime() - succeeded) / 1000),
  );
}
