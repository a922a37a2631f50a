/**
 * What the benches do from outside the system under test: landing pages posting leads to the
 * gateway, and the watch on the sandbox until it has created every one. No side effect at
 * import: accounts-outside.ts runs these in a worker thread, outage.ts in its own process.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { RequestRecord, SandboxStats } from '../sandbox/stats.ts';
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

/** A prospect the sandbox created (a lead delivered). */
export const created = (r: RequestRecord) =>
  r.route === 'POST /api/v1/prospects' && r.status >= 200 && r.status < 300;

/** Posts every lead, `concurrency` at a time; throws on any refusal. */
export async function postAll(
  leads: readonly LeadToPost[],
  concurrency: number,
): Promise<PostedLead[]> {
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
  await Promise.all(Array.from({ length: concurrency }, worker));
  return posted;
}

export async function sandboxStats(sandboxUrl: string): Promise<SandboxStats> {
  return (await (await fetch(`${sandboxUrl}/_sandbox/stats`)).json()) as SandboxStats;
}

/** Waits until the sandbox created every lead of `emails`; the last stats read. */
export async function drained(
  sandboxUrl: string,
  emails: ReadonlySet<string>,
  timeoutMs: number,
): Promise<SandboxStats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await sandboxStats(sandboxUrl);
    const done = new Set(
      seen.requests
        .filter(created)
        .flatMap((r) => (r.email && emails.has(r.email) ? [r.email] : [])),
    );
    if (done.size >= emails.size || Date.now() > deadline) {
      if (done.size < emails.size) {
        progress(`${done.size}/${emails.size} delivered before the timeout`);
      }
      return seen;
    }
    await delay(250);
  }
}
