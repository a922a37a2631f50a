/**
 * Rooms a newcomer can hold (scripts/rooms.ts): no function over 150 lines and no file over 600
 * in the folders people read, by TypeScript's own parser; and the check itself sees an oversize.
 */
import { describe, expect, it } from 'vitest';
import { MAX_FUNCTION_LINES, oversize, oversizeIn } from '../../scripts/rooms.ts';

describe('rooms', () => {
  it('holds in functions/, infra/, local/, sandbox/, cli/, scripts/ and bench/', () => {
    const over = oversize(process.cwd()).map(
      (item) => `${item.file}: ${item.name ?? 'the file'} ${item.lines} lines`,
    );
    expect(over).toEqual([]);
  });

  it('counts a long function, an arrow, a method and a long file', () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const x${i} = ${i};`);
    const text = [
      'export function long() {',
      ...body,
      '}',
      'const arrow = () => {',
      ...body,
      '};',
      'class K { method() {',
      ...body,
      '} }',
      ...Array.from({ length: 200 }, () => '// filler'),
    ].join('\n');
    const found = oversizeIn('sample.ts', `${text}\n`);
    expect(found.map((item) => item.name ?? 'file')).toEqual(['file', 'long', 'arrow', 'method']);
  });
});
