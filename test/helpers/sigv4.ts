/**
 * Checks a request's Signature Version 4 the way the service does, with node:crypto and none of
 * aws4's code: the tests' way to tell a signature that AWS would accept from one it would
 * refuse (s3rver and the test servers do not check signatures themselves).
 *
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface ReceivedRequest {
  method: string;
  /** The request target as received: path and query, still percent-encoded. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Uint8Array;
}

export interface SignatureParts {
  accessKeyId: string;
  /** `yyyymmdd/region/service/aws4_request` */
  scope: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

/** The parts of an `Authorization: AWS4-HMAC-SHA256 ...` header, or undefined. */
export function parseAuthorization(header: string | undefined): SignatureParts | undefined {
  const match = header ? AUTH.exec(header) : null;
  if (!match) return undefined;
  const [, accessKeyId = '', date = '', region = '', service = '', signed = '', signature = ''] =
    match;
  return {
    accessKeyId,
    scope: `${date}/${region}/${service}/aws4_request`,
    date,
    region,
    service,
    signedHeaders: signed.split(';'),
    signature,
  };
}

/** AWS's UriEncode: everything but `A-Z a-z 0-9 - _ . ~` percent-encoded, upper-case hex. */
const uriEncode = (text: string) =>
  encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

function canonicalUri(rawPath: string, service: string): string {
  const segments = rawPath.split('/');
  // S3 signs each segment of the key encoded once; the other services encode the path as sent
  // once more.
  return service === 's3'
    ? segments.map((segment) => uriEncode(decodeURIComponent(segment))).join('/')
    : segments.map(uriEncode).join('/');
}

function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return '';
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const [name = '', value = ''] = pair.split('=');
      const decode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
      return [uriEncode(decode(name)), uriEncode(decode(value))] as const;
    })
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

const hmac = (key: string | Buffer, text: string) =>
  createHmac('sha256', key).update(text, 'utf8').digest();

/**
 * Whether the request's signature is the one `secretAccessKey` makes of what was received.
 * Returns the reason when it is not.
 */
export function checkSignature(
  request: ReceivedRequest,
  secretAccessKey: string,
): { ok: true; parts: SignatureParts } | { ok: false; reason: string } {
  const parts = parseAuthorization(request.headers.authorization);
  if (!parts) return { ok: false, reason: 'no AWS4-HMAC-SHA256 Authorization header' };
  const amzDate = request.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !amzDate.startsWith(parts.date)) {
    return { ok: false, reason: 'x-amz-date missing or not the scope date' };
  }
  if (!parts.signedHeaders.includes('host')) return { ok: false, reason: 'host is not signed' };
  const [rawPath = '/', rawQuery = ''] = request.url.split('?');
  const headerLines = parts.signedHeaders.map((name) => {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value.join(',') : (value ?? '');
    return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
  });
  const payloadHash =
    (request.headers['x-amz-content-sha256'] as string | undefined) ??
    createHash('sha256').update(request.body).digest('hex');
  const canonicalRequest = [
    request.method,
    canonicalUri(rawPath, parts.service),
    canonicalQuery(rawQuery),
    headerLines.join(''),
    parts.signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    parts.scope,
    createHash('sha256').update(canonicalRequest, 'utf8').digest('hex'),
  ].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${secretAccessKey}`, parts.date), parts.region), parts.service),
    'aws4_request',
  );
  const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  return expected === parts.signature
    ? { ok: true, parts }
    : { ok: false, reason: `signature mismatch; canonical request:\n${canonicalRequest}` };
}
