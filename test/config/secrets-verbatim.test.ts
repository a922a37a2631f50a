/**
 * Secrets are taken byte for byte wherever the configuration is read: a password, token or key
 * with spaces around it is that secret, and only that secret opens the door.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/config/config-local.ts';
import { authenticateClient } from '../../functions/kernel/client-auth.ts';
import { adapterFor } from '../../functions/sources/registry.ts';
import { platformRequest } from '../helpers/platform-fixtures.ts';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function config() {
  return parseConfig({
    upstream: {
      baseUrl: 'http://127.0.0.1:4010',
      username: 'gw',
      password: ' upstream pw ',
      maxPerSecond: 4,
      maxPerMinute: 36,
    },
    clients: [{ username: 'ops', password: '  spaced out\t', roles: ['admin'] }],
    profiles: { site: { source: 'form', token: ' tok-with-spaces ', defaults: { idBranch: 1 } } },
  });
}

describe('secrets in the configuration', () => {
  it('keeps the upstream password, a client password and a profile token exactly as written', () => {
    // Act
    const parsed = config();

    // Assess
    expect(parsed.upstream.password).toBe(' upstream pw ');
    expect(parsed.clients[0]?.password).toBe('  spaced out\t');
    expect(parsed.profiles.site).toMatchObject({ token: ' tok-with-spaces ' });
  });

  it('lets in the client whose password has spaces around it, and not the trimmed password', async () => {
    // Prepare
    const { clients } = config();

    // Act
    const exact = await authenticateClient(basic('ops', '  spaced out\t'), clients, 'admin');
    const trimmed = await authenticateClient(basic('ops', 'spaced out'), clients, 'admin');

    // Assess
    expect(exact).toMatchObject({ ok: true });
    expect(trimmed).toMatchObject({ ok: false, status: 401 });
  });

  it('compares a profile token byte for byte', () => {
    // Prepare
    const profile = config().profiles.site;
    if (profile?.source !== 'form') throw new Error('the site profile is a form');
    const adapter = adapterFor(profile);
    const request = (token: string) =>
      platformRequest('nome=Ana', {
        query: { token: [token] },
        contentType: 'application/x-www-form-urlencoded',
      });

    // Act / Assess
    expect(adapter.authenticate(request(' tok-with-spaces '), profile)).toEqual({ ok: true });
    expect(adapter.authenticate(request('tok-with-spaces'), profile)).toMatchObject({ ok: false });
  });

  it('still refuses an empty secret', () => {
    expect(() => parseConfig(rawWith({ token: '' }))).toThrow(/profiles\.site\.token/);
  });
});

function rawWith(site: Record<string, unknown>) {
  return {
    upstream: {
      baseUrl: 'http://127.0.0.1:4010',
      username: 'gw',
      password: 'pw',
      maxPerSecond: 4,
      maxPerMinute: 36,
    },
    clients: [],
    profiles: { site: { source: 'form', ...site } },
  };
}
