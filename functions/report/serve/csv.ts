/**
 * The debtors report as CSV that opens correctly, accents included, in Excel and LibreOffice
 * set to Portuguese (Brazil), which is who reads it. Pure. Dialect `br` (the default: BOM, `;`,
 * decimal comma, Portuguese headers and values) or `intl` (`,`, decimal point, the JSON's names
 * and values); both CRLF, RFC 4180 quoting and a guard against formula injection; the file's
 * name says what it holds (csvFileName). Why each choice: docs/architecture.md.
 */
import { guardFormula, quoteField } from '../../kernel/csv-cell.ts';
import type { ReportRow } from './report-json.ts';

export interface CsvDialect {
  delimiter: ';' | ',';
  decimal: ',' | '.';
  /** `pt`: Portuguese headers and status values; `en`: field names and values as in the JSON. */
  language: 'pt' | 'en';
}

export const CSV_DIALECTS = {
  br: { delimiter: ';', decimal: ',', language: 'pt' },
  intl: { delimiter: ',', decimal: '.', language: 'en' },
} as const satisfies Record<string, CsvDialect>;

/**
 * Column headers of the `br` dialect, by field. `daysLate` is the upstream's own count (from
 * `originalDueDate`); `daysOverdue` is ours (from `dueDate`, stopped at the payment date), so
 * the reader's "Dias em atraso" is ours. Fields not listed keep their own name.
 */
export const CSV_HEADERS_PT: Readonly<Record<string, string>> = {
  memberId: 'Código do aluno',
  name: 'Nome',
  memberStatus: 'Situação do aluno',
  receivableId: 'Código do recebível',
  receivableIdOrigin: 'Recebível de origem',
  branchId: 'Código da unidade',
  branchName: 'Unidade',
  dueDate: 'Vencimento',
  paymentDate: 'Data do pagamento',
  registerDate: 'Data de lançamento',
  originalDueDate: 'Vencimento original',
  chargeDate: 'Data da cobrança',
  daysLate: 'Dias de atraso (calculado pelo EVO)',
  debtAmount: 'Valor',
  paymentType: 'Forma de pagamento',
  idPaymentType: 'Código da forma de pagamento',
  debtStatus: 'Situação',
  checkoutLink: 'Link de cobrança',
  checkoutLinkFullDebt: 'Link de cobrança (dívida total)',
  paymentOrigin: 'Origem do pagamento',
  idMemberMembership: 'Código da matrícula',
  chargeAttemptsCount: 'Tentativas de cobrança',
  lastAcquirerDeclineReason: 'Último motivo de recusa',
  daysOverdue: 'Dias em atraso (até hoje ou até o pagamento)',
  ageingBucket: 'Faixa de atraso',
};

/**
 * Values of the `br` dialect, by field, matched ignoring case and surrounding spaces. A value
 * not listed (a status the vocabulary lacks) is written as sent.
 */
export const CSV_VALUES_PT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  debtStatus: { open: 'Em aberto', recovered: 'Recuperado' },
  memberStatus: { active: 'Ativo', inactive: 'Inativo', freeze: 'Congelado' },
  ageingBucket: {
    current: 'A vencer',
    '1-30': '1 a 30 dias',
    '31-60': '31 a 60 dias',
    '61-90': '61 a 90 dias',
    '91+': '91 dias ou mais',
  },
  // The card acquirer's refusal, as the upstream passes it on (English); an unknown one is kept
  // as sent, marked (DECLINE_UNKNOWN_PT).
  lastAcquirerDeclineReason: {
    'insufficient funds': 'Saldo insuficiente',
    'expired card': 'Cartão vencido',
    'do not honor': 'Não autorizada pelo banco emissor',
    'card blocked': 'Cartão bloqueado',
    'transaction not permitted': 'Transação não permitida',
    'invalid card number': 'Número de cartão inválido',
    'stolen card': 'Cartão com restrição',
    'lost card': 'Cartão com restrição',
    'exceeds withdrawal limit': 'Limite excedido',
    'limit exceeded': 'Limite excedido',
    'invalid cvv': 'Código de segurança inválido',
  },
};

/** A refusal reason the vocabulary lacks: written as sent, and said to be untranslated. */
const DECLINE_UNKNOWN_PT = ' (texto original da operadora)';

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';
const BOM = '\uFEFF';
const CRLF = '\r\n';

/** The seed's debtor fields, in the seed's order. */
export const SEED_DEBTOR_FIELDS = [
  'memberId',
  'name',
  'memberStatus',
  'receivableId',
  'receivableIdOrigin',
  'branchId',
  'branchName',
  'dueDate',
  'paymentDate',
  'registerDate',
  'originalDueDate',
  'chargeDate',
  'daysLate',
  'debtAmount',
  'paymentType',
  'idPaymentType',
  'debtStatus',
  'checkoutLink',
  'checkoutLinkFullDebt',
  'paymentOrigin',
] as const;
const COMPUTED_FIELDS = ['daysOverdue', 'ageingBucket'] as const;
const DATE_FIELDS = new Set([
  'dueDate',
  'paymentDate',
  'registerDate',
  'originalDueDate',
  'chargeDate',
]);
const MONEY_FIELDS = new Set(['debtAmount']);

/** The columns for these rows: seed fields, extra upstream fields, then ours. */
export function csvColumns(rows: readonly ReportRow[]): string[] {
  const columns = new Set<string>(SEED_DEBTOR_FIELDS);
  const computed = new Set<string>(COMPUTED_FIELDS);
  for (const row of rows) {
    for (const key of Object.keys(row)) if (!computed.has(key)) columns.add(key);
  }
  return [...columns, ...COMPUTED_FIELDS];
}

/** `2026-07-10T00:00:00` → `2026-07-10`; with a time, `2026-07-10 14:30:00`; else as sent. */
export function spreadsheetDate(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?$/.exec(value);
  if (!match) return value;
  return match[2] === '00:00:00' ? (match[1] as string) : `${match[1]} ${match[2]}`;
}

function formatNumber(value: number, field: string, dialect: CsvDialect): string {
  if (!Number.isFinite(value)) return '';
  const text = MONEY_FIELDS.has(field) ? value.toFixed(2) : String(value);
  return dialect.decimal === '.' ? text : text.replace('.', dialect.decimal);
}

/** `table[key]` when the table itself has it (an upstream field named `constructor` has none). */
function own(table: Readonly<Record<string, string>> | undefined, key: string): string | undefined {
  return table && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** The Portuguese values of `field` in `dialect`, or undefined when its values are written as sent. */
function valuesOf(
  field: string,
  dialect: CsvDialect,
): Readonly<Record<string, string>> | undefined {
  return dialect.language === 'pt' && Object.hasOwn(CSV_VALUES_PT, field)
    ? CSV_VALUES_PT[field]
    : undefined;
}

function text(
  value: unknown,
  field: string,
  dialect: CsvDialect,
  values: Readonly<Record<string, string>> | undefined,
): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return formatNumber(value, field, dialect);
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return guardFormula(JSON.stringify(value));
  if (DATE_FIELDS.has(field)) return guardFormula(spreadsheetDate(value));
  const known = values && own(values, value.trim().toLowerCase());
  if (known === undefined && values && field === 'lastAcquirerDeclineReason' && value.trim()) {
    return guardFormula(`${value}${DECLINE_UNKNOWN_PT}`);
  }
  return guardFormula(known ?? value);
}

/** One cell's text, before quoting: Portuguese statuses in the `pt` dialect. */
export function cellText(value: unknown, field: string, dialect: CsvDialect): string {
  return text(value, field, dialect, valuesOf(field, dialect));
}

/** A column's header in the dialect's language (the field name when it has no Portuguese one). */
export function csvHeader(field: string, dialect: CsvDialect): string {
  return dialect.language === 'pt' ? (own(CSV_HEADERS_PT, field) ?? field) : field;
}

/** The rows as one CSV document (BOM, header line, CRLF after every line). */
export function toCsv(rows: readonly ReportRow[], dialect: CsvDialect = CSV_DIALECTS.br): string {
  const columns = csvColumns(rows);
  // Worked out once per column, not per cell (10,000 rows are 240,000 cells).
  const values = columns.map((column) => valuesOf(column, dialect));
  // A column named like an Object property (`constructor`, an upstream field) reads own fields
  // only: a row that lacks it has an empty cell, not Object's.
  const inherited = columns.map((column) => column in Object.prototype);
  const line = (cells: readonly string[]) =>
    cells.map((cell) => quoteField(cell, dialect.delimiter)).join(dialect.delimiter);
  const lines = [line(columns.map((column) => guardFormula(csvHeader(column, dialect))))];
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    const cells = columns.map((column, i) => {
      const value = inherited[i] && !Object.hasOwn(record, column) ? undefined : record[column];
      return text(value, column, dialect, values[i]);
    });
    lines.push(line(cells));
  }
  return `${BOM}${lines.join(CRLF)}${CRLF}`;
}

/** `YYYY-MM-DD` of an instant in a time zone (UTC when the zone is unknown). */
export function localDate(instant: string | Date, timeZone: string): string {
  const date = typeof instant === 'string' ? new Date(instant) : instant;
  if (Number.isNaN(date.getTime())) return 'sem-data';
  const format = (zone: string) =>
    new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(date);
  try {
    return format(timeZone);
  } catch {
    return format('UTC');
  }
}

/** A branch as the file name may call it: its id and, when the report knows it, its name. */
export interface CsvBranch {
  branchId: number;
  branchName?: string | null;
}

/** `Unidade São João` → `unidade-sao-joao`: ASCII, lower case, words joined by `-`. */
export function fileSlug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
}

/** Branch ids named in a file name at most; more are summed up as `-e-mais-<n>`. */
const MAX_NAMED_BRANCHES = 6;

/**
 * What the file holds, for its name: `todas-as-unidades` (`branches` undefined: every branch of
 * the report), one branch by its name (`unidade-moema`) or, without a name, `unidade-<id>`;
 * several: `unidades-1-3`.
 */
export function csvScopeName(branches: readonly CsvBranch[] | undefined): string {
  if (branches === undefined) return 'todas-as-unidades';
  const [only] = branches;
  if (branches.length === 1 && only) {
    return (only.branchName && fileSlug(only.branchName)) || `unidade-${only.branchId}`;
  }
  const ids = [...new Set(branches.map((b) => b.branchId))].sort((a, b) => a - b);
  const named = ids.slice(0, MAX_NAMED_BRANCHES).join('-');
  const more = ids.length > MAX_NAMED_BRANCHES ? `-e-mais-${ids.length - MAX_NAMED_BRANCHES}` : '';
  return `unidades-${named}${more}`;
}

/**
 * `devedores-<scope>-<date>.csv` (csvScopeName; the date is the report's, in the account's time
 * zone): `devedores-unidade-moema-2026-11-21.csv`, `devedores-todas-as-unidades-2026-11-21.csv`.
 * A page adds its row range: `devedores-todas-as-unidades-2026-11-21-linhas-1-20000.csv`.
 */
export function csvFileName(
  date: string,
  branches: readonly CsvBranch[] | undefined,
  range?: { first: number; last: number },
): string {
  const base = `devedores-${csvScopeName(branches)}-${date}`;
  return range ? `${base}-linhas-${range.first}-${range.last}.csv` : `${base}.csv`;
}
