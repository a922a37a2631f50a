/**
 * What a test measured (a recovery time, a rate, the sandbox's answers), reported as a vitest
 * annotation of type `result` on the running test rather than printed: `npm test` shows the
 * output of failing tests only, and the results reporter (test/helpers/results-reporter.ts)
 * prints these under their test, passed or not. `--reporter=verbose` and vitest's JSON and
 * JUnit reports carry them too.
 */
import { getCurrentTest } from 'vitest/suite';

export function reportResult(message: string): void {
  const test = getCurrentTest();
  if (!test) throw new Error(`reportResult outside a test: ${message}`);
  // vitest awaits the annotation before the test ends.
  void test.context.annotate(message, 'result');
}
