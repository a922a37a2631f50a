import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSnapshot, type DebtorsSnapshot } from '../../../functions/domain/debtors-report.ts';
import { ReportStoreError } from '../../../functions/report/store/report-store.ts';
import {
  contentEtag,
  createFileReportStore,
  localReportStore,
  REPORT_FILES,
  setLocalReportDir,
} from '../../../functions/report/store/report-store-file.ts';
import { generateDebtors } from '../../../sandbox/debtors-data.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'leads-report-store-'));
  dirs.push(dir);
  return dir;
}

function snapshot(count: number, seed = 1): DebtorsSnapshot {
  const rows = generateDebtors({ count, branches: [1, 2], seed }, new Date());
  return buildSnapshot({
    branches: [1, 2].map((branchId) => {
      const own = rows.filter((r) => r.branchId === branchId);
      return { branchId, rows: own, total: own.length, summary: null };
    }),
    startedAt: '2026-08-01T12:00:00.000Z',
    generatedAt: '2026-08-01T12:00:05.000Z',
    timeZone: 'America/Sao_Paulo',
    pageCalls: 2,
  });
}

const CHECKPOINT = {
  refreshId: 'r-1',
  startedAt: '2026-08-01T12:00:00.000Z',
  remainingBranches: [2, 3],
  skip: 50,
  pageCalls: 4,
};

describe('createFileReportStore', () => {
  it('reads nothing from an empty (or missing) directory', async () => {
    // Prepare
    const store = createFileReportStore({ dir: join(tempDir(), 'not-yet') });

    // Act / Assess
    expect(await store.readSnapshot()).toBeUndefined();
    expect(await store.readStatus()).toEqual({ failures: 0 });
    expect(await store.readCheckpoint()).toBeUndefined();
    await expect(store.clearCheckpoint()).resolves.toBeUndefined();
  });

  it('writes and reads back the snapshot with an ETag that follows its content', async () => {
    // Prepare
    const dir = tempDir();
    const store = createFileReportStore({ dir });
    const first = snapshot(120);

    // Act
    const written = await store.writeSnapshot(first);
    const read = await store.readSnapshot();
    const again = await createFileReportStore({ dir }).writeSnapshot(structuredClone(first));
    const other = await store.writeSnapshot(snapshot(120, 2));

    // Assess
    expect(read).toEqual(written);
    expect(read?.snapshot).toEqual(first);
    expect(written.etag).toMatch(/^"[\w-]{43}"$/);
    expect(written.etag).toBe(contentEtag(JSON.stringify(first)));
    expect(again.etag).toBe(written.etag);
    expect(other.etag).not.toBe(written.etag);
    expect(readdirSync(dir).sort()).toEqual([REPORT_FILES.current]);
  });

  it('parses a snapshot once while the file stays the same, and sees every replacement', async () => {
    const dir = tempDir();
    const store = createFileReportStore({ dir });
    const reader = createFileReportStore({ dir });
    await store.writeSnapshot(snapshot(20, 1));
    const first = await reader.readSnapshot();
    expect(await reader.readSnapshot()).toBe(first);

    await store.writeSnapshot(snapshot(30, 2));
    const second = await reader.readSnapshot();
    expect(second?.snapshot.rows).toHaveLength(30);
    expect(second?.etag).not.toBe(first?.etag);
  });

  it('keeps the parsed snapshot between requests through the registered local store', async () => {
    const dir = tempDir();
    setLocalReportDir(dir);
    try {
      await createFileReportStore({ dir }).writeSnapshot(snapshot(20, 3));
      // Each report request looks the store up again (functions/report/serve/wiring-local.ts).
      const first = await localReportStore().readSnapshot();
      expect(await localReportStore().readSnapshot()).toBe(first);

      const other = tempDir();
      setLocalReportDir(other);
      expect(await localReportStore().readSnapshot()).toBeUndefined();
    } finally {
      setLocalReportDir(undefined);
    }
  });

  it('writes and reads back the status and the checkpoint with its rows, and clears it', async () => {
    // Prepare
    const dir = tempDir();
    const store = createFileReportStore({ dir });
    const rows = [
      { branchId: 2, total: 1, summary: null, rows: [{ receivableId: 1 }], done: false },
    ];

    // Act
    await store.writeStatus({ failures: 2, lastError: 'upstream unavailable' });
    await store.writeCheckpoint(CHECKPOINT, rows);
    const status = await store.readStatus();
    const saved = await store.readCheckpoint();
    await store.clearCheckpoint();

    // Assess
    expect(status).toEqual({ failures: 2, lastError: 'upstream unavailable' });
    expect(saved).toEqual({ checkpoint: CHECKPOINT, rows });
    expect(await store.readCheckpoint()).toBeUndefined();
    expect(readdirSync(dir)).toEqual([REPORT_FILES.status]);
  });

  it('refuses a file that is not what it should be, naming it', async () => {
    // Prepare
    const dir = tempDir();
    writeFileSync(join(dir, REPORT_FILES.current), '{"version": 2}');
    writeFileSync(join(dir, REPORT_FILES.status), 'not json');
    writeFileSync(join(dir, REPORT_FILES.checkpoint), '{"checkpoint": {}}');
    const store = createFileReportStore({ dir });

    // Act / Assess
    await expect(store.readSnapshot()).rejects.toThrow(ReportStoreError);
    await expect(store.readSnapshot()).rejects.toThrow(/current\.json is not a debtors snapshot/);
    await expect(store.readStatus()).rejects.toThrow(/status\.json is not valid JSON/);
    await expect(store.readCheckpoint()).rejects.toThrow(/checkpoint\.json is not a refresh/);
  });

  it('never shows a reader a torn snapshot while writes replace it', async () => {
    // Prepare: two large snapshots (about 1.5 MB each)
    const dir = tempDir();
    const store = createFileReportStore({ dir });
    const a = snapshot(2_500, 1);
    const b = snapshot(2_500, 2);
    const etags = new Set([contentEtag(JSON.stringify(a)), contentEtag(JSON.stringify(b))]);
    await store.writeSnapshot(a);

    // Act: 20 writes alternating a and b, and reads as fast as they come in between
    let writing = true;
    const writes = (async () => {
      for (let i = 0; i < 20; i += 1) await store.writeSnapshot(i % 2 ? a : b);
      writing = false;
    })();
    const seen: string[] = [];
    while (writing) {
      const read = await store.readSnapshot();
      seen.push(read?.etag ?? 'none');
    }
    await writes;

    // Assess
    expect(seen.length).toBeGreaterThan(0);
    for (const etag of seen) expect(etags.has(etag)).toBe(true);
    expect(readdirSync(dir)).toEqual([REPORT_FILES.current]);
  });

  it('keeps the previous snapshot whole when a writer is killed mid-write', async () => {
    // Prepare
    const dir = tempDir();
    const store = createFileReportStore({ dir });
    const previous = await store.writeSnapshot(snapshot(50));
    const storeModule = join(REPO_ROOT, 'functions/report/store/report-store-file.ts');
    // A writer that writes a ~60 MB snapshot over and over.
    const script = `
      import { createFileReportStore } from ${JSON.stringify(storeModule)};
      const store = createFileReportStore({ dir: ${JSON.stringify(dir)} });
      const big = { version: 1, generatedAt: 'x', rows: Array.from({ length: 300000 }, (_, i) => ({ receivableId: i, name: 'X'.repeat(150) })) };
      for (;;) await store.writeSnapshot(big);
    `;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: REPO_ROOT,
        stdio: 'ignore',
      },
    );

    // Act: kill it while its temporary file exists
    const deadline = Date.now() + 20_000;
    while (!readdirSync(dir).some((f) => f.endsWith('.tmp')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    // Assess: the current file is the previous snapshot or a complete new one, never torn;
    // what the killed writer left is a stray temporary file, which reads ignore.
    const current = JSON.parse(readFileSync(join(dir, REPORT_FILES.current), 'utf8')) as {
      rows: unknown[];
    };
    expect([50, 300_000]).toContain(current.rows.length);
    const read = await store.readSnapshot();
    if (current.rows.length === 50) expect(read).toEqual(previous);
    expect(read?.snapshot.rows).toHaveLength(current.rows.length);
  });
});
