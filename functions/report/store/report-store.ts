/**
 * Where the debtors report lives between refreshes: the current snapshot (replaced atomically),
 * the refresh status (for staleness), and the checkpoint of a refresh in progress. One port;
 * the S3 adapter (report-store-s3.ts) serves AWS, the file adapter (report-store-file.ts) keeps
 * it under DATA_DIR locally.
 */
import type { DebtorsSnapshot } from '../../domain/debtors-report.ts';

/** The stored snapshot could not be read back as one (a bug or a foreign file: never torn). */
export class ReportStoreError extends Error {
  override readonly name = 'ReportStoreError';
}

export interface StoredSnapshot {
  snapshot: DebtorsSnapshot;
  /** Changes whenever the snapshot does: the HTTP ETag of everything served from it. */
  etag: string;
}

export interface RefreshStatus {
  /** ISO 8601: when the last refresh started / succeeded / failed. */
  lastStartedAt?: string;
  lastSucceededAt?: string;
  lastFailedAt?: string;
  /** Why the last refresh failed (no personal data, no secrets). */
  lastError?: string;
  /** Consecutive failed refreshes since the last success. */
  failures: number;
}

/** A refresh in progress, so that the next invocation continues where this one stopped. */
export interface RefreshCheckpoint {
  refreshId: string;
  startedAt: string;
  /** Branches still to page, the first one being paged now. */
  remainingBranches: number[];
  /** Rows of the current branch already read (the next page's `skip`). */
  skip: number;
  /** Page calls made so far in this refresh. */
  pageCalls: number;
}

/** Each upstream account's report store (kernel/accounts.ts), by account name. */
export type ReportStores = (account: string) => ReportStore;

export interface ReportStore {
  readSnapshot(): Promise<StoredSnapshot | undefined>;
  /** Replaces the current snapshot in one step: readers see the old one or the new one, never a mix. */
  writeSnapshot(snapshot: DebtorsSnapshot): Promise<StoredSnapshot>;
  readStatus(): Promise<RefreshStatus>;
  writeStatus(status: RefreshStatus): Promise<void>;
  readCheckpoint(): Promise<{ checkpoint: RefreshCheckpoint; rows: unknown[] } | undefined>;
  /** Saves a checkpoint with the rows read so far (they may be many: store them with it). */
  writeCheckpoint(checkpoint: RefreshCheckpoint, rows: readonly unknown[]): Promise<void>;
  clearCheckpoint(): Promise<void>;
}
