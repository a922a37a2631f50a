import { gunzipSync, gzipSync } from 'node:zlib';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../../functions/domain/debtors-report.ts';
import { contentEtag } from '../../../functions/report/store/report-store-file.ts';
import {
  createS3ReportStore,
  ETAG_METADATA,
  REPORT_KEYS,
} from '../../../functions/report/store/report-store-s3.ts';
import { generateDebtors } from '../../../sandbox/debtors-data.ts';

const s3 = mockClient(S3Client);
const BUCKET = 'leads-report-bucket';

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

function store() {
  return createS3ReportStore({ client: new S3Client({}), bucket: BUCKET });
}

/** A GetObject answer whose body holds these bytes. */
function object(bytes: Uint8Array, metadata?: Record<string, string>): GetObjectCommandOutput {
  return {
    $metadata: {},
    Body: { transformToByteArray: async () => bytes } as GetObjectCommandOutput['Body'],
    ...(metadata && { Metadata: metadata }),
  };
}

function notFound(): NoSuchKey {
  return new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
}

function putInput(key: string) {
  const call = s3.commandCalls(PutObjectCommand).find((c) => c.args[0].input.Key === key);
  if (!call) throw new Error(`no PutObject for ${key}`);
  return call.args[0].input;
}

beforeEach(() => {
  s3.reset();
});

describe('createS3ReportStore', () => {
  it('puts the snapshot gzip-compressed at debtors/current.json with its ETag in metadata', async () => {
    // Prepare
    s3.on(PutObjectCommand).resolves({});

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
      Metadata: { [ETAG_METADATA]: contentEtag(json) },
    });
    expect(gunzipSync(input.Body as Uint8Array).toString('utf8')).toBe(json);
    expect((input.Body as Uint8Array).length).toBeLessThan(json.length / 3);
    expect(stored).toEqual({ snapshot: SNAPSHOT, etag: contentEtag(json) });
  });

  it('reads the snapshot back, with the ETag from metadata (or its hash without one)', async () => {
    // Prepare
    const json = JSON.stringify(SNAPSHOT);
    s3.on(GetObjectCommand, { Key: REPORT_KEYS.current })
      .resolvesOnce(object(gzipSync(json), { [ETAG_METADATA]: '"kept"' }))
      .resolvesOnce(object(Buffer.from(json)));

    // Act
    const withMetadata = await store().readSnapshot();
    const plain = await store().readSnapshot();

    // Assess
    expect(withMetadata).toEqual({ snapshot: SNAPSHOT, etag: '"kept"' });
    expect(plain).toEqual({ snapshot: SNAPSHOT, etag: contentEtag(json) });
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'debtors/current.json',
    });
  });

  it('reads a missing object as nothing: no snapshot, a clean status, no checkpoint', async () => {
    // Prepare
    s3.on(GetObjectCommand).rejects(notFound());

    // Act / Assess
    expect(await store().readSnapshot()).toBeUndefined();
    expect(await store().readStatus()).toEqual({ failures: 0 });
    expect(await store().readCheckpoint()).toBeUndefined();
  });

  it('passes any other S3 failure on (a 403 is not "missing")', async () => {
    // Prepare
    s3.on(GetObjectCommand).rejects(
      new S3ServiceException({
        name: 'AccessDenied',
        $fault: 'client',
        $metadata: { httpStatusCode: 403 },
        message: 'Access Denied',
      }),
    );

    // Act / Assess
    await expect(store().readSnapshot()).rejects.toThrow('Access Denied');
    await expect(store().readStatus()).rejects.toThrow('Access Denied');
  });

  it('refuses an object that is not a snapshot', async () => {
    // Prepare
    s3.on(GetObjectCommand).resolves(object(gzipSync('{"hello": 1}')));

    // Act / Assess
    await expect(store().readSnapshot()).rejects.toThrow(
      `s3://${BUCKET}/debtors/current.json is not a debtors snapshot (version 1)`,
    );
  });

  it('keeps the status as plain JSON at debtors/status.json', async () => {
    // Prepare
    s3.on(PutObjectCommand).resolves({});
    const status = { failures: 1, lastFailedAt: '2026-08-01T12:00:00.000Z', lastError: 'x' };
    s3.on(GetObjectCommand, { Key: REPORT_KEYS.status }).resolves(
      object(Buffer.from(JSON.stringify(status))),
    );

    // Act
    await store().writeStatus(status);
    const read = await store().readStatus();

    // Assess
    const input = putInput('debtors/status.json');
    expect(input.Body).toBe(JSON.stringify(status));
    expect(input.ContentEncoding).toBeUndefined();
    expect(read).toEqual(status);
  });

  it('keeps the checkpoint with its rows gzip-compressed, and deletes it when cleared', async () => {
    // Prepare
    s3.on(PutObjectCommand).resolves({});
    s3.on(DeleteObjectCommand).resolves({});
    const progress = [{ branchId: 1, total: 80, summary: null, rows, done: true }];

    // Act
    await store().writeCheckpoint(CHECKPOINT, progress);
    const body = putInput('debtors/checkpoint.json').Body as Uint8Array;
    s3.on(GetObjectCommand, { Key: REPORT_KEYS.checkpoint }).resolves(object(body));
    const read = await store().readCheckpoint();
    await store().clearCheckpoint();

    // Assess
    expect(putInput('debtors/checkpoint.json').ContentEncoding).toBe('gzip');
    expect(read).toEqual({ checkpoint: CHECKPOINT, rows: progress });
    expect(s3.commandCalls(DeleteObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'debtors/checkpoint.json',
    });
  });

  it('needs a bucket name', () => {
    expect(() => createS3ReportStore({ client: new S3Client({}), bucket: '' })).toThrow(/bucket/);
  });
});
