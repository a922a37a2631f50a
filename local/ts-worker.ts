/**
 * A worker thread running a TypeScript module of this repository (the local DynamoDB's thread,
 * the benches' outside world). Node 20 does not apply a worker's `--import tsx` to its entry
 * file, so the thread's code loads tsx's loader API and imports the entry through it.
 * Local-only: never imported by a Lambda.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** Starts `entry` (a file: URL of a .ts module) in a worker thread with `workerData`. */
export function startTsWorker(entry: URL, workerData: unknown): Worker {
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx'));
  const api = JSON.stringify(new URL('./esm/api/index.mjs', loader).href);
  const file = JSON.stringify(entry.href);
  const source = `import(${api}).then(({ tsImport }) => tsImport(${file}, ${file}))`;
  return new Worker(source, { eval: true, workerData });
}

/** The worker's next message (rejects if it fails or ends first). */
export function nextMessage<T>(worker: Worker): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: T) => {
      cleanup();
      resolve(message);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new Error(`the worker thread ended (${code})`));
    };
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}
