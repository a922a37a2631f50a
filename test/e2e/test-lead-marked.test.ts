/**
 * Test leads never pass for real prospects (domain/test-lead.ts), end to end on the demo
 * configuration and the sandbox upstream: the console's test lead of Elementor and of Meta
 * (platforms whose sample the intake cannot tell from a real lead) reaches the sandbox with
 * "LEAD DE TESTE — pode apagar." first in its notes; a lead its platform marks as a test
 * (Google's `is_test`) on a profile with `deliverTestLeads` is delivered marked the same way.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_LEAD_NOTE } from '../../functions/domain/test-lead.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';
import { platformBody } from '../helpers/platform-fixtures.ts';

const DEMO = JSON.parse(readFileSync(new URL('../../config/demo.json', import.meta.url), 'utf8'));
const AUTH = { authorization: `Basic ${Buffer.from('ops:ops-secret').toString('base64')}` };

let rt: TestRuntime;
beforeAll(async () => {
  const profiles = {
    ...DEMO.profiles,
    google: { ...DEMO.profiles.google, deliverTestLeads: true },
  };
  rt = await startTestRuntime({ ...DEMO, profiles }, { worker: true });
}, 60_000);
afterAll(() => rt?.stop());

/** The sandbox's prospect of this e-mail, once its lead is delivered. */
async function deliveredNotes(email: string): Promise<string> {
  let notes: unknown;
  await expect
    .poll(
      async () => {
        const response = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
        const bodies = ((await response.json()) as { body: Record<string, unknown> }[]).map(
          (p) => p.body,
        );
        notes = bodies.find((body) => body.email === email)?.notes;
        return typeof notes;
      },
      { timeout: 60_000, interval: 250 },
    )
    .toBe('string');
  return notes as string;
}

describe('a test lead delivered upstream', () => {
  it.each(['elementor', 'meta'])(
    'from the %s kit says it is a test in its notes',
    async (profile) => {
      // Act
      const response = await fetch(new URL(`/admin/test-lead/${profile}`, rt.url), {
        method: 'POST',
        headers: { ...AUTH, 'x-requested-with': 'fetch' },
      });
      const sent = (await response.json()) as { status: number; search: string };

      // Assess
      expect(response.status, JSON.stringify(sent)).toBe(200);
      expect(sent.status).toBeLessThan(300);
      // Meta's webhook names only the lead; `search` is its Graph lead's (the sandbox's) e-mail.
      const notes = await deliveredNotes(sent.search);
      expect(notes.startsWith(TEST_LEAD_NOTE)).toBe(true);
    },
    90_000,
  );

  it('marked by its platform, on a profile that delivers test leads, says it too', async () => {
    // Act
    const response = await fetch(new URL('/leads/google', rt.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: platformBody('google', 'test-lead.json'),
    });

    // Assess
    expect(response.status).toBeLessThan(300);
    const notes = await deliveredNotes('test@example.com');
    expect(notes.startsWith(TEST_LEAD_NOTE)).toBe(true);
  }, 90_000);
});
