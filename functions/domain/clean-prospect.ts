/**
 * The one input cleaner every path into a Prospect passes (map-capture.ts after each mapping,
 * lead-correction.ts after each correction): the Prospect API, every source, an operator's
 * correction. Text loses what no person typed on purpose and what can disguise it: control
 * characters (NUL included), bidirectional overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069, which can make `Ana` display as anything), zero-width characters and the BOM;
 * it is put in Unicode NFC. One-line fields also fold line breaks and tabs into one space. Each
 * field is capped at a length the gym's system can show (FIELD_LIMITS); a cut is said in the
 * notes, so nothing is lost silently. Pure.
 */
import type { MappedLead } from './lead.ts';
import { missingRequiredFields, type Prospect } from './prospect.ts';

/**
 * Characters removed from any text: Unicode's control (Cc: NUL, C0, DEL, C1) and format (Cf:
 * bidi marks, overrides and isolates, zero-width space and joiners, the BOM, soft hyphens)
 * characters, but for the tab and line feed that notes keep.
 */
const INVISIBLE = /(?![\t\n])[\p{Cc}\p{Cf}]/gu;
/** What a one-line field folds into a single space. */
const BREAKS = /[\t\n\r\u2028\u2029]+/gu;

/** The longest value of each text field (characters); the notes are capped by their builder. */
export const FIELD_LIMITS: Readonly<Record<string, number>> = {
  name: 60,
  lastName: 80,
  email: 254,
  ddi: 4,
  cellphone: 20,
  birthday: 40,
  gender: 1,
  marketingType: 100,
  currentStep: 100,
  cpf: 14,
  rg: 20,
  tokenPartner: 200,
  additionalFieldName: 100,
  additionalFieldValue: 500,
  notes: 4000,
};
const RESPONSIBLE_LIMITS: Readonly<Record<string, number>> = { name: 140, email: 254, cpf: 14 };

/** What people call each field in the note about a cut. */
const FIELD_WORDS: Readonly<Record<string, string>> = {
  name: 'nome',
  lastName: 'sobrenome',
  email: 'e-mail',
  cellphone: 'celular',
  marketingType: 'origem (marketingType)',
  additionalFieldValue: 'campo adicional',
  notes: 'observações',
};

/** `text` without invisible characters, in NFC; one line unless `multiline`. */
export function cleanText(text: string, multiline = false): string {
  const nfc = text.normalize('NFC');
  if (multiline) return nfc.replace(INVISIBLE, '').trim();
  return nfc.replace(BREAKS, ' ').replace(INVISIBLE, '').replace(/ {2,}/g, ' ').trim();
}

/** `text` cut to `limit` characters (whole code points, an ellipsis at the cut). */
function cap(text: string, limit: number): { text: string; cut?: number } {
  const points = [...text];
  if (points.length <= limit) return { text };
  return { text: `${points.slice(0, limit - 1).join('')}…`, cut: points.length };
}

/** The cleaned text fields of an object, and a line per field cut. */
function cleanFields(
  object: Record<string, unknown>,
  limits: Readonly<Record<string, number>>,
  prefix: string,
): { cleaned: Record<string, unknown>; cuts: string[] } {
  const cleaned: Record<string, unknown> = { ...object };
  const cuts: string[] = [];
  for (const [field, value] of Object.entries(object)) {
    if (typeof value !== 'string') continue;
    const text = cleanText(value, field === 'notes');
    const limit = limits[field];
    const capped = limit === undefined ? { text } : cap(text, limit);
    cleaned[field] = capped.text;
    if (capped.cut !== undefined && field !== 'notes') {
      const word = FIELD_WORDS[field] ?? field;
      cuts.push(
        `O ${prefix}${word} foi cortado em ${limit} caracteres (tinha ${capped.cut.toLocaleString('pt-BR')}).`,
      );
    }
  }
  return { cleaned, cuts };
}

/** A mapping with its Prospect cleaned (cleanProspect): what is missing read again, cuts noted. */
export function cleanMapped(mapped: MappedLead): MappedLead {
  const { prospect, cuts } = cleanProspect(mapped.prospect);
  return {
    ...mapped,
    prospect,
    missing: missingRequiredFields(prospect),
    ...(cuts.length > 0 && { notices: [...mapped.notices, ...cuts] }),
  };
}

/**
 * The Prospect with every text field cleaned and capped; each cut said at the end of the notes
 * (which keep within their own limit, their end kept).
 */
export function cleanProspect(prospect: Prospect): { prospect: Prospect; cuts: string[] } {
  const own = cleanFields(prospect, FIELD_LIMITS, '');
  const responsible = prospect.financiallyResponsible;
  const other = responsible
    ? cleanFields(responsible, RESPONSIBLE_LIMITS, 'responsável financeiro: ')
    : undefined;
  const cleaned = { ...own.cleaned } as Prospect;
  if (other) cleaned.financiallyResponsible = other.cleaned as Prospect['financiallyResponsible'];
  const cuts = [...own.cuts, ...(other?.cuts ?? [])];
  if (cuts.length > 0) cleaned.notes = withCuts(cleaned.notes ?? '', cuts);
  return { prospect: cleaned, cuts };
}

/** The notes with the cuts said at their end, within the notes' limit. */
function withCuts(notes: string, cuts: readonly string[]): string {
  const said = `Avisos de tamanho:\n${cuts.map((line) => `- ${line}`).join('\n')}`;
  const limit = FIELD_LIMITS.notes ?? 4000;
  const room = limit - said.length - 2;
  if (room <= 0) return cap(said, limit).text;
  const head = notes.length > room ? `${notes.slice(0, room - 1)}…` : notes;
  return head ? `${head}\n\n${said}` : said;
}
