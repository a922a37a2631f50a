/**
 * The console's test lead says what to search for (`search` of `POST /admin/test-lead/{profile}`),
 * and that search finds the lead it sent, end to end on the demo configuration (every source's
 * sample) and the sandbox: the stamp's e-mail for a sample that carries its own, the fixed
 * e-mail of the lead the platform's API holds for Meta, TikTok and Kommo (their webhooks name
 * only ids, the forwarder completes the lead), the number for WhatsApp.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

const DEMO = JSON.parse(readFileSync(new URL('../../config/demo.json', import.meta.url), 'utf8'));
const AUTH = { authorization: `Basic ${Buffer.from('ops:ops-secret').toString('base64')}` };
const PROFILES = Object.keys(DEMO.profiles as Record<string, unknown>);

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(DEMO, { worker: true });
}, 60_000);
afterAll(() => rt?.stop());

async function leadIdsFound(profile: string, search: string): Promise<string[]> {
  const url = new URL('/admin/leads', rt.url);
  url.search = new URLSearchParams({ profile, q: search, order: 'newest', limit: '5' }).toString();
  const response = await fetch(url, { headers: AUTH });
  const body = (await response.json()) as { leads?: { leadId: string }[] };
  return (body.leads ?? []).map((lead) => lead.leadId);
}

describe("the test lead's search", () => {
  it.each(PROFILES)(
    'finds the lead the %s kit sent',
    async (profile) => {
      // Act
      const response = await fetch(new URL(`/admin/test-lead/${profile}`, rt.url), {
        method: 'POST',
        headers: { ...AUTH, 'x-requested-with': 'fetch' },
      });
      const sent = (await response.json()) as { status: number; search: string; leadIds: string[] };

      // Assess
      expect(response.status, JSON.stringify(sent)).toBe(200);
      expect(sent.status, JSON.stringify(sent)).toBeLessThan(300);
      await expect
        .poll(() => leadIdsFound(profile, sent.search), { timeout: 60_000, interval: 250 })
        .not.toEqual([]);
      if (sent.leadIds.length > 0) {
        expect(await leadIdsFound(profile, sent.search)).toEqual(
          expect.arrayContaining(sent.leadIds),
        );
      }
    },
    90_000,
  );
});
