/** Shared helpers for the sandbox suites: a running sandbox and small fetch wrappers. */
import { createSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/server.ts';

export const DEMO_AUTH = `Basic ${Buffer.from('demo:demo').toString('base64')}`;

/** A fixed clock, so that debtors' dates and daysLate are reproducible. */
export const FIXED_NOW = new Date('2026-08-01T12:00:00.000Z');

/** Limits high enough that a suite never waits on the rate limiter. */
export const NO_LIMITS = { perSecond: 100_000, perMinute: 1_000_000 };

export interface Harness {
  sandbox: Sandbox;
  url(path: string): string;
  api(path: string, init?: RequestInit): Promise<Response>;
  postProspect(body: unknown, contentType?: string): Promise<Response>;
  setFaults(faults: Record<string, unknown>): Promise<Response>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Harness> {
  const sandbox = await createSandbox({ port: 0, now: () => FIXED_NOW, ...options });
  const url = (path: string) => `${sandbox.url}${path}`;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(url(path), {
      ...init,
      headers: { authorization: DEMO_AUTH, ...(init.headers as Record<string, string>) },
    });
  const postProspect = (body: unknown, contentType = 'application/json') =>
    api('/api/v1/prospects', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const setFaults = (faults: Record<string, unknown>) =>
    fetch(url('/_sandbox/faults'), { method: 'POST', body: JSON.stringify(faults) });
  return { sandbox, url, api, postProspect, setFaults };
}

/** A prospect that passes every check (the CPF is a valid test number). */
export function validProspect(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Maria',
    lastName: 'Souza',
    email: 'maria@example.com',
    idBranch: 1,
    ddi: '55',
    cellphone: '11987654321',
    birthday: '1990-05-12T00:00:00.000Z',
    gender: 'F',
    visit: 4,
    marketingType: 'Site',
    ...overrides,
  };
}
