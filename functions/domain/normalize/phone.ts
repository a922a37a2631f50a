/**
 * Phone normalisation for lead intake: any human or machine formatting of a phone number →
 * the seed's `ddi` (country calling code) + `cellphone` (national significant number).
 *
 * Metadata choice: `libphonenumber-js/max`. `min` validates by length only (it calls Webflow's
 * `15550000000` a valid BR number and accepts BR mobiles that do not start with 9), and `mobile`
 * rejects every landline. `max` validates mobiles and landlines per area code and reports the
 * number type, for ~73 KB more minified bundle (~20 KB gzip) and no measurable import-time cost.
 *
 * Pure: no AWS, no process.env, never throws.
 */
import {
  type CountryCode,
  isSupportedCountry,
  type NumberType,
  type PhoneNumber,
  parseIncompletePhoneNumber,
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
} from 'libphonenumber-js/max';

export type NormalizedPhone = {
  /** Country calling code without `+`, e.g. `'55'`. */
  ddi: string;
  /** National significant number (area code + subscriber number, digits only), e.g. `'11987654321'`. */
  cellphone: string;
  /** `'+' + ddi + cellphone`. */
  e164: string;
  /**
   * What the metadata says the number is: `'MOBILE'`, `'FIXED_LINE'` (a landline, accepted: a gym
   * can call it), `'FIXED_LINE_OR_MOBILE'` (e.g. US), `'TOLL_FREE'`, ... or undefined when unknown.
   */
  type?: NumberType;
  /** Extension (`ramal`), when the input carried one; the seed has no field for it. */
  ext?: string;
  /** The input was a pre-2016 eight-digit Brazilian mobile and the leading 9 was added. */
  ninthDigitAdded?: true;
};

export type PhoneResult = NormalizedPhone | { error: string };

/**
 * Brazilian area codes (DDD) in use, per Anatel's plan. Exported for callers and tests
 * (generators of realistic numbers); validation itself relies on libphonenumber's metadata.
 */
// biome-ignore format: one line per region (first digit) reads better than one code per line
export const BR_AREA_CODES = [
  '11', '12', '13', '14', '15', '16', '17', '18', '19',
  '21', '22', '24', '27', '28',
  '31', '32', '33', '34', '35', '37', '38',
  '41', '42', '43', '44', '45', '46', '47', '48', '49',
  '51', '53', '54', '55',
  '61', '62', '63', '64', '65', '66', '67', '68', '69',
  '71', '73', '74', '75', '77', '79',
  '81', '82', '83', '84', '85', '86', '87', '88', '89',
  '91', '92', '93', '94', '95', '96', '97', '98', '99',
] as const;

/** Longer inputs are not phone numbers; the cap also bounds the work done on hostile input. */
const MAX_INPUT_LENGTH = 100;

const LENGTH_REASONS: Record<string, string> = {
  TOO_SHORT: 'curto demais',
  TOO_LONG: 'longo demais',
  INVALID_LENGTH: 'número de dígitos errado',
  INVALID_COUNTRY: 'código de país desconhecido',
  NOT_A_NUMBER: 'nenhum número encontrado',
};

/** What every reason of a number that cannot be used starts with. */
const NOT_A_PHONE = 'não é um telefone válido';

/**
 * Normalise a phone number. Numbers without `+` are read in `defaultRegion` (ISO 3166 alpha-2,
 * default `BR`), which also accepts the national trunk prefix `0`, a carrier selection code
 * (`0 41 11 ...`), `0xx11`, and a leading `55` without `+`.
 *
 * Fallbacks, tried only when the straightforward reading is not a valid number:
 * 1. a Brazilian 10-digit number whose subscriber part starts with 6 to 9 is a pre-2016 mobile:
 *    the ninth digit is added (`ninthDigitAdded`). Landlines start with 2 to 5, so the digit is
 *    added even where the old eight-digit number still validates (`(11) 7654-3210`, once a
 *    radio-network number, is today's `(11) 97654-3210`);
 * 2. `00` + country code (the European way to write `+`; BR dialling would need a carrier code
 *    after `00`). `0055` is always read as +55: `0055 94 9...` is a Brazilian mobile to the person
 *    typing it, although the dialling plan reads carrier 55 + Sri Lanka (+94);
 * 3. 11–15 digits with no formatting at all, not starting with 0, are tried as international
 *    without `+` (Webflow sends phones as JSON numbers: `14155552671`), except when they have the
 *    shape of a Brazilian mobile with an unknown area code (`56987654321` is far more likely a
 *    mistyped DDD than a Chilean number) and the result must validate for its country. Formatted
 *    input (`(56) 98765-4321`) is never re-read as international.
 *
 * Never throws; invalid input gives `{ error }` with a readable reason (the caller keeps the
 * original text in notes).
 */
export function normalizePhone(input: string | number, defaultRegion = 'BR'): PhoneResult {
  const region = typeof defaultRegion === 'string' ? defaultRegion.trim().toUpperCase() : '';
  if (!isSupportedCountry(region)) {
    return { error: `região padrão '${String(defaultRegion)}' não suportada` };
  }
  const text = phoneText(input);
  if (typeof text !== 'string') return text;

  const cleaned = text
    .replace(/\b(?:ramal|ram\.|r\.)\s*:?\s*(?=\d)/giu, ' ext. ')
    .replace(/0\s*x\s*x\s*(?=\d)/giu, '0');

  const digits = parseIncompletePhoneNumber(cleaned);
  const plainDigits = !digits.startsWith('+') && /^[\p{Nd}\s().\-/]+$/u.test(cleaned);
  const viaIdd =
    plainDigits && digits.startsWith('00') ? parse(`+${digits.slice(2)}`, region) : undefined;
  // `0055 94 ...` is, to the dialling plan, carrier 55 + country 94; to the person typing, +55.
  if (viaIdd?.countryCallingCode === '55' && viaIdd.isValid()) return toResult(viaIdd);

  const direct = parse(cleaned, region);
  const repaired = direct && addNinthDigit(direct, cleaned);
  if (repaired) return repaired;
  if (direct?.isValid()) return toResult(direct);

  if (viaIdd?.isValid()) return toResult(viaIdd);
  if (mayBeInternationalWithoutPlus(cleaned, digits, region)) {
    const international = parse(`+${digits}`, region);
    if (international?.isValid()) return toResult(international);
  }
  return { error: invalidReason(cleaned, region, direct) };
}

function mayBeInternationalWithoutPlus(text: string, digits: string, region: CountryCode): boolean {
  if (!/^\p{Nd}{11,15}$/u.test(text) || digits.startsWith('0')) return false;
  return !(region === 'BR' && /^\d{2}9\d{8}$/.test(digits));
}

function phoneText(input: unknown): string | { error: string } {
  if (typeof input === 'number') {
    // A JSON number cannot carry `+`, leading zeros or formatting; only a whole number makes sense.
    if (!Number.isSafeInteger(input) || input <= 0) {
      return { error: `${NOT_A_PHONE}: um telefone numérico deve ser um número inteiro positivo` };
    }
    return String(input);
  }
  if (typeof input !== 'string') return { error: `${NOT_A_PHONE}: nenhum texto` };
  const text = input.trim();
  if (!text) return { error: `${NOT_A_PHONE}: vazio` };
  if (text.length > MAX_INPUT_LENGTH) {
    return { error: `${NOT_A_PHONE}: mais de ${MAX_INPUT_LENGTH} caracteres` };
  }
  return text;
}

function parse(text: string, region: CountryCode): PhoneNumber | undefined {
  try {
    return parsePhoneNumberFromString(text, region);
  } catch {
    // The library documents no throw for this entry point; this keeps the no-throw promise.
    return undefined;
  }
}

/**
 * Ten digits whose subscriber part starts with 6 to 9 are either a pre-2016 mobile (`9876-5432`)
 * or a modern mobile missing a digit (`98765-432`). The digits alone cannot tell; the grouping as
 * typed can, so a 5-digit group or a short last group (`98765-432`) refuses the upgrade.
 */
function addNinthDigit(phone: PhoneNumber, text: string): NormalizedPhone | undefined {
  const nsn = phone.nationalNumber;
  if (phone.countryCallingCode !== '55' || !/^[1-9]{2}[6-9]\d{7}$/.test(nsn)) return undefined;
  const groups = (text.split(/ext\.|x/iu)[0] ?? '').match(/\p{Nd}+/gu) ?? [];
  const last = groups.at(-1) ?? '';
  if (groups.some((group) => group.length === 5) || (groups.length > 1 && last.length < 4)) {
    return undefined;
  }
  const upgraded = parse(`+55${nsn.slice(0, 2)}9${nsn.slice(2)}`, 'BR');
  if (!upgraded?.isValid() || upgraded.getType() !== 'MOBILE') return undefined;
  const result = toResult(upgraded);
  if (phone.ext) result.ext = phone.ext;
  result.ninthDigitAdded = true;
  return result;
}

function toResult(phone: PhoneNumber): NormalizedPhone {
  const result: NormalizedPhone = {
    ddi: phone.countryCallingCode,
    cellphone: phone.nationalNumber,
    e164: phone.number,
  };
  const type = phone.getType();
  if (type) result.type = type;
  if (phone.ext) result.ext = phone.ext;
  return result;
}

function invalidReason(text: string, region: CountryCode, parsed: PhoneNumber | undefined): string {
  const where =
    parsed && text.includes('+')
      ? `com o código de país +${parsed.countryCallingCode}`
      : regionPt(parsed?.country ?? region);
  let lengthProblem: string | undefined;
  try {
    lengthProblem = validatePhoneNumberLength(text, region);
  } catch {
    lengthProblem = undefined;
  }
  const nsn = parsed?.nationalNumber ?? '';
  const unknownAreaCode =
    parsed?.countryCallingCode === '55' &&
    /^\d{10,11}$/.test(nsn) &&
    !(BR_AREA_CODES as readonly string[]).includes(nsn.slice(0, 2));
  const detail = unknownAreaCode
    ? `DDD ${nsn.slice(0, 2)} não existe`
    : lengthProblem
      ? LENGTH_REASONS[lengthProblem]
      : undefined;
  return `${NOT_A_PHONE} ${where}${detail ? ` (${detail})` : ''}`;
}

/** `no Brasil`, `em Portugal`: where a number was read (the country's name in Portuguese). */
function regionPt(region: string): string {
  if (region === 'BR') return 'no Brasil';
  try {
    return `em ${new Intl.DisplayNames(['pt-BR'], { type: 'region' }).of(region) ?? region}`;
  } catch {
    return `em ${region}`;
  }
}

/**
 * Whether a number is a Brazilian mobile by its shape: once normalised (the ninth digit added
 * where {@link normalizePhone} is sure of it), 11 digits, area code then the ninth digit 9
 * (`(11) 98765-4321`, `+55 21 8765-4321`). A landline, a foreign number or no number: false.
 */
export function isBrazilianMobile(input: string): boolean {
  const phone = normalizePhone(input);
  return !('error' in phone) && phone.ddi === '55' && /^[1-9]{2}9\d{8}$/.test(phone.cellphone);
}

/**
 * True for the numbers people type to get past a required phone field: the same digit over and
 * over (`0000000000`, `11999999999`: any number whose last eight digits, the subscriber part of
 * a Brazilian number, are all one digit) or a counting run (`1234567890`, `12345678901`,
 * `9876543210`). Such a number is nobody's: a lead keeps it in notes, never as its cellphone.
 * A real-looking number (`11 98765-4321`) is not a placeholder, however often it is used as one.
 */
export function isPlaceholderPhone(input: string | number): boolean {
  const digits = String(input).replace(/\D/gu, '');
  if (digits.length < 8) return false;
  if (/^(\d)\1{7}$/u.test(digits.slice(-8))) return true;
  return isCountingRun(digits);
}

function isCountingRun(digits: string): boolean {
  const steps = new Set<number>();
  for (let i = 1; i < digits.length; i++) {
    steps.add((Number(digits[i]) - Number(digits[i - 1]) + 10) % 10);
  }
  return steps.size === 1 && (steps.has(1) || steps.has(9));
}
