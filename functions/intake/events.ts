/** The intake's log lines and metrics: lead ids, profiles, statuses and codes only. */
import { count, logger } from '../kernel/observability.ts';
import type { IntakeEvents } from './intake.ts';

export const intakeEvents: IntakeEvents = {
  accepted(event) {
    logger.info('lead accepted', event);
    count(event.duplicate ? 'LeadDuplicate' : 'LeadReceived');
    if (!event.duplicate && event.status === 'parked') count('LeadParked');
  },
  refused(event) {
    logger.warn('lead request refused', event);
    count('LeadRefused');
  },
  wakeUpDeferred({ leadId, error }) {
    logger.warn('lead recorded but its queue message failed; the reconciler sends it', {
      leadId,
      error: error instanceof Error ? error.name : String(error),
    });
    count('LeadWakeUpDeferred');
  },
};
