/**
 * Conditional and compressed GET answers for Lambda proxy handlers: weak ETags and
 * `If-None-Match` (304), gzip when `Accept-Encoding` allows it (base64 body, `isBase64Encoded`),
 * and the size a Lambda response can carry. No AWS SDK imports.
 *
 * Size: a synchronous Lambda response is at most 6 MB (6,291,456 bytes) counted over the whole
 * serialised proxy result, so a gzip body counts as its base64 (4/3 of it) and a text body with
 * its JSON escapes. API Gateway's 10 MB is then never the binding limit. We keep every answer
 * under MAX_RESPONSE_BYTES, which leaves room for headers and the envelope.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Headers, HttpRequest, HttpResponse } from '../../kernel/http.ts';

/** Lambda's synchronous response limit. */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;
/** Our budget for one serialised proxy result (5 MiB): well under Lambda's 6 MB. */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
/** Bodies smaller than this are not worth compressing. */
export const MIN_GZIP_BYTES = 1024;

/**
 * A weak ETag over `parts` (the stored snapshot's etag, the variant, the normalised query...).
 * Weak because the same representation is sent gzip-compressed or not.
 */
export function entityTag(...parts: readonly string[]): string {
  const hash = createHash('sha256').update(parts.join('\0')).digest('base64url').slice(0, 27);
  return `W/"${hash}"`;
}

function opaqueTag(tag: string): string {
  return tag.trim().replace(/^W\//, '');
}

/** Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2) or is `*`. */
export function ifNoneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const wanted = opaqueTag(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaqueTag(tag) === wanted);
}

/**
 * Whether `Accept-Encoding` allows gzip: `gzip` (or `x-gzip`) with a non-zero q-value, or `*`
 * with a non-zero q-value when gzip is not listed. No header means identity only.
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  let gzip: number | undefined;
  let star: number | undefined;
  for (const part of acceptEncoding.split(',')) {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    const weight = Number.isFinite(q) ? q : 0;
    if (coding === 'gzip' || coding === 'x-gzip') gzip = weight;
    else if (coding === '*') star = weight;
  }
  return (gzip ?? star ?? 0) > 0;
}

/** The bytes the proxy result takes once Lambda serialises it. */
export function serialisedSize(result: HttpResponse): number {
  return Buffer.byteLength(JSON.stringify(result), 'utf8');
}

export function fitsResponseLimit(result: HttpResponse, limit = MAX_RESPONSE_BYTES): boolean {
  // Cheap bound first: one UTF-16 unit serialises to at most 6 bytes (`\u001f`), so a body far
  // below the limit cannot push the result over it.
  const body = result.body ?? '';
  if (body.length * 6 + 16_384 < limit) return true;
  return serialisedSize(result) <= limit;
}

export interface CacheableResponse {
  statusCode: number;
  headers: Headers;
  body: string;
}

export interface CachePolicy {
  etag: string;
  /** `Cache-Control` of the 200 and the 304. */
  cacheControl: string;
}

/** The headers every cacheable answer (200 and 304) carries. */
export function cacheHeaders(policy: CachePolicy): Headers {
  return {
    etag: policy.etag,
    'cache-control': policy.cacheControl,
    vary: 'Accept-Encoding, Authorization',
  };
}

/** 304 Not Modified when the request's `If-None-Match` names the ETag, else undefined. */
export function notModified(request: HttpRequest, policy: CachePolicy): HttpResponse | undefined {
  if (!ifNoneMatchHits(request.headers['if-none-match'], policy.etag)) return undefined;
  return { statusCode: 304, headers: cacheHeaders(policy), body: '' };
}

/**
 * The answer as Lambda returns it: gzip-compressed (base64) when the client accepts gzip and
 * the body is worth it, plain text otherwise; with the cache headers.
 */
export function encodeResponse(
  request: HttpRequest,
  response: CacheableResponse,
  policy: CachePolicy,
): HttpResponse {
  const headers = { ...response.headers, ...cacheHeaders(policy) };
  const bytes = Buffer.byteLength(response.body, 'utf8');
  if (bytes >= MIN_GZIP_BYTES && acceptsGzip(request.headers['accept-encoding'])) {
    const gzipped = gzipSync(Buffer.from(response.body, 'utf8'));
    return {
      statusCode: response.statusCode,
      headers: { ...headers, 'content-encoding': 'gzip' },
      body: gzipped.toString('base64'),
      isBase64Encoded: true,
    };
  }
  return { statusCode: response.statusCode, headers, body: response.body };
}
