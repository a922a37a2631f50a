/**
 * The local runtime at chain size (issue 34): `npm start` with 3,000 profiles of mixed sources
 * over 300 accounts (test/fixtures/chain-config.ts) is healthy, and a lead for the last profile
 * reaches its own account and branch through the sandbox; the lookups it takes on the way (the
 * profile by name, its account, its token) are map reads, so the 3,000th profile costs what the
 * 3rd does (bench/ measures ratios; here: the same path answered for the first and the last).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chainAccountName,
  chainBranches,
  chainLocalConfig,
  chainProfileName,
} from '../fixtures/chain-config.ts';
import { sandboxControl, waitUntil, withEnv } from '../helpers/delivery-harness-e2e.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

const PROFILES = 3000;
const ACCOUNTS = 300;
let rt: TestRuntime;

beforeAll(async () => {
  // The sandbox's URL is the runtime's own: every account points at it (effectiveConfig).
  rt = await withEnv({}, () =>
    startTestRuntime(
      chainLocalConfig('http://127.0.0.1:4010', { profiles: PROFILES, accounts: ACCOUNTS }),
      {
        worker: true,
      },
    ),
  );
}, 120_000);
afterAll(() => rt?.stop(), 90_000);

/** Posts a form lead to `profile` with its token; the answer. */
async function postForm(profile: string, email: string) {
  const body = new URLSearchParams({ name: 'Maria Souza', email, phone: '11987654321' });
  const response = await fetch(
    new URL(`/leads/${profile}?token=tok-${profile}-${'x'.repeat(30)}`, rt.url),
    {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: `https://${profile}.academia-exemplo.com.br`,
      },
      body: body.toString(),
    },
  );
  return { status: response.status, body: (await response.json()) as { leadId?: string } };
}

describe(`npm start with ${PROFILES} profiles over ${ACCOUNTS} accounts`, () => {
  it('is healthy and holds every profile and account', async () => {
    const health = await fetch(new URL('/health', rt.url));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(Object.keys(rt.runtime.config.profiles)).toHaveLength(PROFILES);
    expect(Object.keys(rt.runtime.config.upstreams ?? {})).toHaveLength(ACCOUNTS);
  });

  it('routes a lead for the last profile to its account and branch', {
    timeout: 60_000,
  }, async () => {
    // The last profile is a landing page of the last account (the fixture's cycle of sources).
    const last = chainProfileName(PROFILES - 1);
    expect(rt.runtime.config.profiles[last]?.source).toBe('form');
    const email = 'maria.ultima@example.com';

    const answer = await postForm(last, email);

    expect(answer.status).toBeGreaterThanOrEqual(200);
    expect(answer.status).toBeLessThan(300);
    const leadId = answer.body.leadId as string;
    const lead = await waitUntil(
      'the lead delivered',
      () => rt.ledger.get(leadId),
      (l) => l?.status === 'delivered',
      {
        timeoutMs: 45_000,
        describe: (l) => `${l?.status} ${l?.lastError ?? ''}`,
      },
    );
    expect(lead?.account).toBe(chainAccountName(ACCOUNTS - 1));
    const prospects = await sandboxControl(rt.sandboxUrl).prospects();
    const sent = prospects.find((p) => (p.body as { email?: string }).email === email);
    expect(chainBranches(ACCOUNTS - 1)).toContain(
      (sent?.body as { idBranch?: number } | undefined)?.idBranch,
    );
    // A wrong token for it is refused as for any profile.
    const wrong = await fetch(new URL(`/leads/${last}?token=nope`, rt.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=x%40example.com',
    });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    expect(wrong.status).toBeLessThan(500);
  });
});
