/**
 * One request and its answer, the way every sandbox route reads and answers: the body read with
 * its limits (`readBody`), and the answer written once (`send`, `json`, `noContent`,
 * `adminError`, or `destroy` for an outage). Answering records the request in the stats (unless
 * it is a control route) and waits the latency fault first; after `Delays.close()` nothing more
 * is written, so a closing sandbox never answers late.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IssueDetail } from '../functions/domain/json.ts';
import type { RequestStats } from './stats.ts';

/** Bodies above 1 MB are refused with 413. */
export const BODY_LIMIT_BYTES = 1_048_576;
/** Beyond this, the sandbox stops reading, answers 413 and closes the connection. */
const DRAIN_LIMIT_BYTES = 8 * BODY_LIMIT_BYTES;

export const JSON_TYPE = 'application/json; charset=utf-8';

export interface RequestBody {
  bytes: Buffer;
  /** Over BODY_LIMIT_BYTES (answer 413). */
  tooLarge: boolean;
  /** Over DRAIN_LIMIT_BYTES: reading stopped, the connection is closed after the answer. */
  overflow: boolean;
  /** The client went away before the body ended: nobody to answer. */
  aborted: boolean;
}

export function readBody(req: IncomingMessage): Promise<RequestBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: Omit<RequestBody, 'bytes'>) => {
      if (done) return;
      done = true;
      resolve({ ...result, bytes: result.tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks) });
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
      else chunks.length = 0;
      if (size > DRAIN_LIMIT_BYTES) {
        req.pause();
        finish({ tooLarge: true, overflow: true, aborted: false });
      }
    });
    req.on('end', () =>
      finish({ tooLarge: size > BODY_LIMIT_BYTES, overflow: false, aborted: false }),
    );
    req.on('error', () => finish({ tooLarge: false, overflow: false, aborted: true }));
    req.on('close', () => finish({ tooLarge: false, overflow: false, aborted: !req.complete }));
  });
}

/** The latency fault's waits, all ended at once when the sandbox closes. */
export class Delays {
  #pending = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  #closed = false;

  /** True once the sandbox is closing: answers are no longer written. */
  get closed(): boolean {
    return this.#closed;
  }

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.#pending.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      this.#pending.add(entry);
    });
  }

  close(): void {
    this.#closed = true;
    for (const entry of this.#pending) {
      clearTimeout(entry.timer);
      entry.resolve();
    }
    this.#pending.clear();
  }
}

/** Where answers go besides the socket: the stats, and the latency waits. */
export interface Outlet {
  readonly stats: RequestStats;
  readonly delays: Delays;
}

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  outlet: Outlet;
  method: string;
  /** Stats route pattern; undefined for /_sandbox/* (not counted). */
  route: string | undefined;
  arrivedAt: number;
  /** Delay before answering (latency fault, API routes only). */
  latencyMs: number;
  answered: boolean;
  /** RequestRecord.email. */
  email?: string;
}

export async function send(
  ex: Exchange,
  status: number,
  body: string | undefined,
  headers: Record<string, string> = {},
): Promise<void> {
  if (ex.answered) return;
  ex.answered = true;
  if (ex.route) {
    ex.outlet.stats.record({
      at: ex.arrivedAt,
      method: ex.method,
      route: ex.route,
      status,
      ...(ex.email !== undefined && { email: ex.email }),
    });
  }
  if (ex.latencyMs > 0) await ex.outlet.delays.wait(ex.latencyMs);
  const { res } = ex;
  if (ex.outlet.delays.closed || res.destroyed || res.writableEnded) return;
  const payload = body ?? '';
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(payload)) });
  res.end(payload);
}

export function json(
  ex: Exchange,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): Promise<void> {
  return send(ex, status, JSON.stringify(value), { 'content-type': JSON_TYPE, ...headers });
}

export function noContent(ex: Exchange): Promise<void> {
  return send(ex, 204, undefined);
}

/** A control route's error: `{error: {code, message, details}}`. */
export function adminError(
  ex: Exchange,
  status: number,
  code: string,
  message: string,
  details: readonly (IssueDetail | string)[] = [],
): Promise<void> {
  return json(ex, status, { error: { code, message, details } });
}

/** The outage fault: no answer at all, the connection is dropped (recorded with status 0). */
export function destroy(ex: Exchange): void {
  ex.answered = true;
  if (ex.route) {
    ex.outlet.stats.record({ at: ex.arrivedAt, method: ex.method, route: ex.route, status: 0 });
  }
  ex.req.socket.destroy();
}

/** 404 `{status, error}`, as ASP.NET answers an unknown path. */
export function notFound(ex: Exchange): Promise<void> {
  return json(ex, 404, { status: 404, error: 'Not Found' });
}

/** 405 `{status, error}`, with an `Allow` header when the route's methods are given. */
export function methodNotAllowed(ex: Exchange, allow?: string): Promise<void> {
  const headers: Record<string, string> = allow === undefined ? {} : { allow };
  return json(ex, 405, { status: 405, error: 'Method Not Allowed' }, headers);
}
