import { describe, expect, it } from 'vitest';
import { scriptAsset } from '../../functions/kernel/script-asset.ts';

const CURRENT = 'console.0123456789abcdef.js';

describe('a page script by its hashed name', () => {
  it('is served for a year, never revalidated, as JavaScript', async () => {
    const answer = await scriptAsset(CURRENT, CURRENT, async () => 'console.log(1)');
    expect(answer).toEqual({
      statusCode: 200,
      headers: {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      },
      body: 'console.log(1)',
    });
  });

  it('is a 404 under any other name (another release’s), and its text is not loaded then', async () => {
    let loaded = 0;
    const load = async () => {
      loaded += 1;
      return 'x';
    };
    for (const name of ['console.fedcba9876543210.js', 'console.js', '../console-text.ts', '']) {
      const answer = await scriptAsset(name, CURRENT, load);
      expect(answer.statusCode, name).toBe(404);
      expect(answer.headers?.['cache-control']).toBe('no-store');
    }
    expect(loaded).toBe(0);
  });
});
