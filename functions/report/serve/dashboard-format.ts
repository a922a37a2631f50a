/**
 * The dashboard's pt-BR wording of figures, dates and ages, and the HTML escaping every part of
 * the page goes through (functions/report/serve/dashboard.ts). Pure.
 */
import type { BranchTotals } from '../../domain/debtors-report.ts';
import { datePart } from './report-json.ts';

// Built on first use: ICU's first pt-BR currency formatter costs ~10 ms, which the JSON and CSV
// routes, served by the same function, should not pay at cold start.
let formats: { money: Intl.NumberFormat; integer: Intl.NumberFormat };
function fmt(): typeof formats {
  formats ??= {
    money: new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }),
    integer: new Intl.NumberFormat('pt-BR'),
  };
  return formats;
}

export function formatMoney(value: number): string {
  return fmt().money.format(value);
}

/** A date and time as the reader's locale writes them, in the report's time zone (else UTC). */
export function formatDateTime(iso: string | undefined, timeZone: string): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'short', timeStyle: 'short' };
  try {
    return new Intl.DateTimeFormat('pt-BR', { ...options, timeZone }).format(date);
  } catch {
    return new Intl.DateTimeFormat('pt-BR', { ...options, timeZone: 'UTC' }).format(date);
  }
}

/** `2026-07-10T00:00:00` → `10/07/2026`; `—` when missing. */
export function formatDay(value: string | null | undefined): string {
  const day = datePart(value);
  return day ? `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}` : '—';
}

/**
 * The time zone as people read it (`Horário Padrão de Brasília` for America/Sao_Paulo), else
 * its id.
 */
export function zoneName(timeZone: string): string {
  try {
    const parts = new Intl.DateTimeFormat('pt-BR', {
      timeZone,
      timeZoneName: 'longGeneric',
    }).formatToParts(new Date(0));
    return parts.find((part) => part.type === 'timeZoneName')?.value ?? timeZone;
  } catch {
    return timeZone;
  }
}

export const integer = (n: number) => fmt().integer.format(n);
/** `1 débito`, `1.234 débitos`. */
export const debts = (n: number) => `${integer(n)} ${n === 1 ? 'débito' : 'débitos'}`;

/** The name a branch goes by on the page: its own, else `Unidade <id>`. */
export function branchTitle(branch: Pick<BranchTotals, 'branchId' | 'branchName'>): string {
  return branch.branchName ?? `Unidade ${branch.branchId}`;
}
