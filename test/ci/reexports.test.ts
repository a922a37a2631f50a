/**
 * Imports point where things live (scripts/rooms.ts): no file of the folders people read
 * re-exports another module's names, but the listed exceptions; and the check sees each form.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REEXPORT_EXCEPTIONS, reexports, reexportsIn } from '../../scripts/rooms.ts';

describe('re-exports', () => {
  it('are none in functions/, infra/, local/, sandbox/, cli/, scripts/ and bench/', () => {
    expect(reexports(process.cwd())).toEqual([]);
  });

  it('lists only exceptions that exist, each with its reason', () => {
    for (const [file, reason] of Object.entries(REEXPORT_EXCEPTIONS)) {
      expect(existsSync(file), file).toBe(true);
      expect(reason.length).toBeGreaterThan(20);
    }
  });

  it('sees export from, export star, and an imported name exported again', () => {
    const text = [
      "import { a, b } from './a.ts';",
      "import type { T } from './t.ts';",
      "export { c } from './c.ts';",
      "export * from './d.ts';",
      "export type { E } from './e.ts';",
      'export { a };',
      'export type { T };',
      'const own = 1;',
      'export { own };',
      'export const f = b;',
    ].join('\n');
    expect(reexportsIn('sample.ts', text)).toEqual([
      'sample.ts:3: re-exports c',
      'sample.ts:4: re-exports *',
      'sample.ts:5: re-exports E',
      'sample.ts:6: re-exports a',
      'sample.ts:7: re-exports T',
    ]);
  });
});
