import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeEmail } from '../../../functions/domain/normalize/email.ts';

/** Realistic addresses: what Brazilian lead forms actually receive. */
const localPart = fc
  .stringMatching(/^[a-z0-9](?:[a-z0-9._+-]{0,20}[a-z0-9])?$/)
  .filter((l) => !l.includes('..'));
const domain = fc.oneof(
  fc.constantFrom(
    'gmail.com',
    'hotmail.com',
    'outlook.com',
    'yahoo.com.br',
    'uol.com.br',
    'bol.com.br',
  ),
  fc.domain(),
);
const address = fc.tuple(localPart, domain).map(([local, host]) => `${local}@${host}`);

describe('normalizeEmail', () => {
  it.each([
    ['maria@example.com', 'maria@example.com'],
    ['  Maria.Souza@Example.COM  ', 'maria.souza@example.com'],
    ['mailto:maria@example.com', 'maria@example.com'],
    ['MAILTO:Maria@Example.com?subject=Oi', 'maria@example.com'],
    ['Maria Souza <maria@example.com>', 'maria@example.com'],
    ['maria+academia@gmail.com', 'maria+academia@gmail.com'],
    ['joão@exemplo.com.br', 'joão@exemplo.com.br'],
    ['maria@empresa.xn--p1ai', 'maria@empresa.xn--p1ai'],
    ['\u200bmaria@example.com\ufeff', 'maria@example.com'],
    ['test@example.com', 'test@example.com'],
  ])('normalises %j to %j', (input, email) => {
    // Act
    const result = normalizeEmail(input);

    // Assess
    expect(result).toEqual({ email });
  });

  it.each([
    ['', 'o e-mail está vazio'],
    ['   ', 'o e-mail está vazio'],
    ['mailto:', 'o e-mail está vazio'],
    ['maria', "o e-mail não tem '@'"],
    ['maria@@example.com', "o e-mail tem mais de um '@'"],
    ['maria@example@com', "o e-mail tem mais de um '@'"],
    ['maria souza@example.com', 'o e-mail tem espaços'],
    ['maria@gmail', 'o domínio do e-mail não tem ponto'],
    ['maria@gmail,com', 'o domínio do e-mail não tem ponto'],
    ['maria@gmail.c', "o domínio do e-mail, depois do '@', não é válido"],
    ['maria@.com', "o domínio do e-mail, depois do '@', não é válido"],
    ['maria@gmail..com', "o domínio do e-mail, depois do '@', não é válido"],
    ['maria@gmail.com.', "o domínio do e-mail, depois do '@', não é válido"],
    ['maria@-gmail.com', "o domínio do e-mail, depois do '@', não é válido"],
    ['maria@gmail.123', "o domínio do e-mail, depois do '@', não é válido"],
    ['@gmail.com', "o e-mail tem uma parte inválida antes do '@'"],
    ['.maria@gmail.com', "o e-mail tem uma parte inválida antes do '@'"],
    ['maria.@gmail.com', "o e-mail tem uma parte inválida antes do '@'"],
    ['ma..ria@gmail.com', "o e-mail tem uma parte inválida antes do '@'"],
    ['"maria"@gmail.com', "o e-mail tem uma parte inválida antes do '@'"],
    ['maria,souza@gmail.com', "o e-mail tem uma parte inválida antes do '@'"],
    [`${'a'.repeat(65)}@gmail.com`, "o e-mail tem uma parte inválida antes do '@'"],
    [`maria@${'a'.repeat(250)}.com`, "o domínio do e-mail, depois do '@', não é válido"],
    [
      `${'a'.repeat(64)}@${['b', 'c', 'd', 'e'].map((c) => c.repeat(60)).join('.')}.com`,
      'o e-mail é longo demais',
    ],
  ])('rejects %j', (input, error) => {
    // Act
    const result = normalizeEmail(input);

    // Assess
    expect(result).toEqual({ error });
  });

  it('accepts realistic addresses however they are cased, padded or prefixed', () => {
    fc.assert(
      fc.property(
        address,
        fc.constantFrom('', ' ', '\t', '\u00a0'),
        fc.constantFrom('', 'mailto:', 'MailTo:'),
        fc.boolean(),
        (email, space, prefix, shout) => {
          const typed = `${space}${prefix}${shout ? email.toUpperCase() : email}${space}`;
          expect(normalizeEmail(typed)).toEqual({ email: email.toLowerCase() });
        },
      ),
    );
  });

  it('never throws; a success is lower case, has one @ and no spaces, and is a fixed point', () => {
    const anyInput = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.emailAddress(),
      fc.stringMatching(/^[a-zA-Z.@ -]{0,30}$/),
      fc.anything({ maxDepth: 1 }),
    );
    fc.assert(
      fc.property(anyInput, (input) => {
        const result = normalizeEmail(input as string);
        if ('email' in result) {
          expect(result.email).toBe(result.email.toLowerCase());
          expect(result.email.split('@')).toHaveLength(2);
          expect(result.email).not.toMatch(/\s/u);
          expect(normalizeEmail(result.email)).toEqual(result);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
