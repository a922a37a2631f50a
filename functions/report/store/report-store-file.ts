/**
 * The report store on one machine: three files in a directory (DATA_DIR/reports locally):
 * `current.json` (the snapshot), `status.json` (the refresh status) and `checkpoint.json` (a
 * refresh in progress, with its rows). Pure Node (fs): no AWS.
 *
 * Every write goes to a temporary file in the same directory, is flushed to disk, then renamed
 * over the target. A rename within one file system replaces the file in one step, so a reader
 * (or a process that crashed mid-write and restarted) finds the old file or the new one, never
 * a torn one; a crash leaves at most a stray `*.tmp` file, which reads ignore.
 *
 * The ETag is a hash of the snapshot's JSON text (contentEtag), the same one the S3 store
 * keeps, so a snapshot has the same ETag wherever it is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DebtorsSnapshot } from '../../domain/debtors-report.ts';
import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import {
  type RefreshCheckpoint,
  type RefreshStatus,
  type ReportStore,
  ReportStoreError,
  type StoredSnapshot,
} from './report-store.ts';

export const REPORT_FILES = {
  current: 'current.json',
  status: 'status.json',
  checkpoint: 'checkpoint.json',
} as const;

/** Where the local runtime keeps the report under DATA_DIR. */
export const LOCAL_REPORT_DIR = 'reports';

/** A strong HTTP ETag for a snapshot: the quoted base64url SHA-256 of its JSON text. */
export function contentEtag(json: string | Uint8Array): string {
  return `"${createHash('sha256').update(json).digest('base64url')}"`;
}

export function parseSnapshot(json: string, where: string): DebtorsSnapshot {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ReportStoreError(`${where} is not valid JSON`);
  }
  const candidate = value as Partial<DebtorsSnapshot> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    candidate.version !== 1 ||
    !Array.isArray(candidate.rows) ||
    typeof candidate.generatedAt !== 'string'
  ) {
    throw new ReportStoreError(`${where} is not a debtors snapshot (version 1)`);
  }
  return candidate as DebtorsSnapshot;
}

export function parseStatus(json: string, where: string): RefreshStatus {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ReportStoreError(`${where} is not valid JSON`);
  }
  const status = value as Partial<RefreshStatus> | null;
  if (typeof status !== 'object' || status === null || typeof status.failures !== 'number') {
    throw new ReportStoreError(`${where} is not a refresh status`);
  }
  return status as RefreshStatus;
}

export function parseCheckpoint(
  json: string,
  where: string,
): { checkpoint: RefreshCheckpoint; rows: unknown[] } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ReportStoreError(`${where} is not valid JSON`);
  }
  const saved = value as { checkpoint?: Partial<RefreshCheckpoint>; rows?: unknown } | null;
  const checkpoint = saved?.checkpoint;
  if (
    typeof checkpoint !== 'object' ||
    checkpoint === null ||
    typeof checkpoint.refreshId !== 'string' ||
    typeof checkpoint.startedAt !== 'string' ||
    !Array.isArray(checkpoint.remainingBranches) ||
    typeof checkpoint.skip !== 'number' ||
    typeof checkpoint.pageCalls !== 'number' ||
    !Array.isArray(saved?.rows)
  ) {
    throw new ReportStoreError(`${where} is not a refresh checkpoint`);
  }
  return { checkpoint: checkpoint as RefreshCheckpoint, rows: saved.rows as unknown[] };
}

export interface FileReportStoreOptions {
  /** Created on first write. */
  dir: string;
}

export function createFileReportStore({ dir }: FileReportStoreOptions): ReportStore {
  const path = (name: keyof typeof REPORT_FILES) => join(dir, REPORT_FILES[name]);

  /** Which file is at `file` now (inode, size, mtime), or undefined when there is none. */
  async function fileIdentity(file: string): Promise<string | undefined> {
    try {
      const info = await stat(file, { bigint: true });
      return `${info.ino}:${info.size}:${info.mtimeNs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  let cached: { identity: string; stored: StoredSnapshot } | undefined;

  /** Contents of a file, or undefined when it does not exist. */
  async function read(name: keyof typeof REPORT_FILES): Promise<string | undefined> {
    try {
      return await readFile(path(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Writes a temporary file, flushes it, and renames it over the target (atomic). */
  async function write(name: keyof typeof REPORT_FILES, text: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const target = path(name);
    const temporary = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temporary, 'w');
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => {});
      throw error;
    }
  }

  return {
    async readSnapshot(): Promise<StoredSnapshot | undefined> {
      // Parsing a large snapshot costs hundreds of milliseconds: keep the last one while the file
      // is the same one (a write renames a new file over it, so its inode changes).
      const identity = await fileIdentity(path('current'));
      if (identity === undefined) return undefined;
      if (cached?.identity === identity) return cached.stored;
      const text = await read('current');
      if (text === undefined) return undefined;
      const stored = { snapshot: parseSnapshot(text, path('current')), etag: contentEtag(text) };
      cached = { identity, stored };
      return stored;
    },

    async writeSnapshot(snapshot: DebtorsSnapshot): Promise<StoredSnapshot> {
      const text = JSON.stringify(snapshot);
      await write('current', text);
      return { snapshot, etag: contentEtag(text) };
    },

    async readStatus(): Promise<RefreshStatus> {
      const text = await read('status');
      return text === undefined ? { failures: 0 } : parseStatus(text, path('status'));
    },

    async writeStatus(status: RefreshStatus): Promise<void> {
      await write('status', JSON.stringify(status));
    },

    async readCheckpoint() {
      const text = await read('checkpoint');
      return text === undefined ? undefined : parseCheckpoint(text, path('checkpoint'));
    },

    async writeCheckpoint(checkpoint: RefreshCheckpoint, rows: readonly unknown[]): Promise<void> {
      await write('checkpoint', JSON.stringify({ checkpoint, rows }));
    },

    async clearCheckpoint(): Promise<void> {
      await rm(path('checkpoint'), { force: true });
    },
  };
}

let localDir: string | undefined;

/** Registers the local report directory (the local runtime: DATA_DIR/reports); undefined clears. */
const localStores = new Map<string, ReportStore>();

export function setLocalReportDir(dir: string | undefined): void {
  localDir = dir;
  localStores.clear();
}

/**
 * The directory of an account's report: the registered one for `default`, `accounts/<name>`
 * under it for the others.
 */
export function accountReportDir(dir: string, account = DEFAULT_ACCOUNT): string {
  return account === DEFAULT_ACCOUNT ? dir : join(dir, 'accounts', account);
}

/**
 * The file store of an account in the registered directory; throws when the local runtime has
 * not set one. One store per account, so that its parsed snapshot is kept between requests.
 */
export function localReportStore(account = DEFAULT_ACCOUNT): ReportStore {
  if (!localDir) throw new Error('the local runtime has not registered the report directory');
  let store = localStores.get(account);
  if (!store) {
    store = createFileReportStore({ dir: accountReportDir(localDir, account) });
    localStores.set(account, store);
  }
  return store;
}
