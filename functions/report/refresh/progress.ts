/**
 * Where a debtors refresh stands (functions/report/refresh/refresh.ts): the branches still to
 * page, the position in the current one, the pages asked so far and every row read, one entry
 * per branch. Also how that progress is kept between invocations: the checkpoint the store
 * writes (its `rows` opaque to the store) and how a saved one is read back, refused when it does
 * not hang together. Pure.
 */
import * as z from 'zod/mini';
import {
  type DebtorsList,
  debtorSchema,
  debtorsSummarySchema,
  MAX_DEBTORS_PAGE,
} from '../../domain/debtors.ts';
import type { RefreshCheckpoint } from '../store/report-store.ts';

/** Rows per page: production's maximum. */
export const PAGE_SIZE = MAX_DEBTORS_PAGE;

export interface Progress {
  refreshId: string;
  startedAt: string;
  remainingBranches: number[];
  skip: number;
  pageCalls: number;
  /** One entry per branch started, in order; the last one may still be in progress. */
  branches: BranchProgress[];
}

/**
 * One branch's pages so far, as kept in the checkpoint's `rows` (the store keeps them
 * opaque): rows as the upstream sent them, and its last page's total and summary.
 */
export interface BranchProgress {
  branchId: number;
  total: number;
  summary: DebtorsList['summary'];
  rows: DebtorsList['results'];
  done: boolean;
}

const branchProgressSchema = z.object({
  branchId: z.int(),
  total: z.int(),
  summary: z.nullish(debtorsSummarySchema),
  rows: z.array(debtorSchema),
  done: z.boolean(),
});

/** A refresh that starts now: every configured branch once, in ascending order. */
export function newProgress(
  refreshId: string,
  startedAt: string,
  branches: readonly number[],
): Progress {
  return {
    refreshId,
    startedAt,
    remainingBranches: [...new Set(branches)].sort((a, b) => a - b),
    skip: 0,
    pageCalls: 0,
    branches: [],
  };
}

/**
 * Adds a page of `branchId` (the first remaining branch) to the progress. A short page, or one
 * that reaches the branch's total, ends the branch: the next one starts at skip 0.
 */
export function recordPage(progress: Progress, branchId: number, page: DebtorsList): void {
  let entry = progress.branches.find((b) => b.branchId === branchId && !b.done);
  if (!entry) {
    entry = { branchId, total: page.total, summary: page.summary, rows: [], done: false };
    progress.branches.push(entry);
  }
  entry.rows.push(...page.results);
  entry.total = page.total;
  entry.summary = page.summary;
  progress.skip += page.results.length;
  if (page.results.length < PAGE_SIZE || progress.skip >= page.total) {
    entry.done = true;
    progress.remainingBranches.shift();
    progress.skip = 0;
  }
}

export function rowCount(progress: Progress): number {
  return progress.branches.reduce((sum, b) => sum + b.rows.length, 0);
}

export function checkpointOf(progress: Progress): RefreshCheckpoint {
  return {
    refreshId: progress.refreshId,
    startedAt: progress.startedAt,
    remainingBranches: progress.remainingBranches,
    skip: progress.skip,
    pageCalls: progress.pageCalls,
  };
}

/** The progress a saved checkpoint holds, or undefined when it does not hang together. */
export function restore(saved: {
  checkpoint: RefreshCheckpoint;
  rows: unknown[];
}): Progress | undefined {
  const { checkpoint } = saved;
  const parsed = z.array(branchProgressSchema).safeParse(saved.rows);
  if (!parsed.success) return undefined;
  const branches: BranchProgress[] = parsed.data.map((b) => ({
    branchId: b.branchId,
    total: b.total,
    summary: b.summary,
    rows: b.rows,
    done: b.done,
  }));
  const [current] = checkpoint.remainingBranches;
  const open = branches.find((b) => !b.done);
  // The branch being paged is the first remaining one, and its rows so far are `skip` rows.
  const readSoFar = open ? open.rows.length : 0;
  if (open && open.branchId !== current) return undefined;
  if (readSoFar !== checkpoint.skip) return undefined;
  if (Number.isNaN(Date.parse(checkpoint.startedAt))) return undefined;
  return { ...checkpoint, remainingBranches: [...checkpoint.remainingBranches], branches };
}
