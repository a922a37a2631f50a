import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SlidingWindowRateLimiter } from '../../sandbox/rate-limit.ts';
import { type Harness, startSandbox, validProspect } from './helpers.ts';

describe('SlidingWindowRateLimiter', () => {
  const limits = { perSecond: 5, perMinute: 40 };

  it('admits at most perSecond in any 1000 ms window and says when a slot frees', () => {
    // Prepare
    const limiter = new SlidingWindowRateLimiter();
    const admitted = [0, 100, 200, 300, 400].map((t) => limiter.tryAcquire('demo', t, limits));

    // Act
    const refused = limiter.tryAcquire('demo', 999, limits);
    const stillRefused = limiter.tryAcquire('demo', 999.5, limits);
    const freed = limiter.tryAcquire('demo', 1000, limits);

    // Assess
    expect(admitted.every((a) => a.admitted)).toBe(true);
    expect(refused).toMatchObject({
      admitted: false,
      period: '1s',
      limit: 5,
      message: 'API calls quota exceeded! maximum admitted 5 per 1s.',
    });
    expect(refused.admitted ? 0 : refused.retryAfterMs).toBe(1);
    // The window at t is (t - 1000, t]: the request at 0 has left it exactly at t = 1000.
    expect(stillRefused.admitted).toBe(false);
    expect(freed.admitted).toBe(true);
  });

  it('does not count refused requests', () => {
    const limiter = new SlidingWindowRateLimiter();
    for (let i = 0; i < 5; i += 1) limiter.tryAcquire('demo', 0, limits);
    for (let i = 0; i < 50; i += 1) limiter.tryAcquire('demo', 500, limits);
    expect(limiter.tryAcquire('demo', 1001, limits).admitted).toBe(true);
  });

  it('admits at most perMinute in any 60 s window', () => {
    // Prepare: 40 requests, 5 per second over 8 seconds.
    const limiter = new SlidingWindowRateLimiter();
    for (let i = 0; i < 40; i += 1) {
      expect(limiter.tryAcquire('demo', Math.floor(i / 5) * 1000, limits).admitted).toBe(true);
    }

    // Act
    const refused = limiter.tryAcquire('demo', 10_000, limits);
    const freed = limiter.tryAcquire('demo', 60_001, limits);

    // Assess
    expect(refused).toMatchObject({
      admitted: false,
      period: '1m',
      message: 'API calls quota exceeded! maximum admitted 40 per 1m.',
      retryAfterMs: 50_000,
    });
    expect(freed.admitted).toBe(true);
  });

  it('keeps one log per key', () => {
    const limiter = new SlidingWindowRateLimiter();
    for (let i = 0; i < 5; i += 1) limiter.tryAcquire('a', 0, limits);
    expect(limiter.tryAcquire('a', 1, limits).admitted).toBe(false);
    expect(limiter.tryAcquire('b', 1, limits).admitted).toBe(true);
  });
});

describe('sandbox rate limits over HTTP', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startSandbox();
  });

  afterAll(async () => {
    await h.sandbox.close();
  });

  beforeEach(async () => {
    await h.setFaults({});
    await fetch(h.url('/_sandbox/rate-limit'), { method: 'DELETE' });
    await fetch(h.url('/_sandbox/stats'), { method: 'DELETE' });
  });

  it('admits exactly 5 of 12 concurrent requests; the rest get 429 text + Retry-After', async () => {
    // Act
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 ? h.postProspect(validProspect()) : h.api('/api/v1/receivables/debtors?take=1'),
      ),
    );

    // Assess
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(5);
    expect(limited).toHaveLength(7);
    for (const response of limited) {
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(1);
      expect(await response.text()).toBe('API calls quota exceeded! maximum admitted 5 per 1s.');
    }
    const stats = (await (await fetch(h.url('/_sandbox/stats'))).json()) as {
      byRoute: Record<string, Record<string, number>>;
    };
    const count = (status: string) =>
      Object.values(stats.byRoute).reduce((sum, byStatus) => sum + (byStatus[status] ?? 0), 0);
    expect(count('200')).toBe(5);
    expect(count('429')).toBe(7);
  });

  it('does not rate-limit requests that fail authentication', async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => fetch(h.url('/api/v1/receivables/debtors'))),
    );
    expect(responses.every((r) => r.status === 401)).toBe(true);
    expect((await h.api('/api/v1/receivables/debtors?take=1')).status).toBe(200);
  });

  it('applies a perSecond override, named in the 429 text', async () => {
    // Prepare
    await h.setFaults({ perSecond: 2, perMinute: 1000 });

    // Act
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => h.api('/api/v1/receivables/debtors?take=1')),
    );

    // Assess
    expect(responses.filter((r) => r.status === 200)).toHaveLength(2);
    const limited = responses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(3);
    expect(await limited[0]?.text()).toBe('API calls quota exceeded! maximum admitted 2 per 1s.');
  });

  it('applies a perMinute override with a Retry-After close to a minute', async () => {
    // Prepare
    await h.setFaults({ perSecond: 1000, perMinute: 7 });

    // Act
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 10; i += 1) {
      last = await h.api('/api/v1/receivables/debtors?take=1');
      statuses.push(last.status);
      if (last.status === 200) await last.arrayBuffer();
    }

    // Assess
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 429, 429, 429]);
    expect(await last?.text()).toBe('API calls quota exceeded! maximum admitted 7 per 1m.');
    const retryAfter = Number(last?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(50);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('frees a slot once the oldest admitted request leaves the 1 s window', async () => {
    // Prepare
    await h.setFaults({ perSecond: 1, perMinute: 1000 });
    expect((await h.api('/api/v1/receivables/debtors?take=1')).status).toBe(200);
    expect((await h.api('/api/v1/receivables/debtors?take=1')).status).toBe(429);

    // Act
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    const after = await h.api('/api/v1/receivables/debtors?take=1');

    // Assess
    expect(after.status).toBe(200);
  });

  it('does not limit /graph nor /_sandbox routes', async () => {
    await h.setFaults({ perSecond: 1, perMinute: 1 });
    const responses = await Promise.all([
      ...Array.from({ length: 5 }, () => fetch(h.url('/graph/1?access_token=t'))),
      ...Array.from({ length: 5 }, () => fetch(h.url('/_sandbox/faults'))),
    ]);
    expect(responses.some((r) => r.status === 429)).toBe(false);
  });
});
