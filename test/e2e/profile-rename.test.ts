/**
 * A renamed profile keeps its leads (issue 32), end to end on the local runtime with its worker:
 * - renamed with `formerly`, the backlog accepted under the old name is delivered once through
 *   the new profile, and both URLs keep taking leads with the same token;
 * - renamed without it, the leads that meet the gap wait for `site` (the reload says how to keep
 *   them), and an operator moves them to `site-new` (`PATCH /admin/leads/{id} {"profile"}`):
 *   each is woken and delivered at once, not at its profile's 5-minute recheck.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicHeader } from '../helpers/abuse-kit.ts';
import {
  type AcceptedLead,
  ALL_GOOD,
  checkExactlyOnce,
  deliveryConfig,
  FAST_DELIVERY_ENV,
  OPERATOR,
  PROFILE,
  postLeads,
  readLedger,
  realisticLeads,
  type SandboxControl,
  sandboxControl,
  statusCounts,
  waitUntil,
  withEnv,
} from '../helpers/delivery-harness-e2e.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

/** Slow enough that most of the backlog is still queued when the rename lands. */
const SLOW = { maxPerSecond: 3, maxPerMinute: 180 };
const MISSING = /^o perfil 'site' não está configurado/;

let rt: TestRuntime;
let sandbox: SandboxControl;
const warnings: string[] = [];

beforeAll(async () => {
  const base = deliveryConfig();
  rt = await withEnv(FAST_DELIVERY_ENV, () =>
    startTestRuntime(
      { ...base, upstream: { ...base.upstream, ...SLOW } },
      { worker: true, onConfigReload: (outcome) => warnings.push(...(outcome.warnings ?? [])) },
    ),
  );
  sandbox = sandboxControl(rt.sandboxUrl);
}, 60_000);
afterAll(() => rt?.stop());

/** Rewrites the configuration's profiles and waits until the runtime has reloaded them. */
async function setProfiles(profiles: Record<string, unknown>) {
  const path = join(rt.dataDir, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8'));
  writeFileSync(path, JSON.stringify({ ...config, profiles }));
  const names = Object.keys(profiles).sort().join(',');
  await waitUntil(
    'the configuration reloaded',
    async () => Object.keys(rt.runtime.config.profiles).sort().join(','),
    (now) => now === names,
    { timeoutMs: 20_000 },
  );
}

const admin = (path: string, init: RequestInit = {}) =>
  fetch(new URL(path, rt.url), {
    ...init,
    headers: {
      authorization: basicHeader(OPERATOR.username, OPERATOR.password),
      'content-type': 'application/json',
      ...init.headers,
    },
  });

async function deliveredOnce(accepted: readonly AcceptedLead[]) {
  await waitUntil(
    'every accepted lead delivered',
    () => readLedger(rt.ledger, accepted),
    (ledger) => statusCounts(accepted, ledger).delivered === accepted.length,
    { timeoutMs: 90_000, describe: (ledger) => JSON.stringify(statusCounts(accepted, ledger)) },
  );
  const [ledger, prospects] = await Promise.all([
    readLedger(rt.ledger, accepted),
    sandbox.prospects(),
  ]);
  return checkExactlyOnce(accepted, ledger, prospects);
}

describe('a profile renamed with formerly', () => {
  it('delivers its 45 waiting leads once through the new name; both URLs keep working', {
    timeout: 150_000,
  }, async () => {
    await sandbox.reset();
    const original = rt.runtime.config.profiles[PROFILE];
    const backlog = await postLeads(rt.url, realisticLeads(45, 'rename'));
    await setProfiles({ 'site-new': { ...original, formerly: [PROFILE] } });

    const late = [
      ...(await postLeads(rt.url, realisticLeads(2, 'old-url'), PROFILE)),
      ...(await postLeads(rt.url, realisticLeads(2, 'new-url'), 'site-new')),
    ];
    const accepted = [...backlog, ...late];
    expect(await deliveredOnce(accepted)).toEqual(ALL_GOOD);
    const ledger = await readLedger(rt.ledger, accepted);
    expect(ledger.filter((lead) => MISSING.test(lead.lastError ?? ''))).toEqual([]);
    expect(warnings).toEqual([]); // nothing left the configuration
    await setProfiles({ [PROFILE]: original });
  });
});

describe('a profile renamed without formerly', () => {
  it('says how to keep its leads, and the operator moves the stranded ones: delivered at once', {
    timeout: 150_000,
  }, async () => {
    await sandbox.reset();
    warnings.length = 0;
    const original = rt.runtime.config.profiles[PROFILE];
    const backlog = await postLeads(rt.url, realisticLeads(12, 'stranded'));
    await setProfiles({ 'site-new': original });
    const stranded = await waitUntil(
      'leads waiting for their profile',
      () => readLedger(rt.ledger, backlog),
      // Every lead delivered before the rename, or waiting for its profile (none in hand).
      (ledger) =>
        ledger.some((lead) => MISSING.test(lead.lastError ?? '')) &&
        ledger.every(
          (lead) =>
            lead.status === 'delivered' ||
            (lead.status === 'queued' && MISSING.test(lead.lastError ?? '')),
        ),
      { timeoutMs: 30_000, describe: (l) => JSON.stringify(statusCounts(backlog, l)) },
    );
    const warned = await waitUntil(
      'the reload warned',
      async () => warnings.filter((w) => w.includes(`o perfil '${PROFILE}' sai`)),
      (w) => w.length > 0,
      { timeoutMs: 10_000 },
    );
    expect(warned.join('\n')).toContain(`"formerly": ["${PROFILE}"]`);

    const waiting = stranded.filter((lead) => lead.status !== 'delivered');
    for (const lead of waiting) {
      const moved = await admin(`/admin/leads/${lead.leadId}`, {
        method: 'PATCH',
        body: JSON.stringify({ profile: 'site-new' }),
      });
      expect(moved.status, await moved.text()).toBe(200);
    }
    // Delivered now, long before the 5-minute recheck of a waiting lead.
    expect(await deliveredOnce(backlog)).toEqual(ALL_GOOD);
    await setProfiles({ [PROFILE]: original });
  });
});
