/**
 * The local DynamoDB's thread (started by dynamodb-local.ts): dynalite-server.ts listening on
 * the port of `workerData`, with its data where `workerData.path` says (in memory without one).
 * Tells its parent `{ port }` once listening, or `{ error }` (a message) if it could not start;
 * on `'close'` it stops the server, waits until LevelDB is closed and ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type DynaliteServer, listenDynalite } from './dynalite-server.ts';

export interface DynaliteThreadData {
  path?: string;
  port: number;
}

const port = parentPort;
if (!port) throw new Error('dynalite-thread.ts runs as a worker thread (dynamodb-local.ts)');
const { path, port: listenPort } = workerData as DynaliteThreadData;

let server: DynaliteServer | undefined;
try {
  server = await listenDynalite(path, listenPort);
  port.postMessage({ port: server.port });
} catch (error) {
  port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  port.close();
}

port.on('message', async (message: unknown) => {
  if (message !== 'close') return;
  await server?.close().catch(() => undefined);
  port.close();
});
