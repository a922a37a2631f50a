/**
 * The sandbox upstream: a local stand-in for the production upstream (ABC EVO) and for the lead
 * platforms' APIs the sources call (Meta Graph, TikTok, Kommo), on node:http alone. Production
 * has no test environment; this one behaves like it where it is known (docs/upstream.md) and can
 * be made to misbehave on purpose (`POST /_sandbox/faults`).
 *
 * This file is the assembly: `createSandbox` builds the state (state.ts) and the HTTP server,
 * and `handle` sends each request to its room:
 * - `/api/*` → api-routes.ts: the EVO API (`POST|GET /api/v1/prospects` in prospects-route.ts,
 *   `GET /api/v1/receivables/debtors` in debtors-route.ts), behind admission.ts (Basic auth,
 *   rate limits, the error fault) and the faults of faults.ts;
 * - `/_sandbox/*` → control-routes.ts: set the sandbox up and read what it saw, without auth.
 *   The sandbox is meant to listen on loopback only (the default host is 127.0.0.1); never
 *   expose it;
 * - anything else → platform-routes.ts: `/graph/...` (meta-leads.ts), `/tiktok/...`
 *   (tiktok-leads.ts), `/kommo/...` (kommo.ts), or 404.
 * Every room reads bodies and answers through exchange.ts, which records the stats (stats.ts).
 *
 * The answer to any input is an HTTP answer: the handler never throws out of the server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { routeApi } from './api-routes.ts';
import { routeControl } from './control-routes.ts';
import { type Exchange, JSON_TYPE, json, readBody } from './exchange.ts';
import { routePlatform } from './platform-routes.ts';
import { createSandboxState, type SandboxState } from './state.ts';

export interface SandboxOptions {
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Basic auth user, default 'demo'. */
  username?: string;
  /** Basic auth password, default 'demo'. */
  password?: string;
  /**
   * More accepted credentials (the other upstream accounts of a local configuration). Each user
   * has its own rate-limit windows, as each EVO key has upstream.
   */
  users?: readonly { username: string; password: string }[];
  /** Demo debtors; default 180 rows over branches [1, 2, 3], seed 42. */
  debtors?: { count?: number; branches?: number[]; seed?: number };
  /**
   * Clock for dates: debtors' dates and daysLate, prospects' receivedAt, Meta leads' default
   * created_time. Default real time. Rate limits, latency and stats always use real time.
   */
  now?: () => Date;
}

export interface Sandbox {
  url: string;
  port: number;
  /** Replaces the extra credentials (`users`) accepted besides `username`/`password`. */
  acceptUsers(users: readonly { username: string; password: string }[]): void;
  close(): Promise<void>;
}

/** Sends one request to its room by path. */
async function handle(state: SandboxState, req: IncomingMessage, res: ServerResponse) {
  const method = (req.method ?? 'GET').toUpperCase();
  const ex: Exchange = {
    req,
    res,
    outlet: state,
    method,
    route: `${method} (unmatched)`,
    arrivedAt: Date.now(),
    latencyMs: 0,
    answered: false,
  };

  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  } catch {
    const body = await readBody(req);
    if (body.aborted) return;
    return json(ex, 400, { status: 400, error: 'Bad Request' }, { connection: 'close' });
  }
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
  const lower = path.toLowerCase();

  if (lower === '/_sandbox' || lower.startsWith('/_sandbox/')) {
    return routeControl(state, ex, lower);
  }
  if (lower.startsWith('/api/')) return routeApi(state, ex, url, lower);
  return routePlatform(state, ex, url, path, lower);
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const main = { username: options.username ?? 'demo', password: options.password ?? 'demo' };
  const host = options.host ?? '127.0.0.1';
  const state = createSandboxState({
    users: [main, ...(options.users ?? [])],
    debtors: options.debtors,
    now: options.now,
  });

  const server = createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => {
      console.error('[sandbox] unexpected error', error);
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': JSON_TYPE });
        res.end(JSON.stringify({ status: 500, error: 'Internal Server Error' }));
      }
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code !== 'ECONNRESET' && socket.writable) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    } else {
      socket.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    acceptUsers(extra) {
      state.users = [main, ...extra];
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        state.delays.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
