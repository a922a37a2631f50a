import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../functions/kernel/html.ts';

describe('escapeHtml, the one escaper of every page', () => {
  it('escapes & < > " and \' so a value stays text, in an element or a quoted attribute', () => {
    expect(escapeHtml(`<img src=x onerror="alert('1')">&amp;`)).toBe(
      '&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;amp;',
    );
  });

  it('leaves other text as it is, accents and emoji included', () => {
    expect(escapeHtml('João Conceição 💪 R$ 1.234,50')).toBe('João Conceição 💪 R$ 1.234,50');
    expect(escapeHtml('')).toBe('');
  });
});
