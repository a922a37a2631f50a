/**
 * A profile that comes back wakes its leads (issue 34), end to end: the local runtime (worker
 * on) delivers a backlog while visitors keep posting; the profile `site` leaves the configuration
 * file for 4 s and comes back. The leads that met the gap wait for it ("o perfil 'site' não está
 * configurado…") with a recheck five minutes away and a reconciler that runs once a minute: the
 * reload that brings the profile back wakes them (local/runtime-config.ts, delivery/waiting.ts
 * `wakeReturnedProfiles`). Every accepted lead is delivered once within 30 s of the return, none
 * parked. (Before, 11 of 44 were still `queued` 30 s after it came back.)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AcceptedLead,
  ALL_GOOD,
  checkExactlyOnce,
  deliveryConfig,
  FAST_DELIVERY_ENV,
  PROFILE,
  postLeads,
  readLedger,
  realisticLeads,
  type SandboxControl,
  sandboxControl,
  statusCounts,
  type TestLead,
  waitUntil,
  withEnv,
} from '../helpers/delivery-harness-e2e.ts';
import { DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

/** Slow enough that leads accepted before the edit are still queued when it lands. */
const SLOW = { maxPerSecond: 3, maxPerMinute: 180 };
const MISSING = /^o perfil 'site' não está configurado: o lead aguarda/;
/** Neither the leads' recheck nor the reconciler may be what delivers them in time. */
const SLOW_SAFETY_NETS = { LEADS_PROFILE_RECHECK_MS: '300000', LEADS_RECONCILE_MS: '60000' };
const GAP_MS = 4_000;
const WITHIN_MS = 30_000;

let rt: TestRuntime;
let sandbox: SandboxControl;
const woken: number[] = [];

beforeAll(async () => {
  const base = deliveryConfig();
  rt = await withEnv({ ...FAST_DELIVERY_ENV, ...SLOW_SAFETY_NETS }, () =>
    startTestRuntime(
      { ...base, upstream: { ...base.upstream, ...SLOW } },
      { worker: true, onConfigReload: (outcome) => outcome.woken && woken.push(outcome.woken) },
    ),
  );
  sandbox = sandboxControl(rt.sandboxUrl);
  await sandbox.reset();
}, 60_000);
afterAll(() => rt?.stop());

async function postOne(lead: TestLead): Promise<AcceptedLead | undefined> {
  const response = await fetch(new URL(`/leads/${PROFILE}?token=${DEMO_SECRETS.form}`, rt.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'https://lp.example.com',
    },
    body: lead.body,
  });
  const text = await response.text();
  if (response.status === 404) return undefined;
  if (response.status < 200 || response.status > 299) {
    throw new Error(`lead ${lead.email}: ${response.status} ${text}`);
  }
  return { leadId: (JSON.parse(text) as { leadId: string }).leadId, email: lead.email, status: 0 };
}

describe('a profile removed for 4 s and restored while leads flow', () => {
  it('wakes the leads that waited for it: all delivered once within 30 s of its return, none parked', {
    timeout: 150_000,
  }, async () => {
    // Prepare: a backlog accepted before the edit, and visitors posting every 100 ms.
    const path = join(rt.dataDir, 'config.json');
    const original = readFileSync(path, 'utf8');
    const before = await postLeads(rt.url, realisticLeads(24, 'before-gap'));
    let stop = false;
    const during: AcceptedLead[] = [];
    const visitors = (async () => {
      for (const lead of realisticLeads(300, 'during-gap')) {
        if (stop) break;
        const answer = await postOne(lead);
        if (answer) during.push(answer);
        await delay(100);
      }
    })();

    // Act: the profile leaves; a lead meets the gap; 4 s later it is back.
    const { site: _gone, ...others } = JSON.parse(original).profiles;
    writeFileSync(path, JSON.stringify({ ...JSON.parse(original), profiles: others }));
    await waitUntil(
      'the profile gone',
      async () => rt.runtime.config.profiles,
      (p) => !p.site,
      {
        timeoutMs: 20_000,
      },
    );
    const goneAt = Date.now();
    await waitUntil(
      'a lead waiting for its profile',
      () => readLedger(rt.ledger, before),
      (ledger) => ledger.some((lead) => MISSING.test(lead.lastError ?? '')),
      { timeoutMs: 30_000, describe: (ledger) => JSON.stringify(statusCounts(before, ledger)) },
    );
    await delay(Math.max(0, GAP_MS - (Date.now() - goneAt)));
    writeFileSync(path, original);
    await waitUntil(
      'the profile back',
      async () => rt.runtime.config.profiles,
      (p) => !!p.site,
      {
        timeoutMs: 20_000,
      },
    );
    const backAt = Date.now();
    await waitUntil(
      'a lead accepted after the return',
      async () => during.length,
      (n) => n > 0,
      {
        timeoutMs: 20_000,
      },
    );
    stop = true;
    await visitors;
    const accepted = [...before, ...during];
    await waitUntil(
      'every accepted lead delivered',
      () => readLedger(rt.ledger, accepted),
      (ledger) => statusCounts(accepted, ledger).delivered === accepted.length,
      { timeoutMs: 120_000, describe: (ledger) => JSON.stringify(statusCounts(accepted, ledger)) },
    );
    await delay(1_000); // a late copy would show as a duplicate

    // Assess: the reload woke them; every lead delivered once, within 30 s of the return.
    expect(woken.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    const records = await Promise.all(accepted.map(({ leadId }) => rt.ledger.get(leadId)));
    const late = records.filter((lead) => Date.parse(lead?.deliveredAt ?? '') - backAt > WITHIN_MS);
    expect(late.map((lead) => lead?.leadId)).toEqual([]);
    const [ledger, prospects] = await Promise.all([
      readLedger(rt.ledger, accepted),
      sandbox.prospects(),
    ]);
    expect(ledger.filter((lead) => lead.status === 'parked')).toEqual([]);
    expect(checkExactlyOnce(accepted, ledger, prospects)).toEqual(ALL_GOOD);
  });
});
