/**
 * A crash in the middle of intake: `npm start`'s entry runs as a child (worker on) against a
 * sandbox that lives in this test process (UPSTREAM_URL), so the upstream survives the crash.
 * Many leads are posted at once; the child gets SIGKILL while requests are in flight; it is
 * started again on the same DATA_DIR. Then:
 * - every lead answered 2xx before the kill is delivered exactly once (per email upstream);
 * - leads that got no answer (or a non-2xx) are posted again, as a platform retries, with the
 *   same body, and are not duplicated either: every lead ends up upstream exactly once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import {
  ABUSE_SECRETS,
  abuseConfig,
  basicHeader,
  CLIENTS,
  cpfFrom,
  sandboxProspects,
  sleep,
  UPSTREAM_USER,
  waitFor,
} from '../helpers/abuse-kit.ts';
import { freePort, type LocalProcess, startLocal } from '../helpers/gateway-process.ts';
import { reportResult } from '../helpers/results.ts';

const LEADS = 48;

let sandbox: Sandbox;
let dir: string;
let configPath: string;
let dataDir: string;
const children: LocalProcess[] = [];

beforeAll(async () => {
  sandbox = await createSandbox({
    username: UPSTREAM_USER,
    password: ABUSE_SECRETS.upstreamPassword,
  });
  // The production limits would make 48 deliveries take minutes; the gateway's pacer still runs.
  const faults = await fetch(`${sandbox.url}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ perSecond: 1000, perMinute: 100_000 }),
  });
  expect(faults.status).toBeLessThan(300);
  dir = mkdtempSync(join(tmpdir(), 'leads-crash-'));
  configPath = join(dir, 'config.json');
  dataDir = join(dir, 'data');
  writeFileSync(
    configPath,
    JSON.stringify(abuseConfig({ baseUrl: sandbox.url, maxPerSecond: 50, maxPerMinute: 3000 })),
  );
});

afterAll(async () => {
  for (const child of children) {
    if (child.child.exitCode === null && child.child.signalCode === null)
      await child.stop('SIGKILL');
  }
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function start(
  options: { dataDir?: string; worker?: boolean; logLevel?: string } = {},
): Promise<LocalProcess> {
  const local = await startLocal(
    {
      PORT: String(await freePort()),
      UPSTREAM_URL: sandbox.url,
      LEADS_CONFIG: configPath,
      DATA_DIR: options.dataDir ?? dataDir,
      LEADS_WORKER: options.worker === false ? 'off' : 'on',
      POWERTOOLS_LOG_LEVEL: options.logLevel ?? 'ERROR',
      // A lead killed mid-send waits out its lease, then counts as an ambiguous POST and waits
      // the settle time before its lookup: the local knobs keep that within the test's budget.
      LEADS_LEASE_MS: '6000',
      LEADS_VISIBILITY_MS: '8000',
      LEADS_SETTLE_MS: '2000',
      LEADS_RECONCILE_MS: '500',
      LEADS_WAKE_GRACE_MS: '2000',
      LEADS_WORKER_POLL_MS: '100',
    },
    { timeoutMs: 25_000 },
  );
  children.push(local);
  return local;
}

interface Lead {
  email: string;
  body: string;
}

const leads: Lead[] = Array.from({ length: LEADS }, (_, i) => {
  const n = String(i).padStart(3, '0');
  const email = `crash.lead.${n}@exemplo.com.br`;
  const body = JSON.stringify({
    nome: `Lead Queda ${n} Araújo`,
    email,
    celular: `+55119${String(81_000_000 + i * 7919).padStart(8, '0')}`,
    cpf: cpfFrom(String(100_000_000 + i * 104_729).slice(0, 9)),
  });
  return { email, body };
});

type Outcome = { kind: 'answered'; status: number } | { kind: 'no-answer'; error: string };

async function postLead(gatewayUrl: string, lead: Lead): Promise<Outcome> {
  try {
    const res = await fetch(`${gatewayUrl}/leads/site`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-lead-token': ABUSE_SECRETS.siteToken },
      body: lead.body,
      signal: AbortSignal.timeout(20_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { kind: 'answered', status: res.status };
  } catch (error) {
    return { kind: 'no-answer', error: String(error) };
  }
}

function countByEmail(
  prospects: Awaited<ReturnType<typeof sandboxProspects>>,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of prospects) {
    const email = String(p.body.email ?? '').toLowerCase();
    counts.set(email, (counts.get(email) ?? 0) + 1);
  }
  return counts;
}

describe('resilience: kill -9 in the middle of intake', () => {
  it('delivers every accepted lead exactly once after a restart, retries included', async () => {
    const first = await start();
    let answered = 0;
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      first.child.kill('SIGKILL');
    };
    const outcomes = await Promise.all(
      leads.map(async (lead, i) => {
        // Staggered a little, so that some are answered, some in flight, some not yet sent.
        await sleep(i * 15);
        const outcome = await postLead(first.gatewayUrl, lead);
        if (outcome.kind === 'answered' && ++answered >= LEADS / 3) kill();
        return outcome;
      }),
    );
    kill();
    await new Promise<void>((resolve) => {
      if (first.child.exitCode !== null || first.child.signalCode !== null) resolve();
      else first.child.once('exit', () => resolve());
    });

    const accepted = leads.filter((_, i) => {
      const o = outcomes[i];
      return o?.kind === 'answered' && o.status >= 200 && o.status < 300;
    });
    const unanswered = leads.filter((_, i) => outcomes[i]?.kind === 'no-answer');
    const refused = outcomes.filter(
      (o) => o.kind === 'answered' && (o.status < 200 || o.status >= 300),
    );
    // The crash must really have hit in the middle: some accepted, some cut off.
    expect(accepted.length).toBeGreaterThan(0);
    expect(unanswered.length).toBeGreaterThan(0);
    expect(refused, JSON.stringify(refused)).toEqual([]);

    // Same DATA_DIR: what was accepted is still there and gets delivered.
    const second = await start();
    const health = await fetch(`${second.gatewayUrl}/health`);
    expect(health.status).toBe(200);

    // The platform retries what it got no answer for (same body, no idempotency key).
    for (const lead of unanswered) {
      const outcome = await postLead(second.gatewayUrl, lead);
      expect(outcome, lead.email).toMatchObject({ kind: 'answered' });
      if (outcome.kind === 'answered') expect(outcome.status, lead.email).toBeLessThan(300);
    }

    const everyone = new Set(leads.map((l) => l.email));
    await waitFor(
      'every lead delivered upstream',
      async () => {
        const counts = countByEmail(await sandboxProspects(sandbox.url));
        return [...everyone].every((e) => (counts.get(e) ?? 0) >= 1) ? true : undefined;
      },
      60_000,
      300,
    );
    // Leave time for a late duplicate (a redelivered message, a second lease) to show up.
    await sleep(2500);

    const counts = countByEmail(await sandboxProspects(sandbox.url));
    const acceptedTwice = accepted.filter((l) => counts.get(l.email) !== 1);
    const retriedTwice = unanswered.filter((l) => counts.get(l.email) !== 1);
    expect(
      acceptedTwice.map((l) => `${l.email}: ${counts.get(l.email) ?? 0}`),
      'accepted before the crash, not delivered exactly once',
    ).toEqual([]);
    expect(
      retriedTwice.map((l) => `${l.email}: ${counts.get(l.email) ?? 0}`),
      'retried after the crash, not delivered exactly once',
    ).toEqual([]);
    // Nothing else arrived upstream.
    expect([...counts.keys()].filter((e) => !everyone.has(e))).toEqual([]);

    expect(await second.stop('SIGTERM')).toBe(0);
  }, 120_000);

  it('repeated kill -9 during intake: every lead the ledger holds is delivered, with no operator and no platform retry', async () => {
    // Prepare: a ledger of its own; five rounds of 30 requests in flight, each cut by kill -9.
    // The worker is off during the rounds, so every lead waits on its queue message, or on
    // nothing when the kill came between the ledger write and the message.
    const ownDataDir = join(dir, 'data-repeated');
    const rounds = 5;
    const perRound = 30;
    let accepted = 0;
    for (let round = 0; round < rounds; round += 1) {
      const local = await start({ dataDir: ownDataDir, worker: false });
      const batch = Array.from({ length: perRound }, (_, i) => {
        const n = `${round}-${String(i).padStart(2, '0')}`;
        const email = `kill.round.${n}@exemplo.com.br`;
        const body = JSON.stringify({
          nome: `Lead Rodada ${n} Souza`,
          email,
          celular: `+55119${String(70_000_000 + round * 1000 + i * 31).padStart(8, '0')}`,
          cpf: cpfFrom(String(200_000_000 + round * 7_919 + i * 104_729).slice(0, 9)),
        });
        return { email, body };
      });
      let answered = 0;
      const outcomes = await Promise.all(
        batch.map(async (lead, i) => {
          await sleep(i * 3);
          const outcome = await postLead(local.gatewayUrl, lead);
          if (outcome.kind === 'answered' && ++answered === perRound / 2) {
            local.child.kill('SIGKILL');
          }
          return outcome;
        }),
      );
      if (local.child.exitCode === null && local.child.signalCode === null) {
        local.child.kill('SIGKILL');
      }
      await new Promise<void>((resolve) => {
        if (local.child.exitCode !== null || local.child.signalCode !== null) resolve();
        else local.child.once('exit', () => resolve());
      });
      accepted += outcomes.filter((o) => o.kind === 'answered' && o.status < 300).length;
    }

    // Act: one more start, worker on; nobody posts anything again.
    const last = await start({ dataDir: ownDataDir, logLevel: 'INFO' });
    const ops = basicHeader(CLIENTS.ops.username, CLIENTS.ops.password);
    const list = async (status: string) => {
      const leads: { leadId: string }[] = [];
      let cursor: string | undefined;
      do {
        const url = new URL('/admin/leads', last.gatewayUrl);
        url.searchParams.set('status', status);
        url.searchParams.set('limit', '500');
        if (cursor) url.searchParams.set('cursor', cursor);
        const page = (await (await fetch(url, { headers: { authorization: ops } })).json()) as {
          leads: { leadId: string }[];
          cursor?: string;
        };
        leads.push(...page.leads);
        cursor = page.cursor;
      } while (cursor);
      return leads;
    };
    await waitFor(
      'no lead left queued',
      async () => ((await list('queued')).length === 0 ? true : undefined),
      60_000,
      300,
    );
    await sleep(2500);

    // Assess: everything the ledger holds was delivered once, nothing else; none needed anyone.
    const delivered = await list('delivered');
    const others = await Promise.all(
      ['queued', 'parked', 'dead', 'rejected', 'test'].map(async (status) => [
        status,
        (await list(status)).length,
      ]),
    );
    const counts = countByEmail(await sandboxProspects(sandbox.url));
    const ours = [...counts].filter(([email]) => email.startsWith('kill.round.'));
    reportResult(
      `[intake-crash] ${rounds} kills: ${accepted} answered 2xx, ${delivered.length} delivered in all; ${
        (last.stdout().match(/lead woken by the reconciler/g) ?? []).length
      } woken by the reconciler`,
    );
    expect(Object.fromEntries(others)).toEqual({
      queued: 0,
      parked: 0,
      dead: 0,
      rejected: 0,
      test: 0,
    });
    expect(ours.filter(([, n]) => n !== 1)).toEqual([]);
    // Every lead answered 2xx is in the ledger, so delivered; the ledger holds no more than the
    // sandbox received (earlier tests' leads included).
    expect(ours.length).toBeGreaterThanOrEqual(accepted);
    expect(delivered.length).toBe(ours.length);

    expect(await last.stop('SIGTERM')).toBe(0);
  }, 240_000);
});
