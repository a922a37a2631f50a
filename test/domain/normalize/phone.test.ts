import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BR_AREA_CODES,
  isBrazilianMobile,
  isPlaceholderPhone,
  normalizePhone,
} from '../../../functions/domain/normalize/phone.ts';

/** Area codes 10–99 that Anatel has not assigned. */
const UNKNOWN_AREA_CODES = Array.from({ length: 90 }, (_, i) => String(i + 10)).filter(
  (code) => !(BR_AREA_CODES as readonly string[]).includes(code),
);
/** Carrier selection codes accepted after the trunk 0 (`0 41 11 9...`). */
const CARRIER_CODES = ['12', '14', '15', '21', '23', '31', '41', '43'];

const digits = (length: number) =>
  fc
    .array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length })
    .map((d) => d.join(''));
const areaCode = fc.constantFrom(...BR_AREA_CODES);
/** A modern Brazilian mobile: DDD + 9 + eight digits. */
const brMobile = fc.record({ ddd: areaCode, subscriber: digits(8).map((d) => `9${d}`) });
/** A Brazilian landline: DDD + [2-5] + seven digits. */
const brLandline = fc.record({
  ddd: areaCode,
  subscriber: fc
    .tuple(fc.integer({ min: 2, max: 5 }), digits(7))
    .map(([first, rest]) => `${first}${rest}`),
});

/** Ways people and systems write a Brazilian mobile, all meaning the same number. */
const mobileVariant = fc.oneof(
  fc.constantFrom(
    (ddd: string, sub: string) => `${ddd}${sub}`,
    (ddd: string, sub: string) => `(${ddd}) ${sub.slice(0, 5)}-${sub.slice(5)}`,
    (ddd: string, sub: string) => `(${ddd})${sub.slice(0, 5)}-${sub.slice(5)}`,
    (ddd: string, sub: string) => `${ddd} ${sub.slice(0, 5)} ${sub.slice(5)}`,
    (ddd: string, sub: string) => `${ddd} ${sub.slice(0, 1)} ${sub.slice(1, 5)}-${sub.slice(5)}`,
    (ddd: string, sub: string) => `${ddd}.${sub.slice(0, 5)}.${sub.slice(5)}`,
    (ddd: string, sub: string) => `+55 ${ddd} ${sub.slice(0, 5)}-${sub.slice(5)}`,
    (ddd: string, sub: string) => `+55 (${ddd}) ${sub}`,
    (ddd: string, sub: string) => `+55${ddd}${sub}`,
    (ddd: string, sub: string) => `55${ddd}${sub}`,
    (ddd: string, sub: string) => `55 ${ddd} ${sub}`,
    (ddd: string, sub: string) => `0${ddd}${sub}`,
    (ddd: string, sub: string) => `0 (${ddd}) ${sub.slice(0, 5)}-${sub.slice(5)}`,
    (ddd: string, sub: string) => `(0xx${ddd}) ${sub.slice(0, 5)}-${sub.slice(5)}`,
    (ddd: string, sub: string) => `0055 ${ddd} ${sub}`,
    (ddd: string, sub: string) => `  WhatsApp: (${ddd}) ${sub}  `,
    (ddd: string, sub: string) => Number(`${ddd}${sub}`),
    (ddd: string, sub: string) => Number(`55${ddd}${sub}`),
  ),
  fc
    .constantFrom(...CARRIER_CODES)
    .map((carrier) => (ddd: string, sub: string) => `0${carrier} ${ddd} ${sub}`),
  // Any separator (or none) between any two digits, after an optional prefix.
  fc
    .tuple(
      fc.constantFrom('', '+55 ', '+55', '55', '0'),
      fc.array(fc.constantFrom('', ' ', '-', '.', ' - '), { minLength: 12, maxLength: 12 }),
    )
    .map(
      ([prefix, separators]) =>
        (ddd: string, sub: string) =>
          prefix +
          Array.from(`${ddd}${sub}`)
            .map((digit, i) => `${digit}${separators[i] ?? ''}`)
            .join('')
            .replace(/[\s.-]+$/u, ''),
    ),
);

const lonelySurrogates = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes));

describe('normalizePhone', () => {
  it.each([
    ['11 98765-4321', '55', '11987654321', 'MOBILE'],
    ['(48) 99999-9999', '55', '48999999999', 'MOBILE'],
    ['+55 11 98765-4321', '55', '11987654321', 'MOBILE'],
    ['+5511987654321', '55', '11987654321', 'MOBILE'],
    ['5511987654321', '55', '11987654321', 'MOBILE'],
    ['011987654321', '55', '11987654321', 'MOBILE'],
    ['0 41 11 98765-4321', '55', '11987654321', 'MOBILE'],
    ['(0xx11) 98765-4321', '55', '11987654321', 'MOBILE'],
    ['0055 11 98765-4321', '55', '11987654321', 'MOBILE'],
    ['48 999999999', '55', '48999999999', 'MOBILE'],
    ['(11) 3333-4444', '55', '1133334444', 'FIXED_LINE'],
    ['+55 48 3222-1234', '55', '4832221234', 'FIXED_LINE'],
    ['tel:+55-21-99999-9999', '55', '21999999999', 'MOBILE'],
    ['１１ ９８７６５-４３２１', '55', '11987654321', 'MOBILE'],
    ['+16505550123', '1', '6505550123', 'FIXED_LINE_OR_MOBILE'],
    ['+351 912 345 678', '351', '912345678', 'MOBILE'],
    ['14155552671', '1', '4155552671', 'FIXED_LINE_OR_MOBILE'],
  ])('normalises %j to ddi %s, cellphone %s (%s)', (input, ddi, cellphone, type) => {
    // Act
    const result = normalizePhone(input);

    // Assess
    expect(result).toEqual({ ddi, cellphone, e164: `+${ddi}${cellphone}`, type });
  });

  it('accepts a phone sent as a JSON number (Webflow)', () => {
    // Act
    const national = normalizePhone(11987654321);
    const withCountry = normalizePhone(5511987654321);
    const us = normalizePhone(14155552671);

    // Assess
    expect(national).toMatchObject({ ddi: '55', cellphone: '11987654321' });
    expect(withCountry).toMatchObject({ ddi: '55', cellphone: '11987654321' });
    expect(us).toMatchObject({ ddi: '1', cellphone: '4155552671' });
  });

  it("rejects Webflow's sample number 15550000000, valid neither in BR nor as +1 555", () => {
    // Act
    const result = normalizePhone(15550000000);

    // Assess
    expect(result).toEqual({ error: 'não é um telefone válido no Brasil' });
  });

  it('adds the ninth digit to a pre-2016 eight-digit mobile and says so', () => {
    // Act
    const result = normalizePhone('(11) 8765-4321');

    // Assess
    expect(result).toEqual({
      ddi: '55',
      cellphone: '11987654321',
      e164: '+5511987654321',
      type: 'MOBILE',
      ninthDigitAdded: true,
    });
  });

  it('does not "repair" a modern mobile that lost a digit (grouping 98765-432)', () => {
    // Act
    const result = normalizePhone('(11) 98765-432');

    // Assess
    expect(result).toHaveProperty('error');
  });

  it('keeps an extension apart (ramal)', () => {
    // Act
    const result = normalizePhone('(11) 3333-4444 ramal 22');

    // Assess
    expect(result).toMatchObject({ cellphone: '1133334444', ext: '22' });
  });

  it('reads national numbers in another default region', () => {
    // Act
    const result = normalizePhone('(650) 555-0123', 'US');

    // Assess
    expect(result).toMatchObject({ ddi: '1', cellphone: '6505550123' });
  });

  it.each([
    ['', 'não é um telefone válido: vazio'],
    ['   ', 'não é um telefone válido: vazio'],
    ['abc', 'não é um telefone válido no Brasil (nenhum número encontrado)'],
    ['99999999', 'não é um telefone válido no Brasil'],
    ['+55 1', 'não é um telefone válido no Brasil (curto demais)'],
    ['(20) 98765-4321', 'não é um telefone válido no Brasil (DDD 20 não existe)'],
    ['(56) 98765-4321', 'não é um telefone válido no Brasil (DDD 56 não existe)'],
    ['56987654321', 'não é um telefone válido no Brasil (DDD 56 não existe)'],
    ['11 98765-4321 / 11 3333-4444', 'não é um telefone válido no Brasil (longo demais)'],
    ['+1 555 000 0000', 'não é um telefone válido com o código de país +1'],
    ['9'.repeat(101), 'não é um telefone válido: mais de 100 caracteres'],
  ])('rejects %j with a readable reason', (input, error) => {
    // Act
    const result = normalizePhone(input);

    // Assess
    expect(result).toEqual({ error });
  });

  it.each([[1.5], [-11987654321], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'rejects the non-phone number %s',
    (input) => {
      expect(normalizePhone(input)).toEqual({
        error: 'não é um telefone válido: um telefone numérico deve ser um número inteiro positivo',
      });
    },
  );

  it('rejects an unsupported default region', () => {
    expect(normalizePhone('11987654321', 'XX')).toEqual({
      error: "região padrão 'XX' não suportada",
    });
  });

  it('gives the same ddi/cellphone for every way of writing a Brazilian mobile', () => {
    fc.assert(
      fc.property(brMobile, mobileVariant, ({ ddd, subscriber }, write) => {
        const result = normalizePhone(write(ddd, subscriber));
        expect(result).toEqual({
          ddi: '55',
          cellphone: `${ddd}${subscriber}`,
          e164: `+55${ddd}${subscriber}`,
          type: 'MOBILE',
        });
      }),
      { numRuns: 500 },
    );
  });

  it('accepts Brazilian landlines and types them FIXED_LINE', () => {
    fc.assert(
      fc.property(brLandline, ({ ddd, subscriber }) => {
        const result = normalizePhone(`(${ddd}) ${subscriber.slice(0, 4)}-${subscriber.slice(4)}`);
        expect(result).toEqual({
          ddi: '55',
          cellphone: `${ddd}${subscriber}`,
          e164: `+55${ddd}${subscriber}`,
          type: 'FIXED_LINE',
        });
      }),
    );
  });

  it('is idempotent: its e164 and its cellphone normalise to the same result', () => {
    fc.assert(
      fc.property(brMobile, mobileVariant, ({ ddd, subscriber }, write) => {
        const first = normalizePhone(write(ddd, subscriber));
        if (!('e164' in first)) throw new Error(`not normalised: ${first.error}`);
        expect(normalizePhone(first.e164)).toEqual(first);
        expect(normalizePhone(first.cellphone)).toEqual(first);
      }),
    );
  });

  it('never turns a mobile with an unassigned area code into a mobile or a foreign number', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...UNKNOWN_AREA_CODES),
        digits(8),
        fc.constantFrom('bare', 'formatted', 'number'),
        (ddd, rest, style) => {
          const national = `${ddd}9${rest}`;
          const input =
            style === 'bare'
              ? national
              : style === 'number'
                ? Number(national)
                : `(${ddd}) 9${rest.slice(0, 4)}-${rest.slice(4)}`;
          const result = normalizePhone(input);
          // Anatel's non-geographic 900 (premium) numbers are the only valid reading left.
          if ('error' in result) return;
          expect(result.ddi).toBe('55');
          expect(result.type).not.toBe('MOBILE');
        },
      ),
    );
  });

  it('never throws, and every success is self-consistent', () => {
    const anyInput = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      lonelySurrogates,
      fc.stringMatching(/^[+0-9 ()./-]{0,20}$/),
      fc.double(),
      fc.integer(),
      fc.maxSafeNat(),
    );
    fc.assert(
      fc.property(anyInput, (input) => {
        const result = normalizePhone(input);
        if ('error' in result) {
          expect(result.error).toMatch(/^não é um telefone válido/);
          return;
        }
        expect(result.ddi).toMatch(/^[1-9]\d{0,2}$/);
        expect(result.cellphone).toMatch(/^\d{4,14}$/);
        expect(result.e164).toBe(`+${result.ddi}${result.cellphone}`);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('isPlaceholderPhone', () => {
  it.each([
    '1234567890',
    '12345678901',
    '(12) 34567-8901',
    '9876543210',
    '0000000000',
    '11999999999',
    '(11) 99999-9999',
    '+55 21 98888-8888',
    '11 9 1111-1111',
  ])('%j is a placeholder', (input) => {
    expect(isPlaceholderPhone(input)).toBe(true);
  });

  it.each(['(11) 98765-4321', '+5521998765432', '48 3222-1234', '11912345678', '99-9999'])(
    '%j is not',
    (input) => {
      expect(isPlaceholderPhone(input)).toBe(false);
    },
  );

  it('calls no valid mobile with a varied subscriber part a placeholder', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BR_AREA_CODES),
        fc.stringMatching(/^[0-9]{8}$/).filter((s) => new Set(s).size > 2),
        (ddd, subscriber) => {
          expect(isPlaceholderPhone(`${ddd}9${subscriber}`)).toBe(false);
        },
      ),
    );
  });
});

describe('phones as CRMs and chatbots send them', () => {
  it.each([
    ['0xx11 98765-4321', '11987654321'],
    ['0XX11987654321', '11987654321'],
    ['011 98765-4321', '11987654321'],
    ['(011) 98765-4321', '11987654321'],
    ['0 21 98765-4321', '21987654321'],
  ])(
    'reads the long-distance prefix of %j (0xx, trunk zero) as no part of the number',
    (input, cellphone) => {
      // Act
      const result = normalizePhone(input);

      // Assess
      expect(result).toMatchObject({ ddi: '55', cellphone, type: 'MOBILE' });
    },
  );

  it.each([
    ['(11) 6543-2109', '11965432109'],
    ['(11) 7654-3210', '11976543210'],
    ['(21) 8765-4321', '21987654321'],
    ['55 31 9876-5432', '31998765432'],
  ])(
    'adds the ninth digit to the ten-digit mobile %j (first local digit 6 to 9)',
    (input, cellphone) => {
      // Act
      const result = normalizePhone(input);

      // Assess
      expect(result).toMatchObject({ ddi: '55', cellphone, ninthDigitAdded: true });
    },
  );

  it.each(['(11) 3456-7890', '(11) 2345-6789', '(51) 5432-1098'])(
    'leaves the landline %j (first local digit 2 to 5) as it is',
    (input) => {
      // Act
      const result = normalizePhone(input);

      // Assess
      expect(result).not.toHaveProperty('ninthDigitAdded');
      expect(result).toMatchObject({ cellphone: input.replace(/\D/g, '').slice(-10) });
    },
  );

  it.each([
    ['(11) 98765-4321', true],
    ['+55 21 8765-4321', true],
    ['011987654321', true],
    ['(11) 3456-7890', false],
    ['+1 415 555 2671', false],
    ['não sei', false],
  ])('tells a Brazilian mobile by its shape: %j → %s', (input, mobile) => {
    expect(isBrazilianMobile(input)).toBe(mobile);
  });
});
