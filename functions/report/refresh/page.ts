/**
 * The paging step of a debtors refresh (functions/report/refresh/refresh.ts): every remaining
 * page of every remaining branch, `take` = PAGE_SIZE, through the upstream client and its pacer.
 * Before each page the invocation's time is checked: with less than `reserveMs` left, or when
 * the pacer has no slot in time, the run is cut short (CutShort: settle.ts saves a checkpoint
 * and asks for a continuation), so no page is fetched twice. A 429 asks for the same page again,
 * at most `rateLimitRetries` times (the pacer waits out Retry-After); the caller's signal stops
 * the run (Interrupted); any other failure fails it.
 */
import type { DebtorsList } from '../../domain/debtors.ts';
import { PacerWaitError } from '../../upstream/pacer.ts';
import { UpstreamError } from '../../upstream/upstream-errors.ts';
import { CutShort, Interrupted, type Running } from './context.ts';
import { PAGE_SIZE, recordPage } from './progress.ts';

/** Reads pages into the progress until no branch remains. */
export async function readPages(r: Running): Promise<void> {
  const { progress } = r;
  for (
    let branchId = progress.remainingBranches[0];
    branchId !== undefined;
    branchId = progress.remainingBranches[0]
  ) {
    recordPage(progress, branchId, await fetchPage(r, branchId, progress.skip));
  }
  r.where = undefined;
}

/** One page; a 429 asks again (the pacer waits out Retry-After). */
async function fetchPage(r: Running, branchId: number, skip: number): Promise<DebtorsList> {
  const { signal: stop } = r.deps;
  for (let attempt = 1; ; attempt += 1) {
    r.where = { branchId, skip, attempts: attempt };
    const budget = r.remainingMs() - r.reserveMs;
    if (!(budget > 0)) throw new CutShort('the invocation is running out of time');
    const deadline = new AbortController();
    const timer = Number.isFinite(budget)
      ? setTimeout(() => deadline.abort(new CutShort('deadline')), budget)
      : undefined;
    const signal = stop ? AbortSignal.any([deadline.signal, stop]) : deadline.signal;
    try {
      const page = await r.source.client.listDebtors(
        { idBranch: branchId, take: PAGE_SIZE, skip },
        { signal },
      );
      r.progress.pageCalls += 1;
      r.pagesRead += 1;
      return page;
    } catch (error) {
      // Aborted while waiting for the pacer or the answer, or a shared pacer refused a wait
      // longer than its limit (PacerWaitError, nothing sent): the page is asked again later.
      if (deadline.signal.aborted) throw new CutShort('deadline');
      if (error instanceof PacerWaitError) {
        // No slot in time, or the account's leads go first: continue once the slot is free.
        throw new CutShort('the pacer has no slot in time', error.waitMs);
      }
      if (stop?.aborted) throw new Interrupted('stopped');
      r.progress.pageCalls += 1;
      if (
        error instanceof UpstreamError &&
        error.kind === 'rate-limited' &&
        attempt <= r.rateLimitRetries
      ) {
        continue;
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
