/**
 * One refresh at a time by a lease (functions/report/refresh/lease.ts) on the ledger table
 * (lease-dynamodb.ts, here on dynalite): a request that finds the lease taken is sent again for
 * later and acknowledged, never run beside the other and never returned to the queue; a holder
 * that died frees it when its lease runs out; ticks take no lease.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { leasedRefresh, type RefreshLease } from '../../../functions/report/refresh/lease.ts';
import { createDynamoRefreshLease } from '../../../functions/report/refresh/lease-dynamodb.ts';
import { isTick } from '../../../functions/report/refresh/refresh.ts';
import { refreshMessage } from '../../../functions/report/trigger/report-trigger.ts';
import { startTestDynamo, type TestDynamo } from '../../helpers/dynalite.ts';

const T0 = new Date('2026-03-02T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const TTL_MS = 330_000;

let dynamo: TestDynamo;
beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo?.close());

async function freshLease(): Promise<RefreshLease> {
  return createDynamoRefreshLease({
    client: dynamo.client,
    tableName: await dynamo.createLedgerTable(),
  });
}

describe('the refresh lease on the ledger table', () => {
  it('is held by one invocation at a time, and taken again once released', async () => {
    // Prepare
    const lease = await freshLease();

    // Act
    const first = await lease.acquire('request-a', T0, TTL_MS);
    const second = await lease.acquire('request-b', at(10), TTL_MS);
    await lease.release('request-a');
    const third = await lease.acquire('request-b', at(20), TTL_MS);

    // Assess
    expect(first).toEqual({ taken: true });
    expect(second).toEqual({ taken: false, heldUntil: new Date(T0.getTime() + TTL_MS) });
    expect(third).toEqual({ taken: true });
  });

  it('frees itself when its holder dies holding it (the lease runs out), and a late release changes nothing', async () => {
    // Prepare
    const lease = await freshLease();
    await lease.acquire('died', T0, TTL_MS);

    // Act
    const before = await lease.acquire('next', at(329), TTL_MS);
    const after = await lease.acquire('next', at(331), TTL_MS);
    await lease.release('died');
    const other = await lease.acquire('third', at(340), TTL_MS);

    // Assess: the dead holder's release does not free the new holder's lease.
    expect(before.taken).toBe(false);
    expect(after).toEqual({ taken: true });
    expect(other.taken).toBe(false);
  });
});

describe('leasedRefresh', () => {
  it('runs the refresh holding the lease, then gives it back', async () => {
    // Prepare
    const lease = await freshLease();
    const defer = vi.fn(async () => {});
    const run = vi.fn(async () => 'refreshed');
    const message = refreshMessage({ upstream: 'default', reason: 'admin' }, T0);

    // Act
    const result = await leasedRefresh(
      { lease, defer, ttlMs: TTL_MS, now: () => T0 },
      'request-a',
      message,
      run,
    );

    // Assess
    expect(result).toBe('refreshed');
    expect(defer).not.toHaveBeenCalled();
    expect(await lease.acquire('request-b', at(1), TTL_MS)).toEqual({ taken: true });
  });

  it('sends a request that finds another refresh running again for later, as it was, and acknowledges it', async () => {
    // Prepare: a refresh started 100 s ago holds the lease for 230 s more.
    const lease = await freshLease();
    await lease.acquire('running', at(-100), TTL_MS);
    const defer = vi.fn(async () => {});
    const run = vi.fn(async () => 'refreshed');
    const deferred = vi.fn();
    const message = refreshMessage({ kind: 'continue', refreshId: 'r1', upstream: 'south' }, T0);

    // Act
    const result = await leasedRefresh(
      { lease, defer, ttlMs: TTL_MS, now: () => T0, events: { deferred } },
      'request-b',
      message,
      run,
    );

    // Assess: at most a minute later, the message unchanged (its requestedAt too).
    expect(run).not.toHaveBeenCalled();
    expect(result).toEqual({ status: 'deferred', delaySeconds: 60 });
    expect(defer).toHaveBeenCalledWith(message, 60);
    expect(deferred).toHaveBeenCalledWith({
      kind: 'continue',
      upstream: 'south',
      delaySeconds: 60,
    });
  });

  it('asks again soon (10 s at least) when the lease is about to end', async () => {
    // Prepare: the running refresh's lease ends in 3 s.
    const lease = await freshLease();
    await lease.acquire('running', at(-(TTL_MS / 1000) + 3), TTL_MS);
    const defer = vi.fn(async () => {});

    // Act
    const result = await leasedRefresh(
      { lease, defer, ttlMs: TTL_MS, now: () => T0 },
      'request-b',
      refreshMessage({ upstream: 'default' }, T0),
      async () => 'refreshed',
    );

    // Assess
    expect(result).toEqual({ status: 'deferred', delaySeconds: 10 });
  });

  it('gives the lease back even when the refresh throws, and reports a failed release instead of throwing it', async () => {
    // Prepare
    const lease = await freshLease();
    const releaseFailed = vi.fn();
    const broken: RefreshLease = {
      acquire: lease.acquire,
      release: async () => {
        throw new Error('DynamoDB unreachable');
      },
    };

    // Act
    const failing = leasedRefresh(
      { lease, defer: async () => {}, ttlMs: TTL_MS, now: () => T0 },
      'request-a',
      refreshMessage({ upstream: 'default' }, T0),
      async () => {
        throw new Error('store down');
      },
    );
    await expect(failing).rejects.toThrow('store down');
    const released = await lease.acquire('request-b', at(1), TTL_MS);
    await lease.release('request-b');
    const quiet = await leasedRefresh(
      {
        lease: broken,
        defer: async () => {},
        ttlMs: TTL_MS,
        now: () => at(2),
        events: { releaseFailed },
      },
      'request-c',
      refreshMessage({ upstream: 'default' }, T0),
      async () => 'refreshed',
    );

    // Assess
    expect(released).toEqual({ taken: true });
    expect(quiet).toBe('refreshed');
    expect(releaseFailed).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'DynamoDB unreachable' }),
    );
  });

  it('takes no lease for a tick of the schedule: it only asks for the refreshes now due', () => {
    // Act / Assess
    expect(isTick(refreshMessage({ reason: 'schedule' }, T0))).toBe(true);
    expect(isTick(refreshMessage({ reason: 'timer' }, T0))).toBe(true);
    expect(isTick(refreshMessage({ reason: 'schedule', upstream: 'south' }, T0))).toBe(false);
    expect(isTick(refreshMessage({ reason: 'admin' }, T0))).toBe(false);
    expect(isTick(refreshMessage({ kind: 'continue', reason: 'continuation' }, T0))).toBe(false);
  });
});
