/**
 * The vitest configuration of test/infra/leading-keys-behaviour.test.ts's inner run: the project's
 * own (Node 24, forks, the output setup), plus the recorder (test/leading-keys/recorder.ts) and
 * the test files given on the command line.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import base from '../../vitest.config.ts';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      setupFiles: ['test/leading-keys/recorder.ts'],
      reporters: ['dot'],
    },
  }),
);
