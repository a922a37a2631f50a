import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most end-to-end files spend their time waiting on paced upstreams, not on the CPU: two files
    // at once even on a 2-core machine (vitest's default there is one, cores - 1).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // What the code under test prints (the Powertools Logger's lines included, rerouted by the
    // setup file) is shown for failing tests only; `npx vitest run --silent=false` shows it all.
    setupFiles: ['test/helpers/output-per-test.ts'],
    silent: 'passed-only',
    // The default reporter, plus what tests measured (reportResult, test/helpers/results.ts).
    reporters: ['./test/helpers/results-reporter.ts'],
    env: {
      POWERTOOLS_DEV: 'false',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
