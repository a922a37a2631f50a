/**
 * The branch names a debtors refresh learns (functions/report/refresh/settle.ts): after a
 * successful refresh against the sandbox, the names its rows carry (`branchName`) are recorded
 * for the account, for the chain forms' branch matching; a refresh that fails records none, and
 * names that cannot be recorded leave the refresh a success.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RefreshDeps, SILENT } from '../../../functions/report/refresh/context.ts';
import { refreshDebtors, refreshRequest } from '../../../functions/report/refresh/refresh.ts';
import { createFileReportStore } from '../../../functions/report/store/report-store-file.ts';
import { refreshMessage } from '../../../functions/report/trigger/report-trigger.ts';
import type { LearnedNames } from '../../../functions/upstream/branch-directory.ts';
import { createUpstreamClient } from '../../../functions/upstream/upstream-client.ts';
import { createSandbox, type Sandbox } from '../../../sandbox/server.ts';
import { createPacer } from '../../helpers/in-process-pacer.ts';

let sandbox: Sandbox;
const dirs: string[] = [];

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, now: () => new Date('2026-08-01T12:00:00.000Z') });
  const limits = { perSecond: 1000, perMinute: 100_000 };
  await fetch(`${sandbox.url}/_sandbox/faults`, { method: 'POST', body: JSON.stringify(limits) });
  await fetch(`${sandbox.url}/_sandbox/debtors`, {
    method: 'POST',
    body: JSON.stringify({ count: 120, branches: [1, 2, 3], seed: 7 }),
  });
});

afterAll(async () => {
  await sandbox.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function client(password = 'demo') {
  return createUpstreamClient({
    baseUrl: sandbox.url,
    username: 'demo',
    password,
    pacer: createPacer({ maxPerSecond: 1000, maxPerMinute: 100_000 }),
  });
}

/** One account's refresh deps over a fresh store, recording what it writes as learned names. */
function harness(options: { password?: string; write?: () => Promise<void> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'leads-names-'));
  dirs.push(dir);
  const written: LearnedNames[] = [];
  const failures: unknown[] = [];
  const store = createFileReportStore({ dir });
  const deps: RefreshDeps = {
    store,
    trigger: { requestRefresh: async () => undefined },
    source: async () => ({
      client: client(options.password),
      report: { branches: [1, 2, 3], refreshSeconds: 900 },
    }),
    branchNames: {
      async write(names) {
        await options.write?.();
        written.push(names);
      },
    },
    events: { ...SILENT, branchNamesFailed: (event) => failures.push(event.error) },
  };
  return { deps, store, written, failures };
}

describe('the branch names a refresh learns', () => {
  it('are recorded after a successful refresh: each branch id with the name its rows carry', async () => {
    // Prepare
    const h = harness();

    // Act
    const outcome = await refreshDebtors(h.deps, refreshMessage({ reason: 'admin' }));

    // Assess
    expect(outcome.status).toBe('succeeded');
    expect(h.written).toEqual([{ 1: 'Unidade Centro', 2: 'Unidade Moema', 3: 'Unidade Savassi' }]);
  });

  it('are not recorded by a refresh that fails', async () => {
    // Prepare
    const h = harness({ password: 'wrong' });

    // Act
    const outcome = await refreshDebtors(h.deps, refreshMessage({ reason: 'admin' }));

    // Assess
    expect(outcome.status).toBe('failed');
    expect(h.written).toEqual([]);
  });

  it('that cannot be recorded leave the refresh a success, its snapshot served, the failure reported', async () => {
    // Prepare
    const h = harness({
      write: async () => {
        throw new Error('table unavailable');
      },
    });

    // Act
    const outcome = await refreshDebtors(h.deps, refreshMessage({ reason: 'admin' }));

    // Assess
    expect(outcome.status).toBe('succeeded');
    expect((await h.store.readSnapshot())?.snapshot.rows).toHaveLength(120);
    expect((await h.store.readStatus()).failures).toBe(0);
    expect(h.failures).toHaveLength(1);
  });

  it('are recorded for the account the request names', async () => {
    // Prepare
    const h = harness();
    const byAccount: [string, LearnedNames][] = [];

    // Act
    await refreshRequest(
      {
        config: { accounts: async () => ['default', 'south'], report: async () => ({}) as never },
        stores: () => h.store,
        source: h.deps.source,
        trigger: h.deps.trigger,
        branchNames: {
          read: async () => ({}),
          write: async (account, names) => {
            byAccount.push([account, names]);
          },
        },
      },
      refreshMessage({ reason: 'admin', upstream: 'south' }),
    );

    // Assess
    expect(byAccount.map(([account]) => account)).toEqual(['south']);
    expect(byAccount[0]?.[1]).toMatchObject({ 2: 'Unidade Moema' });
  });
});
