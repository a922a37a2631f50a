/**
 * s3rver, a local S3 (REST API, XML errors, objects on disk), in this process on a random port,
 * for the tests of kernel/s3-aws.ts (the SDK's S3Client) and of the report store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { createS3, type S3 } from '../../functions/kernel/s3-aws.ts';
import type { AwsClientOptions } from '../../functions/kernel/sdk-aws.ts';

/** s3rver's one account. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface LocalS3 {
  readonly endpoint: string;
  readonly bucket: string;
  client(options?: Partial<AwsClientOptions>): S3;
  /**
   * An object as S3 serves it to a plain HTTP GET (no signature, no decoding): its status,
   * headers and bytes exactly as stored.
   */
  raw(key: string): Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;
  close(): Promise<void>;
}

export async function startLocalS3(bucket = 'test-bucket'): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    client: (options = {}) =>
      createS3({
        endpoint,
        region: 'us-east-1',
        credentials: S3RVER_CREDENTIALS,
        ...options,
      }),
    raw: (key) =>
      new Promise((resolve, reject) => {
        const path = `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
        request(`${endpoint}${path}`, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: Object.fromEntries(
                Object.entries(res.headers).map(([name, value]) => [name, String(value)]),
              ),
              body: Buffer.concat(chunks),
            }),
          );
          res.on('error', reject);
        })
          .on('error', reject)
          .end();
      }),
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
