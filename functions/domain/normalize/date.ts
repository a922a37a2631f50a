/**
 * Birthday normalisation: the date formats lead sources send → the seed's ISO 8601 date-time at
 * UTC midnight (`1990-05-12T00:00:00.000Z`). Pure: no AWS, no process.env, never throws.
 */

export type DateOrder = 'DMY' | 'MDY';

export type BirthdayOptions = {
  /**
   * How to read numeric `NN/NN/YYYY` dates: `DMY` (default; Brazil) or `MDY` (US-style forms, as
   * Meta and Google can send). A per-source setting: the two cannot be told apart from the text.
   */
  order?: DateOrder;
  /** The current instant, for the future and maximum-age checks (tests pass a fixed one). */
  now?: Date;
  /** Oldest accepted age in whole years; default 120. */
  maxAgeYears?: number;
};

export type BirthdayResult = { birthday: string } | { error: string };

type CalendarDate = { year: number; month: number; day: number };

const MAX_INPUT_LENGTH = 64;
const DEFAULT_MAX_AGE_YEARS = 120;

/** English and Portuguese month names and abbreviations, lower case without accents. */
const MONTHS: ReadonlyMap<string, number> = new Map(
  [
    ['january', 'jan', 'janeiro'],
    ['february', 'feb', 'fevereiro', 'fev'],
    ['march', 'mar', 'marco'],
    ['april', 'apr', 'abril', 'abr'],
    ['may', 'maio', 'mai'],
    ['june', 'jun', 'junho'],
    ['july', 'jul', 'julho'],
    ['august', 'aug', 'agosto', 'ago'],
    ['september', 'sep', 'sept', 'setembro', 'set'],
    ['october', 'oct', 'outubro', 'out'],
    ['november', 'nov', 'novembro'],
    ['december', 'dec', 'dezembro', 'dez'],
  ].flatMap((names, index) => names.map((name) => [name, index + 1] as const)),
);

/** Optional time and zone after a date; ignored (see {@link normalizeBirthday}). */
const TIME = String.raw`(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?: ?(?:Z|[+-]\d{2}(?::?\d{2})?))?)?`;
const ISO_DATE = new RegExp(String.raw`^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})${TIME}$`, 'iu');
const NUMERIC_DATE = new RegExp(String.raw`^(\d{1,2})([-/.])(\d{1,2})\2(\d+)${TIME}$`, 'iu');
const COMPACT_DATE = /^\d{8}$/u;

/**
 * Normalise a birthday. Accepted, after trimming and collapsing whitespace:
 * - ISO `YYYY-MM-DD` (also `/` or `.` separators), with an optional time and zone. The calendar
 *   date is taken **as written** and the time and zone are ignored: a birthday is a date, and a
 *   local midnight serialised as `1990-05-12T03:00:00Z` from Brazil (UTC−3) keeps its date;
 * - `DD/MM/YYYY`, `DD-MM-YYYY`, `DD.MM.YYYY` (order `DMY`, the default), or `MM/DD/YYYY` with
 *   order `MDY`; a day or month out of range is an error, never silently swapped;
 * - eight bare digits (`19870419` or a mask-stripped `19041987`): read as `YYYYMMDD` and as
 *   `DDMMYYYY`/`MMDDYYYY` (by order); a valid birthday comes from at most one reading, because
 *   the year must start with 18, 19 or 20 and that is never a valid month;
 * - month names in English or Portuguese, full or abbreviated, any case, with or without accents:
 *   `April 19, 1987`, `19 April 1987`, `19 de abril de 1987`, `19/abr/1987`, `1º de maio de 1990`.
 *
 * Rejected: two-digit years (`12/05/90`: the century is a guess), impossible dates (`31/02/1990`),
 * dates after today (UTC), ages over `maxAgeYears` (120), and anything else (weekday names, Excel
 * serial numbers). Output always matches `/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/`.
 */
export function normalizeBirthday(input: string, options: BirthdayOptions = {}): BirthdayResult {
  if (typeof input !== 'string') return { error: 'a data de nascimento não é texto' };
  const text = input.trim().replace(/\s+/gu, ' ');
  if (!text) return { error: 'a data de nascimento está vazia' };
  if (text.length > MAX_INPUT_LENGTH) return { error: 'a data de nascimento é longa demais' };

  const now = options.now ?? new Date();
  if (Number.isNaN(now.getTime())) return { error: 'opção `now` inválida' };
  const order = options.order === 'MDY' ? 'MDY' : 'DMY';
  const maxAge = options.maxAgeYears ?? DEFAULT_MAX_AGE_YEARS;

  const parsed = parseDate(text, order, now, maxAge);
  if ('error' in parsed) return parsed;
  const problem = rangeProblem(parsed, now, maxAge);
  if (problem) return { error: problem };
  return { birthday: toIsoMidnight(parsed) };
}

function parseDate(
  text: string,
  order: DateOrder,
  now: Date,
  maxAge: number,
): CalendarDate | { error: string } {
  const iso = ISO_DATE.exec(text);
  if (iso) return calendarDate(Number(iso[1]), Number(iso[3]), Number(iso[4]));

  const numeric = NUMERIC_DATE.exec(text.replace(/ ?([-/.]) ?/gu, '$1'));
  if (numeric) {
    const [first, second, year] = [numeric[1], numeric[3], numeric[4]].map(Number) as [
      number,
      number,
      number,
    ];
    const yearText = numeric[4] ?? '';
    if (yearText.length === 2) return { error: TWO_DIGIT_YEAR };
    if (yearText.length !== 4) return { error: 'o ano deve ter quatro dígitos' };
    const [day, month] = order === 'DMY' ? [first, second] : [second, first];
    const result = calendarDate(year, month, day);
    if ('error' in result && month > 12 && day <= 12) {
      const [as, other] = order === 'DMY' ? ['dia/mês', 'MM/DD/AAAA'] : ['mês/dia', 'DD/MM/AAAA'];
      return { error: `${result.error} (lida como ${as}; a origem envia ${other}?)` };
    }
    return result;
  }

  if (COMPACT_DATE.test(text)) return compactDate(text, order, now, maxAge);

  return namedMonthDate(text);
}

/** `YYYYMMDD` or `DDMMYYYY`/`MMDDYYYY`; at most one can be a plausible birthday. */
function compactDate(
  text: string,
  order: DateOrder,
  now: Date,
  maxAge: number,
): CalendarDate | { error: string } {
  const part = (from: number, to: number) => Number(text.slice(from, to));
  const [day, month] = order === 'DMY' ? [part(0, 2), part(2, 4)] : [part(2, 4), part(0, 2)];
  const readings = [
    calendarDate(part(0, 4), part(4, 6), part(6, 8)),
    calendarDate(part(4, 8), month, day),
  ];
  const plausible = readings.filter(
    (reading): reading is CalendarDate =>
      !('error' in reading) && !rangeProblem(reading, now, maxAge),
  );
  const [only] = plausible;
  if (only && plausible.length === 1) return only;
  const dayFirst = order === 'DMY' ? 'DDMMAAAA' : 'MMDDAAAA';
  return {
    error: `oito dígitos que não formam uma data de nascimento plausível como AAAAMMDD nem ${dayFirst}`,
  };
}

function namedMonthDate(text: string): CalendarDate | { error: string } {
  const tokens = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[,/.-]/gu, ' ')
    .split(' ')
    .filter((token) => token && token !== 'de' && token !== 'of' && token !== 'the')
    .map((token) => token.replace(/^(\d{1,2})(?:st|nd|rd|th|o|a)$/u, '$1'));
  if (tokens.length !== 3) return { error: UNRECOGNISED };
  const [a = '', b = '', c = ''] = tokens;
  const monthFirst = MONTHS.get(a);
  const monthSecond = MONTHS.get(b);
  let dayText: string;
  let month: number;
  if (monthFirst !== undefined) [dayText, month] = [b, monthFirst];
  else if (monthSecond !== undefined) [dayText, month] = [a, monthSecond];
  else return { error: UNRECOGNISED };
  if (!/^\d{1,2}$/u.test(dayText)) return { error: UNRECOGNISED };
  if (/^\d{2}$/u.test(c)) return { error: TWO_DIGIT_YEAR };
  if (!/^\d{4}$/u.test(c)) return { error: UNRECOGNISED };
  return calendarDate(Number(c), month, Number(dayText));
}

const UNRECOGNISED = 'formato de data não reconhecido';
const TWO_DIGIT_YEAR = 'ano com dois dígitos é ambíguo: use quatro dígitos';

function calendarDate(year: number, month: number, day: number): CalendarDate | { error: string } {
  if (year < 1000 || year > 9999) return { error: `o ano ${year} está fora do intervalo` };
  if (month < 1 || month > 12) return { error: `o mês ${month} não existe` };
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) {
    return { error: `data impossível: o mês ${month} de ${year} não tem dia ${day}` };
  }
  return { year, month, day };
}

function rangeProblem(date: CalendarDate, now: Date, maxAge: number): string | undefined {
  const today: CalendarDate = {
    year: now.getUTCFullYear(),
    month: now.getUTCMonth() + 1,
    day: now.getUTCDate(),
  };
  const birthdayThisYearPassed =
    today.month > date.month || (today.month === date.month && today.day >= date.day);
  const age = today.year - date.year - (birthdayThisYearPassed ? 0 : 1);
  if (age < 0) return 'a data de nascimento está no futuro';
  if (age > maxAge) return `a data de nascimento dá mais de ${maxAge} anos de idade`;
  return undefined;
}

function toIsoMidnight({ year, month, day }: CalendarDate): string {
  const pad = (value: number, width: number) => String(value).padStart(width, '0');
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T00:00:00.000Z`;
}

export type TypedBirthdayResult =
  | {
      birthday: string;
      /** Day and month could be read either way (`05/03/1992`); read in the order given. */
      ambiguous?: true;
      /** Impossible in the order given (`05/23/1992` as day/month), possible in the other. */
      swapped?: true;
    }
  | { error: string };

/**
 * A birthday as a person typed it into a free-text question, read the way a careful person
 * would: in `order` (the profile's; day/month by default), and
 * - `ambiguous` when both numbers of a numeric date are 12 or less and differ, so the other
 *   order would give another valid date: the date is kept as read, and the caller says so;
 * - `swapped` when the date is impossible in `order` but valid in the other (`05/23/1992`):
 *   read in the other order, and the caller says so. Never silently.
 * Everything else is {@link normalizeBirthday}'s (ISO dates, month names, errors).
 */
export function readTypedBirthday(
  input: string,
  options: { order?: DateOrder; now?: Date } = {},
): TypedBirthdayResult {
  const order: DateOrder = options.order === 'MDY' ? 'MDY' : 'DMY';
  const now = options.now ? { now: options.now } : {};
  const result = normalizeBirthday(input, { order, ...now });
  const text = typeof input === 'string' ? input.trim().replace(/\s+/gu, ' ') : '';
  const numeric = NUMERIC_DATE.exec(text.replace(/ ?([-/.]) ?/gu, '$1'));
  if (!numeric || (numeric[4] ?? '').length !== 4) return result;
  const [first, second] = [Number(numeric[1]), Number(numeric[3])];
  if ('birthday' in result) {
    return first <= 12 && second <= 12 && first !== second
      ? { ...result, ambiguous: true }
      : result;
  }
  const other = normalizeBirthday(input, { order: order === 'DMY' ? 'MDY' : 'DMY', ...now });
  return 'birthday' in other ? { ...other, swapped: true } : result;
}
