/**
 * The reconciler's log lines and metrics (Powertools): lead ids, counts and states only; the
 * hourly personal-data retention's too (retention.ts); and every minute the upstream circuits'
 * gauge: UpstreamCircuitOpen, the number of accounts whose circuit is open (the upstream-down
 * alarm's metric: it stays in alarm while a circuit stays open, where UpstreamCircuitOpened is
 * counted only when one opens), and the same per account (dimension `account`, 1 or 0) for a
 * look at which one.
 */
import { METRICS } from '../../kernel/metrics.ts';
import { count, countBy, logger } from '../../kernel/observability.ts';
import type { ReconcileEvents } from './reconcile.ts';

export const reconcileEvents: ReconcileEvents = {
  woke(event) {
    logger.info('lead woken by the reconciler', event);
    count(METRICS.leadWoken);
  },
  finished(event) {
    if (event.due > 0 || event.more) logger.info('reconciler run', { ...event });
  },
};

/** The circuits' gauge (module comment): one total, and one value per account. */
export function circuitsGauge(circuits: ReadonlyArray<{ account: string; open: boolean }>): void {
  const open = circuits.filter((circuit) => circuit.open);
  count(METRICS.upstreamCircuitOpen, open.length);
  for (const circuit of circuits) {
    countBy(METRICS.upstreamCircuitOpen, ['account', circuit.account], circuit.open ? 1 : 0);
  }
  if (open.length > 0) {
    logger.info('upstream circuits open', { accounts: open.map((circuit) => circuit.account) });
  }
}

/** The personal-data retention's (retention.ts), run by the reconciler once an hour. */
export const retentionEvents = {
  redacted(event: { leadId: string; status: string }) {
    logger.info('lead personal data removed (retention)', event);
    count(METRICS.leadRedacted);
  },
  /** A run's counts, when it removed anything or has more to do. */
  ran(event: { redacted: number; more: boolean; days: number }) {
    if (event.redacted > 0 || event.more) logger.info('personal data retention run', event);
  },
};
