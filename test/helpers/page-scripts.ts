/**
 * What every page the gateway serves must hold to (issue 38): a Content Security Policy whose
 * scripts come from this site only (`script-src 'self'`, never `'unsafe-inline'`, a hash or a
 * nonce that would let an inline script run), and no inline script in the page: every
 * `<script>` has a `src`, or is the page's data (`type="application/json"`, which no browser
 * runs); no inline event handler (`onclick=`) and no `javascript:` address either. Returns the
 * pages' script addresses.
 */
import { expect } from 'vitest';

/** The directive's sources (`script-src`, else `default-src`, which it falls back to). */
function sources(csp: string, directive: string): string[] | undefined {
  for (const part of csp.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name === directive) return values;
  }
  return undefined;
}

/** Problems of one page (its CSP and its HTML), in words; empty when it holds to the rules. */
export function inlineScriptProblems(csp: string, html: string): string[] {
  const problems: string[] = [];
  const script = sources(csp, 'script-src') ?? sources(csp, 'default-src');
  if (!script) problems.push(`no script-src nor default-src in the CSP: ${csp}`);
  for (const source of script ?? []) {
    if (!["'self'", "'none'"].includes(source)) problems.push(`script-src allows ${source}`);
  }
  for (const match of html.matchAll(/<script\b([^>]*)>/gi)) {
    const attributes = match[1] ?? '';
    const src = /\ssrc=/i.test(attributes);
    const data = /\stype=["']?application\/json["']?/i.test(attributes);
    if (!src && !data) problems.push(`inline script: ${match[0]}`);
  }
  for (const match of html.matchAll(/\s(?:href|src|action)\s*=\s*["']?\s*javascript:/gi)) {
    problems.push(`javascript: address: ${match[0].trim()}`);
  }
  // Attribute names only: a quoted value may hold anything (an escaped name, a message).
  for (const tag of html.matchAll(/<[a-z][^>]*>/gi)) {
    const names = tag[0].replace(/"[^"]*"|'[^']*'/g, '""');
    for (const handler of names.matchAll(/\s(on[a-z]+)\s*=/gi)) {
      problems.push(`inline event handler: ${handler[1]}`);
    }
  }
  return problems;
}

/** Asserts the page holds to the rules (see the module comment); returns its script `src`s. */
export function expectNoInlineScript(
  csp: string | undefined,
  html: string,
  page: string,
): string[] {
  expect(inlineScriptProblems(csp ?? '', html), page).toEqual([]);
  return [...html.matchAll(/<script\b[^>]*\ssrc="([^"]+)"/gi)].map((m) => m[1] as string);
}
