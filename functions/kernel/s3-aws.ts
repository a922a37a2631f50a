/**
 * S3 for the functions: GetObject, PutObject and DeleteObject through the SDK's `S3Client`
 * (`@aws-sdk/client-s3`: virtual-hosted or path-style URLs, its default CRC32 integrity check on
 * a put and its validation of a get's stored checksum). Errors are the SDK's (`NoSuchKey`,
 * `AccessDenied`, `NotFound` for a 404 without a body). One client per function instance, the
 * SDK's standard retry mode (3 attempts), 20 s per attempt: a report object is up to a few MB
 * (sdk-aws.ts). A given `endpoint` (s3rver, another S3) is addressed path-style. Tested against
 * s3rver (test/kernel/s3-aws.test.ts).
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
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

export function createS3(options: AwsClientOptions = {}): S3 {
  const client = new S3Client({
    ...sdkClientConfig({ attemptTimeoutMs: S3_ATTEMPT_TIMEOUT_MS, ...options }),
    // A given endpoint is one host for every bucket (a local S3): path-style, as the SDK says.
    ...(options.endpoint !== undefined && { forcePathStyle: true }),
  });
  return {
    async getObject(input) {
      const out = await client.send(new GetObjectCommand({ ...input, ChecksumMode: 'ENABLED' }));
      const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      return {
        body,
        metadata: out.Metadata ?? {},
        ...(out.ContentType && { contentType: out.ContentType }),
        ...(out.ContentEncoding && { contentEncoding: out.ContentEncoding }),
      };
    },
    async putObject(input) {
      await client.send(new PutObjectCommand(input));
    },
    async deleteObject(input) {
      await client.send(new DeleteObjectCommand(input));
    },
  };
}
