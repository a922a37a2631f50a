import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeBirthday, readTypedBirthday } from '../../../functions/domain/normalize/date.ts';

const NOW = new Date('2025-06-15T12:00:00.000Z');
const ISO_MIDNIGHT = /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/;
const EN_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const PT_MONTHS = [
  'janeiro',
  'fevereiro',
  'março',
  'abril',
  'maio',
  'junho',
  'julho',
  'agosto',
  'setembro',
  'outubro',
  'novembro',
  'dezembro',
];

const pad = (value: number, width = 2) => String(value).padStart(width, '0');
/** A birthday between 120 years ago and today (relative to NOW), as calendar parts. */
const birthday = fc
  .date({ min: new Date('1904-06-16T00:00:00.000Z'), max: NOW, noInvalidDate: true })
  .map((date) => ({
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
  }));
type Parts = { year: number; month: number; day: number };
const iso = ({ year, month, day }: Parts) => `${year}-${pad(month)}-${pad(day)}`;

/** Every way a source writes a date, given the order setting it needs. */
const writings: ReadonlyArray<[string, (d: Parts) => string, 'DMY' | 'MDY']> = [
  ['DD/MM/YYYY', (d) => `${pad(d.day)}/${pad(d.month)}/${d.year}`, 'DMY'],
  ['D/M/YYYY', (d) => `${d.day}/${d.month}/${d.year}`, 'DMY'],
  ['DD-MM-YYYY', (d) => `${pad(d.day)}-${pad(d.month)}-${d.year}`, 'DMY'],
  ['DD.MM.YYYY', (d) => `${pad(d.day)}.${pad(d.month)}.${d.year}`, 'DMY'],
  ['DDMMYYYY', (d) => `${pad(d.day)}${pad(d.month)}${d.year}`, 'DMY'],
  ['MM/DD/YYYY', (d) => `${pad(d.month)}/${pad(d.day)}/${d.year}`, 'MDY'],
  ['MMDDYYYY', (d) => `${pad(d.month)}${pad(d.day)}${d.year}`, 'MDY'],
  ['YYYY-MM-DD', (d) => iso(d), 'DMY'],
  ['YYYY-MM-DD (order MDY)', (d) => iso(d), 'MDY'],
  ['YYYYMMDD', (d) => iso(d).replaceAll('-', ''), 'DMY'],
  ['YYYY-MM-DDT00:00:00', (d) => `${iso(d)}T00:00:00`, 'DMY'],
  ['YYYY-MM-DDT00:00:00.000Z', (d) => `${iso(d)}T00:00:00.000Z`, 'DMY'],
  ['YYYY-MM-DDT03:00:00-03:00', (d) => `${iso(d)}T03:00:00-03:00`, 'DMY'],
  ['Month D, YYYY', (d) => `${EN_MONTHS[d.month - 1]} ${d.day}, ${d.year}`, 'DMY'],
  ['D Month YYYY', (d) => `${d.day} ${EN_MONTHS[d.month - 1]} ${d.year}`, 'MDY'],
  ['Mon D YYYY', (d) => `${EN_MONTHS[d.month - 1]?.slice(0, 3)} ${d.day} ${d.year}`, 'DMY'],
  ['D de mês de YYYY', (d) => `${d.day} de ${PT_MONTHS[d.month - 1]} de ${d.year}`, 'DMY'],
  ['D/MÊS/YYYY', (d) => `${d.day}/${PT_MONTHS[d.month - 1]?.toUpperCase()}/${d.year}`, 'DMY'],
];

describe('normalizeBirthday', () => {
  it.each([
    ['1990-05-12', {}, '1990-05-12T00:00:00.000Z'],
    ['1990-05-12T00:00:00', {}, '1990-05-12T00:00:00.000Z'],
    ['1990-05-12T00:00:00.000Z', {}, '1990-05-12T00:00:00.000Z'],
    ['1990-05-12T00:00:00+02:00', {}, '1990-05-12T00:00:00.000Z'],
    ['1990-05-12 00:00:00 -03:00', {}, '1990-05-12T00:00:00.000Z'],
    ['1990/5/12', {}, '1990-05-12T00:00:00.000Z'],
    ['12/05/1990', {}, '1990-05-12T00:00:00.000Z'],
    ['12-05-1990', {}, '1990-05-12T00:00:00.000Z'],
    ['12.05.1990', {}, '1990-05-12T00:00:00.000Z'],
    [' 12 / 05 / 1990 ', {}, '1990-05-12T00:00:00.000Z'],
    ['12/05/1990 00:00:00', {}, '1990-05-12T00:00:00.000Z'],
    ['05/12/1990', { order: 'MDY' }, '1990-05-12T00:00:00.000Z'],
    ['April 19, 1987', {}, '1987-04-19T00:00:00.000Z'],
    ['april 19th, 1987', {}, '1987-04-19T00:00:00.000Z'],
    ['19 April 1987', {}, '1987-04-19T00:00:00.000Z'],
    ['Sept. 3, 1987', {}, '1987-09-03T00:00:00.000Z'],
    ['19 de abril de 1987', {}, '1987-04-19T00:00:00.000Z'],
    ['1º de março de 1990', {}, '1990-03-01T00:00:00.000Z'],
    ['1o de marco de 1990', {}, '1990-03-01T00:00:00.000Z'],
    ['19/ABR/1987', {}, '1987-04-19T00:00:00.000Z'],
    ['19870419', {}, '1987-04-19T00:00:00.000Z'],
    ['19041987', {}, '1987-04-19T00:00:00.000Z'],
    ['29/02/2000', {}, '2000-02-29T00:00:00.000Z'],
    ['15/06/2025', {}, '2025-06-15T00:00:00.000Z'],
    ['16/06/1904', {}, '1904-06-16T00:00:00.000Z'],
  ] as const)('normalises %j %j to %s', (input, options, expected) => {
    // Act
    const result = normalizeBirthday(input, { ...options, now: NOW });

    // Assess
    expect(result).toEqual({ birthday: expected });
  });

  it.each([
    ['', 'a data de nascimento está vazia'],
    ['31/02/1990', 'data impossível: o mês 2 de 1990 não tem dia 31'],
    ['29/02/1990', 'data impossível: o mês 2 de 1990 não tem dia 29'],
    ['00/05/1990', 'data impossível: o mês 5 de 1990 não tem dia 0'],
    ['13/13/1990', 'o mês 13 não existe'],
    ['05/25/1990', 'o mês 25 não existe (lida como dia/mês; a origem envia MM/DD/AAAA?)'],
    ['12/05/90', 'ano com dois dígitos é ambíguo: use quatro dígitos'],
    ['April 19, 87', 'ano com dois dígitos é ambíguo: use quatro dígitos'],
    ['16/06/2025', 'a data de nascimento está no futuro'],
    ['2030-01-01', 'a data de nascimento está no futuro'],
    ['15/06/1904', 'a data de nascimento dá mais de 120 anos de idade'],
    ['0990-01-01', 'o ano 990 está fora do intervalo'],
    ['Sunday, April 19, 1987', 'formato de data não reconhecido'],
    ['32252', 'formato de data não reconhecido'],
    [
      '12345678',
      'oito dígitos que não formam uma data de nascimento plausível como AAAAMMDD nem DDMMAAAA',
    ],
    ['amanhã', 'formato de data não reconhecido'],
    ['1'.repeat(65), 'a data de nascimento é longa demais'],
  ])('rejects %j', (input, error) => {
    // Act
    const result = normalizeBirthday(input, { now: NOW });

    // Assess
    expect(result).toEqual({ error });
  });

  it('reads MM/DD/YYYY only with order MDY, and says so when the order looks wrong', () => {
    // Act
    const asMdy = normalizeBirthday('04/19/1987', { order: 'MDY', now: NOW });
    const asDmy = normalizeBirthday('04/19/1987', { now: NOW });

    // Assess
    expect(asMdy).toEqual({ birthday: '1987-04-19T00:00:00.000Z' });
    expect(asDmy).toEqual({
      error: 'o mês 19 não existe (lida como dia/mês; a origem envia MM/DD/AAAA?)',
    });
  });

  it('honours maxAgeYears', () => {
    expect(normalizeBirthday('1950-01-01', { now: NOW, maxAgeYears: 70 })).toEqual({
      error: 'a data de nascimento dá mais de 70 anos de idade',
    });
  });

  it('gives the same ISO date for every accepted way of writing it', () => {
    fc.assert(
      fc.property(birthday, fc.constantFrom(...writings), (date, [, write, order]) => {
        const result = normalizeBirthday(write(date), { order, now: NOW });
        expect(result).toEqual({ birthday: `${iso(date)}T00:00:00.000Z` });
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects day numbers past the end of the month', () => {
    fc.assert(
      fc.property(birthday, fc.integer({ min: 1, max: 3 }), (date, past) => {
        const daysInMonth = new Date(Date.UTC(date.year, date.month, 0)).getUTCDate();
        const day = daysInMonth + past;
        fc.pre(day <= 31);
        const result = normalizeBirthday(`${day}/${date.month}/${date.year}`, { now: NOW });
        expect(result).toHaveProperty('error');
      }),
    );
  });

  it('rejects every date after today', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('2025-06-16T00:00:00.000Z'),
          max: new Date('2999-12-31T00:00:00.000Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const result = normalizeBirthday(date.toISOString().slice(0, 10), { now: NOW });
          expect(result).toEqual({ error: 'a data de nascimento está no futuro' });
        },
      ),
    );
  });

  it('never throws, and any success is a UTC midnight', () => {
    const anyInput = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.stringMatching(/^[0-9]{1,4}[-/. ][0-9]{1,4}[-/. ][0-9]{1,4}$/),
      fc.stringMatching(/^[0-9]{8}$/),
      fc.anything({ maxDepth: 1 }),
    );
    fc.assert(
      fc.property(anyInput, fc.constantFrom<'DMY' | 'MDY'>('DMY', 'MDY'), (input, order) => {
        const result = normalizeBirthday(input as string, { order, now: NOW });
        if ('birthday' in result) {
          expect(result.birthday).toMatch(ISO_MIDNIGHT);
          expect(new Date(result.birthday).toISOString()).toBe(result.birthday);
          expect(result.birthday <= NOW.toISOString()).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('readTypedBirthday', () => {
  it('reads a numeric date in the order given and flags it when both numbers could be a month', () => {
    expect(readTypedBirthday('05/03/1992', { now: NOW })).toEqual({
      birthday: '1992-03-05T00:00:00.000Z',
      ambiguous: true,
    });
    expect(readTypedBirthday('05/03/1992', { order: 'MDY', now: NOW })).toEqual({
      birthday: '1992-05-03T00:00:00.000Z',
      ambiguous: true,
    });
  });

  it('flags nothing when the day and the month are the same or one is above 12', () => {
    expect(readTypedBirthday('05/05/1992', { now: NOW })).toEqual({
      birthday: '1992-05-05T00:00:00.000Z',
    });
    expect(readTypedBirthday('23/05/1992', { now: NOW })).toEqual({
      birthday: '1992-05-23T00:00:00.000Z',
    });
    expect(readTypedBirthday('1992-03-05', { now: NOW })).toEqual({
      birthday: '1992-03-05T00:00:00.000Z',
    });
  });

  it('reads a date impossible in the order given in the other order, and says it did', () => {
    expect(readTypedBirthday('05/23/1992', { now: NOW })).toEqual({
      birthday: '1992-05-23T00:00:00.000Z',
      swapped: true,
    });
  });

  it("keeps normalizeBirthday's errors", () => {
    expect(readTypedBirthday('31/02/1990', { now: NOW })).toHaveProperty('error');
    expect(readTypedBirthday('05/03/92', { now: NOW })).toEqual({
      error: 'ano com dois dígitos é ambíguo: use quatro dígitos',
    });
  });
});
