/**
 * The quiet-profile watch (functions/watch/quiet-profiles.ts) on a real ledger (dynalite):
 * a profile is reported once, in the run during which its silence crosses its quietHours; busy,
 * unwatched and already-reported profiles are not; the message names profiles, never a person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileSettings } from '../../functions/config/config-source.ts';
import type { LeadLedger } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { type Alert, watchQuietProfiles } from '../../functions/watch/quiet-profiles.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);

let dynamo: TestDynamo;
let ledger: LeadLedger;
beforeAll(async () => {
  dynamo = await startTestDynamo();
  ledger = createDynamoLedger({
    erasureSalt: TEST_ERASURE_SALT,
    client: dynamo.client,
    tableName: await dynamo.createLedgerTable(),
  });
});
afterAll(() => dynamo?.close());

let seq = 0;
async function leadFrom(profile: string, receivedAt: Date, status: 'queued' | 'parked' = 'queued') {
  seq += 1;
  await ledger.record({
    profile,
    source: 'form',
    dedupKey: `key:watch-${seq}`,
    capture: {
      source: 'form',
      dedupKey: `key:watch-${seq}`,
      isTest: false,
      answers: [{ key: 'email', value: `pessoa${seq}@example.com` }],
      attribution: {},
    },
    status,
    receivedAt,
  });
}

describe('watchQuietProfiles', () => {
  it('reports the profiles whose silence crossed their quietHours in this run, once', async () => {
    // Prepare
    const profiles: Record<string, ProfileSettings> = {
      meta: { source: 'meta' }, // default 24 h: last lead 24.5 h ago → crossed in this hour
      site: { source: 'form' }, // busy: a lead 2 h ago
      google: { source: 'google', quietHours: 6 }, // 6.2 h ago → crossed
      old: { source: 'form' }, // 30 h ago: reported in an earlier run already
      muted: { source: 'typeform', quietHours: 0 }, // never watched
      fresh: { source: 'webflow' }, // never received a lead
    };
    await leadFrom('meta', hoursAgo(30));
    await leadFrom('meta', hoursAgo(24.5), 'parked');
    await leadFrom('site', hoursAgo(26));
    await leadFrom('site', hoursAgo(2));
    await leadFrom('google', hoursAgo(6.2));
    await leadFrom('old', hoursAgo(30));
    await leadFrom('muted', hoursAgo(100));
    const sent: Alert[] = [];
    // Act
    const result = await watchQuietProfiles({
      config: { profileSettings: async () => profiles },
      ledger,
      notify: async (alert) => {
        sent.push(alert);
      },
      consoleUrl: 'https://api.example/prod/admin/',
      now: () => NOW,
    });
    // Assess
    expect(result.quiet.map((q) => q.profile).sort()).toEqual(['google', 'meta']);
    expect(result.quiet.find((q) => q.profile === 'meta')?.lastLeadAt).toBe(
      hoursAgo(24.5).toISOString(),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]?.subject).toMatch(/meta/);
    expect(sent[0]?.message).toContain('google (google): no lead since');
    expect(sent[0]?.message).toContain('https://api.example/prod/admin/');
    expect(sent[0]?.message).not.toMatch(/@example\.com/);

    // The next run, an hour later: nothing new crossed, nothing is sent.
    const later = await watchQuietProfiles({
      config: { profileSettings: async () => profiles },
      ledger,
      notify: async (alert) => {
        sent.push(alert);
      },
      now: () => new Date(NOW.getTime() + 3_600_000),
    });
    expect(later.quiet).toEqual([]);
    expect(sent).toHaveLength(1);
  });
});
