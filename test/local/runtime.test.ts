import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigFile, localConfig } from '../../functions/config/config-local.ts';
import type { Profile } from '../../functions/config/config-schema.ts';
import { startLocalRuntime } from '../../local/runtime.ts';
import { effectiveConfig } from '../../local/runtime-config.ts';
import { DEMO_CONFIG, readLocalEnv, StartupError } from '../../local/runtime-env.ts';
import { send } from '../helpers/gateway-http.ts';

const demo = loadConfigFile(DEMO_CONFIG);
const dir = mkdtempSync(join(tmpdir(), 'leads-runtime-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function graphBaseUrl(profile: Profile | undefined): string | undefined {
  return profile?.source === 'meta' ? profile.graphBaseUrl : undefined;
}

describe('readLocalEnv', () => {
  it('applies the contract defaults', () => {
    expect(readLocalEnv({})).toEqual({
      port: 3000,
      sandboxPort: 4010,
      upstreamUrl: undefined,
      configPath: DEMO_CONFIG,
      dataDir: resolve('.data'),
    });
  });

  it('turns the sandbox off with SANDBOX_PORT=0 or UPSTREAM_URL', () => {
    expect(readLocalEnv({ SANDBOX_PORT: '0', PORT: '0' })).toMatchObject({
      port: 0,
      sandboxPort: undefined,
    });
    expect(readLocalEnv({ UPSTREAM_URL: 'https://evo.example.com' })).toMatchObject({
      sandboxPort: undefined,
      upstreamUrl: 'https://evo.example.com',
    });
  });

  it('refuses ports and URLs that cannot work', () => {
    expect(() => readLocalEnv({ PORT: 'abc' })).toThrow(StartupError);
    expect(() => readLocalEnv({ SANDBOX_PORT: '70000' })).toThrow(/SANDBOX_PORT/);
    expect(() => readLocalEnv({ UPSTREAM_URL: 'evo.example.com' })).toThrow(/UPSTREAM_URL/);
  });
});

describe('effectiveConfig', () => {
  it('points the upstream, a Meta Graph URL and a Kommo API URL on the same origin at the sandbox', () => {
    // Act
    const config = effectiveConfig(demo, { sandboxUrl: 'http://127.0.0.1:5555' });

    // Assess
    expect(config.upstream.baseUrl).toBe('http://127.0.0.1:5555');
    expect(graphBaseUrl(config.profiles.meta)).toBe('http://127.0.0.1:5555/graph');
    expect(config.upstream.password).toBe(demo.upstream.password);
    expect(graphBaseUrl(demo.profiles.meta)).toBe('http://127.0.0.1:4010/graph');
    // Kommo's API, which the sandbox also stands in for
    const kommo = config.profiles.kommo;
    expect(kommo?.source === 'kommo' && kommo.apiBaseUrl).toBe('http://127.0.0.1:5555/kommo');
  });

  it('leaves a Graph URL on another origin alone', () => {
    // Prepare
    const meta = demo.profiles.meta;
    if (meta?.source !== 'meta') throw new Error('the demo has a meta profile');
    const real = { ...meta, graphBaseUrl: 'https://graph.facebook.com/v21.0' };
    const config = { ...demo, profiles: { ...demo.profiles, meta: real } };

    // Act
    const effective = effectiveConfig(config, { sandboxUrl: 'http://127.0.0.1:5555' });

    // Assess
    expect(graphBaseUrl(effective.profiles.meta)).toBe('https://graph.facebook.com/v21.0');
  });

  it('uses UPSTREAM_URL as the upstream', () => {
    const config = effectiveConfig(demo, { upstreamUrl: 'https://evo.example.com' });
    expect(config.upstream.baseUrl).toBe('https://evo.example.com');
    expect(graphBaseUrl(config.profiles.meta)).toBe('http://127.0.0.1:4010/graph');
  });
});

describe('startLocalRuntime', () => {
  it('starts sandbox and gateway, registers the effective configuration, and stops both', async () => {
    // Prepare
    const dataDir = join(dir, 'data');

    // Act
    const runtime = await startLocalRuntime({
      port: 0,
      sandboxPort: 0,
      upstreamUrl: undefined,
      configPath: DEMO_CONFIG,
      dataDir,
    });

    // Assess
    try {
      expect(existsSync(dataDir)).toBe(true);
      expect(process.env.LEADS_RUNTIME).toBe('local');
      expect(runtime.sandboxUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(localConfig().upstream.baseUrl).toBe(runtime.sandboxUrl);
      const health = await send(`${runtime.gatewayUrl}/health`);
      expect(health.status).toBe(200);
      expect(health.json()).toEqual({ status: 'ok' });
      // An unknown route, or a method a route lacks: what the deployed API answers.
      for (const [method, path] of [
        ['GET', '/nowhere'],
        ['DELETE', '/health'],
      ] as const) {
        const unknown = await send(`${runtime.gatewayUrl}${path}`, { method });
        expect(unknown.status, `${method} ${path}`).toBe(404);
        expect(unknown.json()).toEqual({
          error: { code: 'NOT_FOUND', message: 'rota inexistente', details: [] },
        });
      }
    } finally {
      await runtime.stop();
    }
    expect(() => localConfig()).toThrow();
    await expect(send(`${runtime.gatewayUrl}/health`)).rejects.toThrow();
    await expect(send(`${runtime.sandboxUrl}/_sandbox/stats`)).rejects.toThrow();
  });

  it('explains a port in use and stops what it had started', async () => {
    // Prepare
    const first = await startLocalRuntime({
      port: 0,
      sandboxPort: undefined,
      upstreamUrl: undefined,
      configPath: DEMO_CONFIG,
      dataDir: join(dir, 'data'),
    });
    const taken = Number(new URL(first.gatewayUrl).port);

    // Act / Assess
    try {
      await expect(
        startLocalRuntime({
          port: taken,
          sandboxPort: undefined,
          upstreamUrl: undefined,
          configPath: DEMO_CONFIG,
          dataDir: join(dir, 'other-data'),
        }),
      ).rejects.toThrow(new RegExp(`port ${taken} is already in use.*PORT`));
      // A second runtime on the same DATA_DIR would corrupt its state: it is refused by name.
      await expect(
        startLocalRuntime({
          port: 0,
          sandboxPort: undefined,
          upstreamUrl: undefined,
          configPath: DEMO_CONFIG,
          dataDir: join(dir, 'data'),
        }),
      ).rejects.toThrow(/data dir .* in use/);
    } finally {
      await first.stop();
    }
  });
});
