/**
 * A tiny scripted HTTP server on loopback for the upstream client's tests. Each request takes
 * the next scripted reply (FIFO); with none left it answers 599 so a missing script is loud.
 * Every request is recorded with its method, URL, headers and body.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as is; objects are JSON-encoded. */
  body?: string | object;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Destroy the socket instead of answering (connection reset). */
  reset?: boolean;
}

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface StubServer {
  url: string;
  requests: RecordedRequest[];
  /** Queues replies for the next requests, in order. */
  reply(...replies: StubReply[]): void;
  close(): Promise<void>;
}

export async function startStubServer(): Promise<StubServer> {
  const script: StubReply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://stub'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const next = script.shift() ?? { status: 599, body: 'no scripted reply' };
      const answer = (): void => {
        if (next.reset) {
          req.socket.destroy();
          return;
        }
        const body =
          next.body === undefined
            ? ''
            : typeof next.body === 'string'
              ? next.body
              : JSON.stringify(next.body);
        res.writeHead(next.status ?? 200, {
          ...(typeof next.body === 'object' ? { 'content-type': 'application/json' } : {}),
          ...next.headers,
        });
        res.end(body);
      };
      if (next.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          answer();
        }, next.delayMs);
        timers.add(timer);
      } else {
        answer();
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(...replies) {
      script.push(...replies);
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
