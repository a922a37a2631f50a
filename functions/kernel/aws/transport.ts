/**
 * One HTTP exchange with AWS for http.ts: the request signed with Signature Version 4 by `aws4`
 * (node:crypto, synchronous), sent with node:http or node:https on their keep-alive agents, and
 * the whole answer read into memory within the attempt's deadline.
 *
 * Why not fetch and aws4fetch (which this replaced): measured on Node 20, a fresh process's first
 * DynamoDB call took 45-53 ms with them (WebCrypto's first signature, undici loading) and takes
 * 10.5-12.7 ms now; a later one 4.1 against 1.6 ms; init grows ~5 ms (node:http(s), aws4). The
 * local runtime, which runs every function on one thread, spent most of its time in fetch and
 * WebCrypto (docs/performance.md, the accounts bench).
 * Outside the tests' stand-in (answerAwsRequestsWith), nothing here touches fetch's Request,
 * Headers or Response: loading them costs ~25 ms of a cold start.
 *
 * What fetch did that the callers relied on is kept: redirects are answers (never followed), a
 * body that comes back gzip-, deflate- or br-encoded is decoded (S3 keeps an object's
 * Content-Encoding and serves it as stored), and an attempt past its deadline fails with an
 * error named `TimeoutError`.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import aws4 from 'aws4';

/** The parts of an answer's headers the readers use (fetch's Headers has the same). */
export interface AwsHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
  forEach(callback: (value: string, name: string) => void): void;
}

/** An answer, read whole: the parts of fetch's Response the readers use. */
export interface AwsResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: AwsHeaders;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface SignedRequestInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  service: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Header names lower case, repeated ones joined with ", " (as fetch's Headers.get does). */
class ResponseHeaders implements AwsHeaders {
  private readonly values = new Map<string, string>();
  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = (raw[i] as string).toLowerCase();
      const value = raw[i + 1] as string;
      const before = this.values.get(name);
      this.values.set(name, before === undefined ? value : `${before}, ${value}`);
    }
  }
  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const name of [...this.values.keys()].sort()) callback(this.values.get(name) ?? '', name);
  }
}

class BufferedResponse implements AwsResponse {
  constructor(
    readonly status: number,
    readonly headers: AwsHeaders,
    private readonly body: Buffer,
  ) {}
  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }
  async text(): Promise<string> {
    return this.body.toString('utf8');
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.body;
    return buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer;
  }
}

/** Undoes the content codings fetch undid; an unknown one (or a body that will not decode)
 * is left as it came. */
function decoded(body: Buffer, encoding: string | null): Buffer {
  const codings = (encoding ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  let out = body;
  try {
    for (const coding of codings.reverse()) {
      if (coding === 'gzip' || coding === 'x-gzip') out = gunzipSync(out);
      else if (coding === 'br') out = brotliDecompressSync(out);
      else if (coding === 'deflate') out = out[0] === 0x78 ? inflateSync(out) : inflateRawSync(out);
      else if (coding !== 'identity') return body;
    }
  } catch {
    return body;
  }
  return out;
}

const timeoutError = () =>
  Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });

/** A signed request, ready to send. */
export interface SignedRequest {
  url: URL;
  method: string;
  /** Path and query as signed. */
  path: string;
  headers: Record<string, string | number>;
  body: string | Uint8Array | undefined;
}

/** Signs `input` (throws on a URL it cannot parse: the same at every attempt). */
export function signRequest(input: SignedRequestInput): SignedRequest {
  const url = new URL(input.url);
  const signed = aws4.sign(
    {
      host: url.host,
      path: `${url.pathname}${url.search}`,
      method: input.method,
      service: input.service,
      region: input.region,
      headers: input.headers,
      ...(input.body !== undefined && { body: input.body as string }),
    },
    input.credentials,
  );
  return {
    url,
    method: input.method,
    path: signed.path ?? '/',
    headers: signed.headers as Record<string, string | number>,
    body: input.body,
  };
}

/**
 * Tests only: a fetch-shaped function that answers the requests instead of the network (tests
 * of the wirings call AWS's regional endpoints, which a test cannot reach). Unset: the network.
 */
let answeredBy: typeof fetch | undefined;
export function answerAwsRequestsWith(fetchLike: typeof fetch | undefined): void {
  answeredBy = fetchLike;
}

async function exchangeWith(
  fetchLike: typeof fetch,
  signed: SignedRequest,
  deadlineMs: number,
): Promise<AwsResponse> {
  const headers = Object.fromEntries(
    Object.entries(signed.headers).map(([name, value]) => [name, String(value)]),
  );
  const answer = await fetchLike(
    new Request(new URL(signed.path, signed.url), {
      method: signed.method,
      headers,
      ...(signed.body !== undefined && { body: signed.body }),
    }),
    { redirect: 'manual', signal: AbortSignal.timeout(deadlineMs) },
  );
  const body = Buffer.from(await answer.arrayBuffer());
  return new BufferedResponse(answer.status, answer.headers, body);
}

/** Benches only: told of every answered request (the accounts bench counts what AWS is asked). */
let observer: ((request: SignedRequest, status: number) => void) | undefined;
export function observeAwsRequests(
  listener: ((request: SignedRequest, status: number) => void) | undefined,
): void {
  observer = listener;
}

/** Sends a signed request; the answer read whole within `deadlineMs`, or the transport's error. */
export async function exchange(signed: SignedRequest, deadlineMs: number): Promise<AwsResponse> {
  const response = await (answeredBy
    ? exchangeWith(answeredBy, signed, deadlineMs)
    : exchangeHttp(signed, deadlineMs));
  observer?.(signed, response.status);
  return response;
}

function exchangeHttp(signed: SignedRequest, deadlineMs: number): Promise<AwsResponse> {
  const { url } = signed;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AwsResponse>((resolve, reject) => {
    const req = send({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port,
      method: signed.method,
      path: signed.path,
      headers: signed.headers,
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(timeoutError());
    }, deadlineMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(timedOut ? timeoutError() : error);
    };
    req.once('error', fail);
    req.once('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', fail);
      res.once('close', () => {
        if (!res.complete) fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      });
      res.once('end', () => {
        clearTimeout(timer);
        const headers = new ResponseHeaders(res.rawHeaders);
        const body = decoded(Buffer.concat(chunks), headers.get('content-encoding'));
        resolve(new BufferedResponse(res.statusCode ?? 0, headers, body));
      });
    });
    req.end(signed.body);
  });
}
