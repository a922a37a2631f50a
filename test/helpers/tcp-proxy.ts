/**
 * A TCP proxy in front of a local server, for outages that look like the real thing: `refuse()`
 * closes the listening socket and cuts every open connection, so callers get ECONNREFUSED (the
 * upstream's host is down); `accept()` listens again on the same port.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: give this to the client instead of the target. */
  url: string;
  /** Stops accepting: new connections are refused, open ones are cut. */
  refuse(): Promise<void>;
  /** Accepts again, on the same port. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let port = 0;
  let server: Server | undefined;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        const address = next.address();
        port = typeof address === 'object' && address ? address.port : port;
        server = next;
        resolve();
      });
    });

  const stop = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (!current) return resolve();
      current.close(() => resolve());
    });

  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    refuse: stop,
    accept: async () => {
      if (!server) await listen();
    },
    close: stop,
  };
}
