/**
 * The pages a person's browser gets for a refusal (functions/kernel/refusal-page.ts): who gets a
 * page (Accept), what each says in Portuguese, that they stand alone (no script, nothing from
 * outside, no `$` for API Gateway to read as a variable), and that a function's JSON refusal
 * keeps its status and headers as a page.
 */
import { describe, expect, it } from 'vitest';
import { problem } from '../../functions/kernel/http.ts';
import {
  prefersHtml,
  refusalPage,
  refusalResponse,
  UNAUTHORIZED_TEMPLATES,
  waitText,
} from '../../functions/kernel/refusal-page.ts';
import { BASIC_AUTH } from '../../functions/kernel/routes.ts';

describe('prefersHtml', () => {
  it('is true when the first media type is text/html, as browsers send when opening a page', () => {
    expect(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(
      true,
    );
    expect(prefersHtml(' Text/HTML ; q=1')).toBe(true);
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('application/json, text/html')).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
  });
});

describe('the pages', () => {
  it('say in Portuguese what happened and what to do, for 401, 403 and 429', () => {
    const unauthorized = refusalPage(401);
    expect(unauthorized).toContain('<html lang="pt-BR">');
    expect(unauthorized).toContain('Entre com seu usuário e senha');
    expect(unauthorized).toContain('<a class="button" href="">Entrar de novo</a>');
    expect(refusalPage(403, { detail: 'Este usuário vê só a filial 1.' })).toContain(
      '<p>Este usuário vê só a filial 1.</p>',
    );
    expect(refusalPage(429, { retryAfterSeconds: 900 })).toContain(
      'Tente de novo daqui a 15 minutos.',
    );
    expect(waitText(20)).toBe('alguns segundos');
    expect(waitText(60)).toBe('1 minuto');
    expect(waitText(7200)).toBe('2 horas');
  });

  it('stand alone: no script, nothing from outside, a strict CSP of their own', () => {
    for (const page of [refusalPage(401), refusalPage(403), refusalPage(429)]) {
      expect(page).not.toMatch(/<script|<link|<img|src=|https?:/i);
      expect(page).toContain(
        `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';`,
      );
    }
  });

  it('escape what they are given', () => {
    const page = refusalPage(403, { detail: '<b>"x"</b>', back: { href: '?a=1&b=2', label: '<' } });
    expect(page).toContain('&lt;b&gt;&quot;x&quot;&lt;/b&gt;');
    expect(page).toContain('href="?a=1&amp;b=2"');
  });
});

describe('the gateway’s 401 bodies', () => {
  it('are the JSON error for programs and the page for browsers, with no $ for API Gateway to read', () => {
    expect(Object.keys(UNAUTHORIZED_TEMPLATES)).toEqual(['application/json', 'text/html']);
    expect(JSON.parse(UNAUTHORIZED_TEMPLATES['application/json'] ?? '')).toEqual(
      BASIC_AUTH.unauthorized.body,
    );
    expect(UNAUTHORIZED_TEMPLATES['text/html']).toBe(refusalPage(401));
    for (const template of Object.values(UNAUTHORIZED_TEMPLATES))
      expect(template).not.toContain('$');
    // A static header value of a gateway response sits in single quotes: none may hold one.
    for (const value of Object.values(BASIC_AUTH.unauthorized.headers)) {
      expect(value).not.toContain("'");
    }
  });
});

describe('refusalResponse', () => {
  it('keeps the status and the other headers of a function’s JSON refusal', () => {
    const page = refusalResponse(
      problem(429, 'too_many_failures', 'try again in 90 s', [], {
        'cache-control': 'no-store',
        'retry-after': '90',
      }),
    );
    expect(page.statusCode).toBe(429);
    expect(page.headers).toMatchObject({
      'cache-control': 'no-store',
      'retry-after': '90',
      'content-type': 'text/html; charset=utf-8',
      'x-frame-options': 'DENY',
    });
    expect(page.body).toContain('Tente de novo daqui a 2 minutos.');
  });
});
