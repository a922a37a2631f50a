/**
 * The HTTP helpers the report serves with (functions/report/serve/http-cache.ts) and the AWS wiring's
 * snapshot reuse: ETag matching, Accept-Encoding negotiation, the response size limit.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import type { DebtorsSnapshot } from '../../../functions/domain/debtors-report.ts';
import type { HttpRequest } from '../../../functions/kernel/http.ts';
import {
  acceptsGzip,
  encodeResponse,
  entityTag,
  fitsResponseLimit,
  ifNoneMatchHits,
  LAMBDA_RESPONSE_LIMIT_BYTES,
  MAX_RESPONSE_BYTES,
  notModified,
  serialisedSize,
} from '../../../functions/report/serve/http-cache.ts';
import { reuseSnapshot } from '../../../functions/report/serve/wiring-aws.ts';

function request(headers: Record<string, string> = {}): HttpRequest {
  return {
    method: 'GET',
    headers,
    query: {},
    body: Buffer.alloc(0),
    contentType: '',
    receivedAt: new Date(),
  };
}

const POLICY = { etag: entityTag('"abc"', 'json'), cacheControl: 'private, max-age=60' };

describe('entity tags', () => {
  it('are weak, stable and change with any part', () => {
    expect(POLICY.etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(entityTag('"abc"', 'json')).toBe(POLICY.etag);
    expect(entityTag('"abc"', 'csv')).not.toBe(POLICY.etag);
    expect(entityTag('"abd"', 'json')).not.toBe(POLICY.etag);
  });

  it('match If-None-Match weakly, in a list, or as *', () => {
    const opaque = POLICY.etag.slice(2);
    expect(ifNoneMatchHits(POLICY.etag, POLICY.etag)).toBe(true);
    expect(ifNoneMatchHits(opaque, POLICY.etag)).toBe(true);
    expect(ifNoneMatchHits(`"x", ${POLICY.etag}`, POLICY.etag)).toBe(true);
    expect(ifNoneMatchHits('*', POLICY.etag)).toBe(true);
    expect(ifNoneMatchHits('"x"', POLICY.etag)).toBe(false);
    expect(ifNoneMatchHits(undefined, POLICY.etag)).toBe(false);
    expect(notModified(request({ 'if-none-match': POLICY.etag }), POLICY)).toMatchObject({
      statusCode: 304,
      headers: { etag: POLICY.etag, vary: 'Accept-Encoding, Authorization' },
    });
  });
});

describe('Accept-Encoding', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.5', true],
    ['x-gzip', true],
    ['*', true],
    ['*;q=0.1', true],
    ['GZIP', true],
    ['gzip;q=0', false],
    ['gzip;q=0, *', false],
    ['br, *;q=0', false],
    ['identity', false],
    ['br', false],
    ['', false],
  ])('%j allows gzip: %s', (header, allowed) => {
    expect(acceptsGzip(header)).toBe(allowed);
  });

  it('leaves small bodies alone and gzips the rest as base64', () => {
    const small = encodeResponse(
      request({ 'accept-encoding': 'gzip' }),
      { statusCode: 200, headers: {}, body: 'tiny' },
      POLICY,
    );
    expect(small.isBase64Encoded).toBeUndefined();
    const text = 'Conceição '.repeat(500);
    const big = encodeResponse(
      request({ 'accept-encoding': 'gzip' }),
      { statusCode: 200, headers: { 'content-type': 'text/plain' }, body: text },
      POLICY,
    );
    expect(big.headers?.['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(big.body, 'base64')).toString('utf8')).toBe(text);
  });
});

describe('the response size limit', () => {
  it('stays under Lambda’s 6 MB and counts the serialised result', () => {
    expect(MAX_RESPONSE_BYTES).toBeLessThan(LAMBDA_RESPONSE_LIMIT_BYTES);
    const justUnder = { statusCode: 200, body: 'a'.repeat(MAX_RESPONSE_BYTES - 100) };
    expect(fitsResponseLimit(justUnder)).toBe(serialisedSize(justUnder) <= MAX_RESPONSE_BYTES);
    // Line breaks take two bytes once serialised: a body under the limit in characters can be over it.
    const escapes = { statusCode: 200, body: '\r\n'.repeat(MAX_RESPONSE_BYTES / 3) };
    expect(escapes.body.length).toBeLessThan(MAX_RESPONSE_BYTES);
    expect(fitsResponseLimit(escapes)).toBe(false);
  });
});

describe('reuseSnapshot (AWS wiring)', () => {
  it('reads the snapshot again only after the reuse period, and the status every time', async () => {
    let now = 0;
    const stored = { snapshot: {} as DebtorsSnapshot, etag: '"1"' };
    const store = {
      readSnapshot: vi.fn(async () => stored),
      readStatus: vi.fn(async () => ({ failures: 0 })),
    };
    const reused = reuseSnapshot(store, 15_000, () => now);
    await reused.readSnapshot();
    now = 14_999;
    await reused.readSnapshot();
    await reused.readStatus();
    await reused.readStatus();
    expect(store.readSnapshot).toHaveBeenCalledTimes(1);
    expect(store.readStatus).toHaveBeenCalledTimes(2);
    now = 15_000;
    await reused.readSnapshot();
    expect(store.readSnapshot).toHaveBeenCalledTimes(2);
  });

  it('does not remember that there is no snapshot yet', async () => {
    const store = {
      readSnapshot: vi.fn(async () => undefined),
      readStatus: async () => ({ failures: 0 }),
    };
    const reused = reuseSnapshot(store, 15_000, () => 0);
    await reused.readSnapshot();
    await reused.readSnapshot();
    expect(store.readSnapshot).toHaveBeenCalledTimes(2);
  });
});
