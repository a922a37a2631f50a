/**
 * Scoped operators through the local runtime (issue 23): every admin route, and the report's
 * refresh, for three clients: `ops` (unscoped), `b2admin` (account `default`, branch 2 only) and
 * `southadmin` (account `south` only). A scoped operator sees and changes only the leads and
 * profiles in its scope; another branch's or account's lead is a 404 exactly like an unknown id.
 * And no write route takes a form post another site's page made in a signed-in browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/kernel/routes.ts';
import { basicHeader } from '../helpers/abuse-kit.ts';
import { send } from '../helpers/gateway-http.ts';
import { DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';

const CLIENTS = {
  ops: { username: 'ops', password: 'ops-scope-pw', roles: ['admin', 'prospects:write'] },
  b2admin: {
    username: 'b2admin',
    password: 'b2-scope-pw',
    roles: ['admin', 'report:read'],
    upstreams: ['default'],
    branches: [2],
  },
  southadmin: {
    username: 'southadmin',
    password: 'south-scope-pw',
    roles: ['admin', 'report:read'],
    upstreams: ['south'],
  },
} as const;
type Who = keyof typeof CLIENTS;
const WHO: readonly Who[] = ['ops', 'b2admin', 'southadmin'];

const form = (extra: Record<string, unknown>) => ({
  source: 'form',
  token: DEMO_SECRETS.form,
  ...extra,
});

/** The profiles, and who may act on them: every branch a profile's leads may go to. */
const PROFILES = {
  b1: form({ defaults: { idBranch: 1 } }),
  b2: form({ defaults: { idBranch: 2 } }),
  // No default branch: its leads name theirs (a `unidade` field), so may go anywhere in the account
  chain: form({ fieldMap: { unidade: 'idBranch' } }),
  southsite: form({ upstream: 'south', defaults: { idBranch: 7 } }),
  api: { source: 'prospect' }, // the caller names the branch
};
const FORMS = ['b1', 'b2', 'chain', 'southsite'] as const;
const MAY_ACT: Record<Who, readonly string[]> = {
  ops: ['b1', 'b2', 'chain', 'southsite', 'api'],
  b2admin: ['b2'],
  southadmin: ['southsite'],
};
/** Which of the leads below each client may see (the chain lead is parked for its branch). */
const SEES: Record<Who, readonly string[]> = {
  ops: ['b1', 'b2', 'chain', 'southsite'],
  b2admin: ['b2'],
  southadmin: ['southsite'],
};

let rt: TestRuntime;
/** One lead per profile, all naming the same person (the erasure checks use it). */
const leads: Record<string, string> = {};
const PERSON = { email: 'scope.person@exemplo.com.br', phone: '11987651234' };

beforeAll(async () => {
  rt = await startTestRuntime({
    upstream: TEST_UPSTREAM,
    upstreams: { south: { ...TEST_UPSTREAM, username: 'south', password: 'south' } },
    report: { branches: [1, 2], refreshSeconds: 3600 },
    clients: Object.values(CLIENTS),
    profiles: PROFILES,
  });
  for (const profile of FORMS) {
    const body = new URLSearchParams({
      nome: `Pessoa ${profile} Scope`,
      email: PERSON.email,
      celular: PERSON.phone,
    });
    const response = await rt.post(
      `/leads/${profile}?token=${DEMO_SECRETS.form}`,
      body.toString(),
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    expect(response.status, profile).toBe(202);
    leads[profile] = ((await response.json()) as { leadId: string }).leadId;
  }
}, 60_000);
afterAll(() => rt?.stop());

async function call(
  who: Who,
  path: string,
  init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
) {
  const client = CLIENTS[who];
  const response = await fetch(new URL(path, rt.url), {
    method: init.method ?? 'GET',
    headers: {
      authorization: basicHeader(client.username, client.password),
      ...(init.json !== undefined && { 'content-type': 'application/json' }),
      ...init.headers,
    },
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body: body as Record<string, unknown>, text };
}

const codeOf = (body: Record<string, unknown>) => (body.error as { code?: string })?.code;
const idsOf = (body: Record<string, unknown>) =>
  ((body.leads as { leadId: string }[]) ?? []).map((lead) => lead.leadId);
const profilesOfLeads = (ids: readonly string[]) =>
  Object.entries(leads)
    .filter(([, id]) => ids.includes(id))
    .map(([profile]) => profile)
    .sort();
const sorted = (list: readonly string[]) => [...list].sort();

describe('a scoped operator sees only its leads', () => {
  it.each(WHO)('%s: listing, status listing, search and the CSV', async (who) => {
    const all = await call(who, '/admin/leads?limit=100');
    expect(all.status).toBe(200);
    expect(profilesOfLeads(idsOf(all.body))).toEqual(sorted(SEES[who]));

    const queued = await call(who, '/admin/leads?status=queued&limit=100');
    const expectedQueued = SEES[who].filter((profile) => profile !== 'chain');
    expect(profilesOfLeads(idsOf(queued.body))).toEqual(sorted(expectedQueued));

    const search = await call(who, '/admin/leads?q=scope.person');
    expect(profilesOfLeads(idsOf(search.body))).toEqual(sorted(SEES[who]));

    const csv = await call(who, '/admin/leads.csv?status=queued');
    expect(csv.status).toBe(200);
    for (const [profile, leadId] of Object.entries(leads)) {
      expect(csv.text.includes(leadId), `${who} CSV holds ${profile}`).toBe(
        expectedQueued.includes(profile),
      );
    }
  });

  it.each(WHO)(
    '%s: a lead out of scope is a 404 like an unknown id, for every lead route',
    async (who) => {
      const unknown = await call(who, '/admin/leads/ld_0000000000000000000000');
      for (const [profile, leadId] of Object.entries(leads)) {
        const visible = SEES[who].includes(profile);
        const view = await call(who, `/admin/leads/${leadId}`);
        expect(view.status, `${who} GET ${profile}`).toBe(visible ? 200 : 404);
        if (!visible) {
          expect(view.body).toEqual({
            error: { ...(unknown.body.error as object), message: `não há lead ${leadId}` },
          });
          const patch = await call(who, `/admin/leads/${leadId}`, {
            method: 'PATCH',
            json: { prospect: { lastName: 'Outro' } },
          });
          expect(patch.status, `${who} PATCH ${profile}`).toBe(404);
          const retry = await call(who, `/admin/leads/${leadId}/retry`, { method: 'POST' });
          expect(retry.status, `${who} retry ${profile}`).toBe(404);
        }
      }
      // The lead still is what it was: nothing above changed it.
      const chain = await rt.ledger.get(leads.chain as string);
      expect(chain?.correction).toBeUndefined();
    },
  );

  it('the lead parked for its branch is only for clients of its whole account', async () => {
    const chain = leads.chain as string;
    expect((await call('ops', `/admin/leads/${chain}`)).body).toMatchObject({ status: 'parked' });
    expect((await call('b2admin', `/admin/leads/${chain}`)).status).toBe(404);
  });
});

describe('a scoped operator acts only on profiles whose every branch is its own', () => {
  it.each(WHO)('%s: preview, test lead, backfill, the set-up kit and the console', async (who) => {
    const setup = await call(who, '/admin/setup');
    expect(setup.status).toBe(200);
    const kit = (setup.body.profiles as { profile?: string; name?: string }[]).map(
      (entry) => entry.profile ?? entry.name,
    );
    expect(sorted(kit as string[])).toEqual(sorted(MAY_ACT[who]));

    const console = await call(who, '/admin');
    for (const profile of Object.keys(PROFILES)) {
      expect(console.text.includes(`"${profile}"`), `${who} console lists ${profile}`).toBe(
        MAY_ACT[who].includes(profile),
      );
    }

    for (const profile of Object.keys(PROFILES)) {
      const mine = MAY_ACT[who].includes(profile);
      const preview = await call(who, `/admin/preview/${profile}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(preview.status, `${who} preview ${profile}`).not.toBe(mine ? 403 : 200);
      // A profile of another tenant is refused exactly as one that does not exist.
      if (!mine) expect(codeOf(preview.body)).toBe('outside_scope');
      const backfill = await call(who, `/admin/backfill/${profile}`, {
        method: 'POST',
        json: { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' },
      });
      // A form keeps no leads to list: 409 for its owners, 403 for anyone else.
      expect(backfill.status, `${who} backfill ${profile}`).toBe(mine ? 409 : 403);
    }
  });

  it('a test lead goes only through a profile of the operator, and lands in its branch', async () => {
    const refused = await call('b2admin', '/admin/test-lead/b1', { method: 'POST' });
    expect(refused.status).toBe(403);
    const unknown = await call('b2admin', '/admin/test-lead/nowhere', { method: 'POST' });
    // Another branch's profile and one that does not exist get the same answer (no oracle).
    expect(unknown.status).toBe(403);
    expect(JSON.stringify(unknown.body).replaceAll('nowhere', 'b1')).toBe(
      JSON.stringify(refused.body),
    );
    const sent = await call('b2admin', '/admin/test-lead/b2', { method: 'POST' });
    expect(sent.status).toBe(200);
    const [leadId] = sent.body.leadIds as string[];
    const view = await call('b2admin', `/admin/leads/${leadId}`);
    expect(view.status).toBe(200);
    expect(view.body.prospect).toMatchObject({ idBranch: 2 });
  });
});

describe('the test lead’s address', () => {
  it('is the gateway’s own, whatever Host header the request carries', async () => {
    const response = await send(new URL('/admin/test-lead/b1', rt.url).href, {
      method: 'POST',
      headers: {
        host: 'collector.attacker.example:8080',
        authorization: basicHeader(CLIENTS.ops.username, CLIENTS.ops.password),
      },
    });
    expect(response.status).toBe(200);
    const body = response.json() as { url: string; status: number; leadIds: string[] };
    expect(body.url.startsWith(`${rt.url}/leads/b1`)).toBe(true);
    expect(body.status).toBe(202);
    expect(body.leadIds).toHaveLength(1);
  });
});

describe('accounts, the backlog, replay and the report refresh', () => {
  it('the upstream health shows only the accounts a client may see, and its own backlog', async () => {
    const ops = await call('ops', '/admin/upstream');
    expect(ops.body).toMatchObject({ upstream: 'default', accounts: ['default', 'south'] });
    const south = await call('southadmin', '/admin/upstream');
    expect(south.status).toBe(200);
    expect(south.body.circuit).toMatchObject({ state: 'closed' });
    expect(south.body.backlog).toBe(1);
    const other = await call('southadmin', '/admin/upstream?upstream=default');
    expect(other.status).toBe(400);
    expect(codeOf(other.body)).toBe('unknown_upstream');
    const b2 = await call('b2admin', '/admin/upstream');
    expect(b2.body.backlog).toBe(
      (await rt.leads()).filter((lead) => lead.profile === 'b2' && lead.status === 'queued').length,
    );
  });

  it('a scoped replay leaves the shared dead-letter queue alone', async () => {
    const replay = await call('southadmin', '/admin/replay', { method: 'POST' });
    expect(replay.status).toBe(202);
    expect(replay.body.redrive).toEqual({ status: 'skipped' });
    const ops = await call('ops', '/admin/replay', { method: 'POST' });
    expect((ops.body.redrive as { status: string }).status).toBe('moved');
  });

  it('a refresh of a whole account is for clients of the whole account', async () => {
    const b2 = await call('b2admin', '/admin/reports/debtors/refresh', { method: 'POST' });
    expect(b2.status).toBe(403);
    expect(codeOf(b2.body)).toBe('branch_forbidden');
    const ops = await call('ops', '/admin/reports/debtors/refresh', { method: 'POST' });
    expect(ops.status).toBe(202);
  });
});

describe('erasure touches only the operator’s leads', () => {
  it('a branch admin erases the person in its branch; the other branches keep theirs', async () => {
    const erased = await call('b2admin', '/admin/erasure', {
      method: 'POST',
      json: { email: PERSON.email },
    });
    expect(erased.status).toBe(200);
    expect((erased.body.erased as { leadId: string }[]).map((lead) => lead.leadId)).toEqual([
      leads.b2,
    ]);
    const b1 = await rt.ledger.get(leads.b1 as string);
    expect(b1?.redactedAt).toBeUndefined();
    expect((await rt.ledger.get(leads.b2 as string))?.redactedAt).toBeDefined();
  });
});

describe('no write route takes another site’s form post', () => {
  const writes = ROUTES.filter((route) => route.auth === 'basic' && route.method !== 'GET');

  it.each(writes.map((route) => [route.method, route.path] as const))(
    '%s %s: 403 cross_site_refused',
    async (method, path) => {
      const concrete = path.replace('{leadId}', leads.b1 as string).replace('{profile}', 'b1');
      const before = await rt.countLeads();
      const response = await call('ops', concrete, {
        method,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://evil.example',
          'sec-fetch-site': 'cross-site',
        },
      });
      expect(response.status).toBe(403);
      expect(codeOf(response.body)).toBe('cross_site_refused');
      expect(await rt.countLeads()).toBe(before);
    },
  );
});
