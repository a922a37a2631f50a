/**
 * How every handler gets its wiring (functions/kernel/ready.ts): by ENV.runtime, the AWS wiring
 * starts loading when the handler module is made on Lambda (a cold start reads it during init),
 * the local one under `npm start`, nothing in tests until the first call; each loads once, and a
 * wiring that fails settles `ready` and fails every call instead.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENV } from '../../functions/kernel/env.ts';
import { currentRuntime, handlerWiring } from '../../functions/kernel/ready.ts';

/** Loaders that count their calls. */
function loaders(local = true) {
  const calls = { aws: 0, local: 0 };
  return {
    calls,
    loaders: {
      aws: async () => {
        calls.aws += 1;
        return 'aws wiring';
      },
      ...(local && {
        local: async () => {
          calls.local += 1;
          return 'local wiring';
        },
      }),
    },
  };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('handlerWiring', () => {
  it('on Lambda, starts loading the AWS wiring at once, and loads it only once', async () => {
    // Prepare
    vi.stubEnv(ENV.runtime, 'aws');
    const { calls, loaders: given } = loaders();

    // Act
    const wiring = handlerWiring(given);
    const startedAtImport = { ...calls };
    await wiring.ready;
    const first = await wiring.get();
    const second = await wiring.get();

    // Assess
    expect(startedAtImport).toEqual({ aws: 1, local: 0 });
    expect([first, second]).toEqual(['aws wiring', 'aws wiring']);
    expect(calls).toEqual({ aws: 1, local: 0 });
  });

  it('under npm start, loads the local wiring at once and never the AWS one', async () => {
    // Prepare
    vi.stubEnv(ENV.runtime, 'local');
    const { calls, loaders: given } = loaders();

    // Act
    const wiring = handlerWiring(given);
    const startedAtImport = { ...calls };
    const resolved = await wiring.get();

    // Assess
    expect(startedAtImport).toEqual({ aws: 0, local: 1 });
    expect(resolved).toBe('local wiring');
    expect(calls).toEqual({ aws: 0, local: 1 });
  });

  it('under npm start, a handler without a local wiring loads nothing until it is called', async () => {
    // Prepare
    vi.stubEnv(ENV.runtime, 'local');
    const { calls, loaders: given } = loaders(false);

    // Act
    const wiring = handlerWiring(given);
    await wiring.ready;
    const beforeCall = { ...calls };
    const resolved = await wiring.get();

    // Assess
    expect(beforeCall).toEqual({ aws: 0, local: 0 });
    expect(resolved).toBe('aws wiring');
  });

  it('in tests (no runtime), loads nothing until the first call, then the AWS wiring', async () => {
    // Prepare
    vi.stubEnv(ENV.runtime, undefined);
    const { calls, loaders: given } = loaders();

    // Act
    const wiring = handlerWiring(given);
    await wiring.ready;
    const beforeCall = { ...calls };
    const resolved = await wiring.get();

    // Assess
    expect(currentRuntime()).toBeUndefined();
    expect(beforeCall).toEqual({ aws: 0, local: 0 });
    expect(resolved).toBe('aws wiring');
  });

  it('settles ready when the wiring fails, and fails every call with its error', async () => {
    // Prepare
    vi.stubEnv(ENV.runtime, 'aws');
    const wiring = handlerWiring({
      aws: async (): Promise<string> => {
        throw new Error('environment variable LEDGER_TABLE_NAME is not set');
      },
    });

    // Act
    const ready = await wiring.ready;

    // Assess
    expect(ready).toBeUndefined();
    await expect(wiring.get()).rejects.toThrow('LEDGER_TABLE_NAME');
    await expect(wiring.get()).rejects.toThrow('LEDGER_TABLE_NAME');
  });
});
