/**
 * S3 for the functions: GetObject, PutObject and DeleteObject through the SDK's `S3Client`
 * (`@aws-sdk/client-s3`: virtual-hosted or path-style URLs, its default CRC32 integrity check on
 * a put and its validation of a get's stored checksum). Errors are the SDK's (`NoSuchKey`,
 * `AccessDenied`, `NotFound` for a 404 without a body). One client per function instance, the
 * SDK module loaded at its first call, the SDK's standard retry mode (3 attempts), 20 s per attempt: a report object is up to a few MB
 * (sdk-aws.ts). A given `endpoint` (s3rver, another S3) is addressed path-style. Tested against
 * s3rver (test/kernel/s3-aws.test.ts).
 */
import { type AwsClientOptions, sdkClientConfig } from './sdk-aws.ts';

export interface GetObjectOutput {
  /**
   * The object's bytes as stored: an object stored gzip with `ContentEncoding: 'gzip'` arrives
   * gzip (the SDK does not undo it); a reader that must take both can sniff gzip's magic bytes
   * (report/store/report-store-s3.ts does).
   */
  body: Uint8Array;
  contentType?: string;
  /** The object's stored Content-Encoding. */
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
  /** Rejects with the SDK's `NoSuchKey` (status 404) when the object does not exist. */
  getObject(input: { Bucket: string; Key: string }): Promise<GetObjectOutput>;
  putObject(input: PutObjectInput): Promise<void>;
  deleteObject(input: { Bucket: string; Key: string }): Promise<void>;
}

export const S3_ATTEMPT_TIMEOUT_MS = 20_000;

async function loadSdk(options: AwsClientOptions) {
  const sdk = await import('@aws-sdk/client-s3');
  const client = new sdk.S3Client({
    ...sdkClientConfig({ attemptTimeoutMs: S3_ATTEMPT_TIMEOUT_MS, ...options }),
    // A given endpoint is one host for every bucket (a local S3): path-style, as the SDK says.
    ...(options.endpoint !== undefined && { forcePathStyle: true }),
  });
  return { client, sdk };
}

export function createS3(options: AwsClientOptions = {}): S3 {
  let loaded: ReturnType<typeof loadSdk> | undefined;
  const s3 = () => {
    loaded ??= loadSdk(options);
    return loaded;
  };
  return {
    async getObject(input) {
      const { client, sdk } = await s3();
      const out = await client.send(
        new sdk.GetObjectCommand({ ...input, ChecksumMode: 'ENABLED' }),
      );
      const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      return {
        body,
        metadata: out.Metadata ?? {},
        ...(out.ContentType && { contentType: out.ContentType }),
        ...(out.ContentEncoding && { contentEncoding: out.ContentEncoding }),
      };
    },
    async putObject(input) {
      const { client, sdk } = await s3();
      await client.send(new sdk.PutObjectCommand(input));
    },
    async deleteObject(input) {
      const { client, sdk } = await s3();
      await client.send(new sdk.DeleteObjectCommand(input));
    },
  };
}
