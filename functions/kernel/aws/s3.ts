/**
 * S3 for the functions: GetObject, PutObject and DeleteObject over S3's REST API
 * (kernel/aws/http.ts). Virtual-hosted URLs (`https://<bucket>.s3.<region>.amazonaws.com/<key>`)
 * on AWS; path-style (`<endpoint>/<bucket>/<key>`) when an endpoint is given (a local S3).
 * Errors are S3's XML `<Code>` (`NoSuchKey`, `AccessDenied`), or `NotFound` for a 404 without
 * a body.
 */
import { AwsError, type AwsHttpOptions, createAwsHttp } from './http.ts';

export interface GetObjectOutput {
  /**
   * The object's content. Node's fetch undoes a `content-encoding` it knows (gzip, deflate, br)
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
 * `! ' ( ) *` as they are, which aws4fetch signs encoded).
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

async function parseXmlError(response: Response): Promise<AwsError> {
  const requestId = response.headers.get('x-amz-request-id') ?? undefined;
  const text = await response.text().catch(() => '');
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
  const message = unescapeXml(/<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? '');
  const fallback = response.status === 404 ? 'NotFound' : `Http${response.status}`;
  return new AwsError(code ?? fallback, message, response.status, requestId);
}

export function createS3(options: AwsHttpOptions = {}): S3 {
  // A report object is up to a few MB: more time per attempt than a DynamoDB item needs.
  const http = createAwsHttp('s3', (region) => `https://s3.${region}.amazonaws.com`, {
    attemptTimeoutMs: 20_000,
    ...options,
  });
  const url = (bucket: string, key: string) =>
    options.endpoint
      ? `${options.endpoint}/${bucket}/${encodeKey(key)}`
      : `https://${bucket}.s3.${http.region}.amazonaws.com/${encodeKey(key)}`;
  return {
    async getObject({ Bucket, Key }) {
      const response = await http.send(
        // identity: no compression on the way; a stored Content-Encoding still comes back
        // and fetch undoes it (GetObjectOutput.body).
        { method: 'GET', url: url(Bucket, Key), headers: { 'accept-encoding': 'identity' } },
        parseXmlError,
      );
      const metadata: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (name.startsWith('x-amz-meta-')) metadata[name.slice('x-amz-meta-'.length)] = value;
      });
      const contentType = response.headers.get('content-type');
      const contentEncoding = response.headers.get('content-encoding');
      return {
        body: new Uint8Array(await response.arrayBuffer()),
        metadata,
        ...(contentType && { contentType }),
        ...(contentEncoding && { contentEncoding }),
      };
    },
    async putObject(input) {
      const headers: Record<string, string> = {};
      if (input.ContentType) headers['content-type'] = input.ContentType;
      if (input.ContentEncoding) headers['content-encoding'] = input.ContentEncoding;
      if (input.CacheControl) headers['cache-control'] = input.CacheControl;
      for (const [name, value] of Object.entries(input.Metadata ?? {})) {
        headers[`x-amz-meta-${name.toLowerCase()}`] = value;
      }
      const response = await http.send(
        { method: 'PUT', url: url(input.Bucket, input.Key), headers, body: input.Body },
        parseXmlError,
      );
      await response.arrayBuffer();
    },
    async deleteObject({ Bucket, Key }) {
      const response = await http.send({ method: 'DELETE', url: url(Bucket, Key) }, parseXmlError);
      await response.arrayBuffer();
    },
  };
}
