/**
 * What the delivery suites share: a real sandbox upstream, dynalite with a fresh ledger table
 * per test (the shared pacer and circuit items live in it), a mutable configuration, recorded
 * events, ways to record leads and read what the sandbox received, and `step`, which plays the
 * queue: it runs the attempt the lead's chain is due for, at the moment it is due.
 */
import { randomBytes } from 'node:crypto';
import { createLocalConfigSource, parseConfig } from '../../functions/config/config-local.ts';
import type { Config, Profile } from '../../functions/config/config-schema.ts';
import type {
  ForwardDeps,
  ForwardEvent,
  ForwardMetric,
  ForwardOptions,
  ForwardOutcome,
} from '../../functions/delivery/forward/attempt.ts';
import { forwardLead } from '../../functions/delivery/forward/forward.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import type { Prospect } from '../../functions/domain/prospect.ts';
import type { LeadLedger, LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { type CircuitOptions, DEFAULT_CIRCUIT_OPTIONS } from '../../functions/upstream/circuit.ts';
import { createDynamoCircuit } from '../../functions/upstream/circuit-dynamodb.ts';
import { type PacerLimits, pacedUpstream } from '../../functions/upstream/paced-client.ts';
import type { FlushablePacer } from '../../functions/upstream/pacer.ts';
import { createDynamoPacer } from '../../functions/upstream/pacer-dynamodb.ts';
import type { StoredProspect } from '../../sandbox/prospects-route.ts';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';

export const NO_LIMITS = { perSecond: 100_000, perMinute: 1_000_000 };

export interface Recorded {
  events: ForwardEvent[];
  metrics: ForwardMetric[];
  /** lookupSkipped, leaseLost and circuitChanged notices, by kind. */
  notices: { kind: string; [key: string]: unknown }[];
}

export interface DeliveryHarness {
  sandbox: Sandbox;
  dynamo: TestDynamo;
  /** The current test's ledger table (fresh per test: call `reset`). */
  table: string;
  ledger: LeadLedger;
  config: Config;
  recorded: Recorded;
  /** Fresh table and ledger, sandbox state and faults cleared, configuration restored. */
  reset(): Promise<void>;
  close(): Promise<void>;
  deps(overrides?: DepsOverrides): ForwardDeps;
  /** Records a queued lead of `profile` and returns it. */
  record(profile: string, capture: LeadCapture, prospect?: Prospect): Promise<LeadRecord>;
  setFaults(faults: Record<string, unknown>): Promise<void>;
  prospects(): Promise<StoredProspect[]>;
  /** Requests per status for a route of the sandbox (`POST /api/v1/prospects`). */
  calls(route: string): Promise<Record<string, number>>;
  registerMetaLead(lead: unknown): Promise<void>;
  /**
   * One attempt of the lead's current chain at the moment it is due (its next attempt, or the
   * end of a lease), as its queue message would run it; `later` adds to that moment.
   */
  step(leadId: string, overrides?: DepsOverrides & { later?: number }): Promise<ForwardOutcome>;
  /** The offset from real time of the last `step` (the harness's clock only moves forward). */
  offsetMs: number;
}

export interface DepsOverrides {
  /** Clock of the pacer and of forwardLead's transitions, as an offset from real time. */
  offsetMs?: number;
  password?: string;
  timeoutMs?: number;
  options?: ForwardOptions;
  fetch?: typeof fetch;
  onUnauthorized?: () => void;
  /** Pacer item key (default pacer#upstream in the test's table). */
  pacerKey?: string;
  circuit?: Partial<CircuitOptions>;
  /** Where the attempt that closes the circuit wakes the leads that waited for it. */
  queue?: ForwardDeps['queue'];
}

export function formCapture(overrides: Partial<LeadCapture> = {}): LeadCapture {
  const id = randomBytes(6).toString('hex');
  return {
    source: 'form',
    dedupKey: `key:${id}`,
    isTest: false,
    answers: [
      { key: 'name', value: 'Maria Souza' },
      { key: 'email', value: `maria.${id}@example.com` },
      { key: 'phone', value: '+55 11 98765-4321' },
    ],
    attribution: { utm_source: 'google' },
    ...overrides,
  };
}

/** Validated like a configuration file, so that the schema's defaults apply. */
function baseConfig(sandboxUrl: string): Config {
  return parseConfig({
    upstream: {
      baseUrl: sandboxUrl,
      username: 'demo',
      password: 'demo',
      maxPerSecond: 50,
      maxPerMinute: 3_000,
      timeoutMs: 3_000,
      partnerTokenField: 'tokenPartner',
    },
    clients: [],
    profiles: {
      site: { source: 'form', token: 'demo-form-token', defaults: { idBranch: 1 } },
      native: { source: 'prospect' },
      meta: {
        source: 'meta',
        appSecret: 'demo-meta-app-secret',
        verifyToken: 'demo-meta-verify-token',
        pageAccessToken: 'demo-meta-page-token',
        graphBaseUrl: `${sandboxUrl}/graph`,
        defaults: { idBranch: 2 },
      },
    } satisfies Record<string, Profile>,
  });
}

export async function startDeliveryHarness(): Promise<DeliveryHarness> {
  const sandbox = await createSandbox({ port: 0 });
  const dynamo = await startTestDynamo();
  const recorded: Recorded = { events: [], metrics: [], notices: [] };
  const comesBack = new Map<string, number>();
  const harness: DeliveryHarness = {
    sandbox,
    dynamo,
    table: '',
    ledger: undefined as unknown as LeadLedger,
    config: baseConfig(sandbox.url),
    recorded,
    async reset() {
      harness.table = await dynamo.createLedgerTable();
      harness.ledger = createDynamoLedger({
        erasureSalt: TEST_ERASURE_SALT,
        client: dynamo.client,
        tableName: harness.table,
      });
      harness.config = baseConfig(sandbox.url);
      recorded.events.length = 0;
      recorded.metrics.length = 0;
      recorded.notices.length = 0;
      harness.offsetMs = 0;
      comesBack.clear();
      for (const path of ['/_sandbox/prospects', '/_sandbox/stats', '/_sandbox/rate-limit']) {
        await fetch(`${sandbox.url}${path}`, { method: 'DELETE' });
      }
      await fetch(`${sandbox.url}/_sandbox/meta-leads`, { method: 'DELETE' });
      await harness.setFaults({});
    },
    async close() {
      await sandbox.close();
      await dynamo.close();
    },
    deps(overrides = {}) {
      const offset = overrides.offsetMs ?? 0;
      const config = createLocalConfigSource(harness.config);
      const upstreamConfig = {
        upstream: async () => ({
          ...harness.config.upstream,
          ...(overrides.password !== undefined && { password: overrides.password }),
          ...(overrides.timeoutMs !== undefined && { timeoutMs: overrides.timeoutMs }),
        }),
      };
      const pacerFor = (upstream: PacerLimits): FlushablePacer =>
        createDynamoPacer({
          client: dynamo.client,
          tableName: harness.table,
          ...(overrides.pacerKey !== undefined && { key: overrides.pacerKey }),
          maxPerSecond: upstream.maxPerSecond,
          maxPerMinute: upstream.maxPerMinute,
          maxWaitMs: overrides.options?.maxPacingWaitMs ?? 5_000,
          now: () => Date.now() + offset,
        });
      const access = pacedUpstream(
        upstreamConfig,
        pacerFor,
        overrides.fetch ? { fetch: overrides.fetch } : {},
      );
      const circuit = createDynamoCircuit({
        client: dynamo.client,
        tableName: harness.table,
        options: { ...DEFAULT_CIRCUIT_OPTIONS, ...overrides.circuit },
      });
      return {
        ledger: harness.ledger,
        config,
        upstream: async () => ({ ...(await access()), circuit }),
        events: {
          finished: (event) => recorded.events.push({ ...event }),
          metric: (name) => recorded.metrics.push(name),
          lookupSkipped: (event) => recorded.notices.push({ kind: 'lookupSkipped', ...event }),
          leaseLost: (event) => recorded.notices.push({ kind: 'leaseLost', ...event }),
          circuitChanged: (event) => recorded.notices.push({ kind: 'circuitChanged', ...event }),
        },
        random: () => 0.5,
        ...(overrides.queue && { queue: overrides.queue }),
        ...(overrides.onUnauthorized && { onUnauthorized: overrides.onUnauthorized }),
        options: { spreadMs: 0, ...overrides.options },
      };
    },
    async record(profile, capture, prospect) {
      const { lead } = await harness.ledger.record({
        profile,
        source: capture.source,
        dedupKey: capture.dedupKey,
        capture,
        ...(prospect && { prospect }),
        status: 'queued',
        receivedAt: new Date(),
      });
      return lead;
    },
    async setFaults(faults) {
      const response = await fetch(`${sandbox.url}/_sandbox/faults`, {
        method: 'POST',
        body: JSON.stringify({ ...NO_LIMITS, ...faults }),
      });
      if (!response.ok) throw new Error(`faults refused: ${await response.text()}`);
    },
    async prospects() {
      return (await (await fetch(`${sandbox.url}/_sandbox/prospects`)).json()) as StoredProspect[];
    },
    async calls(route) {
      const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
        byRoute: Record<string, Record<string, number>>;
      };
      return stats.byRoute[route] ?? {};
    },
    offsetMs: 0,
    async step(leadId, overrides = {}) {
      const lead = await harness.ledger.get(leadId);
      const dueAt = lead?.status === 'sending' ? lead.leaseUntil : lead?.nextAttemptAt;
      // The message comes back when the lead is due, or when the last outcome said (a wait that
      // wrote nothing, such as circuit-open), whichever is later.
      const due = Math.max(
        dueAt ? Date.parse(dueAt) - Date.now() : 0,
        (comesBack.get(leadId) ?? 0) - Date.now(),
      );
      harness.offsetMs =
        Math.max(harness.offsetMs, due, overrides.offsetMs ?? 0) + (overrides.later ?? 0);
      const offset = harness.offsetMs;
      const outcome = await forwardLead(
        { leadId, ...(lead && { version: lead.version }) },
        harness.deps({ ...overrides, offsetMs: offset }),
        offsetClock(offset),
      );
      if (outcome.kind === 'retry') comesBack.set(leadId, Date.now() + offset + outcome.delayMs);
      return outcome;
    },
    async registerMetaLead(lead) {
      const response = await fetch(`${sandbox.url}/_sandbox/meta-leads`, {
        method: 'POST',
        body: JSON.stringify(lead),
      });
      if (response.status !== 201) throw new Error(`meta lead refused: ${await response.text()}`);
    },
  };
  return harness;
}

/** Offset clock for forwardLead's transitions. */
export function offsetClock(offsetMs: number): () => Date {
  return () => new Date(Date.now() + offsetMs);
}
