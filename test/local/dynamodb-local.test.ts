/**
 * The local DynamoDB (local/dynamodb-local.ts, its server in local/dynalite-server.ts) on disk. dynalite ends every Scan and
 * Query by calling `return()` on its level iterator, which abstract-level's iterators lacked, so
 * each one stayed open for the life of the process (the soak saw the heap grow with every poll
 * of the local worker). The module gives them a `return` that closes them. And dynalite wrote an
 * item's index entries and the item in separate writes, so a kill -9 between them left the
 * index disagreeing with the table; the module writes them in one batch.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../local/dynalite-server.ts';
import { startLocalDynamo } from '../../local/dynamodb-local.ts';
import { WRITER_DEFINITION, WRITER_TABLE } from '../fixtures/dynamo-writer.ts';

interface Iterator {
  next(): Promise<unknown>;
  return(): Promise<IteratorReturnResult<undefined>>;
}
interface Db {
  open(): Promise<void>;
  close(): Promise<void>;
  put(key: string, value: string): Promise<void>;
  values(): Iterator;
  keys(): Iterator;
  iterator(): Iterator;
}

// The LevelDB binding dynalite keeps its data in, resolved as dynalite-server.ts resolves it.
const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
const { Level } = fromDynalite('level') as { Level: new (path: string) => Db };

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('local DynamoDB on disk', () => {
  it('closes a level iterator when its stream ends (return), so Scans and Queries release them', async () => {
    // Prepare: the server module is loaded (its fix applies at import); a LevelDB like dynalite's.
    const dir = mkdtempSync(join(tmpdir(), 'leads-level-'));
    dirs.push(dir);
    const db = new Level(join(dir, 'plain'));
    await db.open();
    await db.put('a', '1');

    // Act: read each kind of iterator to its end, then release it as dynalite's streams do.
    const iterators = [db.values(), db.keys(), db.iterator()];
    for (const iterator of iterators) {
      expect(await iterator.next()).toBeDefined();
      expect(await iterator.next()).toBeUndefined();
    }
    const results = await Promise.all(iterators.map((iterator) => iterator.return()));

    // Assess: closed (a closed iterator refuses next()), and the database closes cleanly.
    expect(results).toEqual(iterators.map(() => ({ done: true, value: undefined })));
    for (const iterator of iterators) {
      await expect(iterator.next()).rejects.toMatchObject({ code: 'LEVEL_ITERATOR_NOT_OPEN' });
    }
    await db.close();
  });

  it('keeps every index entry in step with its item through kill -9 in the middle of writes', {
    timeout: 120_000,
  }, async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'leads-torn-'));
    dirs.push(dir);
    const mismatches: string[] = [];

    for (let round = 0; round < 4; round += 1) {
      // Act: a writer moving items between index keys, killed after a while.
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/dynamo-writer.ts'], {
        env: { ...process.env, DATA_DIR: dir },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
      });
      await new Promise((resolve) => setTimeout(resolve, 400 + round * 150));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;

      // Assess: the index holds exactly one entry per item, under its current key.
      const local = await startLocalDynamo({
        dataDir: dir,
        tables: [{ name: WRITER_TABLE, definition: WRITER_DEFINITION }],
      });
      try {
        const items = await local.client.scan({ TableName: WRITER_TABLE });
        const index = await local.client.scan({ TableName: WRITER_TABLE, IndexName: 'byState' });
        const expected = items.Items.map((i) => `${i.pk}@${i.state}#${i.n}`);
        const found = index.Items.map((i) => `${i.pk}@${i.state}#${i.n}`);
        const missing = expected.filter((e) => !found.includes(e));
        const extra = found.filter((f) => !expected.includes(f));
        if (missing.length || extra.length) {
          mismatches.push(`round ${round}: missing ${missing.join(',')}; extra ${extra.join(',')}`);
        }
      } finally {
        await local.close();
      }
    }

    expect(mismatches).toEqual([]);
  });
});
