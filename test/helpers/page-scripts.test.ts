import { describe, expect, it } from 'vitest';
import { inlineScriptProblems } from './page-scripts.ts';

const STRICT = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'";

describe('the inline-script check every served page goes through', () => {
  it('passes a page whose scripts are files or JSON data, whatever its text says', () => {
    const html = `<p data-name="&lt;img src=x onerror=alert(1)&gt;">x onclick=y</p>
<script type="application/json" id="page-data">{"a":1}</script>
<script src="assets/dashboard.0123456789abcdef.js"></script>`;
    expect(inlineScriptProblems(STRICT, html)).toEqual([]);
  });

  it('names an inline script, an inline handler and a policy that would run them', () => {
    const html =
      '<script>alert(1)</script><button onclick="go()">x</button><a href="javascript:go()">y</a>';
    const loose = "default-src 'none'; script-src 'self' 'unsafe-inline' 'sha256-abc='";
    expect(inlineScriptProblems(loose, html)).toEqual([
      "script-src allows 'unsafe-inline'",
      "script-src allows 'sha256-abc='",
      'inline script: <script>',
      'javascript: address: href="javascript:',
      'inline event handler: onclick',
    ]);
    expect(inlineScriptProblems("default-src 'self' 'nonce-x'", '')).toEqual([
      "script-src allows 'nonce-x'",
    ]);
    expect(inlineScriptProblems("style-src 'self'", '')).toHaveLength(1);
  });
});
