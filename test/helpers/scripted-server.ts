/**
 * A local HTTP server that records every request (method, URL, headers, body) and answers from a
 * script: each answer once, the last one for every request after it; `'reset'` drops the
 * connection instead, `'hang'` never answers (until the server closes). Or from a function of
 * the request (`respond`). For the wire tests of the functions' SDK client settings
 * (test/kernel/sdk-aws.test.ts).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** An answer of the server: status, body and headers, a dropped connection, or none. */
export type Answer = Reply | 'reset' | 'hang';
/** An answer with a status. */
export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface ScriptedServer {
  endpoint: string;
  received: Received[];
  /** Replaces the script and forgets what was received. */
  script(...answers: Answer[]): void;
  /** Answers every request with what `answer` makes of it (and forgets what was received). */
  respond(answer: (request: Received, index: number) => Answer): void;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const received: Received[] = [];
  let answers: Answer[] = [];
  let responder: ((request: Received, index: number) => Answer) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      const answer = responder
        ? responder(request, received.length - 1)
        : ((answers.length > 1 ? answers.shift() : answers[0]) ?? { status: 200 });
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    script(...list) {
      received.length = 0;
      answers = list;
      responder = undefined;
    },
    respond(answer) {
      received.length = 0;
      responder = answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
