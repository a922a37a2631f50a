import { describe, expect, it } from 'vitest';
import { problem } from '../../functions/kernel/http.ts';
import {
  currentLanguage,
  inRequestLanguage,
  preferredLanguage,
  say,
  t,
} from '../../functions/kernel/language.ts';

const REFUSAL = t('usuário ou senha incorretos', 'invalid credentials');

function errorOf(response: { body: string }): { code: string; message: string; details: unknown } {
  return (JSON.parse(response.body) as { error: never }).error;
}

describe('preferredLanguage', () => {
  it.each([
    [undefined, 'pt-BR'],
    ['', 'pt-BR'],
    ['*', 'pt-BR'],
    ['pt-BR', 'pt-BR'],
    ['pt', 'pt-BR'],
    ['pt-PT', 'pt-BR'],
    ['pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7', 'pt-BR'],
    ['fr', 'pt-BR'],
    ['en;q=0', 'pt-BR'],
    ['de, *;q=0.1', 'pt-BR'],
    ['en;q=0.8, pt;q=0.8', 'pt-BR'],
    ['en-GB;q=1.0', 'en'],
    ['en', 'en'],
    ['EN-us', 'en'],
    ['en-US,en;q=0.9', 'en'],
    ['en, pt;q=0.5', 'en'],
    ['pt;q=0.5, en', 'en'],
    ['fr, en;q=0.5', 'en'],
  ] as const)('answers %j in %s', (header, language) => {
    expect(preferredLanguage(header)).toBe(language);
  });

  it('reads a header of any length without failing, Portuguese when it names nothing we speak', () => {
    expect(preferredLanguage(`${'x-foo;q=0.5, '.repeat(10_000)}en`)).toBe('pt-BR');
    expect(preferredLanguage(';;;,,,q=,=;q=2')).toBe('pt-BR');
  });
});

describe('an error body in the request language', () => {
  it('says the message in Portuguese by default and to the console, keeping the English code', async () => {
    for (const headers of [{}, { 'accept-language': 'pt-BR,pt;q=0.9' }, undefined]) {
      const response = await inRequestLanguage(headers, async () =>
        problem(401, 'unauthorized', REFUSAL, [{ field: 'senha', message: REFUSAL }]),
      );
      expect(errorOf(response)).toEqual({
        code: 'unauthorized',
        message: 'usuário ou senha incorretos',
        details: [{ field: 'senha', message: 'usuário ou senha incorretos' }],
      });
    }
  });

  it('says it in English to a client that prefers English, whatever the header name case', async () => {
    const response = await inRequestLanguage({ 'Accept-Language': 'en-US,en;q=0.9' }, async () => {
      await Promise.resolve();
      return problem(401, 'unauthorized', REFUSAL, [REFUSAL, 'as it is']);
    });
    expect(errorOf(response)).toEqual({
      code: 'unauthorized',
      message: 'invalid credentials',
      details: ['invalid credentials', 'as it is'],
    });
  });

  it('keeps each request its own language, even interleaved', async () => {
    const slow = inRequestLanguage({ 'accept-language': 'en' }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return say(REFUSAL);
    });
    const quick = inRequestLanguage({ 'accept-language': 'pt-BR' }, async () => say(REFUSAL));
    expect(await Promise.all([slow, quick])).toEqual([
      'invalid credentials',
      'usuário ou senha incorretos',
    ]);
    expect(currentLanguage()).toBe('pt-BR');
  });
});
