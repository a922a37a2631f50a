/**
 * The cross-site guard of state-changing Basic routes (kernel/csrf.ts): which requests are a
 * program's (no browser header at all) and which are a browser's that must prove where they
 * come from.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '../../functions/kernel/client-schema.ts';
import { checkCsrf, csrfToken } from '../../functions/kernel/csrf.ts';
import type { HttpRequest } from '../../functions/kernel/http.ts';

const client: Client = { username: 'ops', password: 'ops-secret', roles: ['admin'] };
const token = csrfToken(client);

function request(headers: Record<string, string>): HttpRequest {
  return {
    method: 'POST',
    headers: { host: 'leads.example', 'x-forwarded-proto': 'https', ...headers },
    query: {},
    body: Buffer.alloc(0),
    contentType: '',
    receivedAt: new Date(),
  };
}

describe('checkCsrf', () => {
  it('lets a program through: no Origin, Sec-Fetch-Site, Referer, Cookie or token', () => {
    expect(checkCsrf(request({}), client)).toEqual({ ok: true });
    // Node's fetch (the CLI, the smoke script) sends sec-fetch-mode, never sec-fetch-site.
    expect(checkCsrf(request({ 'sec-fetch-mode': 'cors', 'user-agent': 'node' }), client)).toEqual({
      ok: true,
    });
  });

  it.each([
    ['a foreign Referer alone', { referer: 'https://evil.example/page' }],
    ['a same-origin Referer alone', { referer: 'https://leads.example/admin' }],
    ['a Cookie alone', { cookie: 'session=1' }],
    ['the console token without Origin or Sec-Fetch-Site', { 'x-csrf-token': token }],
  ])('refuses a browser-like request without Origin or Sec-Fetch-Site: %s', (_, headers) => {
    const verdict = checkCsrf(request(headers), client);
    expect(verdict.ok).toBe(false);
  });

  it('lets the console through with Origin or Sec-Fetch-Site and its token', () => {
    const referer = { referer: 'https://leads.example/admin', 'x-csrf-token': token };
    expect(checkCsrf(request({ ...referer, origin: 'https://leads.example' }), client).ok).toBe(
      true,
    );
    expect(checkCsrf(request({ ...referer, 'sec-fetch-site': 'same-origin' }), client).ok).toBe(
      true,
    );
    expect(
      checkCsrf(request({ origin: 'https://evil.example', 'x-csrf-token': token }), client).ok,
    ).toBe(false);
  });
});
