/**
 * The reconciler Lambda: EventBridge Scheduler invokes it every minute; it wakes the leads that
 * nothing is working on (reconcile.ts) within the invocation's time. A failure throws: the
 * schedule simply runs it again a minute later. Wiring is chosen once per container.
 */
import type { Context } from 'aws-lambda';
import { flushMetrics, logger } from '../../kernel/observability.ts';
import { type ReconcileDeps, type ReconcileResult, reconcile } from './reconcile.ts';

let deployed: Promise<ReconcileDeps> | undefined;

export async function handler(_event: unknown, context: Context): Promise<ReconcileResult> {
  logger.addContext(context);
  deployed ??= import('./wiring-aws.ts').then((m) => m.awsReconcileDeps());
  try {
    return await reconcile({
      ...(await deployed),
      remainingMs: () => context.getRemainingTimeInMillis(),
    });
  } finally {
    flushMetrics();
  }
}
