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
import { setTimeout as delay } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import type { SandboxStats } from '../sandbox/server.ts';
import { createSandbox } from '../sandbox/server.ts';
import type { PostedLead } from './accounts-report.ts';
import { progress } from './lib.ts';

export interface LeadToPost {
  account: number;
  trickle: boolean;
  email: string;
  /** Where it is posted: the gateway's intake URL of its profile. */
  url: string;
  /** The landing page's origin (the profile allows it). */
  origin: string;
  body: string;
}

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

/** Posts every lead, POST_CONCURRENCY at a time; throws on any refusal. */
async function postAll(leads: readonly LeadToPost[]): Promise<PostedLead[]> {
  const posted: PostedLead[] = [];
  let next = 0;
  const worker = async () => {
    while (next < leads.length) {
      const item = leads[next++] as LeadToPost;
      const sentAt = Date.now();
      const started = performance.now();
      const response = await fetch(item.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: item.origin },
        body: item.body,
      });
      await response.arrayBuffer();
      if (response.status >= 300) throw new Error(`intake answered ${response.status}`);
      const roundTripMs = performance.now() - started;
      const { account, trickle, email } = item;
      posted.push({ email, account, trickle, sentAt, roundTripMs });
    }
  };
  await Promise.all(Array.from({ length: POST_CONCURRENCY }, worker));
  return posted;
}

async function stats(sandboxUrl: string): Promise<SandboxStats> {
  return (await (await fetch(`${sandboxUrl}/_sandbox/stats`)).json()) as SandboxStats;
}

/** Waits until the sandbox created every posted lead; the last stats read. */
async function drained(
  sandboxUrl: string,
  posted: readonly PostedLead[],
  timeoutMs: number,
): Promise<SandboxStats> {
  const emails = new Set(posted.map((p) => p.email.toLowerCase()));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await stats(sandboxUrl);
    const created = new Set(
      seen.requests
        .filter((r) => r.route === 'POST /api/v1/prospects' && r.status >= 200 && r.status < 300)
        .flatMap((r) => (r.email && emails.has(r.email) ? [r.email] : [])),
    );
    if (created.size >= emails.size || Date.now() > deadline) {
      if (created.size < emails.size) {
        progress(`accounts: ${created.size}/${emails.size} delivered before the timeout`);
      }
      return seen;
    }
    await delay(250);
  }
}

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
    const posted = [...(await postAll(message.post.first)), ...(await postAll(message.post.then))];
    port.postMessage({ posted });
  } else {
    const seen = await drained(sandbox.url, message.drain, data.drainTimeoutMs);
    port.postMessage({ requests: seen.requests });
  }
});
