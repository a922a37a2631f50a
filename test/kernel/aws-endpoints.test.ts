/**
 * Where the signed-fetch clients send requests (functions/kernel/aws/endpoints.ts) against where
 * the official clients send them: for a region of every partition (aws, aws-cn, GovCloud, the
 * ISO partitions, the European Sovereign Cloud, a region no partition knows, FIPS
 * pseudo-regions), with FIPS and dual-stack off and on as `AWS_USE_FIPS_ENDPOINT` and
 * `AWS_USE_DUALSTACK_ENDPOINT` set them, each client's request is caught before it leaves (the
 * SDK's by its request handler, ours by a stubbed fetch) and its URL compared; a configuration
 * the SDK refuses, ours refuses too. The partition table is compared with the SDK's own.
 */

import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient, StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';
import { partition } from '@aws-sdk/core/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDynamoDb } from '../../functions/kernel/aws/dynamodb.ts';
import { partitionOf } from '../../functions/kernel/aws/endpoints.ts';
import { createS3 } from '../../functions/kernel/aws/s3.ts';
import { createSqs } from '../../functions/kernel/aws/sqs.ts';
import { DIFF_CREDENTIALS } from '../helpers/aws-differential.ts';
import { stubFetch } from '../helpers/aws-fetch-stub.ts';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

const REGIONS = [
  'us-east-1',
  'sa-east-1',
  'eu-central-2',
  'ap-southeast-7',
  'mx-central-1',
  'cn-north-1',
  'cn-northwest-1',
  'us-gov-west-1',
  'us-gov-east-1',
  'us-iso-east-1',
  'us-isob-east-1',
  'eu-isoe-west-1',
  'us-isof-south-1',
  'eusc-de-east-1',
  'xx-future-1',
  'cn-future-9',
  'us-gov-future-3',
];

/** A request that stops where it would leave the machine. */
class Caught extends Error {
  override name = 'Caught';
  constructor(readonly url: string) {
    super(url);
  }
}

/** The URL the SDK's client sends an operation to, or the error it refuses the setup with. */
async function sdkUrl(send: (requestHandler: object) => Promise<unknown>): Promise<string> {
  const requestHandler = {
    handle: async (request: {
      protocol: string;
      hostname: string;
      port?: number;
      path: string;
      query?: Record<string, string>;
    }) => {
      const query = new URLSearchParams(request.query ?? {}).toString();
      const port = request.port ? `:${request.port}` : '';
      throw new Caught(
        `${request.protocol}//${request.hostname}${port}${request.path}${query ? `?${query}` : ''}`,
      );
    },
  };
  try {
    await send(requestHandler);
    return 'sent';
  } catch (error) {
    return error instanceof Caught ? error.url : `refused: ${(error as Error).message}`;
  }
}

/** The URL ours sends an operation to (fetch stubbed), or the error it refuses the setup with. */
async function ourUrl(send: () => Promise<unknown>): Promise<string> {
  stubFetch((async (request: Request) => {
    throw new Caught(request.url);
  }) as typeof fetch);
  try {
    await send();
    return 'sent';
  } catch (error) {
    return error instanceof Caught ? error.url : `refused: ${(error as Error).message}`;
  }
}

const QUEUE_URL = 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads-dev-delivery';
const base = (region: string) => ({ region, credentials: DIFF_CREDENTIALS, maxAttempts: 1 });

/** Each operation both ways: [the SDK's send, ours]. */
const CASES: Record<
  string,
  (region: string) => [(handler: object) => Promise<unknown>, () => Promise<unknown>]
> = {
  'DynamoDB GetItem': (region) => [
    (requestHandler) =>
      new DynamoDBClient({ ...base(region), requestHandler }).send(
        new GetItemCommand({ TableName: 'leads', Key: { pk: { S: 'x' } } }),
      ),
    () => createDynamoDb(base(region)).get({ TableName: 'leads', Key: { pk: 'x' } }),
  ],
  'SQS SendMessage (to its queue URL)': (region) => [
    (requestHandler) =>
      new SQSClient({ ...base(region), requestHandler, logger: silent }).send(
        new SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: 'x' }),
      ),
    () => createSqs(base(region)).sendMessage({ QueueUrl: QUEUE_URL, MessageBody: 'x' }),
  ],
  'SQS StartMessageMoveTask': (region) => [
    (requestHandler) =>
      new SQSClient({ ...base(region), requestHandler }).send(
        new StartMessageMoveTaskCommand({ SourceArn: 'arn:aws:sqs:x:1:dlq' }),
      ),
    () => createSqs(base(region)).startMessageMoveTask({ SourceArn: 'arn:aws:sqs:x:1:dlq' }),
  ],
  'S3 GetObject': (region) => [
    (requestHandler) =>
      new S3Client({ ...base(region), requestHandler }).send(
        new GetObjectCommand({ Bucket: 'report-bucket', Key: 'debtors/a b.json' }),
      ),
    () => createS3(base(region)).getObject({ Bucket: 'report-bucket', Key: 'debtors/a b.json' }),
  ],
  'S3 GetObject, a dotted bucket (path-style)': (region) => [
    (requestHandler) =>
      new S3Client({ ...base(region), requestHandler }).send(
        new GetObjectCommand({ Bucket: 'report.bucket', Key: 'k.json' }),
      ),
    () => createS3(base(region)).getObject({ Bucket: 'report.bucket', Key: 'k.json' }),
  ],
};
/** The SDK warns when the queue URL is not its endpoint (it is, with FIPS or dual-stack). */
const silent = { debug() {}, info() {}, warn() {}, error() {}, trace() {} };

describe.each(Object.entries(CASES))('%s', (_, make) => {
  it.each(
    [...REGIONS, 'fips-us-east-1', 'us-gov-west-1-fips', 'local'].flatMap((region) =>
      [
        [undefined, undefined],
        ['true', undefined],
        [undefined, 'true'],
        ['true', 'true'],
        ['false', 'false'],
      ].map(([fips, dualStack]) => [region, fips, dualStack] as const),
    ),
  )(
    '%s, AWS_USE_FIPS_ENDPOINT=%s, AWS_USE_DUALSTACK_ENDPOINT=%s: the same URL',
    async (region, fips, dualStack) => {
      vi.stubEnv('AWS_USE_FIPS_ENDPOINT', fips);
      vi.stubEnv('AWS_USE_DUALSTACK_ENDPOINT', dualStack);
      const [sdk, ours] = make(region);
      const expected = await sdkUrl(sdk);
      expect(expected).not.toBe('sent');
      if (expected.startsWith('refused')) {
        await expect(ourUrl(ours)).resolves.toMatch(/^refused: /);
        return;
      }
      await expect(ourUrl(ours)).resolves.toBe(expected);
    },
  );
});

it('passes over a FIPS setting that is neither "true" nor "false", as the SDK does', async () => {
  vi.stubEnv('AWS_USE_FIPS_ENDPOINT', 'yes');
  const [sdk, ours] = (CASES['DynamoDB GetItem'] as (r: string) => [never, () => Promise<unknown>])(
    'sa-east-1',
  );
  const expected = await sdkUrl(sdk);
  expect(expected).toBe('https://dynamodb.sa-east-1.amazonaws.com/');
  await expect(ourUrl(ours)).resolves.toBe(expected);
});

it.each(REGIONS)("puts %s in the SDK's partition", (region) => {
  const { name, dnsSuffix, dualStackDnsSuffix } = partition(region);
  expect(partitionOf(region)).toEqual({ name, dnsSuffix, dualStackDnsSuffix });
});
