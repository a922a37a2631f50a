/**
 * The functions' S3 port on the SDK's S3Client (functions/kernel/s3-aws.ts) against s3rver (a
 * local S3, its REST API and XML errors): objects round-trip with their headers and metadata, a
 * gzip object stays gzip, a missing key is the SDK's NoSuchKey, keys with `/`, spaces and
 * punctuation land where they should.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalS3, startLocalS3 } from '../helpers/s3-local.ts';

let s3: LocalS3;
beforeAll(async () => {
  s3 = await startLocalS3('report-bucket');
});
afterAll(() => s3?.close());

/** Every byte value, so that nothing in between may re-encode the body unnoticed. */
const BINARY = Uint8Array.from({ length: 512 }, (_, i) => (i * 7) % 256);

describe('S3 port on the SDK client against s3rver', () => {
  it('puts an object with its headers and metadata and gets it back byte for byte', async () => {
    // Prepare
    const client = s3.client();

    // Act
    await client.putObject({
      Bucket: s3.bucket,
      Key: 'debtors/blob.bin',
      Body: BINARY,
      ContentType: 'application/octet-stream',
      CacheControl: 'no-store',
      Metadata: { 'Content-Etag': '"abc"', source: 'test' },
    });
    const object = await client.getObject({ Bucket: s3.bucket, Key: 'debtors/blob.bin' });
    const stored = await s3.raw('debtors/blob.bin');

    // Assess
    expect(object).toEqual({
      body: BINARY,
      contentType: 'application/octet-stream',
      metadata: { 'content-etag': '"abc"', source: 'test' },
    });
    expect(stored.status).toBe(200);
    expect(new Uint8Array(stored.body)).toEqual(BINARY);
    expect(stored.headers).toMatchObject({
      'cache-control': 'no-store',
      'content-type': 'application/octet-stream',
      'x-amz-meta-content-etag': '"abc"',
      'x-amz-meta-source': 'test',
    });
  });

  it('stores a gzip object as gzip and reads back the stored bytes, naming the encoding', async () => {
    // Prepare
    const json = JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i })) });
    const zipped = gzipSync(json);
    const client = s3.client();

    // Act
    await client.putObject({
      Bucket: s3.bucket,
      Key: 'debtors/current.json',
      Body: zipped,
      ContentType: 'application/json; charset=utf-8',
      ContentEncoding: 'gzip',
    });
    const object = await client.getObject({ Bucket: s3.bucket, Key: 'debtors/current.json' });
    const stored = await s3.raw('debtors/current.json');

    // Assess: S3 keeps the gzip bytes and the SDK hands them over as stored (the report store
    // unzips them itself).
    expect(stored.body.equals(zipped)).toBe(true);
    expect(stored.headers['content-encoding']).toBe('gzip');
    expect(object.contentEncoding).toBe('gzip');
    expect(object.contentType).toBe('application/json; charset=utf-8');
    expect(Buffer.from(object.body).equals(zipped)).toBe(true);
  });

  it('rejects a missing key with NoSuchKey, 404', async () => {
    const error = await s3
      .client()
      .getObject({ Bucket: s3.bucket, Key: 'debtors/nothing-here.json' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'NoSuchKey',
      message: 'The specified key does not exist.',
      $metadata: { httpStatusCode: 404 },
    });
  });

  it('deletes an object, and deleting a missing one is not an error', async () => {
    // Prepare
    const client = s3.client();
    await client.putObject({ Bucket: s3.bucket, Key: 'debtors/checkpoint.json', Body: '{}' });

    // Act
    await client.deleteObject({ Bucket: s3.bucket, Key: 'debtors/checkpoint.json' });
    await client.deleteObject({ Bucket: s3.bucket, Key: 'debtors/checkpoint.json' });

    // Assess
    await expect(
      client.getObject({ Bucket: s3.bucket, Key: 'debtors/checkpoint.json' }),
    ).rejects.toMatchObject({ name: 'NoSuchKey' });
    expect((await s3.raw('debtors/checkpoint.json')).status).toBe(404);
  });

  it.each([
    'debtors/accounts/filial sul/status.json',
    "reports/2026 08/débito (1) it's!*.json",
    'a+b/c=d&e.json',
    'deep/er/and/deeper/x.json',
  ])('keeps the key %j as given', async (key) => {
    // Prepare
    const client = s3.client();

    // Act
    await client.putObject({ Bucket: s3.bucket, Key: key, Body: key });
    const object = await client.getObject({ Bucket: s3.bucket, Key: key });

    // Assess: the object is under exactly that key (a plain GET of it finds it).
    expect(Buffer.from(object.body).toString('utf8')).toBe(key);
    const stored = await s3.raw(key);
    expect(stored.status).toBe(200);
    expect(stored.body.toString('utf8')).toBe(key);
  });
});
