/**
 * vitest's default reporter, and under each test that passed, the results it reported with
 * reportResult (test/helpers/results.ts): the numbers a resilience or load test measured stay in
 * `npm test`'s output while the logs of passing tests do not (`silent: 'passed-only'`). A failing
 * test's annotations are printed with its error by the default reporter already.
 */
import { DefaultReporter, type TestCase, type TestModuleState } from 'vitest/node';

export default class ResultsReporter extends DefaultReporter {
  protected override printTestCase(moduleState: TestModuleState, test: TestCase): void {
    const results = test.annotations().filter((annotation) => annotation.type === 'result');
    let named = false;
    const log = this.log;
    this.log = (...messages: unknown[]) => {
      named = true;
      log.apply(this, messages);
    };
    try {
      super.printTestCase(moduleState, test);
    } finally {
      this.log = log;
    }
    if (test.result().state === 'failed' || results.length === 0) return;
    // The default reporter names only the slow tests that passed: name this one too.
    if (!named) this.log(`   ✓ ${test.name}`);
    for (const { message } of results) this.log(`       ↳ ${message}`);
  }
}
