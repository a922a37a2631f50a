/**
 * The report's CSV (functions/report/serve/csv.ts): parsed back with a strict RFC 4180 parser and
 * compared with the rows, for the Brazilian dialect (`;`, decimal comma) and the international
 * one (`,`, decimal point).
 */
import { describe, expect, it } from 'vitest';
import { guardFormula } from '../../../functions/kernel/csv-cell.ts';
import {
  CSV_DIALECTS,
  type CsvDialect,
  cellText,
  csvColumns,
  csvFileName,
  csvScopeName,
  fileSlug,
  localDate,
  SEED_DEBTOR_FIELDS,
  spreadsheetDate,
  toCsv,
} from '../../../functions/report/serve/csv.ts';
import type { ReportRow } from '../../../functions/report/serve/report-json.ts';

/**
 * RFC 4180, strictly: records end with CRLF (the last one too), a quoted field may hold the
 * delimiter, CR, LF and doubled quotes; a quote or a bare CR/LF anywhere else is an error.
 */
function parseCsv(text: string, delimiter: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' && field === '') {
      i += 1;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        field += text[i];
        i += 1;
      }
      if (i < text.length && text[i] !== delimiter && text[i] !== '\r') {
        throw new Error(`text after a closing quote at ${i}`);
      }
      continue;
    }
    if (c === delimiter) {
      record.push(field);
      field = '';
      i += 1;
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else if (c === '"' || c === '\r' || c === '\n') {
      throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
    } else {
      field += c;
      i += 1;
    }
  }
  if (field !== '' || record.length > 0) throw new Error('the last record does not end with CRLF');
  return records;
}

function row(overrides: Partial<ReportRow> & Record<string, unknown>): ReportRow {
  return {
    memberId: 10_501,
    name: 'MARIA DA SILVA',
    memberStatus: 'Active',
    receivableId: 700_100,
    receivableIdOrigin: null,
    branchId: 1,
    branchName: 'Unidade Centro',
    dueDate: '2026-07-10T00:00:00',
    paymentDate: null,
    registerDate: '2026-06-20T14:31:05',
    originalDueDate: '2026-07-10T00:00:00',
    chargeDate: null,
    daysLate: 134,
    debtAmount: 149.9,
    paymentType: 'Cartão de crédito',
    idPaymentType: 1,
    debtStatus: 'Open',
    checkoutLink: 'https://checkout.example/r/700100?t=abc&x=1',
    checkoutLinkFullDebt: null,
    paymentOrigin: null,
    idMemberMembership: 50_123,
    chargeAttemptsCount: 3,
    daysOverdue: 134,
    ageingBucket: '91+',
    ...overrides,
  } as ReportRow;
}

const ROWS: ReportRow[] = [
  row({}),
  row({ name: 'JOÃO CONCEIÇÃO D’ÁVILA', debtAmount: 1234.5, receivableId: 700_101 }),
  row({ name: 'ANA "ANINHA" SOUZA; FILHA, NETA', debtAmount: 0.1 + 0.2, receivableId: 700_102 }),
  row({ name: 'MARIA\r\nDAS DORES\nSEGUNDA LINHA', receivableId: 700_103 }),
  row({ name: '=HYPERLINK("http://evil.example","clique")', receivableId: 700_104 }),
  row({ name: '+5511999999999', receivableId: 700_105 }),
  row({ name: '-2+3', receivableId: 700_106 }),
  row({ name: '@SUM(A1:A9)', receivableId: 700_107 }),
  row({ name: '\tTAB', receivableId: 700_108 }),
  row({ name: '\rCR', receivableId: 700_109 }),
  row({
    name: null,
    debtAmount: null,
    dueDate: null,
    debtStatus: 'Recovered',
    paymentDate: '2026-08-01T09:15:00',
    daysOverdue: null,
    ageingBucket: null,
    receivableId: 700_110,
  }),
  row({ name: 'ZOË 😀 ÇÃ', debtAmount: 10, receivableId: '98765432109876543210' as never }),
];

/** The header line a Brazilian reader sees for ROWS (seed fields, two extras, ours). */
const PT_HEADER = [
  'Código do aluno',
  'Nome',
  'Situação do aluno',
  'Código do recebível',
  'Recebível de origem',
  'Código da unidade',
  'Unidade',
  'Vencimento',
  'Data do pagamento',
  'Data de lançamento',
  'Vencimento original',
  'Data da cobrança',
  'Dias de atraso (calculado pelo EVO)',
  'Valor',
  'Forma de pagamento',
  'Código da forma de pagamento',
  'Situação',
  'Link de cobrança',
  'Link de cobrança (dívida total)',
  'Origem do pagamento',
  'Código da matrícula',
  'Tentativas de cobrança',
  'Dias em atraso (até hoje ou até o pagamento)',
  'Faixa de atraso',
];

/** Statuses as the Brazilian CSV writes them, stated independently of the code. */
const PT_VALUES: Record<string, Record<string, string>> = {
  debtStatus: { Open: 'Em aberto', Recovered: 'Recuperado' },
  memberStatus: { Active: 'Ativo', Inactive: 'Inativo', Freeze: 'Congelado' },
  ageingBucket: { '91+': '91 dias ou mais' },
};

/** What a cell should read as, from the row's value: the same rules, stated independently. */
function expectedCell(value: unknown, column: string, dialect: CsvDialect): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    const plain = column === 'debtAmount' ? value.toFixed(2) : String(value);
    return dialect.decimal === ',' ? plain.replace('.', ',') : plain;
  }
  let textValue = String(value);
  if (/Date$/.test(column)) {
    textValue = textValue.replace(/^(\d{4}-\d{2}-\d{2})T00:00:00$/, '$1').replace('T', ' ');
  }
  if (dialect.delimiter === ';') textValue = PT_VALUES[column]?.[textValue] ?? textValue;
  return /^[=+\-@\t\r]/.test(textValue) ? `'${textValue}` : textValue;
}

describe('toCsv', () => {
  for (const [name, dialect] of Object.entries(CSV_DIALECTS)) {
    it(`round-trips every cell (${name}: "${dialect.delimiter}", decimal "${dialect.decimal}")`, () => {
      const csv = toCsv(ROWS, dialect);
      expect(csv.startsWith('\uFEFF')).toBe(true);
      expect(Buffer.from(csv, 'utf8').subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      const records = parseCsv(csv.slice(1), dialect.delimiter);
      const columns = csvColumns(ROWS);
      expect(records[0]).toEqual(name === 'br' ? PT_HEADER : columns);
      expect(records).toHaveLength(ROWS.length + 1);
      ROWS.forEach((source, i) => {
        const record = records[i + 1] ?? [];
        expect(record).toHaveLength(columns.length);
        columns.forEach((column, c) => {
          const value = (source as Record<string, unknown>)[column];
          expect(record[c], `${column} of row ${i}`).toBe(expectedCell(value, column, dialect));
        });
      });
    });
  }

  it('keeps accents, quotes, delimiters and line breaks of a name in one cell', () => {
    const records = parseCsv(toCsv(ROWS).slice(1), ';');
    const names = records.slice(1).map((r) => r[1]);
    expect(names).toContain('JOÃO CONCEIÇÃO D’ÁVILA');
    expect(names).toContain('ANA "ANINHA" SOUZA; FILHA, NETA');
    expect(names).toContain('MARIA\r\nDAS DORES\nSEGUNDA LINHA');
    expect(names).toContain('ZOË 😀 ÇÃ');
  });

  it('guards every text cell a spreadsheet would run as a formula', () => {
    const records = parseCsv(toCsv(ROWS).slice(1), ';');
    const names = records.slice(1).map((r) => r[1] ?? '');
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const cell = names.find((n) => n.slice(1).startsWith(start));
      expect(cell, `a name starting with ${JSON.stringify(start)}`).toBeDefined();
      expect(cell?.startsWith("'")).toBe(true);
    }
    expect(names.filter((n) => /^[=+\-@\t\r]/.test(n))).toEqual([]);
    // Numbers we write are not text: a negative number stays a number.
    expect(cellText(-5, 'daysOverdue', CSV_DIALECTS.br)).toBe('-5');
    expect(guardFormula('MARIA')).toBe('MARIA');
  });

  it('writes the card’s refusal reason in Portuguese, an unknown one as sent and marked', () => {
    const reason = (value: string, dialect: CsvDialect = CSV_DIALECTS.br) =>
      cellText(value, 'lastAcquirerDeclineReason', dialect);
    expect(reason('Insufficient funds')).toBe('Saldo insuficiente');
    expect(reason('Do not honor')).toBe('Não autorizada pelo banco emissor');
    expect(reason('Suspected fraud')).toBe('Suspected fraud (texto original da operadora)');
    expect(reason('Insufficient funds', CSV_DIALECTS.intl)).toBe('Insufficient funds');
  });

  it.each([
    ['a leading space', ' =1+1'],
    ['a non-breaking space', '\u00a0=HYPERLINK("http://evil.example")'],
    ['an ideographic space', '\u3000+1'],
    ['a zero-width space', '\u200b@SUM(A1)'],
    ['a tab then =', '\t=1'],
    ['a line feed', '\n=1'],
    ['a carriage return then -', '\r-1+1'],
    ['a full-width equals', '＝1+1'],
    ['a full-width plus', '＋1'],
    ['a full-width minus', '－1'],
    ['a full-width at', '＠SUM(A1)'],
    ['spaces then a full-width equals', '  ＝1'],
    ['a minus sign', '−1+1'],
    ['a bare line feed', '\nMARIA'],
  ])('guards a cell starting with %s', (_, value) => {
    // Prepare
    const rows = [row({ name: value })];

    // Act
    const records = parseCsv(toCsv(rows).slice(1), ';');

    // Assess
    expect(records[1]?.[1]).toBe(`'${value}`);
  });

  it('leaves text that only contains formula characters later on as it is', () => {
    expect(guardFormula('MARIA =1')).toBe('MARIA =1');
    expect(guardFormula(' MARIA')).toBe(' MARIA');
    expect(guardFormula('SILVA-SOUZA')).toBe('SILVA-SOUZA');
  });

  it('writes amounts with two decimals and the dialect’s decimal separator, no thousands', () => {
    const br = parseCsv(toCsv(ROWS).slice(1), ';');
    const intl = parseCsv(toCsv(ROWS, CSV_DIALECTS.intl).slice(1), ',');
    const column = csvColumns(ROWS).indexOf('debtAmount');
    expect(br.slice(1, 4).map((r) => r[column])).toEqual(['149,90', '1234,50', '0,30']);
    expect(intl.slice(1, 4).map((r) => r[column])).toEqual(['149.90', '1234.50', '0.30']);
  });

  it('ends every line with CRLF and has no bare line feed outside quotes', () => {
    const csv = toCsv([row({})]);
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('writes Portuguese headers and statuses by default, and English ones in intl', () => {
    // Prepare
    const rows = [
      row({ memberStatus: 'Freeze', debtStatus: 'Recovered', ageingBucket: 'current' }),
      row({ memberStatus: 'inactive', debtStatus: ' open ', ageingBucket: '31-60' }),
      row({ memberStatus: 'Suspended', debtStatus: 'Cancelled', ageingBucket: null }),
      row({ constructor: 'x', '=cmd': 'y' }),
    ];

    // Act
    const br = parseCsv(toCsv(rows).slice(1), ';');
    const intl = parseCsv(toCsv(rows, CSV_DIALECTS.intl).slice(1), ',');

    // Assess
    const column = (records: string[][], header: string) =>
      records.slice(1).map((r) => r[(records[0] ?? []).indexOf(header)]);
    expect(column(br, 'Situação do aluno')).toEqual(['Congelado', 'Inativo', 'Suspended', 'Ativo']);
    expect(column(br, 'Situação')).toEqual(['Recuperado', 'Em aberto', 'Cancelled', 'Em aberto']);
    expect(column(br, 'Faixa de atraso')).toEqual([
      'A vencer',
      '31 a 60 dias',
      '',
      '91 dias ou mais',
    ]);
    // Fields without a Portuguese name keep their own, still guarded against formulas.
    expect(br[0]).toEqual(expect.arrayContaining(['constructor', "'=cmd"]));
    expect(column(br, 'constructor')).toEqual(['', '', '', 'x']);
    expect(column(intl, 'memberStatus')).toEqual(['Freeze', 'inactive', 'Suspended', 'Active']);
    expect(column(intl, 'debtStatus')).toEqual(['Recovered', ' open ', 'Cancelled', 'Open']);
    expect(column(intl, 'ageingBucket')).toEqual(['current', '31-60', '', '91+']);
  });

  it('orders columns: seed fields, extra upstream fields, then ours', () => {
    const columns = csvColumns(ROWS);
    expect(columns.slice(0, SEED_DEBTOR_FIELDS.length)).toEqual([...SEED_DEBTOR_FIELDS]);
    expect(columns.slice(SEED_DEBTOR_FIELDS.length)).toEqual([
      'idMemberMembership',
      'chargeAttemptsCount',
      'daysOverdue',
      'ageingBucket',
    ]);
    expect(parseCsv(toCsv([], CSV_DIALECTS.intl).slice(1), ',')).toEqual([
      [...SEED_DEBTOR_FIELDS, 'daysOverdue', 'ageingBucket'],
    ]);
    expect(parseCsv(toCsv([]).slice(1), ';')).toEqual([
      PT_HEADER.filter((h) => !['Código da matrícula', 'Tentativas de cobrança'].includes(h)),
    ]);
  });
});

describe('helpers', () => {
  it('writes dates as spreadsheets read them', () => {
    expect(spreadsheetDate('2026-07-10T00:00:00')).toBe('2026-07-10');
    expect(spreadsheetDate('2026-07-10T14:30:05')).toBe('2026-07-10 14:30:05');
    expect(spreadsheetDate('2026-07-10T14:30:05.123')).toBe('2026-07-10 14:30:05');
    expect(spreadsheetDate('2026-07-10T14:30:05Z')).toBe('2026-07-10T14:30:05Z');
  });

  it('names the file by the report’s local date and the branches it holds', () => {
    expect(localDate('2026-11-22T01:30:00Z', 'America/Sao_Paulo')).toBe('2026-11-21');
    expect(localDate('2026-11-22T01:30:00Z', 'Not/AZone')).toBe('2026-11-22');
    expect(csvFileName('2026-11-21', undefined)).toBe('devedores-todas-as-unidades-2026-11-21.csv');
    expect(csvFileName('2026-11-21', [{ branchId: 2 }])).toBe('devedores-unidade-2-2026-11-21.csv');
    expect(csvFileName('2026-11-21', [{ branchId: 2, branchName: 'Unidade São João' }])).toBe(
      'devedores-unidade-sao-joao-2026-11-21.csv',
    );
    expect(csvFileName('2026-11-21', [{ branchId: 3 }, { branchId: 1, branchName: 'X' }])).toBe(
      'devedores-unidades-1-3-2026-11-21.csv',
    );
    expect(csvFileName('2026-11-21', undefined, { first: 1, last: 500 })).toBe(
      'devedores-todas-as-unidades-2026-11-21-linhas-1-500.csv',
    );
  });

  it('keeps file names short, ASCII and safe in a Content-Disposition header', () => {
    expect(fileSlug('  ACADEMIA "Força & Saúde" — Centro/Sul  ')).toBe(
      'academia-forca-saude-centro-sul',
    );
    expect(fileSlug('Unidade ñ 12')).toBe('unidade-n-12');
    expect(fileSlug('a'.repeat(100))).toHaveLength(60);
    // A name with nothing usable falls back to the id.
    expect(csvScopeName([{ branchId: 7, branchName: '★★★' }])).toBe('unidade-7');
    const many = Array.from({ length: 9 }, (_, i) => ({ branchId: i + 1 }));
    expect(csvScopeName(many)).toBe('unidades-1-2-3-4-5-6-e-mais-3');
    for (const name of [csvFileName('2026-11-21', [{ branchId: 1, branchName: 'Ação "x"; y' }])]) {
      expect(name).toMatch(/^[a-z0-9.-]+$/);
    }
  });
});
