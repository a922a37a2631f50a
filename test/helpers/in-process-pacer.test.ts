import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPacer } from './in-process-pacer.ts';
import { createFakeClock, type FakeClock } from './upstream-fake-clock.ts';
import { busiestWindows, maxInAnyWindow } from './upstream-windows.ts';

/** Fires `count` acquires at once; each records the clock when it resolves. */
function burst(acquire: () => Promise<void>, clock: Pick<FakeClock, 'now'>, count: number) {
  const times: number[] = [];
  const done = Promise.all(
    Array.from({ length: count }, () => acquire().then(() => times.push(clock.now()))),
  );
  return { times, done };
}

describe('createPacer', () => {
  it('lets a burst through as fast as both windows allow and never faster', async () => {
    // Prepare
    const clock = createFakeClock();
    const pacer = createPacer({ maxPerSecond: 4, maxPerMinute: 10, ...clock });

    // Act
    const { times, done } = burst(() => pacer.acquire(), clock, 25);
    await clock.runUntilIdle();
    await done;

    // Assess
    expect(busiestWindows(times)).toEqual({ second: 4, minute: 10 });
    expect(times).toEqual([
      ...[0, 0, 0, 0, 1000, 1000, 1000, 1000, 2000, 2000],
      ...[60_000, 60_000, 60_000, 60_000, 61_000, 61_000, 61_000, 61_000, 62_000, 62_000],
      ...[120_000, 120_000, 120_000, 120_000, 121_000],
    ]);
  });

  it('keeps every window within limits for any arrival pattern, serving callers FIFO', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          perSecond: fc.oneof(
            fc.integer({ min: 1, max: 8 }),
            fc.double({ min: 0.2, max: 6, noNaN: true }),
          ),
          perMinute: fc.oneof(
            fc.integer({ min: 1, max: 40 }),
            fc.double({ min: 0.5, max: 30, noNaN: true }),
          ),
          arrivals: fc.array(fc.integer({ min: 0, max: 90_000 }), { minLength: 1, maxLength: 40 }),
        }),
        async ({ perSecond, perMinute, arrivals }) => {
          // Prepare
          const clock = createFakeClock();
          const pacer = createPacer({ maxPerSecond: perSecond, maxPerMinute: perMinute, ...clock });
          const order: number[] = [];
          const times: number[] = [];
          const sorted = [...arrivals].sort((a, b) => a - b);

          // Act: each caller arrives at its own virtual time
          const all = sorted.map((at, index) =>
            clock
              .sleep(at)
              .then(() => pacer.acquire())
              .then(() => {
                order.push(index);
                times.push(clock.now());
              }),
          );
          await clock.runUntilIdle();
          await Promise.all(all);

          // Assess: whole requests per window, and one per window/L when L < 1
          const secondSpan = perSecond >= 1 ? 1_000 : 1_000 / perSecond;
          const minuteSpan = perMinute >= 1 ? 60_000 : 60_000 / perMinute;
          expect(maxInAnyWindow(times, secondSpan)).toBeLessThanOrEqual(Math.max(1, perSecond));
          expect(maxInAnyWindow(times, minuteSpan)).toBeLessThanOrEqual(Math.max(1, perMinute));
          expect(order).toEqual(sorted.map((_, index) => index));
          times.forEach((time, index) => {
            expect(time).toBeGreaterThanOrEqual(sorted[index] as number);
          });
        },
      ),
      // A fixed seed keeps the run deterministic; change it to explore other cases.
      { numRuns: 60, seed: 20_260_710 },
    );
  });

  it('serves concurrent callers in the order they asked', async () => {
    // Prepare
    const clock = createFakeClock();
    const pacer = createPacer({ maxPerSecond: 2, maxPerMinute: 100, ...clock });
    const order: string[] = [];

    // Act
    const all = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((name) =>
      pacer.acquire().then(() => order.push(name)),
    );
    await clock.runUntilIdle();
    await Promise.all(all);

    // Assess
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('drops an aborted caller from the queue and gives its turn to the next one', async () => {
    // Prepare
    const clock = createFakeClock();
    const pacer = createPacer({ maxPerSecond: 1, maxPerMinute: 100, ...clock });
    const cancel = new AbortController();
    const resolved: Array<[string, number]> = [];
    const track = (name: string, signal?: AbortSignal) =>
      pacer.acquire(signal).then(() => resolved.push([name, clock.now()]));

    // Act
    const first = track('first');
    const second = track('second', cancel.signal).catch((error: unknown) => error);
    const third = track('third');
    await clock.advance(500);
    cancel.abort(new Error('caller gave up'));
    await clock.runUntilIdle();

    // Assess
    await first;
    expect(await second).toEqual(new Error('caller gave up'));
    await third;
    expect(resolved).toEqual([
      ['first', 0],
      ['third', 1000],
    ]);
  });

  it('rejects at once when the signal is already aborted, and stops sleeping when nobody waits', async () => {
    // Prepare
    const clock = createFakeClock();
    const pacer = createPacer({ maxPerSecond: 1, maxPerMinute: 100, ...clock });
    await pacer.acquire();
    const cancel = new AbortController();

    // Act
    const waiting = pacer.acquire(cancel.signal);
    await clock.settle();
    const sleepingBefore = clock.pending;
    cancel.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');

    // Assess
    expect(sleepingBefore).toBe(1);
    expect(clock.pending).toBe(0);
    await expect(pacer.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('holds every caller until pauseUntil, including those already waiting', async () => {
    // Prepare
    const clock = createFakeClock();
    const pacer = createPacer({ maxPerSecond: 4, maxPerMinute: 100, ...clock });

    // Act: 4 go at once, 2 wait for the next second; at 500 a 429 pauses everyone until 3000
    const { times, done } = burst(() => pacer.acquire(), clock, 6);
    await clock.advance(500);
    pacer.pauseUntil(3_000);
    pacer.pauseUntil(2_000); // an earlier end never shortens the pause
    const late = burst(() => pacer.acquire(), clock, 3);
    await clock.runUntilIdle();
    await Promise.all([done, late.done]);

    // Assess
    expect(times).toEqual([0, 0, 0, 0, 3_000, 3_000]);
    expect(late.times).toEqual([3_000, 3_000, 4_000]);
  });

  it('holds a caller that arrives during a pause and frees it once the pause is over', async () => {
    // Prepare
    const clock = createFakeClock(1_000_000);
    const pacer = createPacer({ maxPerSecond: 5, maxPerMinute: 100, ...clock });
    pacer.pauseUntil(1_007_500);

    // Act
    const { times, done } = burst(() => pacer.acquire(), clock, 2);
    await clock.runUntilIdle();
    await done;
    const after = burst(() => pacer.acquire(), clock, 1);
    await clock.runUntilIdle();
    await after.done;

    // Assess
    expect(times).toEqual([1_007_500, 1_007_500]);
    expect(after.times).toEqual([1_007_500]);
  });

  it.each([
    { limits: { maxPerSecond: 0.5, maxPerMinute: 100 }, spanMs: 2_000, most: 1 },
    { limits: { maxPerSecond: 2.5, maxPerMinute: 100 }, spanMs: 1_000, most: 2 },
    { limits: { maxPerSecond: 10, maxPerMinute: 1.5 }, spanMs: 60_000, most: 1 },
    { limits: { maxPerSecond: 10, maxPerMinute: 0.5 }, spanMs: 120_000, most: 1 },
  ])('honours the fractional limits $limits', async ({ limits, spanMs, most }) => {
    // Prepare
    const clock = createFakeClock();
    const pacer = createPacer({ ...limits, ...clock });

    // Act
    const { times, done } = burst(() => pacer.acquire(), clock, 6);
    await clock.runUntilIdle();
    await done;

    // Assess: never more than allowed, and no slower than that either
    expect(maxInAnyWindow(times, spanMs)).toBe(most);
    expect(times.at(-1)).toBe(Math.ceil(6 / most - 1) * spanMs);
  });

  it('refuses limits that are not positive numbers', () => {
    expect(() => createPacer({ maxPerSecond: 0, maxPerMinute: 10 })).toThrow(RangeError);
    expect(() => createPacer({ maxPerSecond: 4, maxPerMinute: Number.NaN })).toThrow(
      'maxPerMinute must be a positive number',
    );
    expect(() => createPacer({ maxPerSecond: 4, maxPerMinute: 10, marginMs: -1 })).toThrow(
      RangeError,
    );
  });

  it('keeps real-time bursts within 10 per second', async () => {
    // Prepare: a caller records its time a moment after the grant (longer if the process is
    // descheduled in between); a small margin keeps that from squeezing two bursts together.
    // The exact windows, without margin, are proved on virtual time above.
    const pacer = createPacer({ maxPerSecond: 10, maxPerMinute: 1_000, marginMs: 25 });

    // Act
    const { times, done } = burst(() => pacer.acquire(), { now: Date.now }, 25);
    await done;

    // Assess
    expect(times).toHaveLength(25);
    expect(maxInAnyWindow(times, 1_000)).toBeLessThanOrEqual(10);
  });
});
