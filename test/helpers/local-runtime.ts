/**
 * The whole local runtime in this test process (what `npm start` runs: sandbox, local DynamoDB,
 * gateway), on ephemeral ports with a fresh DATA_DIR and a test configuration, plus ways to post
 * fixtures through the gateway and to read the ledger behind it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../functions/shared/config-schema.ts';
import {
  LEAD_STATUSES,
  type LeadLedger,
  type LeadRecord,
} from '../../functions/shared/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/shared/lead-ledger-dynamodb.ts';
import { localServices } from '../../functions/shared/local-services.ts';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime.ts';
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
      upstreamUrl: undefined,
      configPath,
      dataDir,
    },
    { worker: options.worker ?? false },
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

/** Every lead of every status (following the listing's pages), oldest first. */
async function allLeads(ledger: LeadLedger, profile?: string): Promise<LeadRecord[]> {
  const found: LeadRecord[] = [];
  for (const status of LEAD_STATUSES) {
    let cursor: string | undefined;
    do {
      const page = await ledger.listByStatus(status, { limit: 1000, ...(cursor && { cursor }) });
      found.push(...page.leads);
      cursor = page.cursor;
    } while (cursor);
  }
  const mine = profile === undefined ? found : found.filter((lead) => lead.profile === profile);
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
