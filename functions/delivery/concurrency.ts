/**
 * How many forwarder batches run at once, derived from the configured accounts (docs/operations.md,
 * "Fairness and concurrency"). Pure: the deploy (infra/leads-stack.ts: the forwarder's reserved
 * concurrency and its event source's MaximumConcurrency) and the local runtime (its workers,
 * functions/delivery/service-local.ts) both use it.
 *
 * A batch runs each account's records in order and the accounts side by side (forward/handler.ts),
 * and an attempt holds its instance for about `ATTEMPT_SECONDS` (the upstream's answer and the
 * ledger's writes). So N accounts at their limits need about Σ rate × ATTEMPT_SECONDS attempts in
 * flight, and at least one batch per account so that each account's sequence runs beside the
 * others; never fewer than 2 (Lambda's minimum MaximumConcurrency), never more than the ceiling.
 */

/** The seconds an attempt holds its instance (a POST's answer at p99, plus the ledger's writes). */
export const ATTEMPT_SECONDS = 2;

/**
 * The ceiling, and why: 50 batches of 5 are 250 attempts at once, more than any set of upstream
 * keys we pace can take, and well inside Lambda's default 1,000 concurrent executions per Region,
 * which the API's functions share. Raise it only with the account's quota.
 */
export const MAX_FORWARDER_CONCURRENCY = 50;
export const MAX_FORWARDER_CONCURRENCY_REASON =
  "250 attempts at once (50 batches of 5) exceed what the configured upstream keys can take, and stay well inside Lambda's default 1,000 concurrent executions per Region, shared with the API";

/** Lambda's smallest MaximumConcurrency for an SQS event source. */
const MIN_FORWARDER_CONCURRENCY = 2;

export interface AccountRate {
  maxPerSecond: number;
  maxPerMinute: number;
}

/** The settings' accounts: `upstream` (default) and the named `upstreams`. */
export function accountRates(settings: {
  upstream: AccountRate;
  upstreams?: Record<string, AccountRate> | undefined;
}): AccountRate[] {
  return [settings.upstream, ...Object.values(settings.upstreams ?? {})];
}

/** The forwarder's batches in flight at once for these accounts, and why. */
export function forwarderConcurrency(accounts: readonly AccountRate[]): {
  concurrency: number;
  reason: string;
} {
  // An account's sustained rate: the tighter of its two windows.
  const total = accounts.reduce((sum, a) => sum + Math.min(a.maxPerSecond, a.maxPerMinute / 60), 0);
  const needed = Math.max(
    MIN_FORWARDER_CONCURRENCY,
    accounts.length,
    Math.ceil(total * ATTEMPT_SECONDS),
  );
  if (needed > MAX_FORWARDER_CONCURRENCY) {
    return {
      concurrency: MAX_FORWARDER_CONCURRENCY,
      reason: `${accounts.length} accounts at ${round(total)} requests/s would need ${needed}; capped at ${MAX_FORWARDER_CONCURRENCY}: ${MAX_FORWARDER_CONCURRENCY_REASON}`,
    };
  }
  return {
    concurrency: needed,
    reason: `${accounts.length} accounts at ${round(total)} requests/s in all: at least one batch per account, and ${ATTEMPT_SECONDS} s per attempt × the total rate`,
  };
}

const round = (n: number) => Math.round(n * 100) / 100;
