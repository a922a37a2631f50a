import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isCompoundFirstName,
  looksLikePersonName,
  nameCharacters,
  normalizeName,
  splitFullName,
} from '../../../functions/domain/normalize/name.ts';

const LOCALE = 'pt-BR';
/** What a name keeps of the input: no markup, whitespace collapsed. */
const collapse = (text: string) => nameCharacters(text).split(/\s+/u).filter(Boolean).join(' ');
const join = ({ name, lastName }: { name: string; lastName?: string }) =>
  lastName === undefined ? name : `${name} ${lastName}`;
const upper = (text: string) => text.toLocaleUpperCase(LOCALE);
const lower = (text: string) => text.toLocaleLowerCase(LOCALE);
/** The case rule's trigger: letters with case, all upper or all lower. */
const isUniformCase = (text: string) =>
  upper(text) !== lower(text) && (text === upper(text) || text === lower(text));
/**
 * Equal modulo the case rule: from ALL CAPS only letters were lowered, so lower-casing both sides
 * must agree; from all lower case only letters were raised, so upper-casing both must agree.
 * (Either way round alone would be wrong: 'ϰ' → 'Κ' → 'κ', 'ẞ' → 'ß' → 'SS'.)
 */
const expectSameModuloCase = (actual: string, typed: string) => {
  if (!isUniformCase(typed)) expect(actual).toBe(typed);
  else if (typed === upper(typed)) expect(lower(actual)).toBe(lower(typed));
  else expect(upper(actual)).toBe(upper(typed));
};

const FIRST_NAMES = ['Maria', 'João', 'José', 'Ana', 'Luíza', 'Conceição', 'Ana-Clara', 'Íris'];
const SURNAMES = ['Silva', 'Souza', 'Gonçalves', 'Araújo', "D'Ávila", 'Conceição', 'Brandão'];
const PARTICLES = ['da', 'de', 'do', 'das', 'dos', 'e'];
/** A realistic Brazilian full name in its canonical spelling, e.g. `Maria da Conceição e Silva`. */
const canonicalName = fc
  .tuple(
    fc.constantFrom(...FIRST_NAMES),
    fc.array(
      fc.tuple(
        fc.option(fc.constantFrom(...PARTICLES), { nil: undefined }),
        fc.constantFrom(...SURNAMES),
      ),
      { maxLength: 3 },
    ),
  )
  .map(([first, rest]) => [first, ...rest.flatMap(([p, s]) => (p ? [p, s] : [s]))].join(' '));
const whitespace = fc.constantFrom(' ', '  ', '\t', '\u00a0', '\n', ' \u2003 ');

describe('splitFullName', () => {
  it.each([
    ['Maria Souza', { name: 'Maria', lastName: 'Souza' }],
    ['Maria da Silva', { name: 'Maria', lastName: 'da Silva' }],
    ['  Maria   da\tSilva  ', { name: 'Maria', lastName: 'da Silva' }],
    ['MARIA DA SILVA', { name: 'Maria', lastName: 'da Silva' }],
    ['maria da silva', { name: 'Maria', lastName: 'da Silva' }],
    ['JOÃO DOS SANTOS E SOUZA', { name: 'João', lastName: 'dos Santos e Souza' }],
    ['ana-clara d’ávila', { name: 'Ana-Clara', lastName: 'D’Ávila' }],
    ["LUÍZA D'ÁVILA", { name: 'Luíza', lastName: "D'Ávila" }],
    ['José McDonald', { name: 'José', lastName: 'McDonald' }],
    ['maria DA silva', { name: 'maria', lastName: 'DA silva' }],
    ['Maria', { name: 'Maria' }],
    ['MARIA', { name: 'Maria' }],
    ['FirstName LastName', { name: 'FirstName', lastName: 'LastName' }],
    // Common Brazilian compound first names stay together.
    ['Ana Paula de Souza', { name: 'Ana Paula', lastName: 'de Souza' }],
    ['ANA PAULA DE SOUZA', { name: 'Ana Paula', lastName: 'de Souza' }],
    ['joão pedro araújo', { name: 'João Pedro', lastName: 'Araújo' }],
    ['Joao Pedro Araujo', { name: 'Joao Pedro', lastName: 'Araujo' }],
    ['Maria de Fátima Lima', { name: 'Maria de Fátima', lastName: 'Lima' }],
    ['MARIA DE FÁTIMA LIMA', { name: 'Maria de Fátima', lastName: 'Lima' }],
    ['Carlos Eduardo', { name: 'Carlos Eduardo' }],
    // ...but not a first name followed by a surname that is also a first name elsewhere.
    ['Maria Souza', { name: 'Maria', lastName: 'Souza' }],
    ['Maria da Conceição', { name: 'Maria', lastName: 'da Conceição' }],
    ['João Batista Souza', { name: 'João', lastName: 'Batista Souza' }],
    ['Paula Ana Souza', { name: 'Paula', lastName: 'Ana Souza' }],
    ['', { name: '' }],
    ['   ', { name: '' }],
  ])('splits %j', (input, expected) => {
    // Act
    const result = splitFullName(input);

    // Assess
    expect(result).toEqual(expected);
  });

  it('gives { name: "" } for non-text input', () => {
    expect(splitFullName(undefined as unknown as string)).toEqual({ name: '' });
  });

  it('joins back to the input without markup, whitespace collapsed (exactly, unless the case rule applied)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })),
        (input) => {
          expectSameModuloCase(join(splitFullName(input)), collapse(input));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('puts whitespace in name only for a compound first name, and never gives a blank or padded lastName', () => {
    const compound = fc
      .tuple(
        fc.constantFrom('Ana Paula', 'JOÃO PEDRO', 'maria de fátima', 'Carlos Eduardo'),
        fc.string(),
      )
      .map(([first, rest]) => `${first} ${rest}`);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), compound), (input) => {
        const { name, lastName } = splitFullName(input);
        if (/\s/u.test(name)) expect(isCompoundFirstName(name)).toBe(true);
        if (lastName !== undefined) {
          expect(lastName).toBe(collapse(lastName));
          expect(lastName).not.toBe('');
          expect(name).not.toBe('');
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('gives the canonical spelling for ALL CAPS and all-lower input, and keeps it as typed', () => {
    fc.assert(
      fc.property(canonicalName, whitespace, (canonical, space) => {
        const expected = splitFullName(canonical);
        const spaced = canonical.replaceAll(' ', space);
        expect(join(expected)).toBe(canonical);
        expect(splitFullName(upper(spaced))).toEqual(expected);
        expect(splitFullName(lower(spaced))).toEqual(expected);
      }),
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          canonicalName.map((n) => n.toUpperCase()),
          fc.string(),
        ),
        (input) => {
          const once = splitFullName(input);
          expect(splitFullName(join(once))).toEqual(once);
        },
      ),
    );
  });
});

describe('normalizeName', () => {
  it.each([
    ['SILVA', 'Silva'],
    ['DOS SANTOS', 'dos Santos'],
    ['da silva', 'da Silva'],
    ['MARIA DE LOURDES', 'Maria de Lourdes'],
    ['DE', 'De'],
    ['  conceição  ', 'Conceição'],
    ['McDonald', 'McDonald'],
    ['de Souza', 'de Souza'],
    ['ÁLVARES CABRAL', 'Álvares Cabral'],
    ['ΠΑΠΑΔΟΠΟΥΛΟΣ', 'Παπαδοπουλος'],
    ['(MARIA)', '(Maria)'],
    ['', ''],
  ])('normalises %j to %j', (input, expected) => {
    expect(normalizeName(input)).toBe(expected);
  });

  it('changes nothing but markup, whitespace and the case rule', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' })), (input) => {
        expectSameModuloCase(normalizeName(input), collapse(input));
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps mixed case exactly as typed, markup and whitespace aside', () => {
    fc.assert(
      fc.property(fc.string(), (input) => {
        const collapsed = collapse(input);
        fc.pre(!isUniformCase(collapsed));
        expect(normalizeName(input)).toBe(collapsed);
      }),
    );
  });
});

describe('names with emoji and decorations', () => {
  it('keep the letters of the name', () => {
    expect(splitFullName('Mariana Costa 🏋️‍♀️')).toEqual({ name: 'Mariana', lastName: 'Costa' });
    expect(splitFullName('★ Ana Lima ★')).toEqual({ name: 'Ana', lastName: 'Lima' });
    expect(splitFullName('Bia 💪🏽 | Personal')).toEqual({ name: 'Bia', lastName: 'Personal' });
    expect(splitFullName("João D'Ávila-Neto Jr.")).toEqual({
      name: 'João',
      lastName: "D'Ávila-Neto Jr.",
    });
    expect(normalizeName('🇧🇷 Souza')).toBe('Souza');
  });

  it('tell a person’s name from an answer', () => {
    expect(looksLikePersonName('Ana Souza')).toBe(true);
    expect(looksLikePersonName('Maria da Conceição Lima')).toBe(true);
    expect(looksLikePersonName("Joana D'Arc")).toBe(true);
    expect(looksLikePersonName('Ana')).toBe(false);
    expect(looksLikePersonName('Sim quero')).toBe(false);
    expect(looksLikePersonName('Manhã ou tarde')).toBe(false);
    expect(looksLikePersonName('Rua das Flores 123')).toBe(false);
    expect(looksLikePersonName('ana@example.com')).toBe(false);
    expect(looksLikePersonName('um dois tres quatro cinco')).toBe(false);
  });
});

describe('names typed with markup', () => {
  it('keep the person’s name and drop the tags, a tag left open and stray brackets', () => {
    expect(splitFullName('<img src=x onerror=alert(1)>Eve Souza')).toEqual({
      name: 'Eve',
      lastName: 'Souza',
    });
    expect(splitFullName('<b>Ana</b> Lima <script')).toEqual({ name: 'Ana', lastName: 'Lima' });
    expect(normalizeName('Lima>')).toBe('Lima');
    expect(splitFullName('<img src=x onerror=alert(1)>')).toEqual({ name: '' });
  });
});
