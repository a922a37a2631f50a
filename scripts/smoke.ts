/**
 * The smoke test after a deploy (docs/deploy.md, "After every deploy: the smoke test"): does the
 * deployed stack answer, and does it accept a lead through the real path?
 *
 *   LEADS_PASSWORD=... npm run -s smoke -- --url https://<api>/prod/ --user ops --profile site
 *
 * 1. `GET /health` answers 200 `{"status": "ok"}` (API Gateway itself);
 * 2. `GET /openapi.json` answers the API description (a function behind the gateway);
 * 3. `POST /admin/test-lead/{profile}` (Basic, an `admin` client): the admin function signs the
 *    profile's sample as its platform would and sends it to the intake over HTTP, the real path;
 *    the intake must accept it (2xx) and name its lead;
 * 4. `GET /admin/leads/{id}` until the lead leaves `queued`: it must reach one of the statuses
 *    of `--expect` (default `test` or `delivered`) within `--timeout` seconds (default 180).
 *    A lead parked, rejected or dead fails the smoke test with the ledger's reason.
 *
 * Any failure prints what failed and exits 1 (2 for a usage error). The deploy workflow runs it
 * after `npm run deploy`; `npm test` runs `smoke()` against the local runtime
 * (test/e2e/smoke.test.ts). Options: --url (or LEADS_URL) or --outputs <cdk-outputs.json> (the
 * file `npm run deploy` writes: the ApiUrl of its stack), --user (or LEADS_USER), --profile (or
 * LEADS_SMOKE_PROFILE), --timeout, --expect; the password from LEADS_PASSWORD only.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { ApiClient, type Credentials } from '../cli/client.ts';

export interface SmokeOptions {
  /** The API's base URL (the ApiUrl output, with its stage). */
  url: string;
  credentials: Credentials;
  /** A profile whose source has a sample lead (GET /admin/setup lists them). */
  profile: string;
  /** Statuses that pass. @default ['test', 'delivered'] */
  expect?: readonly string[];
  /** How long the lead may take to leave `queued`. @default 180 s */
  timeoutMs?: number;
  /** Between two reads of the lead. @default 2 s */
  pollMs?: number;
  fetch?: typeof fetch;
  /** One line per step passed. */
  log?: (line: string) => void;
}

export interface SmokeResult {
  leadId: string;
  status: string;
}

/** A smoke test that failed: which step, and why. */
export class SmokeError extends Error {
  override readonly name = 'SmokeError';
}

export const DEFAULT_EXPECT = ['test', 'delivered'] as const;
/** Statuses a lead does not leave by itself: the smoke test is over when it reaches one. */
const SETTLED = new Set(['delivered', 'test', 'parked', 'rejected', 'dead']);

interface LeadView {
  leadId: string;
  status: string;
  reason?: string;
  lastError?: unknown;
}

/** Runs a request; a refusal (a CliError names its method and path) becomes a SmokeError. */
async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SmokeError) throw error;
    const { message } = error as Error;
    throw new SmokeError(/^[A-Z]+ \//.test(message) ? message : `${name}: ${message}`);
  }
}

async function checkPublicRoutes(api: ApiClient, log: (line: string) => void): Promise<void> {
  const health = await step('GET /health', () => api.request<{ status?: string }>('GET', 'health'));
  if (health.body?.status !== 'ok') {
    throw new SmokeError(
      `GET /health: answered ${JSON.stringify(health.body)}, not {"status":"ok"}`,
    );
  }
  log('GET /health: ok');
  const openapi = await step('GET /openapi.json', () =>
    api.request<{ openapi?: string; paths?: Record<string, unknown> }>('GET', 'openapi.json'),
  );
  if (!openapi.body?.openapi || !openapi.body.paths?.['/leads/{profile}']) {
    throw new SmokeError('GET /openapi.json: not the API description (no /leads/{profile} in it)');
  }
  log(`GET /openapi.json: OpenAPI ${openapi.body.openapi}`);
}

/** Sends the profile's sample through the real path; resolves its lead id. */
async function sendTestLead(admin: ApiClient, profile: string, log: (line: string) => void) {
  const route = `POST /admin/test-lead/${profile}`;
  const sent = await step(route, () =>
    admin.request<{ status: number; leadIds: string[]; answer: unknown }>(
      'POST',
      `admin/test-lead/${encodeURIComponent(profile)}`,
    ),
  );
  const { status, leadIds, answer } = sent.body;
  if (!(status >= 200 && status < 300)) {
    throw new SmokeError(
      `${route}: the intake answered ${status} to the sample lead: ${JSON.stringify(answer).slice(0, 500)}`,
    );
  }
  const [leadId] = leadIds ?? [];
  if (!leadId) throw new SmokeError(`${route}: the intake accepted the sample but named no lead`);
  log(`${route}: the intake answered ${status}, lead ${leadId}`);
  return leadId;
}

/** Reads the lead until it settles (or time runs out). */
async function follow(admin: ApiClient, leadId: string, options: SmokeOptions): Promise<LeadView> {
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  let lead: LeadView;
  for (;;) {
    lead = (
      await step(`GET /admin/leads/${leadId}`, () =>
        admin.request<LeadView>('GET', `admin/leads/${encodeURIComponent(leadId)}`),
      )
    ).body;
    if (SETTLED.has(lead.status) || Date.now() >= deadline) return lead;
    await delay(options.pollMs ?? 2_000);
  }
}

/** Runs the four steps (module comment); rejects with a SmokeError naming the one that failed. */
export async function smoke(options: SmokeOptions): Promise<SmokeResult> {
  const log = options.log ?? (() => {});
  const expected = options.expect ?? DEFAULT_EXPECT;
  const publicApi = new ApiClient(options.url, undefined, options.fetch);
  const admin = new ApiClient(options.url, options.credentials, options.fetch);
  await checkPublicRoutes(publicApi, log);
  const leadId = await sendTestLead(admin, options.profile, log);
  const lead = await follow(admin, leadId, options);
  if (!expected.includes(lead.status)) {
    const why = lead.reason ?? (lead.lastError ? JSON.stringify(lead.lastError) : undefined);
    throw new SmokeError(
      `GET /admin/leads/${leadId}: the lead is ${lead.status}${why ? ` (${why})` : ''}, not ${expected.join(' or ')}${SETTLED.has(lead.status) ? '' : ' in time'}`,
    );
  }
  log(`GET /admin/leads/${leadId}: ${lead.status}`);
  return { leadId, status: lead.status };
}

const USAGE =
  'usage: LEADS_PASSWORD=... npm run -s smoke -- --url <ApiUrl> | --outputs cdk-outputs.json --user <admin client> --profile <profile> [--timeout <seconds>] [--expect test,delivered]';

/**
 * The API's URL in a CDK outputs file (`{"leads-prod": {"ApiUrl": "...", ...}}`): the ApiUrl of
 * its one stack that has one.
 */
export function apiUrlFromOutputs(path: string): string {
  let outputs: Record<string, Record<string, unknown>>;
  try {
    outputs = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SmokeError(`--outputs ${path}: cannot read it (${(error as Error).message})`);
  }
  const urls = Object.values(outputs ?? {}).flatMap((stack) =>
    typeof stack?.ApiUrl === 'string' ? [stack.ApiUrl] : [],
  );
  if (urls.length !== 1) {
    throw new SmokeError(
      `--outputs ${path}: ${urls.length === 0 ? 'no stack with an ApiUrl output' : 'more than one ApiUrl; pass --url'}`,
    );
  }
  return urls[0] as string;
}

/** The options of a command line (and the environment), or a usage error. */
export function smokeOptions(args: readonly string[], env: NodeJS.ProcessEnv): SmokeOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      url: { type: 'string' },
      outputs: { type: 'string' },
      user: { type: 'string' },
      profile: { type: 'string' },
      timeout: { type: 'string' },
      expect: { type: 'string' },
    },
  });
  const url =
    values.url ?? (values.outputs ? apiUrlFromOutputs(values.outputs) : undefined) ?? env.LEADS_URL;
  const user = values.user ?? env.LEADS_USER;
  const profile = values.profile ?? env.LEADS_SMOKE_PROFILE;
  const password = env.LEADS_PASSWORD;
  const missing = [
    !url && '--url (or --outputs, or LEADS_URL)',
    !user && '--user (or LEADS_USER)',
    !password && 'LEADS_PASSWORD',
    !profile && '--profile (or LEADS_SMOKE_PROFILE)',
  ].filter(Boolean);
  if (missing.length > 0) throw new SmokeError(`missing ${missing.join(', ')}\n${USAGE}`);
  const seconds = values.timeout === undefined ? 180 : Number(values.timeout);
  if (!(seconds > 0)) throw new SmokeError(`--timeout must be a number of seconds\n${USAGE}`);
  return {
    url: url as string,
    credentials: { user: user as string, password: password as string },
    profile: profile as string,
    timeoutMs: seconds * 1000,
    ...(values.expect && { expect: values.expect.split(',').map((s) => s.trim()) }),
  };
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) {
  let options: SmokeOptions;
  try {
    options = smokeOptions(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`smoke: ${(error as Error).message}\n`);
    process.exit(2);
  }
  try {
    const result = await smoke({
      ...options,
      log: (line) => process.stdout.write(`smoke: ${line}\n`),
    });
    process.stdout.write(`smoke: passed (lead ${result.leadId} ${result.status})\n`);
  } catch (error) {
    process.stderr.write(`smoke: FAILED: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
