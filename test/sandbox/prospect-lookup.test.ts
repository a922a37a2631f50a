/**
 * `GET /api/v1/prospects` in the sandbox (sandbox/prospect-lookup.ts) and the client's
 * `findProspects` against it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUpstreamClient } from '../../functions/upstream/upstream-client.ts';
import { UpstreamError } from '../../functions/upstream/upstream-errors.ts';
import { prospectSearch, readProspectMatch } from '../../functions/upstream/upstream-prospects.ts';
import { lookupProspects } from '../../sandbox/prospect-lookup.ts';
import { type Harness, NO_LIMITS, startSandbox, validProspect } from './helpers.ts';

let h: Harness;
let clock = new Date('2026-08-01T12:00:00.000Z');

beforeAll(async () => {
  h = await startSandbox({ now: () => clock });
});
afterAll(() => h.sandbox.close());
beforeEach(async () => {
  await fetch(h.url('/_sandbox/prospects'), { method: 'DELETE' });
  await fetch(h.url('/_sandbox/rate-limit'), { method: 'DELETE' });
  await h.setFaults(NO_LIMITS);
  clock = new Date('2026-08-01T12:00:00.000Z');
});

/** Creates a prospect at `at` (the sandbox clock) and returns its id. */
async function create(at: string, overrides: Record<string, unknown> = {}): Promise<number> {
  clock = new Date(at);
  const response = await h.postProspect(validProspect(overrides));
  expect(response.status).toBe(200);
  return ((await response.json()) as { idProspect: number }).idProspect;
}

async function lookup(query: string): Promise<Response> {
  return h.api(`/api/v1/prospects${query}`);
}

async function ids(query: string): Promise<number[]> {
  const response = await lookup(query);
  expect(response.status).toBe(200);
  return ((await response.json()) as { idProspect: number }[]).map((p) => p.idProspect);
}

describe('GET /api/v1/prospects (sandbox)', () => {
  it('answers the stored prospects matching all filters, with the documented fields', async () => {
    // Prepare
    const maria = await create('2026-08-01T10:00:00.000Z', { cpf: '529.982.247-25' });
    await create('2026-08-01T11:00:00.000Z', {
      email: 'joao@example.com',
      cellphone: '11911112222',
    });

    // Act
    const response = await lookup('?email=MARIA@example.com&cellphone=(11)%2098765-4321');

    // Assess
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      {
        idProspect: maria,
        name: 'Maria',
        lastName: 'Souza',
        email: 'maria@example.com',
        cellphone: '11987654321',
        cpf: '529.982.247-25',
        registerDate: '2026-08-01T10:00:00.000Z',
      },
    ]);
  });

  it('filters by cpf and registerDateStart, and takes production names too', async () => {
    // Prepare
    const early = await create('2026-08-01T09:00:00.000Z', { cpf: '52998224725' });
    const late = await create('2026-08-01T12:30:00.000Z', { email: 'other@example.com' });

    // Act / Assess
    expect(await ids('?cpf=529.982.247-25')).toEqual([early]);
    expect(await ids('?document=52998224725')).toEqual([early]);
    expect(await ids('?phone=11987654321')).toEqual([early, late]);
    expect(await ids('?registerDateStart=2026-08-01T12:00:00Z')).toEqual([late]);
    expect(await ids('?registerDateStart=2026-08-01T09:00:00')).toEqual([early, late]);
    expect(await ids('?email=maria@example.com&registerDateStart=2026-08-01T10:00:00Z')).toEqual(
      [],
    );
    expect(await ids('?cellphone=abc')).toEqual([]);
    expect(await ids('?unknown=1')).toEqual([early, late]);
    expect(await ids('?take=1&skip=1')).toEqual([late]);
  });

  it('answers 400 mensagens for an unreadable date or number', async () => {
    const response = await lookup('?registerDateStart=yesterday&take=x');
    expect(response.status).toBe(400);
    const body = (await response.json()) as { mensagens: string[] };
    expect(body.mensagens).toHaveLength(2);
    expect(body.mensagens[0]).toMatch(/registerDateStart/);
  });

  it('needs Basic auth, counts toward the rate limit and obeys the faults', async () => {
    await fetch(h.url('/_sandbox/stats'), { method: 'DELETE' });
    // Unauthenticated
    const anonymous = await fetch(h.url('/api/v1/prospects?email=a@b.co'));
    expect(anonymous.status).toBe(401);

    // Rate limit shared with the other API routes
    await h.setFaults({ perSecond: 100, perMinute: 2 });
    expect((await lookup('')).status).toBe(200);
    expect((await h.api('/api/v1/receivables/debtors?take=1')).status).toBe(200);
    const limited = await lookup('');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);

    // Faults
    await fetch(h.url('/_sandbox/rate-limit'), { method: 'DELETE' });
    await h.setFaults({ ...NO_LIMITS, errorRate: 1, errorStatus: 503 });
    expect((await lookup('')).status).toBe(503);
    await h.setFaults({ ...NO_LIMITS, outage: true });
    await expect(lookup('')).rejects.toThrow();

    const stats = (await (await fetch(h.url('/_sandbox/stats'))).json()) as {
      byRoute: Record<string, Record<string, number>>;
    };
    expect(stats.byRoute['GET /api/v1/prospects']).toEqual({
      '0': 1,
      '200': 1,
      '401': 1,
      '429': 1,
      '503': 1,
    });
  });

  it('lists the routes it serves', async () => {
    const about = (await (await fetch(h.url('/_sandbox'))).json()) as { routes: string[] };
    expect(about.routes.some((r) => r.startsWith('GET /api/v1/prospects'))).toBe(true);
  });
});

describe('lookupProspects', () => {
  it('reads field names in any casing, as production binds them', () => {
    const result = lookupProspects(
      [{ idProspect: 7, receivedAt: '2026-01-01T00:00:00.000Z', body: { EMAIL: 'A@b.co' } }],
      new URLSearchParams('email=a@B.co'),
    );
    expect(result).toEqual({
      ok: true,
      prospects: [
        {
          idProspect: 7,
          name: null,
          lastName: null,
          email: 'A@b.co',
          cellphone: null,
          cpf: null,
          registerDate: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
  });
});

describe('UpstreamClient.findProspects', () => {
  const client = () =>
    createUpstreamClient({ baseUrl: h.sandbox.url, username: 'demo', password: 'demo' });

  it('finds a prospect by email, cellphone and registration time', async () => {
    // Prepare
    const id = await create('2026-08-01T10:00:00.000Z');
    await create('2026-08-01T10:00:00.000Z', { email: 'ana@example.com' });

    // Act
    const found = await client().findProspects({
      email: 'maria@example.com',
      cellphone: '11987654321',
      registeredSince: new Date('2026-08-01T09:59:00.000Z'),
    });
    const none = await client().findProspects({
      email: 'maria@example.com',
      registeredSince: new Date('2026-08-01T10:00:01.000Z'),
    });

    // Assess
    expect(found).toEqual([
      expect.objectContaining({
        idProspect: id,
        email: 'maria@example.com',
        cellphone: '11987654321',
      }),
    ]);
    expect(none).toEqual([]);
  });

  it('classifies a 403 as unauthorized and a non-list as unavailable', async () => {
    await h.setFaults({ ...NO_LIMITS, errorRate: 1, errorStatus: 403 });
    const refused = await client()
      .findProspects({ email: 'x@y.co' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UpstreamError);
    expect(refused).toMatchObject({ kind: 'unauthorized', status: 403 });

    const odd = createUpstreamClient({
      baseUrl: 'http://upstream.invalid',
      username: 'u',
      password: 'p',
      fetch: async () => new Response('{"idProspect": 1}', { status: 200 }),
    });
    await expect(odd.findProspects({})).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it("sends production's parameter names and reads production's field names", () => {
    const params = prospectSearch({
      email: ' maria@example.com ',
      cellphone: '(11) 98765-4321',
      cpf: '529.982.247-25',
      registeredSince: new Date('2026-08-01T10:00:00.000Z'),
    });
    expect(Object.fromEntries(params)).toEqual({
      email: 'maria@example.com',
      phone: '11987654321',
      document: '52998224725',
      registerDateStart: '2026-08-01T10:00:00.000Z',
      take: '50',
    });
    expect(
      readProspectMatch({ idProspect: '90071992547409931', firstName: 'Ana', document: '1' }),
    ).toEqual({ idProspect: '90071992547409931', name: 'Ana', cpf: '1' });
    expect(readProspectMatch({ name: 'no id' })).toBeUndefined();
  });
});
