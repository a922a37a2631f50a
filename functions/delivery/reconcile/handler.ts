/**
 * The reconciler Lambda: EventBridge Scheduler invokes it every minute; it wakes the leads that
 * nothing is working on (reconcile.ts) within the invocation's time, records every account's
 * circuit as a gauge (events.ts: the upstream-down alarm reads it, so the alarm lasts as long
 * as the circuit stays open), and in the first run of each hour, the personal-data retention
 * (retention.ts). A failure throws: the schedule simply runs it again a minute later. Wiring is
 * chosen once per container.
 */
import type { Context } from 'aws-lambda';
import { flushMetrics, logger } from '../../kernel/observability.ts';
import { handlerWiring } from '../../kernel/ready.ts';
import { circuitsGauge, retentionEvents } from './events.ts';
import { type ReconcileResult, reconcile } from './reconcile.ts';
import { redactExpired } from './retention.ts';
import type { ReconcilerDeps } from './wiring-aws.ts';

// No local wiring: the local runtime's delivery worker reconciles on its own (delivery/service-local.ts).
const wiring = handlerWiring({
  aws: () => import('./wiring-aws.ts').then((m) => m.awsReconcileDeps()),
});

/** Settles once the wiring is loaded (kernel/ready.ts). */
export const ready = wiring.ready;

/** Every configured account's circuit, read now: open or not. */
async function circuitStates(deps: ReconcilerDeps) {
  const accounts = await deps.accounts();
  return Promise.all(
    accounts.map(async (account) => ({
      account,
      open: (await deps.circuitOf(account).read()).state === 'open',
    })),
  );
}

export async function handler(_event: unknown, context: Context): Promise<ReconcileResult> {
  logger.addContext(context);
  try {
    const deps = await wiring.get();
    const remainingMs = () => context.getRemainingTimeInMillis();
    const result = await reconcile({ ...deps, remainingMs });
    circuitsGauge(await circuitStates(deps));
    // Once an hour (the schedule runs every minute): the retention reads the old leads' index.
    if (new Date().getUTCMinutes() === 0) {
      // From the configuration store: a `config push` changes it without a deploy.
      const days = await deps.personalDataDays();
      const retention = await redactExpired({
        ledger: deps.ledger,
        days,
        remainingMs,
        events: retentionEvents,
      });
      retentionEvents.ran({ ...retention, days });
    }
    return result;
  } finally {
    flushMetrics();
  }
}
