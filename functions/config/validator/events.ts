/**
 * The configuration validator's log lines: how many profiles a version has, and what is wrong
 * with a refused one (its problems name keys, never values: the settings hold no secret).
 */
import { logger } from '../../kernel/observability.ts';

export const validatorEvents = {
  accepted(event: { profiles: number }) {
    logger.info('settings version accepted', event);
  },
  refused(error: unknown) {
    logger.warn('settings version refused', {
      problems: error instanceof Error ? error.message : String(error),
    });
  },
};
