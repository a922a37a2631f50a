/**
 * The configuration store's validator Lambda: AppConfig invokes it with each new version of the
 * settings before deploying it; throwing refuses the version (AppConfig reads the function
 * error). The problems are logged (they name keys, never values: the settings hold no secret).
 */
import { logger } from '../../kernel/observability.ts';
import { PROFILE_RULES } from '../profile-rules.ts';
import { settingsTextOf, validateSettingsText } from './validate.ts';

export async function handler(event: unknown): Promise<{ valid: true; profiles: number }> {
  try {
    const settings = validateSettingsText(settingsTextOf(event), PROFILE_RULES);
    const profiles = Object.keys(settings.profiles).length;
    logger.info('settings version accepted', { profiles });
    return { valid: true, profiles };
  } catch (error) {
    logger.warn('settings version refused', {
      problems: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
}
