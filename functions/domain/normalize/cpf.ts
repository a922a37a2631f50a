/**
 * CPF (Brazilian individual taxpayer number) normalisation: 11 digits, the last two being mod-11
 * check digits. Pure: no AWS, no process.env, never throws.
 */

export type CpfResult = { cpf: string } | { error: string };

/** Punctuation people and forms put in a CPF (`123.456.789-09`, `123 456 789/09`). */
const CPF_TEXT = /^[\d\s.\-/]+$/u;
/** An optional leading label, as in `CPF: 123.456.789-09` or `cpf nº 123...`. */
const CPF_LABEL = /^\s*cpf\s*(?:n[º°o.]?\s*)?[:.-]?\s*/iu;
const MAX_INPUT_LENGTH = 40;

/**
 * The two check digits for the first nine digits of a CPF (the usual mod-11 algorithm: weights
 * 10..2 for the first digit, 11..2 for the second; a remainder below 2 gives 0).
 * Throws a RangeError unless given exactly nine ASCII digits: it is a generator, not a validator.
 */
export function cpfCheckDigits(nineDigits: string): string {
  if (!/^\d{9}$/.test(nineDigits)) {
    throw new RangeError('cpfCheckDigits needs exactly 9 ASCII digits');
  }
  const first = checkDigit(nineDigits);
  return `${first}${checkDigit(nineDigits + first)}`;
}

function checkDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * (digits.length + 1 - i);
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/**
 * Normalise a CPF to its 11 digits. Accepts the usual punctuation and a leading `CPF:` label;
 * refuses any other text, a wrong digit count, all-equal sequences (`111.111.111-11` passes the
 * checksum but is never issued) and wrong check digits.
 *
 * A JSON number loses leading zeros (`1234567890` for `012.345.678-90`), so a numeric input is
 * left-padded to 11 digits; a string is never padded, as a missing digit there is a typo.
 */
export function normalizeCpf(input: string | number): CpfResult {
  let digits: string;
  if (typeof input === 'number') {
    if (!Number.isSafeInteger(input) || input < 0)
      return { error: 'o CPF não é um número inteiro' };
    digits = String(input).padStart(11, '0');
  } else if (typeof input === 'string') {
    if (input.length > MAX_INPUT_LENGTH) return { error: 'o CPF é longo demais' };
    const text = input.replace(CPF_LABEL, '');
    if (!text.trim()) return { error: 'o CPF está vazio' };
    if (!CPF_TEXT.test(text)) {
      return { error: 'o CPF só pode ter dígitos, os sinais . - / e espaços' };
    }
    digits = text.replace(/\D/gu, '');
  } else {
    return { error: 'o CPF não é texto' };
  }

  if (digits.length !== 11) return { error: `o CPF deve ter 11 dígitos, tem ${digits.length}` };
  if (/^(\d)\1{10}$/.test(digits))
    return { error: 'um CPF com todos os dígitos iguais não é válido' };
  if (cpfCheckDigits(digits.slice(0, 9)) !== digits.slice(9)) {
    return { error: 'os dígitos verificadores do CPF não conferem' };
  }
  return { cpf: digits };
}

/** Whether `input` is a valid CPF under {@link normalizeCpf}'s rules. */
export function isValidCpf(input: string | number): boolean {
  return 'cpf' in normalizeCpf(input);
}
