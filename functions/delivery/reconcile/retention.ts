/**
 * Personal-data retention (use case, run by the reconciler): parked, dead and test leads wait for
 * nobody's delivery, so after `days` (the configuration's `delivery.personalDataDays`, 30 by
 * default) they lose their personal data (ledger `redact`, reason `retention`): the answers, the
 * Prospect and the upstream's messages go; an anonymous record that the lead existed stays.
 * Delivered and rejected leads leave the ledger whole after its own retention (the table's TTL).
 *
 * It reads the status index by receipt time (`receivedBefore`: oldest first, only the leads old
 * enough), skips the leads already redacted, and stops at `maxLeads` or when time runs short
 * (`more`). Why the reconciler and not a function of its own: it already runs on a schedule with
 * the ledger's reads and writes, so no second cold start, role or schedule; it runs the pass once
 * an hour on AWS (the handler) and once a minute locally. docs/privacy.md. No AWS imports.
 */
import type { LeadStatus } from '../../domain/lead-lifecycle.ts';
import type { LeadLedger } from '../../ledger/lead-ledger.ts';

/** The statuses whose leads lose their personal data after the retention. */
export const RETAINED: readonly LeadStatus[] = ['parked', 'dead', 'test'];

export const DEFAULT_PERSONAL_DATA_DAYS = 30;

export interface RetentionDeps {
  ledger: Pick<LeadLedger, 'listByStatus' | 'redact'>;
  days: number;
  now?: () => Date;
  /** Milliseconds left in this invocation; default unlimited. */
  remainingMs?: () => number;
  /** Leads redacted per run at most. Default 500. */
  maxLeads?: number;
  events?: { redacted(event: { leadId: string; status: LeadStatus }): void };
}

export interface RetentionResult {
  redacted: number;
  /** Stopped early with old leads left. */
  more: boolean;
}

const RESERVE_MS = 5_000;
const PAGE = 100;

export async function redactExpired(deps: RetentionDeps): Promise<RetentionResult> {
  if (!(deps.days > 0)) throw new RangeError('retention days must be positive');
  const clock = deps.now ?? (() => new Date());
  const remainingMs = deps.remainingMs ?? (() => Number.POSITIVE_INFINITY);
  const maxLeads = deps.maxLeads ?? 500;
  const receivedBefore = new Date(clock().getTime() - deps.days * 86_400_000);
  const result: RetentionResult = { redacted: 0, more: false };
  for (const status of RETAINED) {
    let cursor: string | undefined;
    do {
      if (result.redacted >= maxLeads || remainingMs() < RESERVE_MS) {
        result.more = true;
        return result;
      }
      const page = await deps.ledger.listByStatus(status, {
        limit: PAGE,
        receivedBefore,
        ...(cursor !== undefined && { cursor }),
      });
      for (const lead of page.leads) {
        if (lead.redactedAt !== undefined) continue;
        const done = await deps.ledger.redact(lead.leadId, { reason: 'retention', now: clock() });
        if (done?.redactedAt === undefined) continue;
        result.redacted += 1;
        deps.events?.redacted({ leadId: lead.leadId, status: lead.status });
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  }
  return result;
}
