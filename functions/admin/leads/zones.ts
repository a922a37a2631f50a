/**
 * Each lead's time zone: its profile's account's (`report.timeZone`, docs/configuration.md),
 * America/Sao_Paulo when the configuration names none. One lookup per profile per request.
 */
import { DEFAULT_TIME_ZONE } from '../../domain/local-time.ts';
import type { AdminDeps } from '../admin.ts';

/** The time zone of a profile's leads, looked up once per profile. */
export type ZoneOf = (profile: string) => Promise<string>;

export function zonesOf(config: AdminDeps['config']): ZoneOf {
  const known = new Map<string, Promise<string>>();
  const lookup = async (profile: string): Promise<string> => {
    if (!config.report) return DEFAULT_TIME_ZONE;
    const account = await config.accountOf?.(profile);
    return (await config.report(account)).timeZone || DEFAULT_TIME_ZONE;
  };
  return (profile) => {
    let zone = known.get(profile);
    if (!zone) {
      zone = lookup(profile).catch(() => DEFAULT_TIME_ZONE);
      known.set(profile, zone);
    }
    return zone;
  };
}
