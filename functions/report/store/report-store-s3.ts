/**
 * The report store on AWS: three objects per upstream account in the report bucket, under
 * `debtors/` for the account `default` and `debtors/accounts/<name>/` for the others.
 *
 * | key                       | body                                 | written                    |
 * |---------------------------|--------------------------------------|----------------------------|
 * | `debtors/current.json`    | the snapshot, gzip-compressed JSON   | once per successful refresh |
 * | `debtors/status.json`     | the refresh status, JSON             | start, success, failure    |
 * | `debtors/checkpoint.json` | `{checkpoint, rows}`, gzip JSON      | when a refresh is cut short |
 *
 * Why S3 and not DynamoDB: a snapshot of 5,000 rows is megabytes of JSON, far beyond a DynamoDB
 * item's 400 KB; one PutObject replaces an object in one step (readers get the old object or
 * the new one, never a mix), and bucket versioning keeps earlier snapshots for recovery.
 *
 * The snapshot's ETag is the hash of its uncompressed JSON (contentEtag), kept in the object's
 * metadata (`x-amz-meta-content-etag`) so a reader need not hash megabytes; S3's own ETag is a
 * hash of the compressed bytes and not used. A missing object reads as undefined (a fresh
 * deploy has none): that needs s3:ListBucket on the prefix, without which S3 answers 403
 * instead of 404 (infra/constructs/debtors-report.ts grants it).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DebtorsSnapshot } from '../../domain/debtors-report.ts';
import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import type { S3 } from '../../kernel/s3-aws.ts';
import type {
  RefreshCheckpoint,
  RefreshStatus,
  ReportStore,
  ReportStores,
  StoredSnapshot,
} from './report-store.ts';
import { contentEtag, parseCheckpoint, parseSnapshot, parseStatus } from './report-store-file.ts';

export const REPORT_PREFIX = 'debtors/';

/** The objects of an account's report (`default` keeps the keys it had before accounts). */
export function reportKeys(account = DEFAULT_ACCOUNT) {
  const prefix =
    account === DEFAULT_ACCOUNT ? REPORT_PREFIX : `${REPORT_PREFIX}accounts/${account}/`;
  return {
    current: `${prefix}current.json`,
    status: `${prefix}status.json`,
    checkpoint: `${prefix}checkpoint.json`,
  } as const;
}
export const REPORT_KEYS = reportKeys();

/** Object metadata holding the snapshot's ETag (S3 lower-cases metadata names). */
export const ETAG_METADATA = 'content-etag';

const JSON_TYPE = 'application/json; charset=utf-8';
const GZIP_MAGIC = [0x1f, 0x8b];

export interface S3ReportStoreOptions {
  client: S3;
  bucket: string;
  /** The upstream account whose report this is (default `default`). */
  account?: string;
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/**
 * Gzip bodies are recognised by their magic bytes, so a plain JSON object reads too, and so does
 * a gzip object whichever way it arrives: as stored (gzip) or already unzipped (Node's fetch
 * undoes the `content-encoding: gzip` S3 answers with).
 */
function unzip(bytes: Uint8Array): string {
  const gzipped = bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
  return Buffer.from(gzipped ? gunzipSync(bytes) : bytes).toString('utf8');
}

export function createS3ReportStore({
  client,
  bucket,
  account,
}: S3ReportStoreOptions): ReportStore {
  if (!bucket) throw new TypeError('createS3ReportStore: bucket is required');
  const REPORT_KEYS = reportKeys(account);

  async function get(
    key: string,
  ): Promise<{ text: string; metadata: Record<string, string> } | undefined> {
    try {
      const answer = await client.getObject({ Bucket: bucket, Key: key });
      return { text: unzip(answer.body), metadata: answer.metadata };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async function put(
    key: string,
    text: string,
    options: { gzip: boolean; metadata?: Record<string, string> },
  ): Promise<void> {
    await client.putObject({
      Bucket: bucket,
      Key: key,
      Body: options.gzip ? gzipSync(text) : text,
      ContentType: JSON_TYPE,
      ...(options.gzip && { ContentEncoding: 'gzip' }),
      CacheControl: 'no-store',
      ...(options.metadata && { Metadata: options.metadata }),
    });
  }

  const where = (key: string) => `s3://${bucket}/${key}`;

  return {
    async readSnapshot(): Promise<StoredSnapshot | undefined> {
      const object = await get(REPORT_KEYS.current);
      if (!object) return undefined;
      const snapshot = parseSnapshot(object.text, where(REPORT_KEYS.current));
      return { snapshot, etag: object.metadata[ETAG_METADATA] ?? contentEtag(object.text) };
    },

    async writeSnapshot(snapshot: DebtorsSnapshot): Promise<StoredSnapshot> {
      const text = JSON.stringify(snapshot);
      const etag = contentEtag(text);
      await put(REPORT_KEYS.current, text, { gzip: true, metadata: { [ETAG_METADATA]: etag } });
      return { snapshot, etag };
    },

    async readStatus(): Promise<RefreshStatus> {
      const object = await get(REPORT_KEYS.status);
      return object ? parseStatus(object.text, where(REPORT_KEYS.status)) : { failures: 0 };
    },

    async writeStatus(status: RefreshStatus): Promise<void> {
      await put(REPORT_KEYS.status, JSON.stringify(status), { gzip: false });
    },

    async readCheckpoint() {
      const object = await get(REPORT_KEYS.checkpoint);
      return object ? parseCheckpoint(object.text, where(REPORT_KEYS.checkpoint)) : undefined;
    },

    async writeCheckpoint(checkpoint: RefreshCheckpoint, rows: readonly unknown[]): Promise<void> {
      await put(REPORT_KEYS.checkpoint, JSON.stringify({ checkpoint, rows }), { gzip: true });
    },

    async clearCheckpoint(): Promise<void> {
      await client.deleteObject({ Bucket: bucket, Key: REPORT_KEYS.checkpoint });
    },
  };
}

/** Every account's store in the bucket, each made once (it keeps no state of its own). */
export function s3ReportStores(options: Omit<S3ReportStoreOptions, 'account'>): ReportStores {
  const stores = new Map<string, ReportStore>();
  return (account) => {
    let store = stores.get(account);
    if (!store) {
      store = createS3ReportStore({ ...options, account });
      stores.set(account, store);
    }
    return store;
  };
}
