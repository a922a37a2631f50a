/**
 * The accounts bench's outside world, in a worker thread of its own (accounts-run.ts starts
 * it): the sandbox upstream, the landing pages that POST the leads, and the watch on the
 * sandbox until it has created every one. On AWS these are other machines; here they run
 * beside the local runtime's thread instead of on it, so the bench measures the runtime's work
 * (its handlers, workers and local DynamoDB), not the load generator's.
 *
 * Messages: it answers `{ sandboxUrl }` once listening; then `{ post }` with the leads' list →
 * `{ posted }`; `{ drain }` → `{ requests }` (what the sandbox saw, once it created every posted
 * lead or the timeout passed); `'close'` stops the sandbox and ends the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createSandbox } from '../sandbox/server.ts';
import type { PostedLead } from './accounts-report.ts';
import { drained, type LeadToPost, postAll } from './landing.ts';

export interface OutsideData {
  users: { username: string; password: string }[];
  perSecond: number;
  drainTimeoutMs: number;
}

export type OutsideRequest =
  | { post: { first: LeadToPost[]; then: LeadToPost[] } }
  | { drain: PostedLead[] }
  | 'close';

/** POSTs in flight at once: a busy landing page, not a load test of the gateway. */
const POST_CONCURRENCY = 8;

const port = parentPort;
if (!port) throw new Error('accounts-outside.ts runs as a worker thread (accounts-run.ts)');
const data = workerData as OutsideData;
const sandbox = await createSandbox({ users: data.users });
const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});
// Each key limited as the configuration paces it; then a clean slate for the measurement.
await fetch(
  `${sandbox.url}/_sandbox/faults`,
  json({ perSecond: data.perSecond, perMinute: data.perSecond * 60 }),
);
port.postMessage({ sandboxUrl: sandbox.url });

port.on('message', async (message: OutsideRequest) => {
  if (message === 'close') {
    await sandbox.close();
    port.close();
  } else if ('post' in message) {
    await fetch(`${sandbox.url}/_sandbox/stats`, { method: 'DELETE' });
    await fetch(`${sandbox.url}/_sandbox/rate-limit`, { method: 'DELETE' });
    const posted = [
      ...(await postAll(message.post.first, POST_CONCURRENCY)),
      ...(await postAll(message.post.then, POST_CONCURRENCY)),
    ];
    port.postMessage({ posted });
  } else {
    const emails = new Set(message.drain.map((p) => p.email.toLowerCase()));
    const seen = await drained(sandbox.url, emails, data.drainTimeoutMs);
    port.postMessage({ requests: seen.requests });
  }
});
