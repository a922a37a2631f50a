/**
 * Every write stays in its tenant (issue 32), end to end on the local runtime with its worker:
 * a client scoped to branch 2 of the account `default` cannot move a lead to branch 1 or to a
 * profile it may not use, nor preview, test or create a Prospect into branch 1 (403, the ledger
 * unchanged); an account that does not exist and another tenant's get one answer; a scoped
 * client of an account without a `prospect` profile is told so; and a name with bidi overrides,
 * zero-width characters and NUL reaches the sandbox clean through the Prospect API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicHeader } from '../helpers/abuse-kit.ts';
import { type SandboxControl, sandboxControl, waitUntil } from '../helpers/delivery-harness-e2e.ts';
import { DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';

const CLIENTS = {
  ops: { username: 'ops', password: 'ops-write-pw', roles: ['admin', 'prospects:write'] },
  b2: {
    username: 'b2',
    password: 'b2-write-pw',
    roles: ['admin', 'prospects:write', 'report:read'],
    upstreams: ['default'],
    branches: [2],
  },
  south: {
    username: 'south',
    password: 'south-write-pw',
    roles: ['prospects:write'],
    upstreams: ['south'],
  },
} as const;
type Who = keyof typeof CLIENTS;

const form = (idBranch: number, extra: Record<string, unknown> = {}) => ({
  source: 'form',
  token: DEMO_SECRETS.form,
  defaults: { idBranch },
  ...extra,
});

let rt: TestRuntime;
let sandbox: SandboxControl;
/** A lead of branch 2 parked for its missing e-mail: b2's to correct. */
let parked: string;

beforeAll(async () => {
  rt = await startTestRuntime(
    {
      upstream: TEST_UPSTREAM,
      upstreams: { south: { ...TEST_UPSTREAM, username: 'south', password: 'south' } },
      report: { branches: [1, 2], refreshSeconds: 3600 },
      clients: Object.values(CLIENTS),
      profiles: {
        b1: form(1),
        b2: form(2),
        southsite: form(7, { upstream: 'south' }),
        api: { source: 'prospect' },
      },
    },
    { worker: true },
  );
  sandbox = sandboxControl(rt.sandboxUrl);
  const response = await rt.post(
    `/leads/b2?token=${DEMO_SECRETS.form}`,
    'nome=Carla+Dias&celular=11987650000',
    { 'content-type': 'application/x-www-form-urlencoded' },
  );
  parked = ((await response.json()) as { leadId: string }).leadId;
}, 60_000);
afterAll(() => rt?.stop());

async function call(
  who: Who,
  path: string,
  init: { method?: string; body?: string; type?: string } = {},
) {
  const client = CLIENTS[who];
  const response = await fetch(new URL(path, rt.url), {
    method: init.method ?? 'GET',
    headers: {
      authorization: basicHeader(client.username, client.password),
      ...(init.body !== undefined && { 'content-type': init.type ?? 'application/json' }),
    },
    ...(init.body !== undefined && { body: init.body }),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body, text };
}
const codeOf = (body: Record<string, unknown>) => (body.error as { code?: string })?.code;

describe('a branch-2 operator writes only into branch 2', () => {
  it('cannot move its parked lead to branch 1, or to a profile it may not use', async () => {
    const before = await rt.ledger.get(parked);
    expect(before?.status).toBe('parked');
    const toBranch1 = await call('b2', `/admin/leads/${parked}`, {
      method: 'PATCH',
      body: JSON.stringify({ prospect: { idBranch: 1, email: 'carla@exemplo.com.br' } }),
    });
    expect(toBranch1.status).toBe(403);
    expect(codeOf(toBranch1.body)).toBe('outside_scope');
    expect((toBranch1.body.error as { message: string }).message).toContain('a unidade 1');
    const toOtherProfile = await call('b2', `/admin/leads/${parked}`, {
      method: 'PATCH',
      body: JSON.stringify({ profile: 'b1' }),
    });
    expect(toOtherProfile.status).toBe(403);
    const toOtherAccount = await call('b2', `/admin/leads/${parked}`, {
      method: 'PATCH',
      body: JSON.stringify({ profile: 'southsite' }),
    });
    expect(toOtherAccount.status).toBe(403);
    // Nothing changed: the same version, no correction, still branch 2.
    const after = await rt.ledger.get(parked);
    expect(after?.version).toBe(before?.version);
    expect(after?.correction).toBeUndefined();
    expect(after?.profile).toBe('b2');
    expect(after?.prospect?.idBranch).toBe(2);
    // Within its branch the same correction goes through.
    const inScope = await call('b2', `/admin/leads/${parked}`, {
      method: 'PATCH',
      body: JSON.stringify({ prospect: { email: 'carla@exemplo.com.br' } }),
    });
    expect(inScope.status).toBe(200);
  });

  it('cannot preview, test or create a Prospect into branch 1; nothing is recorded', async () => {
    const count = await rt.countLeads();
    const preview = await call('b2', '/admin/preview/b2', {
      method: 'POST',
      body: 'nome=Rui+Lima&email=rui@exemplo.com.br&celular=11987651111&idBranch=1',
      type: 'application/x-www-form-urlencoded',
    });
    expect(preview.status).toBe(403);
    expect(codeOf(preview.body)).toBe('outside_scope');
    const own = await call('b2', '/admin/preview/b2', {
      method: 'POST',
      body: 'nome=Rui+Lima&email=rui@exemplo.com.br&celular=11987651111',
      type: 'application/x-www-form-urlencoded',
    });
    expect(own.status).toBe(200);
    const testLead = await call('b2', '/admin/test-lead/b1', { method: 'POST' });
    expect(testLead.status).toBe(403);
    const prospect = await call('b2', '/api/v1/prospects', {
      method: 'POST',
      type: 'application/json-patch+json',
      body: JSON.stringify({
        name: 'Rui',
        lastName: 'Lima',
        email: 'rui@x.com',
        idBranch: 1,
        ddi: '55',
        cellphone: '11987651111',
      }),
    });
    expect(prospect.status).toBe(403);
    expect(codeOf(prospect.body)).toBe('branch_forbidden');
    expect(await rt.countLeads()).toBe(count);
  });
});

describe('accounts', () => {
  it('give one answer for an account that does not exist and for another tenant’s', async () => {
    for (const path of ['/reports/debtors', '/api/v1/receivables/debtors']) {
      const other = await call('b2', `${path}?upstream=south`);
      const none = await call('b2', `${path}?upstream=nowhere`);
      expect(other.status).toBe(400);
      expect(JSON.stringify(none.body).replaceAll('nowhere', 'south')).toBe(
        JSON.stringify(other.body),
      );
    }
    const prospect = (upstream: string) =>
      call('b2', `/api/v1/prospects?upstream=${upstream}`, {
        method: 'POST',
        type: 'application/json',
        body: JSON.stringify({ name: 'Rui', lastName: 'Lima', email: 'rui@x.com', idBranch: 2 }),
      });
    const other = await prospect('south');
    const none = await prospect('nowhere');
    expect(other.status).toBe(400);
    expect(codeOf(other.body)).toBe('unknown_upstream');
    expect(JSON.stringify(none.body).replaceAll('nowhere', 'south')).toBe(
      JSON.stringify(other.body),
    );
  });

  it('tell a scoped client whose account has no prospect profile what is missing', async () => {
    const answer = await call('south', '/api/v1/prospects', {
      method: 'POST',
      body: JSON.stringify({ name: 'Rui', lastName: 'Lima', email: 'rui@x.com', idBranch: 7 }),
    });
    expect(answer.status).toBe(404);
    expect(codeOf(answer.body)).toBe('no_prospect_profile');
    expect((answer.body.error as { message: string }).message).toContain(
      'a conta "south" não tem perfil da API de Prospects',
    );
  });
});

describe('the Prospect API cleans what the form path cleans', () => {
  it('delivers a name with bidi overrides, zero-width joiners and NUL clean, and caps its length', async () => {
    const answer = await call('ops', '/api/v1/prospects', {
      method: 'POST',
      type: 'application/json-patch+json',
      body: JSON.stringify({
        name: 'Ana\u202E\u200D\u0000',
        lastName: `Sou\u200Bza ${'x'.repeat(10_000)}`,
        email: 'ana.bidi@exemplo.com.br',
        idBranch: 1,
        ddi: '55',
        cellphone: '11987652222',
      }),
    });
    expect([200, 202]).toContain(answer.status);
    const [delivered] = await waitUntil(
      'the prospect in the sandbox',
      async () =>
        (await sandbox.prospects()).filter(
          (p) => (p.body as { email?: string }).email === 'ana.bidi@exemplo.com.br',
        ),
      (found) => found.length > 0,
      { timeoutMs: 30_000 },
    );
    const body = delivered?.body as { name: string; lastName: string; notes: string };
    expect(body.name).toBe('Ana');
    expect(body.lastName.startsWith('Souza xxx')).toBe(true);
    expect([...body.lastName]).toHaveLength(80);
    expect(body.notes).toContain('O sobrenome foi cortado em 80 caracteres (tinha 10.006).');
  });
});
