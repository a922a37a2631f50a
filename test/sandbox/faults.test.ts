import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_FAULTS } from '../../sandbox/faults.ts';
import { type Harness, NO_LIMITS, startSandbox, validProspect } from './helpers.ts';

let h: Harness;

beforeAll(async () => {
  h = await startSandbox();
});

afterAll(async () => {
  await h.sandbox.close();
});

beforeEach(async () => {
  await h.setFaults(NO_LIMITS);
  await fetch(h.url('/_sandbox/stats'), { method: 'DELETE' });
});

interface Stats {
  total: number;
  byRoute: Record<string, Record<string, number>>;
  requests: { at: number; method: string; route: string; status: number }[];
}

async function stats(): Promise<Stats> {
  return (await (await fetch(h.url('/_sandbox/stats'))).json()) as Stats;
}

describe('POST /_sandbox/faults', () => {
  it('answers the active settings, and {} restores the defaults', async () => {
    // Act
    const set = await h.setFaults({ errorRate: 0.5, latencyMs: 10, perSecond: 9 });
    const current = await fetch(h.url('/_sandbox/faults'));
    const restored = await h.setFaults({});

    // Assess
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({
      ...DEFAULT_FAULTS,
      errorRate: 0.5,
      latencyMs: 10,
      perSecond: 9,
    });
    expect((await current.json()) as object).toMatchObject({ errorRate: 0.5, perSecond: 9 });
    expect(await restored.json()).toEqual({
      errorRate: 0,
      errorStatus: 500,
      latencyMs: 0,
      outage: false,
      perSecond: 5,
      perMinute: 40,
      bareId: false,
      postStatus: null,
      postCount: null,
      lookupForbidden: false,
    });
  });

  it.each([
    [{ errorRate: 2 }],
    [{ errorRate: -0.1 }],
    [{ errorStatus: 200 }],
    [{ errorStatus: 'x' }],
    [{ latencyMs: -1 }],
    [{ outage: 'yes' }],
    [{ perSecond: 0 }],
    [{ perMinute: 1.5 }],
    [{ bareId: 1 }],
    [{ postStatus: 200 }],
    [{ postCount: 0 }],
    [{ lookupForbidden: 'yes' }],
    [{ typo: true }],
    [[]],
    ['{"errorRate":'],
  ])('refuses %j with 400', async (body) => {
    // Prepare
    await h.setFaults({ ...NO_LIMITS, latencyMs: 1 });

    // Act
    const response = await fetch(h.url('/_sandbox/faults'), {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

    // Assess
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: { code: string } };
    expect(answer.error.code).toMatch(/^invalid_/);
    // A refused body leaves the active settings alone.
    expect((await (await fetch(h.url('/_sandbox/faults'))).json()) as object).toMatchObject({
      latencyMs: 1,
    });
  });

  it('errorRate 1 answers every admitted API request with errorStatus and an empty body', async () => {
    // Prepare
    await h.setFaults({ ...NO_LIMITS, errorRate: 1, errorStatus: 503 });
    const before = (await (await fetch(h.url('/_sandbox/prospects'))).json()) as unknown[];

    // Act
    const responses = await Promise.all([
      h.postProspect(validProspect()),
      h.api('/api/v1/receivables/debtors'),
      h.api('/api/v1/receivables/debtors?take=1'),
    ]);
    const unauthenticated = await fetch(h.url('/api/v1/receivables/debtors'));

    // Assess
    for (const response of responses) {
      expect(response.status).toBe(503);
      expect(await response.text()).toBe('');
    }
    expect(unauthenticated.status).toBe(401);
    const after = (await (await fetch(h.url('/_sandbox/prospects'))).json()) as unknown[];
    expect(after.length).toBe(before.length);
  });

  it('postStatus answers every POST with that status and creates nothing; GETs still work', async () => {
    // Prepare
    await h.setFaults({ ...NO_LIMITS, postStatus: 503 });
    const before = (await (await fetch(h.url('/_sandbox/prospects'))).json()) as unknown[];

    // Act
    const posted = await h.postProspect(validProspect());
    const looked = await h.api('/api/v1/prospects?email=someone@example.com');

    // Assess
    expect(posted.status).toBe(503);
    expect(looked.status).toBe(200);
    const after = (await (await fetch(h.url('/_sandbox/prospects'))).json()) as unknown[];
    expect(after.length).toBe(before.length);
  });

  it('postCount limits postStatus to the next POSTs: a blip that ends by itself', async () => {
    // Prepare
    await h.setFaults({ ...NO_LIMITS, postStatus: 500, postCount: 2 });

    // Act
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await h.postProspect(validProspect())).status);
    const after = (await (await fetch(h.url('/_sandbox/faults'))).json()) as object;

    // Assess
    expect(statuses).toEqual([500, 500, 200]);
    expect(after).toMatchObject({ postStatus: null, postCount: null });
  });

  it('lookupForbidden answers prospect lookups 403 and lets POSTs through', async () => {
    // Prepare
    await h.setFaults({ ...NO_LIMITS, lookupForbidden: true });

    // Act
    const looked = await h.api('/api/v1/prospects?email=someone@example.com');
    const posted = await h.postProspect(validProspect());

    // Assess
    expect(looked.status).toBe(403);
    expect(posted.status).toBe(200);
  });

  it('errorRate 0.5 fails some requests and not others', async () => {
    await h.setFaults({ ...NO_LIMITS, errorRate: 0.5 });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      const response = await h.api('/api/v1/receivables/debtors?take=1');
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toContain(500);
    expect(statuses).toContain(200);
  });

  it('outage makes fetch reject and is recorded with status 0', async () => {
    // Prepare
    await h.setFaults({ ...NO_LIMITS, outage: true });

    // Act
    const post = h.postProspect(validProspect());
    const get = h.api('/api/v1/receivables/debtors');

    // Assess
    await expect(post).rejects.toThrow();
    await expect(get).rejects.toThrow();
    const recorded = await stats();
    expect(recorded.byRoute['POST /api/v1/prospects']).toEqual({ '0': 1 });
    expect(recorded.byRoute['GET /api/v1/receivables/debtors']).toEqual({ '0': 1 });
    // Control routes still answer during an outage.
    await h.setFaults(NO_LIMITS);
    expect((await h.api('/api/v1/receivables/debtors?take=1')).status).toBe(200);
  });

  it('latencyMs delays API answers', async () => {
    // Prepare
    await h.setFaults({ ...NO_LIMITS, latencyMs: 300 });

    // Act
    const started = performance.now();
    const response = await h.api('/api/v1/receivables/debtors?take=1');
    const elapsed = performance.now() - started;

    // Assess
    expect(response.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(250);
  });
});

describe('GET /_sandbox/stats', () => {
  it('counts requests by route pattern and status, 429s and 404s included', async () => {
    // Prepare
    await h.setFaults({ perSecond: 1, perMinute: 100 });
    await fetch(h.url('/_sandbox/rate-limit'), { method: 'DELETE' });

    // Act
    const started = Date.now();
    await h.api('/api/v1/receivables/debtors?take=1');
    await h.api('/api/v1/receivables/debtors?take=1');
    await fetch(h.url('/api/v1/receivables/debtors'));
    await fetch(h.url('/graph/123?access_token=x'));
    await fetch(h.url('/graph/v19.0/123'));
    await fetch(h.url('/nowhere'));
    await fetch(h.url('/_sandbox/faults'));

    // Assess
    const recorded = await stats();
    expect(recorded.total).toBe(6);
    expect(recorded.byRoute).toEqual({
      'GET /api/v1/receivables/debtors': { '200': 1, '401': 1, '429': 1 },
      'GET /graph/{id}': { '400': 2 },
      'GET (unmatched)': { '404': 1 },
    });
    expect(recorded.requests).toHaveLength(6);
    expect(recorded.requests[0]).toMatchObject({
      method: 'GET',
      route: 'GET /api/v1/receivables/debtors',
      status: 200,
    });
    expect(recorded.requests.every((r) => r.at >= started - 5 && r.at <= Date.now())).toBe(true);
  });

  it('resets on DELETE', async () => {
    await fetch(h.url('/nowhere'));
    expect((await fetch(h.url('/_sandbox/stats'), { method: 'DELETE' })).status).toBe(204);
    expect(await stats()).toEqual({ total: 0, byRoute: {}, requests: [] });
  });
});
