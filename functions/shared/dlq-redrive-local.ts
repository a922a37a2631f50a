/** The dead-letter redrive of the local queue: LocalLeadQueue.redrive, done before it returns. */
import type { DlqRedrive } from './dlq-redrive.ts';
import type { LocalLeadQueue } from './lead-queue-local.ts';

export function createLocalDlqRedrive(queue: Pick<LocalLeadQueue, 'redrive'>): DlqRedrive {
  return {
    async redrive() {
      return { status: 'moved', moved: await queue.redrive() };
    },
  };
}
