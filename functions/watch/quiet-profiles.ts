/**
 * The quiet-profile watch: a profile that has received no lead for its `quietHours` (default
 * DEFAULT_QUIET_HOURS; 0: never watched) is worth a person's look. A dropped Meta webhook
 * subscription, a form taken off a page or a secret changed at the platform all look exactly
 * like that: nothing arrives, so nothing else alarms.
 *
 * Why a scheduled check and not a CloudWatch alarm per profile: profiles change without a deploy
 * (the configuration store), so alarms created at deploy would watch yesterday's list. The watch
 * reads the profiles and the ledger each run (EventBridge Scheduler, every WATCH_INTERVAL_MINUTES)
 * and publishes one message naming the quiet profiles to the alarm topic.
 *
 * How it knows a profile's last lead: the ledger's status index, every status merged newest
 * first (`listRecent`), back to the longest `quietHours` plus one interval; the first lead of each
 * profile met is its last. It reads at most MAX_SCANNED leads (a busy stack reads its last hours
 * only, since every profile shows up early).
 *
 * One message per quiet spell, with no state of its own: a profile is reported in the run during
 * which its silence crosses `quietHours` (its last lead received between `quietHours +
 * interval` and `quietHours` ago). A run that does not happen (a failed invocation beyond the
 * scheduler's retries) misses that profile's message; a profile that never received a lead is
 * not reported (the set-up kit's test lead gives it its first one).
 */
import type { ConfigSource } from '../config/config-source.ts';
import { LEAD_STATUSES } from '../domain/lead-lifecycle.ts';
import type { LeadLedger } from '../ledger/lead-ledger.ts';

export const DEFAULT_QUIET_HOURS = 24;
export const WATCH_INTERVAL_MINUTES = 60;
const PAGE = 1000;
const MAX_SCANNED = 50_000;
const HOUR_MS = 3_600_000;

export interface QuietProfile {
  profile: string;
  source: string;
  quietHours: number;
  /** ISO 8601: the profile's last lead. */
  lastLeadAt: string;
}

export interface Alert {
  subject: string;
  message: string;
}

export interface WatchDeps {
  config: Pick<ConfigSource, 'profileSettings'>;
  ledger: Pick<LeadLedger, 'listRecent'>;
  /** Publishes to the alarm topic (SNS when deployed). */
  notify(alert: Alert): Promise<void>;
  /** Where an operator reads the leads (the console's URL), for the message. */
  consoleUrl?: string;
  now?: () => Date;
  intervalMinutes?: number;
}

export interface WatchResult {
  watched: number;
  scanned: number;
  quiet: QuietProfile[];
}

/** One run of the watch (see the module comment). */
export async function watchQuietProfiles(deps: WatchDeps): Promise<WatchResult> {
  const now = (deps.now ?? (() => new Date()))().getTime();
  const intervalMs = (deps.intervalMinutes ?? WATCH_INTERVAL_MINUTES) * 60_000;
  const settings = await deps.config.profileSettings();
  const watched = new Map<string, { source: string; quietHours: number }>();
  for (const [name, profile] of Object.entries(settings)) {
    const hours = typeof profile.quietHours === 'number' ? profile.quietHours : DEFAULT_QUIET_HOURS;
    if (hours > 0) watched.set(name, { source: profile.source, quietHours: hours });
  }
  if (watched.size === 0) return { watched: 0, scanned: 0, quiet: [] };

  const longest = Math.max(...[...watched.values()].map((p) => p.quietHours));
  const since = new Date(now - longest * HOUR_MS - intervalMs);
  const last = new Map<string, number>();
  let scanned = 0;
  let after: string | undefined;
  while (last.size < watched.size && scanned < MAX_SCANNED) {
    const page = await deps.ledger.listRecent({
      statuses: LEAD_STATUSES,
      order: 'newest',
      since,
      limit: PAGE,
      ...(after !== undefined && { after }),
    });
    for (const { lead, position } of page.entries) {
      scanned += 1;
      after = position;
      if (watched.has(lead.profile) && !last.has(lead.profile)) {
        last.set(lead.profile, Date.parse(lead.receivedAt));
      }
    }
    if (!page.more || page.entries.length === 0) break;
  }

  const quiet: QuietProfile[] = [];
  for (const [profile, { source, quietHours }] of watched) {
    const at = last.get(profile);
    if (at === undefined) continue;
    const silentMs = now - at;
    const limitMs = quietHours * HOUR_MS;
    if (silentMs >= limitMs && silentMs < limitMs + intervalMs) {
      quiet.push({ profile, source, quietHours, lastLeadAt: new Date(at).toISOString() });
    }
  }
  if (quiet.length > 0) await deps.notify(quietAlert(quiet, deps.consoleUrl));
  return { watched: watched.size, scanned, quiet };
}

/** The message a person reads (e-mail through the topic): which profiles, since when, what to check. */
export function quietAlert(quiet: readonly QuietProfile[], consoleUrl?: string): Alert {
  const names = quiet.map((q) => q.profile).join(', ');
  const lines = quiet.map(
    (q) =>
      `- ${q.profile} (${q.source}): no lead since ${q.lastLeadAt}, more than ${q.quietHours} hours.`,
  );
  return {
    subject: `Leads: no lead from ${names}`.slice(0, 99),
    message: [
      `No lead arrived from ${quiet.length === 1 ? 'this profile' : 'these profiles'} for longer than usual:`,
      ...lines,
      '',
      'What to check: the platform still sends to our URL (a Meta page subscription can be dropped; a form can be taken off a page), its secret still matches ours (the "intake refusing requests" alarm fires on a wrong one), and the campaign is running.',
      `Send a test lead from the console's "Pré-visualizar" page${consoleUrl ? ` (${consoleUrl})` : ''} to see the whole path work; the set-up kit (GET /admin/setup) has each platform's steps.`,
      'Change how long a profile may stay quiet with its "quietHours" setting (0: never alert).',
    ].join('\n'),
  };
}
