/** The dead-letter redrive of the local queue: LocalLeadQueue.redrive, done before it returns. */

import type { LocalLeadQueue } from '../ledger/lead-queue-local.ts';
import type { DlqRedrive } from './dlq-redrive.ts';

export function createLocalDlqRedrive(queue: Pick<LocalLeadQueue, 'redrive'>): DlqRedrive {
  return {
    async redrive() {
      return { status: 'moved', moved: await queue.redrive() };
    },
  };
}
