/**
 * The whole local runtime in this test process (what `npm start` runs: sandbox, local DynamoDB,
 * gateway), on ephemeral ports with a fresh DATA_DIR and a test configuration, plus ways to post
 * fixtures through the gateway, to read the ledger behind it, and the assertions the e2e intake
 * tests share about the gateway's answers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Config } from '../../functions/config/config-schema.ts';
import { LEAD_STATUSES } from '../../functions/domain/lead-lifecycle.ts';
import { localServices } from '../../functions/kernel/local-services.ts';
import type { LeadLedger, LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { type LocalRuntime, type StartOptions, startLocalRuntime } from '../../local/runtime.ts';
import type { LeadFixture } from './lead-fixtures.ts';

export interface TestRuntime {
  runtime: LocalRuntime;
  url: string;
  sandboxUrl: string;
  dataDir: string;
  ledger: LeadLedger;
  /** Sends a fixture's exact bytes to `path` (query from the fixture unless given in path). */
  send(
    path: string,
    fixture: LeadFixture,
    init?: { headers?: Record<string, string> },
  ): Promise<Response>;
  /** Posts raw bytes to `path` (with its query) with exactly these headers: platform payloads. */
  post(path: string, body: Buffer | string, headers?: Record<string, string>): Promise<Response>;
  /** Every lead in the ledger, whatever its status, oldest first; only `profile`'s when given. */
  leads(profile?: string): Promise<LeadRecord[]>;
  /** How many leads the ledger holds, whatever their status; only `profile`'s when given. */
  countLeads(profile?: string): Promise<number>;
  stop(): Promise<void>;
}

export interface TestRuntimeOptions {
  /**
   * Run the delivery worker. Default false: tests that look at a lead right after posting it
   * (`status: 'queued'`) would otherwise race with its delivery.
   */
  worker?: boolean;
  /** The upstream to use instead of the runtime's own sandbox (then `sandboxUrl` is ''). */
  upstreamUrl?: string;
  /** The quiet-profile watch's interval, clock and alert listener. */
  watch?: StartOptions['watch'];
  /** Told when the configuration file was reloaded (with its warnings) or refused. */
  onConfigReload?: StartOptions['onConfigReload'];
}

/** Writes `config` to a temp file and starts the runtime on it. */
export async function startTestRuntime(
  config: unknown,
  options: TestRuntimeOptions = {},
): Promise<TestRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leads-e2e-'));
  const configPath = join(dataDir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const runtime = await startLocalRuntime(
    {
      port: 0,
      sandboxPort: 0,
      upstreamUrl: options.upstreamUrl,
      configPath,
      dataDir,
    },
    {
      worker: options.worker ?? false,
      ...(options.watch && { watch: options.watch }),
      ...(options.onConfigReload && { onConfigReload: options.onConfigReload }),
    },
  );
  const services = localServices();
  const ledger = createDynamoLedger({ client: services.dynamo, tableName: services.ledgerTable });
  const url = runtime.gatewayUrl;
  return {
    runtime,
    url,
    sandboxUrl: runtime.sandboxUrl ?? '',
    dataDir,
    ledger,
    async send(path, fixture, init = {}) {
      const target = new URL(path, url);
      if (!target.search) {
        for (const [key, value] of Object.entries(fixture.query ?? {})) {
          for (const v of Array.isArray(value) ? value : [value])
            target.searchParams.append(key, v);
        }
      }
      const body = Buffer.from(fixture.body, fixture.encoding === 'base64' ? 'base64' : 'utf8');
      return fetch(target, {
        method: fixture.method ?? 'POST',
        headers: { ...fixture.headers, ...init.headers },
        ...(fixture.method === 'GET' ? {} : { body }),
        redirect: 'manual',
      });
    },
    post(path, body, headers = {}) {
      return fetch(new URL(path, url), {
        method: 'POST',
        headers,
        body: typeof body === 'string' ? body : new Uint8Array(body),
        redirect: 'manual',
      });
    },
    leads(profile) {
      return allLeads(ledger, profile);
    },
    async countLeads(profile) {
      return (await allLeads(ledger, profile)).length;
    },
    async stop() {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Every lead of every status (following the listing's pages), oldest first. Once each: a lead the
 * worker delivers between the `queued` and the `delivered` listings is in both, the later kept.
 */
async function allLeads(ledger: LeadLedger, profile?: string): Promise<LeadRecord[]> {
  const found = new Map<string, LeadRecord>();
  for (const status of LEAD_STATUSES) {
    let cursor: string | undefined;
    do {
      const page = await ledger.listByStatus(status, { limit: 1000, ...(cursor && { cursor }) });
      for (const lead of page.leads) found.set(lead.leadId, lead);
      cursor = page.cursor;
    } while (cursor);
  }
  const all = [...found.values()];
  const mine = profile === undefined ? all : all.filter((lead) => lead.profile === profile);
  return mine.sort(
    (a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.leadId.localeCompare(b.leadId),
  );
}

/** The upstream part every test configuration shares (the sandbox replaces the base URL). */
export const TEST_UPSTREAM: Config['upstream'] = {
  baseUrl: 'http://127.0.0.1:4010',
  username: 'demo',
  password: 'demo',
  maxPerSecond: 4,
  maxPerMinute: 36,
  timeoutMs: 5000,
  partnerTokenField: 'tokenPartner',
};

/** A test configuration: {@link TEST_UPSTREAM}, these profiles, and no API clients unless given. */
export function testConfig(
  profiles: Record<string, unknown>,
  clients: readonly Record<string, unknown>[] = [],
) {
  return { upstream: TEST_UPSTREAM, clients, profiles };
}

/** The `leadId` of an accepted request's JSON answer. */
export async function leadIdOf(response: Response): Promise<string> {
  const body = (await response.json()) as { leadId: string };
  return body.leadId;
}

/**
 * The Basic challenge of a 401. API Gateway (REST, Lambda proxy) hands the function's
 * WWW-Authenticate to the client as `x-amzn-Remapped-WWW-Authenticate`, and the local gateway
 * does the same; either name carries the challenge.
 */
export function basicChallengeOf(response: Response): string | null {
  return (
    response.headers.get('www-authenticate') ??
    response.headers.get('x-amzn-remapped-www-authenticate')
  );
}

/**
 * Asserts that one lead was accepted and queued: the HTTP `status`, then the answer
 * `{ leadId: 'ld_…', status: 'queued' }`. Resolves the ledger's record of that lead.
 */
export async function expectQueuedAnswer(
  rt: TestRuntime,
  response: Response,
  status: number,
): Promise<LeadRecord | undefined> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { leadId: string; status: string };
  expect(body).toEqual({ leadId: expect.stringMatching(/^ld_/), status: 'queued' });
  return rt.ledger.get(body.leadId);
}

/**
 * Asserts that the request was answered with `status` (200 unless told: the platforms drop a
 * lead on any other answer) and its lead parked under `profile` with `reason`. Resolves the record.
 */
export async function expectParked(
  rt: TestRuntime,
  response: Response,
  parked: { profile: string; reason: string },
  status = 200,
): Promise<LeadRecord | undefined> {
  expect(response.status).toBe(status);
  const lead = await rt.ledger.get(await leadIdOf(response));
  expect(lead).toMatchObject({ profile: parked.profile, status: 'parked', reason: parked.reason });
  return lead;
}

/** Asserts that a redelivery was answered with `status` and the lead it repeats. */
export async function expectSameLead(
  response: Response,
  status: number,
  leadId: string,
): Promise<void> {
  expect(response.status).toBe(status);
  expect(await leadIdOf(response)).toBe(leadId);
}

/** Asserts an error answer (a refusal, an unknown lead...): its HTTP `status` and JSON error `code`. */
export async function expectErrorCode(
  response: Response,
  status: number,
  code: string,
): Promise<void> {
  expect(response.status).toBe(status);
  expect(await response.json()).toMatchObject({ error: { code } });
}
