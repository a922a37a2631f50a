/**
 * Test leads that never pass for real prospects. A lead is a test when its platform says so
 * (`capture.isTest`: Google's `is_test`, Meta's testing tool, Jotform's preview...) or when it is
 * the set-up kit's sample person (`ana.teste+<stamp>@example.com`, sources/setup.ts), which a
 * platform that knows no tests (Elementor, a landing page, the Meta sample through the sandbox)
 * cannot tell apart. Either way its Prospect's notes start with {@link TEST_LEAD_NOTE}, so a
 * test lead delivered upstream (a profile's `deliverTestLeads`, an operator's resend, the kit's
 * sample) says it to the gym's staff. Pure.
 */
import type { Prospect } from './prospect.ts';

/** The first line of a test lead's notes, as the gym's staff read it. */
export const TEST_LEAD_NOTE = 'LEAD DE TESTE — pode apagar.';

/** The kit's sample person's e-mail (`example.com`: reserved, never a real person's). */
export function sampleEmail(stamp: string): string {
  return `ana.teste+${stamp}@example.com`;
}

const SAMPLE_EMAIL = /^ana\.teste\+[a-z0-9-]+@example\.com$/i;

/** Whether a lead is a test: its platform said so, or it is the kit's sample person. */
export function isTestLead(isTest: boolean, prospect: Partial<Prospect>): boolean {
  return isTest || (typeof prospect.email === 'string' && SAMPLE_EMAIL.test(prospect.email));
}

/** The Prospect with {@link TEST_LEAD_NOTE} first in its notes (once). */
export function markedAsTest<P extends Partial<Prospect>>(prospect: P): P {
  const notes = typeof prospect.notes === 'string' ? prospect.notes : '';
  if (notes.startsWith(TEST_LEAD_NOTE)) return prospect;
  return { ...prospect, notes: notes ? `${TEST_LEAD_NOTE}\n${notes}` : TEST_LEAD_NOTE };
}
