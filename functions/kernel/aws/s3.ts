/**
 * S3 for the functions: GetObject, PutObject and DeleteObject over S3's REST API
 * (kernel/aws/http.ts), as the SDK's client (@aws-sdk/client-s3) sends them: virtual-hosted URLs
 * (`https://<bucket>.s3.<region>.amazonaws.com/<key>?x-id=<Operation>`, FIPS and dual-stack
 * hosts from endpoints.ts, path-style for a bucket name that cannot be a host) on AWS,
 * path-style (`<endpoint>/<bucket>/<key>`) when an endpoint is given (a local S3). PutObject
 * sends the body's CRC32 (`x-amz-checksum-crc32`, S3 refuses a body that does not match) and
 * GetObject asks for the stored checksum and checks the body against it (SHA-256, SHA-1 or
 * CRC32; not for a body fetch decompressed, see GetObjectOutput.body). Errors are named as the
 * SDK names them (`NoSuchKey`, `AccessDenied`, `NotFound` for a 404 without a body). Checked
 * side by side with the SDK in test/kernel/aws-s3-differential.test.ts.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { s3Endpoint, s3Host } from './endpoints.ts';
import { AwsError, type AwsHttpOptions, createAwsHttp } from './http.ts';
import type { AwsHeaders, AwsResponse } from './transport.ts';

export interface GetObjectOutput {
  /**
   * The object's content. The transport undoes a `content-encoding` it knows (gzip, deflate, br)
   * whatever the request's `accept-encoding`, so an object stored gzip with
   * `ContentEncoding: 'gzip'` arrives unzipped here; `contentEncoding` still names how it is
   * stored. A reader that must take both (a fake or another transport) can sniff gzip's magic
   * bytes (report/store/report-store-s3.ts does).
   */
  body: Uint8Array;
  contentType?: string;
  /** The object's stored Content-Encoding (see `body`: not what `body` is encoded with). */
  contentEncoding?: string;
  /** User metadata (`x-amz-meta-*`), names without the prefix, lower case. */
  metadata: Record<string, string>;
}

export interface PutObjectInput {
  Bucket: string;
  Key: string;
  Body: string | Uint8Array;
  ContentType?: string;
  ContentEncoding?: string;
  CacheControl?: string;
  Metadata?: Record<string, string>;
}

export interface S3 {
  /** Rejects with an `AwsError` named `NoSuchKey` (status 404) when the object does not exist. */
  getObject(input: { Bucket: string; Key: string }): Promise<GetObjectOutput>;
  putObject(input: PutObjectInput): Promise<void>;
  deleteObject(input: { Bucket: string; Key: string }): Promise<void>;
}

/**
 * A key as a URL path, each segment encoded as SigV4 (and the SDK) encode it: everything but
 * `A-Z a-z 0-9 - _ . ~`, so the path sent is the path signed (encodeURIComponent alone leaves
 * `! ' ( ) *` as they are, which the signer encodes).
 */
const encodeKey = (key: string) =>
  key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');

const XML_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};
const unescapeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => XML_ENTITIES[name] ?? '');

/**
 * S3's XML error, named as the SDK's REST-XML protocol names it: the `<Code>`, else `NotFound`
 * for a 404, else `Unknown`; the message `UnknownError` when there is none; the other fields
 * (`Key`, `HostId`, `ServerTime`...) in `details`. A body that is not XML is the SDK's parse
 * error, named `Error`.
 */
export async function parseXmlError(response: AwsResponse): Promise<AwsError> {
  const text = (await response.text().catch(() => '')).trim();
  const fields: Record<string, string> = {};
  if (text && !text.startsWith('<')) {
    return new AwsError('Error', 'S3 answered with a body that is not XML', response.status);
  }
  for (const [, name = '', value = ''] of text.matchAll(/<(\w+)>([^<]*)<\/\1>/g)) {
    fields[name] = unescapeXml(value);
  }
  const { Code, Message, ...details } = fields;
  // The header's request id, else the body's (as the SDK's REST-XML protocol takes it).
  const requestId = response.headers.get('x-amz-request-id') ?? fields.RequestId;
  const code = Code ?? (response.status === 404 ? 'NotFound' : 'Unknown');
  const error = new AwsError(code, Message ?? 'UnknownError', response.status, requestId, {
    ...(Code !== undefined && { Code }),
    ...details,
  });
  const extendedRequestId = response.headers.get('x-amz-id-2');
  if (extendedRequestId) error.$metadata.extendedRequestId = extendedRequestId;
  return error;
}

/** A 32-bit checksum as S3 writes it: 4 bytes big-endian, base64. */
const base64Of32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes.toString('base64');
};

/**
 * The checksums a GetObject answer is checked against, in the SDK's priority order; CRC32C and
 * CRC64NVME (not in Node) are not checked.
 */
const CHECKSUMS: ReadonlyArray<[header: string, digest: (body: Uint8Array) => string]> = [
  ['x-amz-checksum-sha256', (body) => createHash('sha256').update(body).digest('base64')],
  ['x-amz-checksum-sha1', (body) => createHash('sha1').update(body).digest('base64')],
  ['x-amz-checksum-crc32', (body) => base64Of32(crc32(body))],
];
/** Encodings the transport undoes: the body is then not the bytes S3's checksum is of. */
const DECODED = /\b(gzip|x-gzip|deflate|br|zstd)\b/i;

/**
 * Checks a GetObject body against the answer's checksum, as the SDK does (when the body is read,
 * after the request and its retries); throws on mismatch.
 */
function validateChecksum(headers: AwsHeaders, body: Uint8Array): void {
  if (DECODED.test(headers.get('content-encoding') ?? '')) return;
  const present = CHECKSUMS.filter(([header]) => headers.has(header));
  // A multipart object's checksum of checksums (`...-3`) is not of the body: the SDK skips it.
  const composite = present.every(([header]) => /-[1-9]\d*$/.test(headers.get(header) ?? ''));
  const [header, digest] = present[0] ?? [];
  if (!header || !digest || composite) return;
  const expected = headers.get(header);
  const actual = digest(body);
  if (actual !== expected) {
    throw new Error(
      `Checksum mismatch: expected "${expected}" but received "${actual}" in response header "${header}".`,
    );
  }
}

export function createS3(options: AwsHttpOptions = {}): S3 {
  // A report object is up to a few MB: more time per attempt than a DynamoDB item needs.
  const http = createAwsHttp('s3', (settings) => `https://${s3Host(settings)}`, {
    attemptTimeoutMs: 20_000,
    ...options,
  });
  /** The object's URL as the SDK makes it: path-style on a given endpoint, else the bucket's. */
  const url = (bucket: string, key: string, operation: string) => {
    let base = `${http.endpoint}/${bucket}`;
    if (!http.custom) {
      const { origin, pathStyle } = s3Endpoint(bucket, http.settings);
      base = pathStyle ? `${origin}/${bucket}` : origin;
    }
    return `${base}/${encodeKey(key)}?x-id=${operation}`;
  };
  const done = async (response: AwsResponse) => {
    await response.arrayBuffer();
  };
  return {
    async getObject({ Bucket, Key }) {
      const { body, headers } = await http.send(
        {
          method: 'GET',
          url: url(Bucket, Key, 'GetObject'),
          // identity: no compression on the way; a stored Content-Encoding still comes back
          // and the transport undoes it (GetObjectOutput.body).
          headers: { 'accept-encoding': 'identity', 'x-amz-checksum-mode': 'ENABLED' },
        },
        {
          ok: async (response) => ({
            body: new Uint8Array(await response.arrayBuffer()),
            headers: response.headers,
          }),
          error: parseXmlError,
        },
      );
      validateChecksum(headers, body);
      const metadata: Record<string, string> = {};
      headers.forEach((value, name) => {
        if (name.startsWith('x-amz-meta-')) metadata[name.slice('x-amz-meta-'.length)] = value;
      });
      const contentType = headers.get('content-type');
      const contentEncoding = headers.get('content-encoding');
      return {
        body,
        metadata,
        ...(contentType && { contentType }),
        ...(contentEncoding && { contentEncoding }),
      };
    },
    async putObject(input) {
      // Bytes, as the SDK sends them.
      const body = typeof input.Body === 'string' ? Buffer.from(input.Body, 'utf8') : input.Body;
      const headers: Record<string, string> = {};
      if (input.CacheControl) headers['cache-control'] = input.CacheControl;
      if (input.ContentEncoding) headers['content-encoding'] = input.ContentEncoding;
      // The SDK's default for a body without a type (S3's own would be binary/octet-stream).
      headers['content-type'] = input.ContentType ?? 'application/octet-stream';
      for (const [name, value] of Object.entries(input.Metadata ?? {})) {
        headers[`x-amz-meta-${name.toLowerCase()}`] = value;
      }
      // The SDK's default integrity check: S3 refuses the object if its CRC32 differs.
      headers['x-amz-sdk-checksum-algorithm'] = 'CRC32';
      headers['x-amz-checksum-crc32'] = base64Of32(crc32(body));
      return http.send(
        { method: 'PUT', url: url(input.Bucket, input.Key, 'PutObject'), headers, body },
        { ok: done, error: parseXmlError },
      );
    },
    deleteObject: async ({ Bucket, Key }) =>
      http.send(
        { method: 'DELETE', url: url(Bucket, Key, 'DeleteObject') },
        { ok: done, error: parseXmlError },
      ),
  };
}
