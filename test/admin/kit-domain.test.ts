/**
 * The set-up kit under a custom domain (the stack's LEADS_PUBLIC_URL, infra/constructs/api-domain.ts):
 * the URLs an operator pastes into the platforms are the domain's, whichever host the console was
 * opened on, while the test lead goes where the console reached the API (it works before the
 * domain's DNS does). And the test lead's `search` is the e-mail its lead arrives with.
 */
import { describe, expect, it } from 'vitest';
import { type AdminDeps, handleAdmin } from '../../functions/admin/admin.ts';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';

const CLIENTS: Client[] = [{ username: 'ops', password: 'ops-secret', roles: ['admin'] }];
const AUTH = `Basic ${Buffer.from('ops:ops-secret').toString('base64')}`;
const NOW = new Date('2026-11-20T12:00:00.000Z');
const PROFILES: Record<string, Profile> = {
  site: { source: 'form', defaults: { idBranch: 3 }, token: 'site-token' } as Profile,
  rd: { source: 'rdstation', token: 'rd-token' } as unknown as Profile,
  meta: {
    source: 'meta',
    forms: {},
    appSecret: 'app-secret',
    verifyToken: 'verify',
    pageAccessToken: 'page',
  } as unknown as Profile,
};
const REACHED = 'https://abc123.execute-api.sa-east-1.amazonaws.com/prod';
const DOMAIN = 'https://leads.academia.com.br';

function deps(sent: string[]): AdminDeps {
  return {
    config: {
      clients: async () => CLIENTS,
      profileSettings: async () => PROFILES,
      profile: async (name) => PROFILES[name],
    },
    ledger: {} as AdminDeps['ledger'],
    queue: {} as AdminDeps['queue'],
    redrive: {} as AdminDeps['redrive'],
    upstream: {} as AdminDeps['upstream'],
    profileSecrets: {
      read: async (name) => ({ token: `${name}-token` }),
      rotate: async () => ({}),
    },
    kit: { secretsWhere: () => 'o arquivo', secretValues: 'inline' },
    send: (async (url: string) => {
      sent.push(url);
      return new Response(JSON.stringify({ leadId: 'ld_0123456789012345678901' }), {
        status: 202,
      });
    }) as typeof fetch,
    now: () => NOW,
  };
}

async function call(
  method: string,
  resource: string,
  options: { profile?: string; publicUrl?: string; sent?: string[] } = {},
) {
  const result = await handleAdmin(
    {
      resource,
      pathParameters: options.profile ? { profile: options.profile } : null,
      request: {
        method,
        headers: { authorization: AUTH, host: 'abc123.execute-api.sa-east-1.amazonaws.com' },
        query: {},
        body: Buffer.alloc(0),
        contentType: '',
        receivedAt: NOW,
      },
      baseUrl: REACHED,
      ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
    },
    deps(options.sent ?? []),
  );
  // biome-ignore lint/suspicious/noExplicitAny: answers are read as loose JSON here
  return { status: result.statusCode, body: JSON.parse(result.body) as any };
}

const kitOf = (body: { profiles: { profile: string }[] }, name: string) =>
  body.profiles.find((p) => p.profile === name) as unknown as {
    url: string;
    curl: string;
    htmlForm?: string;
  };

describe('the set-up kit under a custom domain', () => {
  it("shows the domain's URLs (pattern, URL to paste, curl, form) when the stack has one", async () => {
    const { status, body } = await call('GET', '/admin/setup', { publicUrl: `${DOMAIN}/` });

    expect(status).toBe(200);
    expect(body.urlPattern).toBe(`${DOMAIN}/leads/{profile}`);
    const site = kitOf(body, 'site');
    expect(site.url).toBe(`${DOMAIN}/leads/site`);
    expect(site.curl).toContain(`${DOMAIN}/leads/site`);
    expect(site.htmlForm).toContain(`action="${DOMAIN}/leads/site?token=site-token"`);
    expect(kitOf(body, 'rd').url).toBe(`${DOMAIN}/leads/rd?token=rd-token`);
    expect(JSON.stringify(body)).not.toContain('execute-api');
  });

  it('shows the URL the console reached without one', async () => {
    const { body } = await call('GET', '/admin/setup', { publicUrl: '' });

    expect(body.urlPattern).toBe(`${REACHED}/leads/{profile}`);
    expect(kitOf(body, 'site').url).toBe(`${REACHED}/leads/site`);
  });

  it('reveals the URL to paste under the domain too', async () => {
    const { body } = await call('POST', '/admin/setup/{profile}/reveal', {
      profile: 'rd',
      publicUrl: DOMAIN,
    });

    // RD Station sends the token in the URL: the revealed one is the URL to paste, whole.
    expect(body.url).toBe(`${DOMAIN}/leads/rd?token=rd-token`);
  });

  it('sends the test lead where the console reached the API', async () => {
    const sent: string[] = [];
    const { body } = await call('POST', '/admin/test-lead/{profile}', {
      profile: 'site',
      publicUrl: DOMAIN,
      sent,
    });

    expect(body.status).toBe(202);
    expect(sent).toEqual([`${REACHED}/leads/site`]);
  });
});
