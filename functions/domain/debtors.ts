/**
 * The seed's Debtor record and Debtors list (with its summary), the status vocabulary and the
 * summary formulas. Production sends `null` for many fields and fields the seed does not list
 * (`idMemberMembership`, `chargeAttemptsCount`, `lastAcquirerDeclineReason`...): the schemas are
 * loose, so every field that arrives is kept.
 */
import * as z from 'zod/mini';
import { externalId } from './json.ts';

const text = z.nullish(z.string());
const id = z.nullish(externalId);

export const debtorSchema = z.looseObject({
  memberId: id,
  name: text,
  memberStatus: text,
  receivableId: id,
  receivableIdOrigin: id,
  branchId: id,
  branchName: text,
  /** ISO 8601 date-time; production omits the zone (`2026-07-10T00:00:00`), meaning local time. */
  dueDate: text,
  paymentDate: text,
  registerDate: text,
  originalDueDate: text,
  chargeDate: text,
  /** Computed by production from `originalDueDate`; wrong after a rescheduled charge. */
  daysLate: z.nullish(z.int()),
  debtAmount: z.nullish(z.number()),
  paymentType: text,
  idPaymentType: id,
  debtStatus: text,
  checkoutLink: text,
  checkoutLinkFullDebt: text,
  paymentOrigin: text,
});
export type Debtor = z.infer<typeof debtorSchema>;

export const debtorsSummarySchema = z.looseObject({
  recoveredValue: z.nullish(z.number()),
  recoveryAverage: z.nullish(z.number()),
  pendingValue: z.nullish(z.number()),
  pendingAverage: z.nullish(z.number()),
});
export type DebtorsSummary = z.infer<typeof debtorsSummarySchema>;

export const debtorsListSchema = z.looseObject({
  results: z.array(debtorSchema),
  total: z.int(),
  summary: z.nullish(debtorsSummarySchema),
});
export type DebtorsList = z.infer<typeof debtorsListSchema>;

/**
 * Status vocabulary. Responses carry the names; the list's filters take numeric codes
 * (production: `debtStatus=1` open, `memberStatus=1` active; the other codes are our decision,
 * documented in docs/upstream.md). Names are compared case-insensitively.
 */
export const DEBT_STATUS = { Open: 1, Recovered: 2 } as const;
export const MEMBER_STATUS = { Active: 1, Inactive: 2, Freeze: 3 } as const;
export type DebtStatusName = keyof typeof DEBT_STATUS;
export type MemberStatusName = keyof typeof MEMBER_STATUS;

/** Maps a filter value (`1`, `"1"`, `"open"`, `"Open"`) to the status name, or undefined. */
export function statusName<T extends Record<string, number>>(
  vocabulary: T,
  value: string | number,
): keyof T | undefined {
  const wanted = String(value).trim().toLowerCase();
  for (const [name, code] of Object.entries(vocabulary)) {
    if (name.toLowerCase() === wanted || String(code) === wanted) return name as keyof T;
  }
  return undefined;
}

export function isStatus(actual: string | null | undefined, name: string): boolean {
  return (actual ?? '').trim().toLowerCase() === name.toLowerCase();
}

/** Rounds a money figure to cents, avoiding binary-float residue (0.1 + 0.2). */
export function roundMoney(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}

/**
 * The four summary figures over a set of rows (the whole filtered set, not one page):
 * - recoveredValue  = sum of `debtAmount` of rows whose `debtStatus` is Recovered
 * - recoveryAverage = recoveredValue / number of Recovered rows (0 when there are none)
 * - pendingValue    = sum of `debtAmount` of rows whose `debtStatus` is Open
 * - pendingAverage  = pendingValue / number of Open rows (0 when there are none)
 * Each is rounded to cents. (Production's sample: 69 open rows, pendingValue 10343.10,
 * pendingAverage 149.90 = 10343.10 / 69, which these formulas reproduce.)
 */
export function computeSummary(rows: readonly Debtor[]): Required<DebtorsSummary> {
  let recovered = 0;
  let recoveredCount = 0;
  let pending = 0;
  let pendingCount = 0;
  for (const row of rows) {
    const amount = row.debtAmount ?? 0;
    if (isStatus(row.debtStatus, 'Recovered')) {
      recovered += amount;
      recoveredCount += 1;
    } else if (isStatus(row.debtStatus, 'Open')) {
      pending += amount;
      pendingCount += 1;
    }
  }
  return {
    recoveredValue: roundMoney(recovered),
    recoveryAverage: recoveredCount ? roundMoney(recovered / recoveredCount) : 0,
    pendingValue: roundMoney(pending),
    pendingAverage: pendingCount ? roundMoney(pending / pendingCount) : 0,
  };
}

/** Query of the debtors list, as production takes it. */
export interface DebtorsQuery {
  idBranch?: number;
  /** Numeric code or name (see DEBT_STATUS). */
  debtStatus?: number | string;
  /** Numeric code or name (see MEMBER_STATUS). */
  memberStatus?: number | string;
  /** Page size; production accepts at most 50. */
  take?: number;
  skip?: number;
}

export const MAX_DEBTORS_PAGE = 50;
