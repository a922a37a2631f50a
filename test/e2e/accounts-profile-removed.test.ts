/**
 * A configuration edit never strands accepted leads (issue 25), end to end: the local runtime
 * (worker on) delivers a backlog slowly (2 a second) while visitors keep posting; the profile
 * `site` is removed from the configuration file for a few seconds (the runtime reloads it) and
 * then put back. The leads accepted before the edit that meet the missing profile wait for it,
 * visibly ("o perfil 'site' não está configurado…"), instead of parking; once it is back every
 * accepted lead is delivered, exactly once. (Before, 69 leads were parked in such an edit.) The
 * reload that dropped the profile warned how many of its leads were waiting.
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
const SLOW = { maxPerSecond: 2, maxPerMinute: 120 };
const MISSING = /^o perfil 'site' não está configurado: o lead aguarda/;

let rt: TestRuntime;
let sandbox: SandboxControl;
/** What the runtime's reloads warned. */
const warnings: string[] = [];

function config() {
  const base = deliveryConfig();
  return { ...base, upstream: { ...base.upstream, ...SLOW } };
}

beforeAll(async () => {
  rt = await withEnv({ ...FAST_DELIVERY_ENV, LEADS_PROFILE_RECHECK_MS: '1000' }, () =>
    startTestRuntime(config(), {
      worker: true,
      onConfigReload: (outcome) => warnings.push(...(outcome.warnings ?? [])),
    }),
  );
  sandbox = sandboxControl(rt.sandboxUrl);
  await sandbox.reset();
}, 60_000);
afterAll(() => rt?.stop());

/** Posts one lead; its acceptance, or undefined when refused (404 while the profile is gone). */
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

/** Visitors posting one lead after another until `stop` says so. */
function keepPosting(leads: readonly TestLead[], stop: () => boolean) {
  const accepted: AcceptedLead[] = [];
  let refused = 0;
  const done = (async () => {
    for (const lead of leads) {
      if (stop()) break;
      const answer = await postOne(lead);
      if (answer) accepted.push(answer);
      else refused += 1;
      await delay(100);
    }
  })();
  return { accepted, refused: () => refused, done };
}

describe('a profile removed from the configuration for a few seconds', () => {
  it('parks none of the leads accepted before the edit; every accepted lead is delivered once', {
    timeout: 150_000,
  }, async () => {
    // Prepare: a backlog of leads accepted before the edit, and visitors still posting.
    const path = join(rt.dataDir, 'config.json');
    const original = readFileSync(path, 'utf8');
    const before = await postLeads(rt.url, realisticLeads(20, 'before-edit'));
    let stopPosting = false;
    const visitors = keepPosting(realisticLeads(200, 'during-edit'), () => stopPosting);

    // Act: the profile removed; its queued leads meet the gap; then it comes back.
    const { site: _removed, ...others } = JSON.parse(original).profiles;
    writeFileSync(path, JSON.stringify({ ...JSON.parse(original), profiles: others }));
    await waitUntil(
      'the profile gone',
      async () => rt.runtime.config.profiles,
      (p) => !p.site,
      {
        timeoutMs: 20_000,
        describe: (p) => Object.keys(p).join(','),
      },
    );
    const seenWaiting = await waitUntil(
      'a lead accepted before the edit waiting for its profile',
      () => readLedger(rt.ledger, before),
      (ledger) => ledger.some((lead) => MISSING.test(lead.lastError ?? '')),
      { timeoutMs: 30_000, describe: (ledger) => JSON.stringify(statusCounts(before, ledger)) },
    );
    const warned = await waitUntil(
      'the reload warned',
      async () => warnings,
      (w) => w.length > 0,
      {
        timeoutMs: 10_000,
      },
    );
    writeFileSync(path, original);
    await waitUntil(
      'the profile back',
      async () => rt.runtime.config.profiles,
      (p) => !!p.site,
      {
        timeoutMs: 20_000,
        describe: (p) => Object.keys(p).join(','),
      },
    );
    await waitUntil(
      'a lead accepted after the edit',
      async () => visitors.accepted.length,
      (n) => n > 0,
      {
        timeoutMs: 20_000,
      },
    );
    stopPosting = true;
    await visitors.done;
    const accepted = [...before, ...visitors.accepted];
    await waitUntil(
      'every accepted lead delivered',
      () => readLedger(rt.ledger, accepted),
      (ledger) => statusCounts(accepted, ledger).delivered === accepted.length,
      { timeoutMs: 90_000, describe: (ledger) => JSON.stringify(statusCounts(accepted, ledger)) },
    );
    // Nothing more may arrive once every lead is delivered (a late copy would be a duplicate).
    await delay(1_000);

    // Assess: the reload that dropped the profile said how many of its leads were waiting.
    expect(warned).toEqual([
      expect.stringMatching(
        /^aviso: o perfil 'site' sai da configuração e recebeu \d+ lead\(s\) nos últimos 30 dias; [1-9]\d* aguardando entrega\./,
      ),
    ]);
    expect(seenWaiting.filter((lead) => MISSING.test(lead.lastError ?? '')).length).toBeGreaterThan(
      0,
    );
    expect(visitors.refused()).toBeGreaterThan(0); // the edit did take the profile away
    const [ledger, prospects] = await Promise.all([
      readLedger(rt.ledger, accepted),
      sandbox.prospects(),
    ]);
    expect(ledger.filter((lead) => lead.status === 'parked')).toEqual([]);
    expect(checkExactlyOnce(accepted, ledger, prospects)).toEqual(ALL_GOOD);
    expect(prospects).toHaveLength(accepted.length);
  });
});
