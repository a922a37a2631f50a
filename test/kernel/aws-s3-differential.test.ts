/**
 * S3, ours against the SDK's: for each operation the functions use (GetObject, PutObject,
 * DeleteObject, as report/store calls them), the official client (@aws-sdk/client-s3, path-style
 * on the recording server as ours is on a given endpoint) and functions/kernel/aws/s3.ts are
 * sent to the same recording server with the same recorded answers, and must send the same
 * requests (method, path and query, the content and `x-amz-*` headers: metadata, the CRC32 of
 * the body, the checksum mode; the body byte for byte), wait the same between the same attempts,
 * and return the same object or the same error: every error the SDK's typings list for the
 * operation, S3's common errors (its error-code list), a 404 or 403 without a body, a body that
 * is not XML, redirects, a skewed clock, a checksum that does not match.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import * as SdkS3 from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3, type S3 } from '../../functions/kernel/aws/s3.ts';
import {
  DIFF_CREDENTIALS,
  DIFF_REGION,
  httpDate,
  PINNED_NOW,
  pinRandomAndClock,
  recordSdkWaits,
  runSide,
} from '../helpers/aws-differential.ts';
import {
  type Answer,
  type Reply,
  type ScriptedServer,
  startScriptedServer,
} from '../helpers/scripted-server.ts';

// biome-ignore lint/suspicious/noExplicitAny: inputs and outputs of any operation.
type Any = any;

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
pinRandomAndClock();

const CONTENT = '{"rows":[{"nome":"Ana Tésté","valor":12.5}]}';
const crc32Of = (text: string) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc32(Buffer.from(text, 'utf8')));
  return bytes.toString('base64');
};

/** GetObject's answer as the SDK reads it into ours' shape (body read, headers named). */
async function sdkObject(out: Any) {
  const body = await out.Body.transformToByteArray();
  return {
    body: new Uint8Array(body),
    metadata: out.Metadata ?? {},
    ...(out.ContentType && { contentType: out.ContentType }),
    ...(out.ContentEncoding && { contentEncoding: out.ContentEncoding }),
  };
}

const OPERATIONS: Array<{
  op: string;
  sdk: (client: SdkS3.S3Client, input: Any) => Promise<unknown>;
  ours: (s3: S3, input: Any) => Promise<unknown>;
  input: Any;
  success: Reply;
}> = [
  {
    op: 'GetObject',
    sdk: async (client, input) => sdkObject(await client.send(new SdkS3.GetObjectCommand(input))),
    ours: (s3, input) => s3.getObject(input),
    input: { Bucket: 'report-bucket', Key: "accounts/filial sul/it's (1)!*+ç.json" },
    success: {
      status: 200,
      body: CONTENT,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-amz-meta-content-etag': '"abc"',
        'x-amz-meta-source': 'refresh',
        'x-amz-checksum-crc32': crc32Of(CONTENT),
        etag: '"e1"',
      },
    },
  },
  {
    op: 'PutObject',
    sdk: async (client, input) => {
      await client.send(new SdkS3.PutObjectCommand(input));
    },
    ours: (s3, input) => s3.putObject(input),
    input: {
      Bucket: 'report-bucket',
      Key: 'debtors/current.json',
      Body: CONTENT,
      ContentType: 'application/json; charset=utf-8',
      ContentEncoding: 'identity',
      CacheControl: 'no-store',
      Metadata: { 'content-etag': '"abc"', source: 'refresh' },
    },
    success: { status: 200, headers: { etag: '"e1"' } },
  },
  {
    op: 'DeleteObject',
    sdk: async (client, input) => {
      await client.send(new SdkS3.DeleteObjectCommand(input));
    },
    ours: (s3, input) => s3.deleteObject(input),
    input: { Bucket: 'report-bucket', Key: 'debtors/checkpoint.json' },
    success: { status: 204 },
  },
];
type Operation = (typeof OPERATIONS)[number];

async function compare(operation: Operation, script: Answer[], input: Any = operation.input) {
  const options = { region: DIFF_REGION, endpoint: server.endpoint, credentials: DIFF_CREDENTIALS };
  const sdkClient = new SdkS3.S3Client({ ...options, forcePathStyle: true });
  const sdkWaits = await recordSdkWaits(sdkClient);
  const ourWaits: number[] = [];
  const ours = createS3({ ...options, sleep: async (ms) => void ourWaits.push(ms) });
  return {
    sdk: await runSide(server, script, {
      call: () => operation.sdk(sdkClient, structuredClone(input)),
      waits: sdkWaits,
    }),
    ours: await runSide(server, script, {
      call: () => operation.ours(ours, structuredClone(input)),
      waits: ourWaits,
    }),
  };
}

const xmlError = (code: string, status: number, more = ''): Reply => ({
  status,
  headers: { 'content-type': 'application/xml', 'x-amz-request-id': 'R1', 'x-amz-id-2': 'H1' },
  body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code} &amp; more</Message>${more}<RequestId>R1</RequestId><HostId>H1</HostId></Error>`,
});

/** The errors the SDK's typings document for an operation (`@throws {@link X}`). */
function documentedErrors(op: string): string[] {
  const root = dirname(createRequire(import.meta.url).resolve('@aws-sdk/client-s3/package.json'));
  const typings = readFileSync(join(root, 'dist-types/commands', `${op}Command.d.ts`), 'utf8');
  return [...typings.matchAll(/@throws \{@link (\w+)\}/g)]
    .map(([, name]) => name as string)
    .filter((name) => name !== 'S3ServiceException');
}

const statusOf = (name: string): number =>
  ((SdkS3 as Any)[`${name}$`]?.[3] as { httpError?: number } | undefined)?.httpError ?? 400;

/** S3's common error codes (its API reference's "List of error codes"), with their statuses. */
const COMMON_ERRORS: Array<[code: string, status: number]> = [
  ['AccessDenied', 403],
  ['BadDigest', 400],
  ['EntityTooLarge', 400],
  ['ExpiredToken', 400],
  ['InternalError', 500],
  ['InvalidAccessKeyId', 403],
  ['InvalidArgument', 400],
  ['InvalidBucketName', 400],
  ['InvalidDigest', 400],
  ['InvalidToken', 400],
  ['MethodNotAllowed', 405],
  ['NoSuchBucket', 404],
  ['NotImplemented', 501],
  ['PreconditionFailed', 412],
  ['RequestTimeout', 400],
  ['ServiceUnavailable', 503],
  ['SignatureDoesNotMatch', 403],
  ['SlowDown', 503],
  ['XAmzContentSHA256Mismatch', 400],
];

describe.each(OPERATIONS)('$op, ours as the SDK', (operation) => {
  it('sends the same request and reads the same answer', async () => {
    const { sdk, ours } = await compare(operation, [operation.success]);
    expect(sdk.outcome.ok).toBe(true);
    expect(sdk.requests[0]?.signatureValid).toBe(true);
    expect(sdk.requests[0]?.payloadHashValid).toBe(true);
    expect(sdk.requests[0]?.query).toEqual([['x-id', operation.op]]);
    expect(ours).toEqual(sdk);
  });

  it.each([
    ...documentedErrors(operation.op).map((name) => [name, statusOf(name)]),
    ...COMMON_ERRORS,
  ])('answers %s (%i) alike, always and once before a success', async (code, status) => {
    const always = await compare(operation, [xmlError(String(code), Number(status))]);
    expect(always.sdk.outcome).toMatchObject({ ok: false, error: { name: code } });
    expect(always.ours).toEqual(always.sdk);
    const once = await compare(operation, [
      xmlError(String(code), Number(status)),
      operation.success,
    ]);
    expect(once.ours).toEqual(once.sdk);
  });
});

describe('S3 answers beyond the documented errors, alike', () => {
  const [get, put] = OPERATIONS as [Operation, Operation];

  it.each<[string, Answer[]]>([
    ['a 404 without a body', [{ status: 404 }]],
    ['a 403 without a body', [{ status: 403 }]],
    ['a 500 whose body is not XML', [{ status: 500, body: 'oops' }, get.success]],
    ['a 503 without a body, always', [{ status: 503 }]],
    [
      'SlowDown with Retry-After',
      [{ ...xmlError('SlowDown', 503), headers: { 'retry-after': '2' } }, get.success],
    ],
    ['a dropped connection', ['reset', get.success]],
    [
      'a 301 to the bucket’s region',
      [
        xmlError(
          'PermanentRedirect',
          301,
          '<Endpoint>report-bucket.s3.us-east-1.amazonaws.com</Endpoint>',
        ),
      ],
    ],
    [
      'a 307 with a Location',
      [
        {
          ...xmlError('TemporaryRedirect', 307),
          headers: { location: 'http://127.0.0.1:9/elsewhere' },
        },
      ],
    ],
  ])('GetObject: %s', async (_, script) => {
    const { sdk, ours } = await compare(get, script);
    if (script[0] === 'reset') {
      expect(ours.requests).toEqual(sdk.requests);
      expect(ours.waits).toEqual(sdk.waits);
      expect(ours.outcome).toEqual(sdk.outcome);
      return;
    }
    expect(ours).toEqual(sdk);
  });

  it.each<[string, Record<string, string>]>([
    ['a CRC32 that is not of the body', { 'x-amz-checksum-crc32': 'AAAAAA==' }],
    [
      'a SHA-256 that is not of the body',
      { 'x-amz-checksum-sha256': createHash('sha256').update('x').digest('base64') },
    ],
    [
      'a SHA-1 that is of the body',
      { 'x-amz-checksum-sha1': createHash('sha1').update(CONTENT).digest('base64') },
    ],
    ['a multipart checksum (not checked)', { 'x-amz-checksum-crc32': 'AAAAAA==-3' }],
    ['no checksum', {}],
  ])('GetObject: %s', async (_, headers) => {
    const answer: Answer = {
      status: 200,
      body: CONTENT,
      headers: { 'content-type': 'text/plain', ...headers },
    };
    const { sdk, ours } = await compare(get, [answer]);
    expect(ours).toEqual(sdk);
  });

  it('PutObject: a body as bytes and no content type, the CRC32 of those bytes', async () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256);
    const input = { Bucket: 'report-bucket', Key: 'blob.bin', Body: bytes };
    const { sdk, ours } = await compare(put, [put.success], input);
    expect(sdk.requests[0]?.headers['x-amz-checksum-crc32']).toBeDefined();
    expect(ours).toEqual(sdk);
  });

  it('PutObject: a string body and no content type', async () => {
    const input = { Bucket: 'report-bucket', Key: 'note.txt', Body: 'olá' };
    const { sdk, ours } = await compare(put, [put.success], input);
    expect(ours).toEqual(sdk);
  });

  it('PutObject: a bucket whose name is not a host label, on a given endpoint', async () => {
    const input = { ...put.input, Bucket: 'report.bucket.v2' };
    const { sdk, ours } = await compare(put, [put.success], input);
    expect(sdk.requests[0]?.path).toBe('/report.bucket.v2/debtors/current.json');
    expect(ours).toEqual(sdk);
  });

  it.each([
    ['the Date header', { date: httpDate(20 * 60_000) }, ''],
    [
      'the ServerTime of the error',
      {},
      `<ServerTime>${new Date(PINNED_NOW + 20 * 60_000).toISOString()}</ServerTime>`,
    ],
  ])(
    'RequestTimeTooSkewed: corrects the clock from %s and tries again',
    async (_, headers, more) => {
      const skewed = xmlError('RequestTimeTooSkewed', 403, more);
      const script: Answer[] = [
        { ...skewed, headers: { ...skewed.headers, ...headers } },
        get.success,
      ];
      const { sdk, ours } = await compare(get, script);
      expect(sdk.requests).toHaveLength(2);
      expect(ours).toEqual(sdk);
    },
  );
});
