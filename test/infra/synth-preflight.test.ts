/**
 * A plain `npx cdk deploy` refuses as `npm run deploy` does (infra/synth-preflight.ts): the app
 * run as the CDK CLI runs it (CDK_OUTDIR, CDK_CONTEXT_JSON, and CDK_DEFAULT_ACCOUNT /
 * CDK_DEFAULT_REGION, which the CLI sets when its credentials resolve), its Lambda calls sent
 * to a recording endpoint (AWS_ENDPOINT_URL) that answers GetAccountSettings with a chosen
 * quota. A quota too small for the stack's reservations stops the synth with the preflight's
 * own words (infra/concurrency-quota.ts); a big one synthesizes; `-c skipPreflight=true` and a
 * configuration without reservations (the default) synthesize without asking AWS anything.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { concurrencyProblem, reservationsOf } from '../../infra/concurrency-quota.ts';
import { CONFIG_ENV, DEFAULT_DEPLOY_CONFIG, REPO_ROOT } from '../../infra/config.ts';
import { cdkJsonContext } from './helpers.ts';

const ACCOUNT = '123456789012';
const REGION = 'sa-east-1';
const KEY_ID = 'AKIDSYNTHPREFLIGHT';

let dir: string;
let server: Server;
let endpoint: string;
/** The quota the endpoint answers with. */
let quota = 10;
const received: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];

function json(res: import('node:http').ServerResponse, body: unknown, status = 200, type = '') {
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(type && { 'x-amzn-errortype': type }),
  });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'leads-synth-preflight-'));
  mkdirSync(join(dir, 'home'));
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const url = req.url ?? '';
      if (req.method === 'GET' && url.startsWith('/2016-08-19/account-settings')) {
        const AccountLimit = { ConcurrentExecutions: quota, UnreservedConcurrentExecutions: quota };
        return json(res, { AccountLimit, AccountUsage: { FunctionCount: 0 } });
      }
      // GetFunctionConcurrency: the stack's functions do not exist yet (a first deploy).
      if (req.method === 'GET' && /^\/2019-09-30\/functions\/[^/]+\/concurrency/.test(url)) {
        return json(res, { message: 'Function not found' }, 404, 'ResourceNotFoundException');
      }
      json(res, { message: `no route ${req.method} ${url}` }, 400, 'InvalidRequestException');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  received.length = 0;
});

/** The committed example as a deployable stage, with `changes`, written to a file. */
function config(name: string, changes: Record<string, unknown>): string {
  const raw = JSON.parse(readFileSync(DEFAULT_DEPLOY_CONFIG, 'utf8')) as Record<string, unknown>;
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ ...raw, stage: 'prod', region: REGION, ...changes }));
  return path;
}

/** `npx tsx infra/app.ts` as the CDK CLI runs it, with credentials for the recording endpoint. */
function synth(configPath: string, context: Record<string, unknown> = {}) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(AWS_|CDK_)/.test(key) && key !== CONFIG_ENV),
  );
  const outdir = mkdtempSync(join(dir, 'cdk.out-'));
  const env = {
    ...inherited,
    HOME: join(dir, 'home'),
    AWS_ACCESS_KEY_ID: KEY_ID,
    AWS_SECRET_ACCESS_KEY: 'synth-preflight-secret',
    AWS_ENDPOINT_URL: endpoint,
    CDK_DEFAULT_ACCOUNT: ACCOUNT,
    CDK_DEFAULT_REGION: REGION,
    CDK_OUTDIR: outdir,
    CDK_CONTEXT_JSON: JSON.stringify({
      ...cdkJsonContext(),
      'aws:cdk:bundling-stacks': [],
      config: configPath,
      ...context,
    }),
  };
  return new Promise<{ code: number; stderr: string; template?: unknown }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'infra/app.ts'],
      { cwd: REPO_ROOT, env, maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        const file = join(outdir, 'leads-prod.template.json');
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          stderr,
          ...(existsSync(file) && { template: JSON.parse(readFileSync(file, 'utf8')) }),
        });
      },
    );
  });
}

const STACK_RESERVES = [
  { functionName: 'leads-prod-forwarder', reserved: 2 },
  { functionName: 'leads-prod-report-refresher', reserved: 2 },
];

describe('npx cdk deploy with an account: the concurrency check at synth', () => {
  it("refuses a new account's quota of 10 with the preflight's message, and asks with the SDK's credentials", async () => {
    // Prepare
    quota = 10;

    // Act
    const run = await synth(config('reserving.json', { reserveConcurrency: true }));

    // Assess: the same text `npm run deploy` prints, from the same function and template.
    const reservations = reservationsOf(run.template as never);
    const problem = concurrencyProblem({
      region: REGION,
      limit: 10,
      unreserved: 10,
      reservedNow: 0,
      reservations,
    }) as string;
    expect(run.code, run.stderr).toBe(1);
    expect(reservations.sort((a, b) => a.functionName.localeCompare(b.functionName))).toEqual(
      STACK_RESERVES,
    );
    expect(run.stderr).toContain(`- ${problem}`);
    expect(run.stderr).toContain('it needs a quota of at least 104');
    expect(run.stderr).toContain('--quota-code L-B99A9384 --desired-value 1000');
    expect(run.stderr).toContain('-c skipPreflight=true');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const settings = received.filter((r) => r.url.startsWith('/2016-08-19/account-settings'));
    expect(settings).toHaveLength(1);
    expect(String(settings[0]?.headers.authorization)).toContain(`Credential=${KEY_ID}/`);
    expect(String(settings[0]?.headers.authorization)).toContain(`/${REGION}/lambda/aws4_request`);
  }, 300_000);

  it('synthesizes when the quota holds the reservations (1,000), reservations in the template', async () => {
    // Prepare
    quota = 1000;

    // Act
    const run = await synth(config('reserving.json', { reserveConcurrency: true }));

    // Assess
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('preflight');
    const reservations = reservationsOf(run.template as never);
    expect(reservations.sort((a, b) => a.functionName.localeCompare(b.functionName))).toEqual(
      STACK_RESERVES,
    );
    expect(received.some((r) => r.url.startsWith('/2016-08-19/account-settings'))).toBe(true);
  }, 300_000);

  it('synthesizes without asking AWS with -c skipPreflight=true, and by default (nothing reserved)', async () => {
    // Prepare
    quota = 10;

    // Act
    const skipped = await synth(config('reserving.json', { reserveConcurrency: true }), {
      skipPreflight: 'true',
    });
    const unreserved = await synth(config('default.json', {}));

    // Assess
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(reservationsOf(skipped.template as never)).toHaveLength(2);
    expect(unreserved.code, unreserved.stderr).toBe(0);
    expect(reservationsOf(unreserved.template as never)).toEqual([]);
    expect(received).toEqual([]);
  }, 600_000);
});
