import { gunzipSync, gzipSync } from 'node:zlib';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../../functions/domain/debtors-report.ts';
import type { PutObjectInput, S3 } from '../../../functions/kernel/s3-aws.ts';
import { contentEtag } from '../../../functions/report/store/report-store-file.ts';
import {
  createS3ReportStore,
  ETAG_METADATA,
  REPORT_KEYS,
  reportKeys,
  s3ReportStores,
} from '../../../functions/report/store/report-store-s3.ts';
import { generateDebtors } from '../../../sandbox/debtors-data.ts';
import { type LocalS3, startLocalS3 } from '../../helpers/s3-local.ts';

const BUCKET = 'leads-report-bucket';

/** An S3 error as the SDK throws it. */
const s3Error = (name: string, message: string, status: number) =>
  new S3ServiceException({
    name,
    message,
    $fault: 'client',
    $metadata: { httpStatusCode: status },
  });

const rows = generateDebtors({ count: 80, branches: [1], seed: 4 }, new Date());
const SNAPSHOT = buildSnapshot({
  branches: [{ branchId: 1, rows, total: rows.length, summary: null }],
  startedAt: '2026-08-01T12:00:00.000Z',
  generatedAt: '2026-08-01T12:00:02.000Z',
  timeZone: 'America/Sao_Paulo',
  pageCalls: 2,
});
const CHECKPOINT = {
  refreshId: 'r-1',
  startedAt: '2026-08-01T12:00:00.000Z',
  remainingBranches: [2],
  skip: 0,
  pageCalls: 2,
};

/**
 * An in-memory S3 (kernel/s3-aws.ts's `S3`): objects as put, answered with the bytes as stored
 * (a gzip object stays gzip, as another transport than fetch would give it), a missing key as
 * S3's NoSuchKey, and every call recorded.
 */
function fakeS3() {
  const objects = new Map<string, PutObjectInput>();
  const calls = {
    get: [] as { Bucket: string; Key: string }[],
    put: [] as PutObjectInput[],
    delete: [] as { Bucket: string; Key: string }[],
  };
  let failure: Error | undefined;
  const client: S3 = {
    async getObject(input) {
      calls.get.push(input);
      if (failure) throw failure;
      const object = objects.get(`${input.Bucket}/${input.Key}`);
      if (!object) throw s3Error('NoSuchKey', 'The specified key does not exist.', 404);
      const body = typeof object.Body === 'string' ? Buffer.from(object.Body) : object.Body;
      return {
        body: new Uint8Array(body),
        metadata: Object.fromEntries(
          Object.entries(object.Metadata ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
        ),
        ...(object.ContentType && { contentType: object.ContentType }),
        ...(object.ContentEncoding && { contentEncoding: object.ContentEncoding }),
      };
    },
    async putObject(input) {
      calls.put.push(input);
      if (failure) throw failure;
      objects.set(`${input.Bucket}/${input.Key}`, input);
    },
    async deleteObject(input) {
      calls.delete.push(input);
      if (failure) throw failure;
      objects.delete(`${input.Bucket}/${input.Key}`);
    },
  };
  return {
    client,
    calls,
    /** Stores an object as if some writer had put it. */
    seed: (key: string, Body: string | Uint8Array, Metadata?: Record<string, string>) => {
      objects.set(`${BUCKET}/${key}`, {
        Bucket: BUCKET,
        Key: key,
        Body,
        ...(Metadata && { Metadata }),
      });
    },
    /** Every call from now on fails with this error. */
    failWith: (error: Error) => {
      failure = error;
    },
  };
}

let s3: ReturnType<typeof fakeS3>;
beforeEach(() => {
  s3 = fakeS3();
});

function store() {
  return createS3ReportStore({ client: s3.client, bucket: BUCKET });
}

function putInput(key: string) {
  const input = s3.calls.put.find((put) => put.Key === key);
  if (!input) throw new Error(`no PutObject for ${key}`);
  return input;
}

describe('createS3ReportStore', () => {
  it('puts the snapshot gzip-compressed at debtors/current.json with its ETag in metadata', async () => {
    // Act
    const stored = await store().writeSnapshot(SNAPSHOT);

    // Assess
    const input = putInput(REPORT_KEYS.current);
    const json = JSON.stringify(SNAPSHOT);
    expect(input).toMatchObject({
      Bucket: BUCKET,
      Key: 'debtors/current.json',
      ContentType: 'application/json; charset=utf-8',
      ContentEncoding: 'gzip',
      CacheControl: 'no-store',
      Metadata: { [ETAG_METADATA]: contentEtag(json) },
    });
    expect(gunzipSync(input.Body as Uint8Array).toString('utf8')).toBe(json);
    expect((input.Body as Uint8Array).length).toBeLessThan(json.length / 3);
    expect(stored).toEqual({ snapshot: SNAPSHOT, etag: contentEtag(json) });
  });

  it('reads the snapshot back, with the ETag from metadata (or its hash without one)', async () => {
    // Prepare
    const json = JSON.stringify(SNAPSHOT);
    s3.seed(REPORT_KEYS.current, gzipSync(json), { [ETAG_METADATA]: '"kept"' });

    // Act
    const withMetadata = await store().readSnapshot();
    s3.seed(REPORT_KEYS.current, Buffer.from(json));
    const plain = await store().readSnapshot();

    // Assess
    expect(withMetadata).toEqual({ snapshot: SNAPSHOT, etag: '"kept"' });
    expect(plain).toEqual({ snapshot: SNAPSHOT, etag: contentEtag(json) });
    expect(s3.calls.get[0]).toEqual({ Bucket: BUCKET, Key: 'debtors/current.json' });
  });

  it('reads a missing object as nothing: no snapshot, a clean status, no checkpoint', async () => {
    // Act / Assess: NoSuchKey (the fake's answer for a key it does not hold).
    expect(await store().readSnapshot()).toBeUndefined();
    expect(await store().readStatus()).toEqual({ failures: 0 });
    expect(await store().readCheckpoint()).toBeUndefined();
    expect(s3.calls.get.map((get) => get.Key)).toEqual([
      'debtors/current.json',
      'debtors/status.json',
      'debtors/checkpoint.json',
    ]);
  });

  it('reads a bodiless 404 (NotFound) as missing too', async () => {
    s3.failWith(s3Error('NotFound', '', 404));
    expect(await store().readSnapshot()).toBeUndefined();
    expect(await store().readStatus()).toEqual({ failures: 0 });
  });

  it('passes any other S3 failure on (a 403 is not "missing")', async () => {
    // Prepare
    s3.failWith(s3Error('AccessDenied', 'Access Denied', 403));

    // Act / Assess
    await expect(store().readSnapshot()).rejects.toThrow('Access Denied');
    await expect(store().readStatus()).rejects.toThrow('Access Denied');
    await expect(store().readCheckpoint()).rejects.toMatchObject({ name: 'AccessDenied' });
    await expect(store().writeStatus({ failures: 0 })).rejects.toThrow('Access Denied');
  });

  it('refuses an object that is not a snapshot', async () => {
    // Prepare
    s3.seed(REPORT_KEYS.current, gzipSync('{"hello": 1}'));

    // Act / Assess
    await expect(store().readSnapshot()).rejects.toThrow(
      `s3://${BUCKET}/debtors/current.json is not a debtors snapshot (version 1)`,
    );
  });

  it('keeps the status as plain JSON at debtors/status.json', async () => {
    // Prepare
    const status = { failures: 1, lastFailedAt: '2026-08-01T12:00:00.000Z', lastError: 'x' };

    // Act
    await store().writeStatus(status);
    const read = await store().readStatus();

    // Assess
    const input = putInput('debtors/status.json');
    expect(input.Body).toBe(JSON.stringify(status));
    expect(input.ContentEncoding).toBeUndefined();
    expect(input).toMatchObject({
      ContentType: 'application/json; charset=utf-8',
      CacheControl: 'no-store',
    });
    expect(read).toEqual(status);
  });

  it('keeps the checkpoint with its rows gzip-compressed, and deletes it when cleared', async () => {
    // Prepare
    const progress = [{ branchId: 1, total: 80, summary: null, rows, done: true }];

    // Act
    await store().writeCheckpoint(CHECKPOINT, progress);
    const read = await store().readCheckpoint();
    await store().clearCheckpoint();
    const afterClear = await store().readCheckpoint();

    // Assess
    const input = putInput('debtors/checkpoint.json');
    expect(input.ContentEncoding).toBe('gzip');
    expect(JSON.parse(gunzipSync(input.Body as Uint8Array).toString('utf8'))).toEqual({
      checkpoint: CHECKPOINT,
      rows: progress,
    });
    expect(read).toEqual({ checkpoint: CHECKPOINT, rows: progress });
    expect(s3.calls.delete).toEqual([{ Bucket: BUCKET, Key: 'debtors/checkpoint.json' }]);
    expect(afterClear).toBeUndefined();
  });

  it('needs a bucket name', () => {
    expect(() => createS3ReportStore({ client: s3.client, bucket: '' })).toThrow(/bucket/);
  });
});

describe('the report store on s3rver, through the SDK client', () => {
  let local: LocalS3;
  beforeAll(async () => {
    local = await startLocalS3(BUCKET);
  });
  afterAll(() => local?.close());

  it('writes and reads back the snapshot, status and checkpoint; a cleared checkpoint is gone', async () => {
    // Prepare
    const stores = s3ReportStores({ client: local.client(), bucket: BUCKET });
    const status = { failures: 0, lastSuccessAt: '2026-08-01T12:00:02.000Z' };
    const progress = [{ branchId: 1, total: 80, summary: null, rows, done: true }];

    // Act
    const written = await stores('default').writeSnapshot(SNAPSHOT);
    await stores('default').writeStatus(status);
    await stores('default').writeCheckpoint(CHECKPOINT, progress);
    const snapshot = await stores('default').readSnapshot();
    const readStatus = await stores('default').readStatus();
    const checkpoint = await stores('default').readCheckpoint();
    await stores('default').clearCheckpoint();

    // Assess: S3 holds the snapshot gzip, with its ETag and no caching; the store reads it back
    // although fetch hands it over unzipped.
    expect(snapshot).toEqual(written);
    expect(snapshot?.etag).toBe(contentEtag(JSON.stringify(SNAPSHOT)));
    expect(readStatus).toEqual(status);
    expect(checkpoint).toEqual({ checkpoint: CHECKPOINT, rows: progress });
    expect(await stores('default').readCheckpoint()).toBeUndefined();
    const stored = await local.raw(REPORT_KEYS.current);
    expect(stored.headers).toMatchObject({
      'content-encoding': 'gzip',
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      [`x-amz-meta-${ETAG_METADATA}`]: written.etag,
    });
    expect(JSON.parse(gunzipSync(stored.body).toString('utf8'))).toEqual(SNAPSHOT);
    expect((await local.raw(REPORT_KEYS.status)).body.toString('utf8')).toBe(
      JSON.stringify(status),
    );
  });

  it("keeps each account's report under its own keys, and a fresh account has none", async () => {
    // Prepare
    const stores = s3ReportStores({ client: local.client(), bucket: BUCKET });

    // Act
    await stores('unidade-sul').writeStatus({ failures: 2 });

    // Assess
    expect(stores('unidade-sul')).toBe(stores('unidade-sul'));
    expect(reportKeys('unidade-sul').status).toBe('debtors/accounts/unidade-sul/status.json');
    expect((await local.raw('debtors/accounts/unidade-sul/status.json')).status).toBe(200);
    expect(await stores('unidade-sul').readStatus()).toEqual({ failures: 2 });
    expect(await stores('unidade-norte').readSnapshot()).toBeUndefined();
    expect(await stores('unidade-norte').readStatus()).toEqual({ failures: 0 });
  });
});
