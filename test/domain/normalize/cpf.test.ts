import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cpfCheckDigits,
  isValidCpf,
  normalizeCpf,
} from '../../../functions/domain/normalize/cpf.ts';

const nineDigits = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 })
  .map((d) => d.join(''))
  .filter((d) => !/^(\d)\1{8}$/.test(d));
const validCpf = nineDigits.map((nine) => nine + cpfCheckDigits(nine));
/** What people and forms put between CPF digits. */
const separator = fc.constantFrom('', '', '.', '-', ' ', '/', ' - ');

describe('normalizeCpf', () => {
  it.each([
    ['529.982.247-25', '52998224725'],
    ['52998224725', '52998224725'],
    [' 529 982 247 25 ', '52998224725'],
    ['529982247/25', '52998224725'],
    ['CPF: 529.982.247-25', '52998224725'],
    ['cpf nº 529.982.247-25', '52998224725'],
    ['123.456.789-09', '12345678909'],
    ['012.345.678-90', '01234567890'],
  ])('normalises %j to %s', (input, cpf) => {
    // Act
    const result = normalizeCpf(input);

    // Assess
    expect(result).toEqual({ cpf });
  });

  it('restores the leading zero a JSON number lost', () => {
    // Act
    const result = normalizeCpf(1234567890);

    // Assess
    expect(result).toEqual({ cpf: '01234567890' });
  });

  it('does not pad a string: a missing digit there is a typo', () => {
    expect(normalizeCpf('1234567890')).toEqual({ error: 'o CPF deve ter 11 dígitos, tem 10' });
  });

  it.each([
    ['', 'o CPF está vazio'],
    ['   ', 'o CPF está vazio'],
    ['111.111.111-11', 'um CPF com todos os dígitos iguais não é válido'],
    ['00000000000', 'um CPF com todos os dígitos iguais não é válido'],
    ['529.982.247-24', 'os dígitos verificadores do CPF não conferem'],
    ['529.982.247-52', 'os dígitos verificadores do CPF não conferem'],
    ['529.982.247', 'o CPF deve ter 11 dígitos, tem 9'],
    ['529.982.247-255', 'o CPF deve ter 11 dígitos, tem 12'],
    ['529.982.247-25 e 123.456.789-09', 'o CPF só pode ter dígitos, os sinais . - / e espaços'],
    ['abc', 'o CPF só pode ter dígitos, os sinais . - / e espaços'],
    ['５２９９８２２４７２５', 'o CPF só pode ter dígitos, os sinais . - / e espaços'],
    ['1'.repeat(41), 'o CPF é longo demais'],
  ])('rejects %j', (input, error) => {
    // Act
    const result = normalizeCpf(input);

    // Assess
    expect(result).toEqual({ error });
  });

  it.each([[-1], [1.5], [Number.NaN]])('rejects the number %s', (input) => {
    expect(normalizeCpf(input)).toEqual({ error: 'o CPF não é um número inteiro' });
  });

  it('accepts a generated valid CPF under any punctuation', () => {
    fc.assert(
      fc.property(
        validCpf,
        fc.array(separator, { minLength: 11, maxLength: 11 }),
        fc.constantFrom('', ' ', 'CPF: '),
        (cpf, separators, label) => {
          const punctuated = label + Array.from(cpf, (digit, i) => digit + separators[i]).join('');
          expect(normalizeCpf(punctuated)).toEqual({ cpf });
          expect(isValidCpf(punctuated)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects any change to a check digit', () => {
    fc.assert(
      fc.property(
        validCpf,
        fc.constantFrom(9, 10),
        fc.integer({ min: 1, max: 9 }),
        (cpf, i, delta) => {
          const flipped = cpf.slice(0, i) + ((Number(cpf[i]) + delta) % 10) + cpf.slice(i + 1);
          expect(normalizeCpf(flipped)).toEqual({
            error: 'os dígitos verificadores do CPF não conferem',
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects any single changed digit, except where mod 11 cannot tell (first check digit 0)', () => {
    // The algorithm maps remainders 0 and 1 both to 0, so with a first check digit 0 a few body
    // changes keep both check digits (e.g. the first digit's weight in the second sum is 11 ≡ 0).
    fc.assert(
      fc.property(
        validCpf,
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 1, max: 9 }),
        (cpf, i, delta) => {
          const flipped = cpf.slice(0, i) + ((Number(cpf[i]) + delta) % 10) + cpf.slice(i + 1);
          if (isValidCpf(flipped)) {
            expect(i).toBeLessThan(9);
            expect(cpf[9]).toBe('0');
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('documents a real undetected single-digit change', () => {
    // Prepare: 812.459.720-06 and 712.459.720-06 differ in the first digit only.
    const [original, changed] = ['81245972006', '71245972006'];

    // Act / Assess
    expect(isValidCpf(original)).toBe(true);
    expect(isValidCpf(changed)).toBe(true);
  });

  it('rejects every all-equal sequence, whatever the punctuation', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9 }), separator, (digit, sep) => {
        const repeated = String(digit).repeat(11);
        const text = `${repeated.slice(0, 3)}${sep}${repeated.slice(3, 6)}${sep}${repeated.slice(6, 9)}${sep}${repeated.slice(9)}`;
        expect(normalizeCpf(text)).toEqual({
          error: 'um CPF com todos os dígitos iguais não é válido',
        });
      }),
    );
  });

  it('never throws, and a success is always 11 digits that validate again', () => {
    const anyInput = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.stringMatching(/^[0-9. /-]{0,20}$/),
      fc.double(),
      fc.anything({ maxDepth: 1 }),
    );
    fc.assert(
      fc.property(anyInput, (input) => {
        const result = normalizeCpf(input as string);
        if ('cpf' in result) {
          expect(result.cpf).toMatch(/^\d{11}$/);
          expect(normalizeCpf(result.cpf)).toEqual(result);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('cpfCheckDigits', () => {
  it.each([
    ['529982247', '25'],
    ['123456789', '09'],
    ['000000001', '91'],
  ])('gives the check digits of %s: %s', (nine, check) => {
    expect(cpfCheckDigits(nine)).toBe(check);
  });

  it('throws a RangeError unless given nine digits', () => {
    expect(() => cpfCheckDigits('12345678')).toThrow(RangeError);
    expect(() => cpfCheckDigits('12345678a')).toThrow(RangeError);
  });
});
