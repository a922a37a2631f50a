/**
 * vitest's global set-up: bundles the pages' scripts (scripts/build-browser.ts) before any test
 * file loads a function that imports them, however vitest was started (`npm test` or
 * `npx vitest run test/x`). Files whose text did not change are left as they are.
 */
import { buildBrowser } from '../../scripts/build-browser.ts';

export default function setup(): void {
  buildBrowser();
}
