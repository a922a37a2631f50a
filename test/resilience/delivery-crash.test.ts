/**
 * `npm start` (local/start.ts, a child process) killed or stopped while its delivery worker is in
 * the middle of a batch, then started again on the same DATA_DIR. The sandbox runs in THIS
 * process and the child reaches it through UPSTREAM_URL, so it survives the child and keeps the
 * prospects it created: every accepted lead must be there exactly once after the restart, and
 * `delivered` in the ledger (read through the admin API) with the sandbox's idProspect.
 *
 * - kill -9 while a POST is on the wire (the sandbox creates the prospect on arrival and answers
 *   late): after the restart, the lead left `sending` comes back once its message's visibility
 *   and its lease have run out, is looked up first, found, and never posted a second time.
 * - SIGTERM while a delivery is in flight that finishes within the worker's stop deadline
 *   (10 s): the process lets it finish and exits 0; nothing is interrupted.
 * - SIGTERM while a delivery is in flight that outlasts that deadline: the message is handed
 *   back, the process exits 0 within its own stop deadline (15 s), and the restarted worker waits
 *   for the lease, looks the lead up and finds it.
 *
 * The lease and the queue's visibility are shortened through the local-only knobs of
 * functions/delivery/forward/wiring-local.ts so that a restart takes over within seconds.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import {
  type AcceptedLead,
  ALL_GOOD,
  adminLeads,
  allDelivered,
  answered,
  attemptLines,
  checkExactlyOnce,
  deliveryConfig,
  FAST_DELIVERY_ENV,
  logMessages,
  postLeads,
  realisticLeads,
  type SandboxControl,
  sandboxControl,
  statsSummary,
  statusCounts,
  waitUntil,
} from '../helpers/delivery-harness-e2e.ts';
import { type LocalProcess, startLocal } from '../helpers/gateway-process.ts';
import { reportResult } from '../helpers/results.ts';

const POST_ROUTE = 'POST /api/v1/prospects';
const LOOKUP_ROUTE = 'GET /api/v1/prospects';
/** local/start.ts gives up and exits 1 after this long (STOP_DEADLINE_MS). */
const PROCESS_STOP_DEADLINE_MS = 15_000;
/** local/runtime.ts waits this long for the delivery in flight (WORKER_STOP_DEADLINE_MS). */
const WORKER_STOP_DEADLINE_MS = 10_000;

const root = mkdtempSync(join(tmpdir(), 'leads-crash-'));
let sandbox: Sandbox;
let control: SandboxControl;
const running = new Set<LocalProcess>();

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0 });
  control = sandboxControl(sandbox.url);
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => control.reset());
afterEach(async () => {
  for (const proc of running) {
    if (proc.child.exitCode === null && proc.child.signalCode === null) await proc.stop('SIGKILL');
  }
  running.clear();
});

/** A fresh DATA_DIR and configuration file under `root/<name>`; the child's environment. */
function setup(name: string, knobs: Record<string, string>, timeoutMs = 5_000): NodeJS.ProcessEnv {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(deliveryConfig({ timeoutMs })));
  return {
    PORT: '0',
    // No sandbox of its own: the test's sandbox (UPSTREAM_URL) outlives the child.
    SANDBOX_PORT: '0',
    UPSTREAM_URL: sandbox.url,
    DATA_DIR: join(dir, 'data'),
    LEADS_CONFIG: configPath,
    POWERTOOLS_LOG_LEVEL: 'INFO',
    LEADS_WORKER: 'on',
    ...FAST_DELIVERY_ENV,
    ...knobs,
  };
}

async function start(env: NodeJS.ProcessEnv): Promise<LocalProcess> {
  const proc = await startLocal(env, { timeoutMs: 30_000 });
  running.add(proc);
  return proc;
}

/** Everything a process printed: Powertools writes info lines to stdout, warnings to stderr. */
function output(proc: LocalProcess): string {
  return `${proc.stdout()}\n${proc.stderr()}`;
}

/** Sends `signal` and resolves the exit code and how long the process took to exit. */
async function stopTimed(
  proc: LocalProcess,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const started = Date.now();
  const code = await proc.stop(signal);
  return { code, signal: proc.child.signalCode, ms: Date.now() - started };
}

/** Waits until the process's admin API shows every accepted lead delivered; the ledger then. */
async function waitAllDelivered(proc: LocalProcess, accepted: AcceptedLead[], timeoutMs: number) {
  return waitUntil(
    'every accepted lead delivered',
    () => adminLeads(proc.gatewayUrl),
    (ledger) => allDelivered(accepted, ledger),
    { timeoutMs, describe: (ledger) => JSON.stringify(statusCounts(accepted, ledger)) },
  );
}

describe('npm start killed or stopped in the middle of a batch, then restarted', () => {
  it('kill -9 while a POST is on the wire: after a restart every lead is in the sandbox exactly once', {
    timeout: 90_000,
  }, async () => {
    const env = setup('kill9', { LEADS_LEASE_MS: '6000', LEADS_VISIBILITY_MS: '8000' });
    // Each POST creates its prospect at once and is answered 1.5 s later.
    await control.setFaults({ latencyMs: 1_500 });
    const first = await start(env);
    const accepted = await postLeads(first.gatewayUrl, realisticLeads(12, 'kill9'));
    expect(accepted).toHaveLength(12);

    // Kill as soon as the third prospect exists: its POST is still waiting for the answer, so
    // the lead is `sending` in the ledger and its message is hidden.
    await waitUntil(
      'three prospects created',
      () => control.prospects(),
      (p) => p.length >= 3,
      {
        timeoutMs: 30_000,
        intervalMs: 50,
      },
    );
    const killed = await stopTimed(first, 'SIGKILL');
    const createdBeforeKill = await control.prospects();
    expect(killed.signal).toBe('SIGKILL');
    expect(createdBeforeKill.length).toBeGreaterThanOrEqual(3);
    expect(createdBeforeKill.length).toBeLessThan(12);

    await control.setFaults({});
    const restartedAt = Date.now();
    const second = await start(env);
    await waitAllDelivered(second, accepted, 45_000);
    const recoveredMs = Date.now() - restartedAt;
    await new Promise((resolve) => setTimeout(resolve, 750));
    const [ledger, prospects, stats] = await Promise.all([
      adminLeads(second.gatewayUrl),
      control.prospects(),
      control.stats(),
    ]);
    const stopped = await stopTimed(second, 'SIGTERM');
    reportResult(
      `[delivery-crash] kill -9: ${createdBeforeKill.length} of 12 created before the kill; ` +
        `all delivered ${recoveredMs} ms after the restart; sandbox answers ${statsSummary(stats)}`,
    );

    expect(checkExactlyOnce(accepted, ledger, prospects)).toEqual(ALL_GOOD);
    expect(prospects).toHaveLength(12);
    // Each lead was POSTed once in all: the interrupted one was found, not posted again.
    expect(answered(stats, 200, POST_ROUTE)).toBe(12);
    expect(answered(stats, 429)).toBe(0);
    const byLookup = attemptLines(output(second)).filter(
      (line) => line.reason === 'delivered-by-lookup',
    );
    expect(byLookup.length).toBeGreaterThanOrEqual(1);
    const createdEmails = new Set(
      createdBeforeKill.map((p) => String((p.body as { email?: unknown }).email).toLowerCase()),
    );
    const emailOf = new Map(accepted.map((lead) => [lead.leadId, lead.email]));
    for (const line of byLookup) expect(createdEmails).toContain(emailOf.get(line.leadId));
    expect(stopped.code).toBe(0);
  });

  it('SIGTERM during a batch: the delivery in flight finishes, exit 0, the rest after a restart', {
    timeout: 90_000,
  }, async () => {
    const env = setup('sigterm-finish', {});
    await control.setFaults({ latencyMs: 1_500 });
    const first = await start(env);
    const accepted = await postLeads(first.gatewayUrl, realisticLeads(10, 'term'));

    await waitUntil(
      'two prospects created',
      () => control.prospects(),
      (p) => p.length >= 2,
      {
        timeoutMs: 30_000,
        intervalMs: 50,
      },
    );
    const stopped = await stopTimed(first, 'SIGTERM');
    const createdBeforeStop = await control.prospects();
    reportResult(
      `[delivery-crash] SIGTERM (finish): exit ${stopped.code} after ${stopped.ms} ms; ` +
        `${createdBeforeStop.length} of 10 created before the exit`,
    );
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(WORKER_STOP_DEADLINE_MS);
    expect(first.stdout()).toMatch(/SIGTERM: stopping[\s\S]*stopped/);
    expect(logMessages(output(first), 'handed back')).toEqual([]);

    await control.setFaults({});
    const second = await start(env);
    await waitAllDelivered(second, accepted, 45_000);
    await new Promise((resolve) => setTimeout(resolve, 750));
    const [ledger, prospects, stats] = await Promise.all([
      adminLeads(second.gatewayUrl),
      control.prospects(),
      control.stats(),
    ]);
    expect((await stopTimed(second, 'SIGTERM')).code).toBe(0);

    expect(checkExactlyOnce(accepted, ledger, prospects)).toEqual(ALL_GOOD);
    expect(prospects).toHaveLength(10);
    // The delivery in flight was finished by the first process: nothing was left ambiguous, so
    // nothing was looked up (the two lookups are each start's permission check) and nothing
    // posted twice.
    expect(answered(stats, 200, POST_ROUTE)).toBe(10);
    expect(answered(stats, 200, LOOKUP_ROUTE)).toBe(2);
    expect(
      attemptLines(output(second)).filter((l) => l.note === 'previous-attempt-interrupted'),
    ).toEqual([]);
  });

  it('SIGTERM while a delivery outlasts the stop deadline: handed back, exit 0, found by lookup after a restart', {
    timeout: 90_000,
  }, async () => {
    // The answer comes after the worker's stop deadline, within the client's timeout.
    const timeoutMs = WORKER_STOP_DEADLINE_MS + 5_000;
    const env = setup(
      'sigterm-handback',
      { LEADS_LEASE_MS: '20000', LEADS_VISIBILITY_MS: '25000' },
      timeoutMs,
    );
    await control.setFaults({ latencyMs: WORKER_STOP_DEADLINE_MS + 2_000 });
    const first = await start(env);
    const accepted = await postLeads(first.gatewayUrl, realisticLeads(5, 'handback'));

    await waitUntil(
      'the first prospect created',
      () => control.prospects(),
      (p) => p.length >= 1,
      {
        timeoutMs: 30_000,
        intervalMs: 50,
      },
    );
    const stopped = await stopTimed(first, 'SIGTERM');
    const createdBeforeStop = await control.prospects();
    reportResult(
      `[delivery-crash] SIGTERM (hand back): exit ${stopped.code} after ${stopped.ms} ms; ` +
        `${createdBeforeStop.length} of 5 created before the exit`,
    );
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeGreaterThanOrEqual(WORKER_STOP_DEADLINE_MS - 500);
    expect(stopped.ms).toBeLessThan(PROCESS_STOP_DEADLINE_MS);
    // Each worker in flight (two run at once) handed its message back; its POST had arrived.
    const handedBackCount = logMessages(output(first), 'message handed back').length;
    expect(handedBackCount).toBeGreaterThanOrEqual(1);
    expect(createdBeforeStop).toHaveLength(handedBackCount);

    await control.setFaults({});
    const restartedAt = Date.now();
    const second = await start(env);
    await waitAllDelivered(second, accepted, 45_000);
    const recoveredMs = Date.now() - restartedAt;
    await new Promise((resolve) => setTimeout(resolve, 750));
    const [ledger, prospects, stats] = await Promise.all([
      adminLeads(second.gatewayUrl),
      control.prospects(),
      control.stats(),
    ]);
    expect((await stopTimed(second, 'SIGTERM')).code).toBe(0);
    reportResult(
      `[delivery-crash] SIGTERM (hand back): all delivered ${recoveredMs} ms after the restart; ` +
        `sandbox answers ${statsSummary(stats)}`,
    );

    expect(checkExactlyOnce(accepted, ledger, prospects)).toEqual(ALL_GOOD);
    expect(prospects).toHaveLength(5);
    expect(answered(stats, 200, POST_ROUTE)).toBe(5);
    // The handed-back lead waited for its lease, was looked up and found: the one created
    // before the stop.
    const lines = attemptLines(output(second));
    expect(lines.some((line) => line.reason === 'lease-held')).toBe(true);
    const byLookup = lines.filter((line) => line.reason === 'delivered-by-lookup');
    expect(byLookup).toHaveLength(handedBackCount);
    const found = byLookup.map((line) => accepted.find((lead) => lead.leadId === line.leadId));
    const created = createdBeforeStop.map((p) =>
      String((p.body as { email?: string } | undefined)?.email).toLowerCase(),
    );
    expect(found.map((lead) => lead?.email).sort()).toEqual(created.sort());
  });
});
