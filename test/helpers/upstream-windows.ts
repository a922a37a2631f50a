/**
 * Window counting for pacing tests: the most starts any window of `spanMs` holds, over a list
 * of start times (ms). A window is half-open, [t, t + spanMs), so starts exactly one span
 * apart fall in different windows. Only windows that begin at a start need checking: sliding
 * a window's start forward to its first member never loses one.
 */
export function maxInAnyWindow(times: readonly number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start += 1) {
    const from = sorted[start] as number;
    while (end < sorted.length && (sorted[end] as number) < from + spanMs) end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

/** The busiest 1 s and 60 s windows. */
export function busiestWindows(times: readonly number[]): { second: number; minute: number } {
  return { second: maxInAnyWindow(times, 1_000), minute: maxInAnyWindow(times, 60_000) };
}
