import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEMO_CONFIG } from '../../local/runtime-env.ts';
import { createSandbox } from '../../sandbox/server.ts';
import { send } from '../helpers/gateway-http.ts';
import {
  freePort,
  type LocalProcess,
  REPO_ROOT,
  runLocalUntilExit,
  startLocal,
} from '../helpers/gateway-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'leads-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let running: LocalProcess | undefined;
afterEach(async () => {
  if (running && running.child.exitCode === null && running.child.signalCode === null) {
    await running.stop('SIGKILL');
  }
  running = undefined;
});

/** The pieces of the printed `curl 'URL' -d '...'` line (a lead, as a landing page sends it). */
function parseCurl(stdout: string): { url: string; body: string } {
  const match = /^\s*curl '(\S+)' -d '(.+)'$/m.exec(stdout);
  if (!match?.[1] || !match[2]) throw new Error(`no curl example in:\n${stdout}`);
  return { url: match[1], body: match[2] };
}

describe('npm start (local/start.ts)', () => {
  it('serves /health on PORT=0 without a sandbox and exits 0 on SIGTERM', async () => {
    // Prepare
    const dataDir = join(dir, 'data-no-sandbox');

    // No upstream listens here, so the config asks for no report branches: the report refresh
    // at start then makes no calls (a failing refresh rightly logs an error on stderr).
    const configPath = join(dir, 'no-branches.json');
    const demo = JSON.parse(readFileSync(DEMO_CONFIG, 'utf8')) as {
      report: { branches: number[] };
    };
    demo.report.branches = [];
    writeFileSync(configPath, JSON.stringify(demo));

    // Act
    running = await startLocal({
      PORT: '0',
      SANDBOX_PORT: '0',
      DATA_DIR: dataDir,
      LEADS_CONFIG: configPath,
    });
    const health = await send(`${running.gatewayUrl}/health`);
    const unknown = await send(`${running.gatewayUrl}/nowhere`);
    const code = await running.stop('SIGTERM');

    // Assess
    expect(running.gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.gatewayUrl).not.toMatch(/:0$/);
    expect(running.sandboxUrl).toBeUndefined();
    expect(health.status).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    // an unknown route, as the deployed API answers it: 404 in the contract's error shape
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND', details: [] } });
    expect(existsSync(dataDir)).toBe(true);
    expect(code).toBe(0);
    expect(running.stderr()).toBe('');
  });

  it('starts the sandbox, prints a curl that sends a lead through the gateway, and exits 0 on SIGINT', async () => {
    // Prepare
    const sandboxPort = await freePort();

    // Act
    running = await startLocal({
      PORT: '0',
      SANDBOX_PORT: String(sandboxPort),
      DATA_DIR: join(dir, 'data'),
    });
    const curl = parseCurl(running.stdout());
    // curl -d sends the body as a form.
    const created = await send(curl.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: curl.body,
    });
    const health = await send(`${running.gatewayUrl}/health`);
    const code = await running.stop('SIGINT');

    // Assess
    expect(running.sandboxUrl).toBe(`http://127.0.0.1:${sandboxPort}`);
    expect(running.stdout()).toContain(`${running.gatewayUrl}/health`);
    expect(curl.url).toBe(`${running.gatewayUrl}/leads/site?token=demo-site-token`);
    expect(created.status, created.text()).toBe(202);
    expect(created.json()).toMatchObject({ leadId: expect.stringMatching(/^ld_/) });
    expect(health.status).toBe(200);
    expect(code).toBe(0);
  });

  it('stops `npm start` itself cleanly when npm gets SIGTERM', async () => {
    // Act: a supervisor signals npm, not its child
    running = await startLocal(
      { PORT: '0', SANDBOX_PORT: '0', DATA_DIR: join(dir, 'data') },
      { viaNpm: true },
    );
    const health = await send(`${running.gatewayUrl}/health`);
    const code = await running.stop('SIGTERM');

    // Assess: npm passed the signal on (the script execs node) and the gateway is gone
    expect(health.status).toBe(200);
    expect(code).toBe(0);
    expect(running.stdout()).toMatch(/SIGTERM: stopping[\s\S]*stopped/);
    await expect(send(`${running.gatewayUrl}/health`)).rejects.toThrow();
  });

  it('uses UPSTREAM_URL instead of a sandbox', async () => {
    running = await startLocal({
      PORT: '0',
      UPSTREAM_URL: 'http://127.0.0.1:9/upstream',
      DATA_DIR: join(dir, 'data'),
    });
    expect(running.sandboxUrl).toBeUndefined();
    expect(running.stdout()).toMatch(/upstream\s+http:\/\/127\.0\.0\.1:9\/upstream/);
    expect(await running.stop()).toBe(0);
  });

  it('says plainly when the upstream key may not look prospects up, and not otherwise', async () => {
    // Prepare: an upstream (the sandbox, in this process) whose key may not read prospects.
    const sandbox = await createSandbox({ port: 0 });
    try {
      await fetch(`${sandbox.url}/_sandbox/faults`, {
        method: 'POST',
        body: JSON.stringify({ lookupForbidden: true }),
      });

      // Act
      running = await startLocal({
        PORT: '0',
        UPSTREAM_URL: sandbox.url,
        DATA_DIR: join(dir, 'data-lookup'),
      });
      const forbidden = running.stdout();
      expect(await running.stop()).toBe(0);
      await fetch(`${sandbox.url}/_sandbox/faults`, { method: 'POST', body: '{}' });
      running = await startLocal({
        PORT: '0',
        UPSTREAM_URL: sandbox.url,
        DATA_DIR: join(dir, 'data-lookup'),
      });
      const permitted = running.stdout();
      expect(await running.stop()).toBe(0);

      // Assess
      expect(forbidden).toMatch(/WARNING: the upstream key may not look prospects up/);
      expect(forbidden).toMatch(/"ambiguous": "park"/);
      expect(permitted).not.toMatch(/WARNING/);
    } finally {
      await sandbox.close();
    }
  });

  it('exits 1 naming the key when LEADS_CONFIG is invalid, without a stack trace', async () => {
    // Prepare
    const config = JSON.parse(readFileSync(join(REPO_ROOT, 'config/demo.json'), 'utf8'));
    delete config.upstream.password;
    config.profiles.meta.graphBaseUrl = 'not a url';
    const path = join(dir, 'bad.json');
    writeFileSync(path, JSON.stringify(config));

    // Act
    const result = await runLocalUntilExit({ PORT: '0', SANDBOX_PORT: '0', LEADS_CONFIG: path });

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toMatch(/^Configuração inválida em .*bad\.json:$/m);
    expect(result.stderr).toMatch(/^\s*upstream\.password: é obrigatório \(um texto\)$/m);
    expect(result.stderr).toMatch(/^\s*profiles\.meta\.graphBaseUrl: deve ser uma URL válida$/m);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('exits 1 when LEADS_CONFIG does not exist, or PORT is not a port', async () => {
    const missing = await runLocalUntilExit({
      SANDBOX_PORT: '0',
      LEADS_CONFIG: join(dir, 'missing.json'),
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/missing\.json:\n\s*o arquivo não existe/);

    const badPort = await runLocalUntilExit({ PORT: 'http', SANDBOX_PORT: '0' });
    expect(badPort.code).toBe(1);
    expect(badPort.stderr).toMatch(/PORT must be a port number/);
  });
});
