/**
 * The local adapter of the profile secrets (profile-secrets.ts): the configuration file of
 * `npm start` keeps its values, and a rotation goes to DATA_DIR (config/rotated-secrets-local.ts),
 * never into the file (often config/demo.json under version control).
 */
import { localConfigSource, localFileProfile } from '../config/config-local.ts';
import { rotateLocalSecret } from '../config/rotated-secrets-local.ts';
import { graceEnd, previousValuesOf } from '../config/secret-rotation.ts';
import { localDataDir } from '../kernel/local-services.ts';
import type { ProfileSecrets } from './profile-secrets.ts';

export function localProfileSecrets(): ProfileSecrets {
  const config = localConfigSource();
  return {
    async read(name) {
      const profile = await config.profile(name);
      if (!profile) return undefined;
      const previous = previousValuesOf(profile);
      return { ...profile, ...(Object.keys(previous).length > 0 && { previous }) };
    },
    async rotate(name, key, value, now) {
      const dataDir = localDataDir();
      const [file, current] = await Promise.all([localFileProfile(name), config.profile(name)]);
      const fileValue = (file as Record<string, unknown> | undefined)?.[key];
      const currentValue = (current as Record<string, unknown> | undefined)?.[key];
      if (!dataDir || typeof fileValue !== 'string' || typeof currentValue !== 'string') {
        throw new Error(`profile ${name} has no ${key} to rotate on this machine`);
      }
      const until = graceEnd(now);
      rotateLocalSecret(dataDir, { name, key, fileValue, current: currentValue, value, until });
      return { until };
    },
  };
}
