/**
 * The shared pacer on dynalite: several independent pacers (one DynamoDB client each, as
 * separate Lambda instances or processes would have) acquiring at once. Their clock is virtual
 * and moves only while every pacer sleeps until its slot (never while one is still talking to
 * DynamoDB), so the grants are the same on an idle machine and on a loaded one; the windows are
 * checked on the moments each acquire resolved. The sandbox test runs on real time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PacerWaitError } from '../../functions/upstream/pacer.ts';
import {
  createDynamoPacer,
  type DynamoPacerOptions,
  type SharedPacer,
  slotIntervalMs,
  UPSTREAM_PACER_KEY,
} from '../../functions/upstream/pacer-dynamodb.ts';
import { createUpstreamClient } from '../../functions/upstream/upstream-client.ts';
import { createLocalDynamoDb } from '../../local/dynamodb-local.ts';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';
import { reportResult } from '../helpers/results.ts';
import { createFakeClock, type FakeClock } from '../helpers/upstream-fake-clock.ts';
import { maxInAnyWindow } from '../helpers/upstream-windows.ts';

let dynamo: TestDynamo;
let table: string;
let keys = 0;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  table = await dynamo.createLedgerTable();
});
afterAll(async () => {
  await dynamo?.close();
});

/** A fresh pacer key per test, so that tests do not share a schedule. */
function nextKey(): string {
  keys += 1;
  return `pacer#test-${keys}`;
}

/** `count` pacers on one schedule, each with its own DynamoDB client. */
function pacers(
  count: number,
  key: string,
  options: Omit<DynamoPacerOptions, 'client' | 'tableName' | 'key'>,
): SharedPacer[] {
  return Array.from({ length: count }, () => {
    const client = createLocalDynamoDb(dynamo.endpoint);
    return createDynamoPacer({ client, tableName: table, key, ...options });
  });
}

/** A virtual clock at a realistic epoch, for the pacers' `now` and `sleep`. */
function virtualClock(): FakeClock {
  return createFakeClock(Date.UTC(2026, 0, 1));
}

/**
 * Runs `work` on the virtual clock: moves it 1 ms at a time, but only while each of the
 * `running()` acquirers is asleep (waiting for its slot); while one is still reserving (DynamoDB
 * round trips, real I/O) it waits for that state instead.
 */
async function drive<T>(clock: FakeClock, running: () => number, work: Promise<T>): Promise<T> {
  let settled = false;
  const result = work.finally(() => {
    settled = true;
  });
  result.catch(() => {});
  while (!settled) {
    if (running() > 0 && clock.pending === running()) await clock.advance(1);
    else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return result;
}

/** Every pacer acquires `each` times in a row, all pacers at once; returns the grant moments. */
async function race(all: SharedPacer[], each: number, clock: FakeClock): Promise<number[]> {
  const times: number[] = [];
  let running = all.length;
  await drive(
    clock,
    () => running,
    Promise.all(
      all.map(async (pacer) => {
        for (let i = 0; i < each; i += 1) {
          await pacer.acquire();
          times.push(clock.now());
        }
        running -= 1;
      }),
    ),
  );
  return times.sort((a, b) => a - b);
}

/** Starts per second over the run: (n − 1) / (last − first). */
function achievedPerSecond(times: readonly number[]): number {
  const first = times[0] ?? 0;
  const last = times.at(-1) ?? 0;
  return ((times.length - 1) * 1000) / Math.max(1, last - first);
}

describe('slotIntervalMs', () => {
  it('spaces starts by the tighter of the two limits, plus the margin', () => {
    expect(slotIntervalMs(5, 40)).toBe(1500);
    // The margin widens the window once, not every slot: (60 000 + 25) / 40, rounded up.
    expect(slotIntervalMs(5, 40, 25)).toBe(1501);
    expect(slotIntervalMs(10, 1_000, 25)).toBe(103);
    expect(slotIntervalMs(20, 100_000)).toBe(50);
    expect(slotIntervalMs(0.5, 1000)).toBe(2000);
    expect(slotIntervalMs(3, 1000)).toBe(334);
    expect(() => slotIntervalMs(0, 40)).toThrow(RangeError);
    expect(() => slotIntervalMs(5, Number.NaN)).toThrow(RangeError);
    expect(() => slotIntervalMs(5, 40, -1)).toThrow(RangeError);
  });
});

describe('createDynamoPacer', () => {
  it('keeps four concurrent instances within the per-second limit in every 1 s window', async () => {
    // Prepare: the second limit binds: T = (1 000 + 30 ms margin) / 20, rounded up = 52 ms.
    const clock = virtualClock();
    const all = pacers(4, nextKey(), {
      maxPerSecond: 20,
      maxPerMinute: 100_000,
      marginMs: 30,
      ...clock,
    });

    // Act
    const times = await race(all, 10, clock);

    // Assess: one start every T across the four, none sooner, none later.
    expect(times).toHaveLength(40);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps).toEqual(Array.from({ length: 39 }, () => 52));
    expect(maxInAnyWindow(times, 1_000)).toBeLessThanOrEqual(20);
    expect(achievedPerSecond(times)).toBeCloseTo(1000 / 52, 5);
  });

  it('spaces starts for the per-minute limit when it binds, across instances', async () => {
    // Prepare: 20/s and 120/min: the minute binds, T = (60 000 + 25 ms default margin) / 120,
    // rounded up = 501 ms.
    const clock = virtualClock();
    const all = pacers(4, nextKey(), { maxPerSecond: 20, maxPerMinute: 120, ...clock });

    // Act
    const times = await race(all, 3, clock);

    // Assess: 501 ms between starts: at most 120 in any 60 s and 2 in any 1 s.
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps).toEqual(Array.from({ length: 11 }, () => 501));
    expect(maxInAnyWindow(times, 60_000)).toBeLessThanOrEqual(120);
    expect(maxInAnyWindow(times, 1_000)).toBeLessThanOrEqual(2);
  });

  it('leaves a slot it woke up too late for as a gap and takes the next one', async () => {
    // Prepare: a clock that only moves when the pacer sleeps; the first sleep overshoots by
    // 100 ms (a starved CPU), later ones are exact. T = (1 000 + 25) / 5, rounded up = 205 ms.
    let now = 1_000_000;
    let overshoot = 100;
    const [pacer] = pacers(1, nextKey(), {
      maxPerSecond: 5,
      maxPerMinute: 100_000,
      now: () => now,
      sleep: async (ms) => {
        now += ms + overshoot;
        overshoot = 0;
      },
    });

    // Act
    await pacer?.acquire();
    const first = now;
    await pacer?.acquire();
    const second = now;

    // Assess: the second start is not the late one (slot + 100 ms) but the slot after it.
    expect(first).toBe(1_000_000);
    expect(second).toBe(1_000_000 + 2 * 205);
  });

  it('makes every instance honour a pause written by one of them', async () => {
    // Prepare
    const key = nextKey();
    const clock = virtualClock();
    const limits = { maxPerSecond: 50, maxPerMinute: 100_000, ...clock };
    const [pausing, waiting] = pacers(2, key, limits);
    const [impatient] = pacers(1, key, { ...limits, maxWaitMs: 200 });
    if (!pausing || !waiting || !impatient) throw new Error('three pacers');
    const until = clock.now() + 1_200;

    // Act
    pausing.pauseUntil(until);
    await pausing.flush();
    const refused = await impatient.acquire().catch((error: unknown) => error);
    await drive(clock, () => 1, waiting.acquire());
    const grantedAt = clock.now();

    // Assess
    expect(grantedAt).toBe(until);
    expect(refused).toBeInstanceOf(PacerWaitError);
    expect((refused as PacerWaitError).waitMs).toBe(1_200);
    const stored = await dynamo.client.get({ TableName: table, Key: { pk: key } });
    expect(stored.Item).toMatchObject({ kind: 'pacer' });
    expect(stored.Item?.next).toBeGreaterThanOrEqual(until);
  });

  it('never shortens a pause, and refuses nothing within maxWaitMs', async () => {
    // Prepare
    const key = nextKey();
    const clock = virtualClock();
    const [a, b] = pacers(2, key, {
      maxPerSecond: 50,
      maxPerMinute: 100_000,
      maxWaitMs: 5_000,
      ...clock,
    });
    if (!a || !b) throw new Error('two pacers');
    const start = clock.now();

    // Act
    await a.pause(start + 800);
    await b.pause(start + 100);
    await drive(clock, () => 1, b.acquire());

    // Assess
    expect(clock.now()).toBe(start + 800);
  });

  it('rejects a waiting acquire with the abort reason; the others keep their slots', async () => {
    // Prepare
    const key = nextKey();
    const [a, b] = pacers(2, key, { maxPerSecond: 2, maxPerMinute: 100_000, marginMs: 0 });
    if (!a || !b) throw new Error('two pacers');
    await a.acquire(); // slot now; the next is 500 ms away
    const controller = new AbortController();

    // Act
    const aborted = b.acquire(controller.signal).catch((error: unknown) => error);
    controller.abort(new Error('stopping'));

    // Assess
    expect(await aborted).toMatchObject({ message: 'stopping' });
    await expect(a.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('paces on the one item the IAM grant names (UPSTREAM_PACER_KEY) unless given a key', async () => {
    // Prepare: a table of its own, so that only this pacer writes to it.
    const own = await dynamo.createLedgerTable();
    const client = createLocalDynamoDb(dynamo.endpoint);
    const pacer = createDynamoPacer({
      client,
      tableName: own,
      maxPerSecond: 100,
      maxPerMinute: 6000,
    });

    // Act
    await pacer.acquire();

    // Assess
    const { Items } = await client.scan({ TableName: own });
    expect(Items?.map((item) => item.pk)).toEqual([UPSTREAM_PACER_KEY]);
  });
});

describe('createDynamoPacer against the sandbox rate limiter', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0 });
  });
  afterAll(() => sandbox?.close());

  it('three clients on three pacers with a 4/s budget never get a 429 from a 5/s upstream', async () => {
    // Prepare: the sandbox enforces 5/s per key; each "instance" has its own client and pacer,
    // on the budget a deployment configures below the limit (config/deploy.example.json): its
    // headroom absorbs a loaded machine's delays between a slot and the request's arrival.
    await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      body: JSON.stringify({ perSecond: 5, perMinute: 100_000 }),
    });
    await fetch(`${sandbox.url}/_sandbox/stats`, { method: 'DELETE' });
    const all = pacers(3, nextKey(), { maxPerSecond: 4, maxPerMinute: 100_000 });
    const upstreams = all.map((pacer) =>
      createUpstreamClient({ baseUrl: sandbox.url, username: 'demo', password: 'demo', pacer }),
    );

    // Act: 3 × 6 debtors pages, all instances at once.
    await Promise.all(
      upstreams.map(async (client) => {
        for (let i = 0; i < 6; i += 1) await client.listDebtors({ take: 1 });
      }),
    );

    // Assess
    const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
      byRoute: Record<string, Record<string, number>>;
      requests: { at: number; status: number }[];
    };
    expect(stats.byRoute['GET /api/v1/receivables/debtors']).toEqual({ '200': 18 });
    const arrivals = stats.requests.map((r) => r.at);
    expect(maxInAnyWindow(arrivals, 1_000)).toBeLessThanOrEqual(5);
    const rate = achievedPerSecond(arrivals.sort((a, b) => a - b));
    reportResult(`pacer-dynamodb vs sandbox: limit 5/s, T=275 ms: ${rate.toFixed(2)}/s, no 429`);
  });
});

describe('leads before report pages (yieldToLeadsMs)', () => {
  it("refuses the refresher a slot while the account's leads take them, and gives it one after", async () => {
    // Prepare: delivery's pacer marks the item; the refresher's yields 2 s after the last lead.
    let now = Date.UTC(2026, 0, 1);
    const key = nextKey();
    const common = { maxPerSecond: 5, maxPerMinute: 300, now: () => now, sleep: async () => {} };
    const [delivery] = pacers(1, key, { ...common, markLeads: true });
    const [refresher] = pacers(1, key, { ...common, yieldToLeadsMs: 2_000 });
    if (!delivery || !refresher) throw new Error('no pacers');

    // Act: before any lead, the refresher takes a slot; a lead takes one; the refresher asks
    // again at once, then after the window.
    await refresher.acquire();
    now += 1_000;
    await delivery.acquire();
    const refused = await refresher.acquire().catch((error: unknown) => error);
    now += 2_001;
    await refresher.acquire();

    // Assess: refused with how long until the leads' window ends (nothing reserved).
    expect(refused).toBeInstanceOf(PacerWaitError);
    expect((refused as PacerWaitError).waitMs).toBe(2_000);
  });
});
