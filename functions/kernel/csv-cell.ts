/**
 * CSV cells that a spreadsheet opens safely, shared by every CSV a person downloads (the debtors
 * report's, the operator's leads export).
 */

/**
 * What a spreadsheet may take for the start of a formula: `=`, `+`, `-`, `@`, their full-width
 * (`＝＋－＠`) and small (`﹦﹢﹣﹫`) forms and the minus sign `−`, also after leading whitespace
 * (Excel and LibreOffice skip spaces, NBSP and other Unicode spaces, zero-width characters, tab,
 * CR and LF before reading a formula); and a cell that starts with tab, CR or LF itself.
 */
const FORMULA_START =
  /^(?:[\s\u200b-\u200d\u2060]*[=+\-@\uff1d\uff0b\uff0d\uff20\ufe66\ufe62\ufe63\ufe6b\u2212]|[\t\r\n])/u;

/** `'` before text a spreadsheet would take for a formula. */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** RFC 4180: quoted when it holds the delimiter, a quote, CR or LF; quotes doubled. */
export function quoteField(text: string, delimiter: string): string {
  if (text.includes(delimiter) || /["\r\n]/.test(text)) return `"${text.replaceAll('"', '""')}"`;
  return text;
}
