/**
 * Two upstream accounts in one system (issue 12), end to end: the local runtime (worker on)
 * with the account `default` on its own sandbox and the account `south` on a second sandbox.
 * - each account's leads reach its own upstream, with its own credentials;
 * - a burst on `default` held at its rate limit does not delay `south`'s leads;
 * - an outage of `default` opens its circuit only: `south` keeps delivering, circuit closed;
 * - a client scoped to `south`'s branch 2 sees only branch 2 in every report route and the debtors list,
 *   and gets 403 when it asks for branch 1;
 * - editing the configuration file adds a profile that accepts leads, without a restart.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import { basicHeader } from '../helpers/abuse-kit.ts';
import {
  type AcceptedLead,
  deliveryConfig,
  FAST_DELIVERY_ENV,
  OPERATOR,
  postLeads,
  readLedger,
  realisticLeads,
  SANDBOX_LIMITS,
  type SandboxControl,
  sandboxControl,
  statusCounts,
  waitUntil,
  withEnv,
} from '../helpers/delivery-harness-e2e.ts';
import { DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

const SOUTH = { username: 'chain.south', password: 'south-key' };
const MANAGER = { username: 'branch2', password: 'branch-2-manager-pw' };
/** The account `default` paces itself slowly, so a burst stays queued for a while. */
const SLOW = { maxPerSecond: 1, maxPerMinute: 6 };

let south: Sandbox;
let main: SandboxControl;
let other: SandboxControl;
let rt: TestRuntime;

function config() {
  const base = deliveryConfig();
  return {
    ...base,
    upstream: { ...base.upstream, ...SLOW },
    upstreams: {
      south: {
        baseUrl: south.url,
        ...SOUTH,
        maxPerSecond: 8,
        maxPerMinute: 400,
        report: { branches: [1, 2], refreshSeconds: 3600 },
      },
    },
    clients: [
      ...base.clients,
      {
        ...MANAGER,
        roles: ['report:read', 'prospects:write'],
        upstreams: ['south'],
        branches: [2],
      },
    ],
    profiles: {
      ...base.profiles,
      southsite: {
        ...base.profiles.site,
        upstream: 'south',
        defaults: { idBranch: 7, marketingType: 'Site' },
      },
      api: { source: 'prospect', upstream: 'south' },
    },
    report: { branches: [], refreshSeconds: 3600 },
  };
}

beforeAll(async () => {
  south = await createSandbox({ port: 0, ...SOUTH });
  other = sandboxControl(south.url);
  await other.reset();
  rt = await withEnv(FAST_DELIVERY_ENV, () => startTestRuntime(config(), { worker: true }));
  main = sandboxControl(rt.sandboxUrl);
  await main.reset();
}, 60_000);
afterAll(async () => {
  await rt?.stop();
  await south?.close();
});

async function delivered(accepted: readonly AcceptedLead[], timeoutMs: number) {
  return waitUntil(
    'the leads delivered',
    () => readLedger(rt.ledger, accepted),
    (ledger) => ledger.length === accepted.length && ledger.every((l) => l.status === 'delivered'),
    { timeoutMs, describe: (ledger) => JSON.stringify(statusCounts(accepted, ledger)) },
  );
}

async function admin(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL(path, rt.url), {
    headers: { authorization: basicHeader(OPERATOR.username, OPERATOR.password) },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const circuitOf = async (account: string) =>
  ((await admin(`/admin/upstream?upstream=${account}`)).body.circuit as { state: string }).state;

describe('two upstream accounts', () => {
  it("delivers each account's leads to its own upstream, and a burst held at one account's limit does not delay the other", {
    timeout: 120_000,
  }, async () => {
    // Prepare
    await main.reset();
    await other.reset();

    // Act: a burst of 14 on `default` (6 a minute), then 5 on `south`
    const burst = await postLeads(rt.url, realisticLeads(14, 'burst'));
    const southLeads = await postLeads(rt.url, realisticLeads(5, 'south'), 'southsite');
    await delivered(southLeads, 60_000);
    const burstWhenSouthDone = await readLedger(rt.ledger, burst);

    // Assess: south is done while the burst still waits for its account's limit
    expect(burstWhenSouthDone.filter((l) => l.status !== 'delivered').length).toBeGreaterThan(0);
    const southProspects = (await other.prospects()).map(
      (p) => p.body as { idBranch: number; email: string },
    );
    expect(southProspects.map((p) => p.idBranch)).toEqual([7, 7, 7, 7, 7]);
    expect(southProspects.map((p) => p.email).sort()).toEqual(
      southLeads.map((l) => l.email.toLowerCase()).sort(),
    );
    expect(
      (await main.prospects()).every((p) => (p.body as { idBranch: number }).idBranch === 1),
    ).toBe(true);
    // `south` was never refused for its rate: its own limiter, its own pacer.
    const southStats = await other.stats();
    expect(southStats.byRoute['POST /api/v1/prospects']?.['429'] ?? 0).toBe(0);
  });

  it("an outage of one account opens that account's circuit only", {
    timeout: 240_000,
  }, async () => {
    // Prepare: `default` answers every request 503
    await main.reset();
    await other.reset();
    await main.setFaults({ ...SANDBOX_LIMITS, errorRate: 1, errorStatus: 503 });

    // Act
    await postLeads(rt.url, realisticLeads(4, 'down'));
    await waitUntil(
      'the circuit of default open',
      () => circuitOf('default'),
      (s) => s === 'open',
      // `default` is paced at 6 a minute: the failures that open its circuit take a minute or so.
      { timeoutMs: 150_000 },
    );
    const southLeads = await postLeads(rt.url, realisticLeads(3, 'during'), 'southsite');
    await delivered(southLeads, 60_000);

    // Assess
    expect(await circuitOf('south')).toBe('closed');
    expect(await circuitOf('default')).not.toBe('closed');
    await main.setFaults({});
  });
});

describe('a client scoped to branch 2', () => {
  const asManager = (path: string, init: RequestInit = {}) =>
    fetch(new URL(path, rt.url), {
      ...init,
      headers: {
        authorization: basicHeader(MANAGER.username, MANAGER.password),
        ...(init.headers as Record<string, string>),
      },
    });

  it('sees only branch 2 in every report route and in the debtors list, and 403 for branch 1', {
    timeout: 90_000,
  }, async () => {
    // Prepare: the report of branches 1 and 2 built
    const ready = async () => {
      const response = await asManager('/reports/debtors');
      return { status: response.status, body: await response.text() };
    };
    await waitUntil('the report built', ready, (r) => r.status === 200, {
      timeoutMs: 60_000,
      describe: (r) => `${r.status} ${r.body.slice(0, 300)}`,
    });

    // Act
    const json = (await (await asManager('/reports/debtors?take=500')).json()) as {
      branches: number[];
      results: { branchId: number }[];
    };
    const csv = await (await asManager('/reports/debtors.csv')).text();
    const list = (await (await asManager('/api/v1/receivables/debtors?take=50')).json()) as {
      results: { branchId: number }[];
    };
    const page = await asManager('/reports/debtors.html');
    const forbidden = [
      await asManager('/reports/debtors?branch=1'),
      await asManager('/api/v1/receivables/debtors?idBranch=1'),
      await asManager('/reports/debtors.csv?branch=1'),
    ];
    const prospectElsewhere = await asManager('/api/v1/prospects?upstream=south', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Ana',
        lastName: 'Lima',
        email: 'ana.lima@example.com',
        idBranch: 1,
      }),
    });

    // Assess
    expect(json.branches).toEqual([2]);
    expect(json.results.length).toBeGreaterThan(0);
    expect(json.results.every((row) => row.branchId === 2)).toBe(true);
    expect(list.results.length).toBeGreaterThan(0);
    expect(list.results.every((row) => row.branchId === 2)).toBe(true);
    const [header = '', ...lines] = csv
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/);
    const column = header.split(';').indexOf('Código da unidade');
    expect(column).toBeGreaterThanOrEqual(0);
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines.map((line) => line.split(';')[column]))).toEqual(new Set(['2']));
    expect(page.status).toBe(200);
    expect(forbidden.map((r) => r.status)).toEqual([403, 403, 403]);
    const refusal = (await forbidden[0]?.json()) as { error: { code: string } } | undefined;
    expect(refusal?.error.code).toBe('branch_forbidden');
    expect(prospectElsewhere.status).toBe(403);
  });
});

describe('the local configuration file', () => {
  it('adds a profile that accepts leads within seconds when edited, and keeps running on a broken edit', {
    timeout: 60_000,
  }, async () => {
    // Prepare
    const path = join(rt.dataDir, 'config.json');
    const before = JSON.parse(readFileSync(path, 'utf8'));
    const post = () =>
      fetch(new URL(`/leads/newlp?token=${DEMO_SECRETS.form}`, rt.url), {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://lp.example.com',
        },
        body: new URLSearchParams({
          nome: 'Bia Reis',
          email: 'bia.reis@example.com',
          celular: '11987654321',
        }).toString(),
      });
    expect((await post()).status).toBe(404);

    // Act: a broken edit, then the profile added
    writeFileSync(
      path,
      JSON.stringify({
        ...before,
        profiles: { ...before.profiles, newlp: { source: 'form', default: {} } },
      }),
    );
    const refused = rt.runtime.reloadConfig();
    writeFileSync(
      path,
      JSON.stringify({
        ...before,
        profiles: {
          ...before.profiles,
          newlp: { ...before.profiles.site, defaults: { idBranch: 3 } },
        },
      }),
    );
    const accepted = await waitUntil(
      'the new profile accepting leads',
      post,
      (r) => r.status === 202 || r.status === 200,
      {
        timeoutMs: 20_000,
      },
    );

    // Assess
    expect(refused?.message).toMatch(/profiles\.newlp\.default.*"defaults"/);
    expect(accepted.status).toBeLessThan(300);
    expect(Object.keys(rt.runtime.config.profiles)).toContain('newlp');
  });
});
