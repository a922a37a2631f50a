/**
 * The signed-fetch S3 client (functions/kernel/aws/s3.ts): objects round-trip through s3rver
 * (a local S3) with their headers and metadata, a missing key is NoSuchKey, keys with `/`,
 * spaces and punctuation land where they should; and, against a bare node:http server, the
 * request S3 would see (a signature S3 accepts for that path) and S3's XML errors.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsError } from '../../functions/kernel/aws/http.ts';
import { createS3 } from '../../functions/kernel/aws/s3.ts';
import { type LocalS3, startLocalS3 } from '../helpers/s3-local.ts';
import {
  type Answer,
  type Received,
  type ScriptedServer,
  startScriptedServer,
} from '../helpers/scripted-server.ts';
import { checkSignature } from '../helpers/sigv4.ts';

let s3: LocalS3;
beforeAll(async () => {
  s3 = await startLocalS3('report-bucket');
});
afterAll(() => s3?.close());

/** Every byte value, so that nothing in between may re-encode the body unnoticed. */
const BINARY = Uint8Array.from({ length: 512 }, (_, i) => (i * 7) % 256);

describe('signed-fetch S3 client against s3rver', () => {
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

  it('stores a gzip object as gzip and reads it back as its content, naming the encoding', async () => {
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

    // Assess: S3 keeps the gzip bytes; the transport undoes the encoding on the way in, as fetch did.
    expect(stored.body.equals(zipped)).toBe(true);
    expect(stored.headers['content-encoding']).toBe('gzip');
    expect(object.contentEncoding).toBe('gzip');
    expect(object.contentType).toBe('application/json; charset=utf-8');
    expect(Buffer.from(object.body).toString('utf8')).toBe(json);
  });

  it('rejects a missing key with NoSuchKey, 404', async () => {
    const error = await s3
      .client()
      .getObject({ Bucket: s3.bucket, Key: 'debtors/nothing-here.json' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwsError);
    expect(error).toMatchObject({
      name: 'NoSuchKey',
      status: 404,
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

describe('signed-fetch S3 client on the wire', () => {
  let server: ScriptedServer;
  let endpoint: string;
  let received: Received[];
  const credentials = { accessKeyId: 'AKIDS3TEST', secretAccessKey: 's3-test-secret' };
  const client = () =>
    createS3({ endpoint, region: 'sa-east-1', credentials, sleep: async () => {} });

  beforeAll(async () => {
    server = await startScriptedServer();
    endpoint = server.endpoint;
    received = server.received;
  });
  afterAll(() => server.close());
  const reset = (...list: Answer[]) => server.script(...list);

  it('sends the key path-style, encoded as S3 signs it, with a signature S3 accepts', async () => {
    // Prepare
    reset({ status: 200 });
    const key = "accounts/filial sul/it's (1)!*+ç.json";

    // Act
    await client().putObject({
      Bucket: 'report-bucket',
      Key: key,
      Body: '{"a":1}',
      ContentType: 'application/json; charset=utf-8',
      ContentEncoding: 'identity',
      CacheControl: 'no-store',
      Metadata: { 'Content-Etag': '"e"' },
    });

    // Assess
    const [request] = received;
    expect(request?.method).toBe('PUT');
    expect(request?.url).toBe(
      '/report-bucket/accounts/filial%20sul/it%27s%20%281%29%21%2A%2B%C3%A7.json?x-id=PutObject',
    );
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'identity',
      'cache-control': 'no-store',
      'x-amz-meta-content-etag': '"e"',
      // The body's SHA-256 and CRC32, as the SDK sends them (S3 refuses a body that differs).
      'x-amz-content-sha256': createHash('sha256').update('{"a":1}').digest('hex'),
      'x-amz-sdk-checksum-algorithm': 'CRC32',
      'x-amz-checksum-crc32': 'Vhusrw==',
    });
    expect(request?.headers.authorization).toContain('/sa-east-1/s3/aws4_request');
    expect(request?.body.toString('utf8')).toBe('{"a":1}');
    if (!request) throw new Error('no request');
    expect(checkSignature(request, credentials.secretAccessKey)).toMatchObject({ ok: true });
  });

  it("asks for the object as stored and reads S3's XML errors, entities and all", async () => {
    // Prepare
    reset({
      status: 403,
      headers: { 'content-type': 'application/xml', 'x-amz-request-id': 'R1' },
      body: '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Access &amp; &quot;denied&quot;</Message></Error>',
    });

    // Act
    const error = await client()
      .getObject({ Bucket: 'b', Key: 'k' })
      .catch((e: unknown) => e);

    // Assess
    expect(received).toHaveLength(1);
    expect(received[0]?.headers['accept-encoding']).toBe('identity');
    expect(error).toBeInstanceOf(AwsError);
    expect(error).toMatchObject({
      name: 'AccessDenied',
      message: 'Access & "denied"',
      status: 403,
      requestId: 'R1',
    });
  });

  it('names a 404 without a body NotFound, and tries SlowDown and 5xx again', async () => {
    reset({ status: 404 });
    await expect(client().getObject({ Bucket: 'b', Key: 'k' })).rejects.toMatchObject({
      name: 'NotFound',
      status: 404,
    });

    reset(
      { status: 503, body: '<Error><Code>SlowDown</Code><Message>Reduce</Message></Error>' },
      { status: 500 },
      { status: 200, body: 'third time', headers: { 'x-amz-meta-n': '3' } },
    );
    const object = await client().getObject({ Bucket: 'b', Key: 'k' });
    expect(received).toHaveLength(3);
    expect(Buffer.from(object.body).toString('utf8')).toBe('third time');
    expect(object.metadata).toEqual({ n: '3' });
  });
});
