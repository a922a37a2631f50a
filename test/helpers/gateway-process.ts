/**
 * Runs `local/start.ts` (what `npm start` runs) as a child process and reads the URLs it prints.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface LocalProcess {
  child: ChildProcess;
  gatewayUrl: string;
  /** Undefined when no sandbox was started. */
  sandboxUrl: string | undefined;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and resolves the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface StartOptions {
  /** Run `npm start` itself instead of `node --import tsx local/start.ts`. */
  viaNpm?: boolean;
  timeoutMs?: number;
}

function spawnStart(env: NodeJS.ProcessEnv, viaNpm = false): ChildProcess {
  const [command, args] = viaNpm
    ? ['npm', ['start', '--silent']]
    : [process.execPath, ['--import', 'tsx', 'local/start.ts']];
  return spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts the local runtime and resolves once its banner is printed; rejects if it exits first. */
export function startLocal(
  env: NodeJS.ProcessEnv,
  { viaNpm = false, timeoutMs = 20_000 }: StartOptions = {},
): Promise<LocalProcess> {
  const child = spawnStart(env, viaNpm);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no banner within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    const onData = () => {
      const gateway = /^\s*gateway\s+(http:\/\/\S+)/m.exec(out);
      if (!gateway?.[1] || !/Ctrl\+C/.test(out)) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      resolve({
        child,
        gatewayUrl: gateway[1],
        sandboxUrl: /^\s*sandbox\s+(http:\/\/\S+)/m.exec(out)?.[1],
        stdout: () => out,
        stderr: () => err,
        stop: (signal = 'SIGTERM') => {
          const exited = exitOf(child);
          child.kill(signal);
          return exited;
        },
      });
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before the banner\nstdout: ${out}\nstderr: ${err}`));
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Runs local/start.ts expecting it to exit by itself (a start-up failure). */
export async function runLocalUntilExit(
  env: NodeJS.ProcessEnv,
  timeoutMs = 20_000,
): Promise<Exited> {
  const child = spawnStart(env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  // 'close' comes after the output streams end, so nothing printed is missed.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A loopback port that was free a moment ago (for services where 0 means "off"). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
