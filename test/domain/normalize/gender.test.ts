import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeGender } from '../../../functions/domain/normalize/gender.ts';
import { GENDER_CODES } from '../../../functions/domain/prospect.ts';

const KNOWN: ReadonlyArray<[string, 'M' | 'F' | 'P']> = [
  ['Masculino', 'M'],
  ['male', 'M'],
  ['Homem', 'M'],
  ['homem trans', 'M'],
  ['Feminino', 'F'],
  ['female', 'F'],
  ['Mulher', 'F'],
  ['Mulher Trans', 'F'],
  ['Outro', 'P'],
  ['other', 'P'],
  ['Não-binário', 'P'],
  ['nao binario', 'P'],
  ['Não binárie', 'P'],
  ['non-binary', 'P'],
  ['Gênero fluido', 'P'],
];

/** Flip the case of each character at random. */
const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((flags) =>
      Array.from(text, (char, i) => (flags[i] ? char.toUpperCase() : char.toLowerCase())).join(''),
    );

describe('normalizeGender', () => {
  it.each([
    ['M', 'M'],
    ['m', 'M'],
    ['H', 'M'],
    ['male', 'M'],
    ['MASCULINO', 'M'],
    ['masc.', 'M'],
    ['  Homem ', 'M'],
    ['Sexo: masculino', 'M'],
    ['F', 'F'],
    ['female', 'F'],
    ['Feminino', 'F'],
    ['MULHER', 'F'],
    ['mulher_cis', 'F'],
    ['P', 'P'],
    ['Outro', 'P'],
    ['Outra', 'P'],
    ['não-binário', 'P'],
    ['NAO BINARIO', 'P'],
    ['Não binária', 'P'],
    ['nonbinary', 'P'],
    ['agênero', 'P'],
  ] as const)('maps %j to %s', (input, code) => {
    expect(normalizeGender(input)).toBe(code);
  });

  it.each([
    ['Prefiro não dizer'],
    ['prefiro nao informar'],
    ['Prefer not to say'],
    ['n/a'],
    [''],
    ['   '],
    ['talvez'],
    ['mas'],
    ['Masculino e feminino'],
  ])('gives undefined for %j (unknown or declined)', (input) => {
    expect(normalizeGender(input)).toBeUndefined();
  });

  it('ignores case, accents and surrounding whitespace', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...KNOWN)
          .chain(([answer, code]) =>
            fc.tuple(randomCase(answer), fc.constant(code), fc.constantFrom('', ' ', '\t', '  \n')),
          ),
        ([answer, code, space]) => {
          expect(normalizeGender(`${space}${answer}${space}`)).toBe(code);
          expect(normalizeGender(answer.normalize('NFD'))).toBe(code);
        },
      ),
    );
  });

  it('never throws, and answers only a production code or undefined', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.anything({ maxDepth: 1 })),
        (input) => {
          const code = normalizeGender(input as string);
          if (code !== undefined) expect(GENDER_CODES).toContain(code);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
