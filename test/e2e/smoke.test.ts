/**
 * The deploy workflow's smoke test (scripts/smoke.ts) against the local runtime, as `npm start`
 * runs it: the same script that checks a deployed stack passes here, a lead going through the
 * real path (the console's test lead: signed as its platform signs it, sent to the intake over
 * HTTP, delivered by the worker to the sandbox), and it fails, naming the step, when something
 * is wrong.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmokeError, smoke, smokeOptions } from '../../scripts/smoke.ts';
import { DEMO_CLIENTS, DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, type TestRuntime, testConfig } from '../helpers/local-runtime.ts';

const OPS = { user: 'ops', password: 'demo-ops-password' };

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig(
      { site: { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } } },
      DEMO_CLIENTS,
    ),
    { worker: true },
  );
});
afterAll(() => rt?.stop());

describe('the smoke test (scripts/smoke.ts) against the local runtime', () => {
  it('passes: /health, /openapi.json, and a test lead through the real path, followed to delivered in the ledger', async () => {
    // Prepare
    const lines: string[] = [];

    // Act
    const result = await smoke({
      url: rt.url,
      credentials: OPS,
      profile: 'site',
      pollMs: 200,
      log: (line) => lines.push(line),
    });

    // Assess
    expect(result.status).toBe('delivered');
    expect(result.leadId).toMatch(/^ld_/);
    expect((await rt.ledger.get(result.leadId))?.status).toBe('delivered');
    expect(lines.map((line) => line.split(':')[0])).toEqual([
      'GET /health',
      'GET /openapi.json',
      'POST /admin/test-lead/site',
      `GET /admin/leads/${result.leadId}`,
    ]);
  });

  it('fails, naming the step, when the credentials are refused', async () => {
    // Act
    const run = smoke({
      url: rt.url,
      credentials: { user: 'ops', password: 'not-the-password' },
      profile: 'site',
      pollMs: 200,
    });

    // Assess
    await expect(run).rejects.toThrow(SmokeError);
    await expect(run).rejects.toThrow(/^POST \/admin\/test-lead\/site: .*\(confira --user/);
  });

  it('fails when the lead settles in a status it was not told to expect', async () => {
    // Act
    const run = smoke({
      url: rt.url,
      credentials: OPS,
      profile: 'site',
      expect: ['test'],
      pollMs: 200,
    });

    // Assess
    await expect(run).rejects.toThrow(/the lead is delivered, not test$/);
  });

  it('fails when nothing answers at the URL', async () => {
    // Act / Assess
    await expect(
      smoke({ url: 'http://127.0.0.1:9/', credentials: OPS, profile: 'site' }),
    ).rejects.toThrow(/^GET \/health: não foi possível falar com o gateway/);
  });

  it('reads its options from the command line and the environment, the password from LEADS_PASSWORD only', () => {
    // Act
    const options = smokeOptions(['--url', rt.url, '--profile', 'site', '--timeout', '60'], {
      LEADS_USER: 'ops',
      LEADS_PASSWORD: 'secret',
    });

    // Assess
    expect(options).toMatchObject({
      url: rt.url,
      credentials: { user: 'ops', password: 'secret' },
      profile: 'site',
      timeoutMs: 60_000,
    });
    expect(() => smokeOptions(['--url', rt.url, '--user', 'ops'], {})).toThrow(
      /missing LEADS_PASSWORD, --profile \(or LEADS_SMOKE_PROFILE\)/,
    );
  });

  it("takes the URL from the deploy's outputs file (--outputs cdk-outputs.json), as the deploy workflow runs it", () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'smoke-outputs-'));
    const outputs = join(dir, 'cdk-outputs.json');
    const none = join(dir, 'none.json');
    writeFileSync(
      outputs,
      JSON.stringify({ 'leads-prod': { ApiUrl: 'https://abc.example/prod/', LeadQueueUrl: 'q' } }),
    );
    writeFileSync(none, JSON.stringify({ 'leads-prod': { LeadQueueUrl: 'q' } }));
    const env = { LEADS_USER: 'ops', LEADS_PASSWORD: 'secret', LEADS_SMOKE_PROFILE: 'site' };

    try {
      // Act
      const options = smokeOptions(['--outputs', outputs], env);

      // Assess
      expect(options.url).toBe('https://abc.example/prod/');
      expect(() => smokeOptions(['--outputs', none], env)).toThrow(
        /no stack with an ApiUrl output/,
      );
      expect(() => smokeOptions(['--outputs', join(dir, 'absent.json')], env)).toThrow(
        /cannot read it/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
