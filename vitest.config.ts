import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The functions deploy to nodejs24.x: the tests run on Node 24, which `npm ci` installs
// (package.json's optionalDependencies, node_modules/.bin/node first on every npm script's PATH).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  throw new Error(
    `the tests run on Node 24 (this is ${process.version}): run them through npm (npm test, npx vitest), ` +
      "which puts the node of package.json's optionalDependencies first on PATH, or install Node 24",
  );
}

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
    // The pages' scripts bundled first (scripts/build-browser.ts): `npx vitest run test/x` too.
    globalSetup: ['test/helpers/browser-bundles.ts'],
    silent: 'passed-only',
    // The default reporter, plus what tests measured (reportResult, test/helpers/results.ts).
    reporters: ['./test/helpers/results-reporter.ts'],
    env: {
      POWERTOOLS_DEV: 'false',
      POWERTOOLS_LOG_LEVEL: 'WARN',
    },
  },
});
