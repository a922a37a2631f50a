/**
 * The configuration store's validator Lambda: AppConfig invokes it with each new version of the
 * settings before deploying it; throwing refuses the version (AppConfig reads the function
 * error). The problems are logged (events.ts: they name keys, never values).
 */
import { PROFILE_RULES } from '../profile-rules.ts';
import { validatorEvents } from './events.ts';
import { settingsTextOf, validateSettingsText } from './validate.ts';

export async function handler(event: unknown): Promise<{ valid: true; profiles: number }> {
  try {
    const settings = validateSettingsText(settingsTextOf(event), PROFILE_RULES);
    const profiles = Object.keys(settings.profiles).length;
    validatorEvents.accepted({ profiles });
    return { valid: true, profiles };
  } catch (error) {
    validatorEvents.refused(error);
    throw error;
  }
}
