/**
 * A captured lead mapped for its profile: the one mapping (map-lead.ts) with what the profile
 * and the source add to it. A profile with a consent field gets its consent in the notes: the one
 * recorded at intake, or (a lead completed later, Meta's) read now, dated by the platform's
 * submission time (personal-data.ts). The source's label, for the notes and the fallback
 * marketingType, is the caller's to give (sources/registry.ts `sourceLabel`): the domain knows
 * no source. A test lead (test-lead.ts: its platform's flag or the kit's sample person) has
 * "LEAD DE TESTE — pode apagar." first in its notes. The intake, delivery, the admin preview and
 * corrections all map through here.
 */
import type { NamedBranch } from './branch-match.ts';
import { cleanMapped } from './clean-prospect.ts';
import type { LeadCapture, MappedLead } from './lead.ts';
import { type MappingProfile, mapLeadToProspect } from './map-lead.ts';
import { type ConsentSetting, withConsent } from './personal-data.ts';
import { isTestLead, markedAsTest } from './test-lead.ts';

/** The part of a profile this mapping reads (a `Profile` from the config satisfies it). */
export type CaptureProfile = MappingProfile & { consent?: ConsentSetting | undefined };

/**
 * `capture` mapped for `profile`, labelled `sourceLabel` (how people call its platform), its
 * branch chosen among `branches` (the account's named branches) when an answer asks for it.
 */
export function mapCapture(
  capture: LeadCapture,
  profile: CaptureProfile,
  sourceLabel: string,
  branches: readonly NamedBranch[] = [],
): MappedLead {
  const withItsConsent = withConsent(capture, profile.consent, capture.submittedAt);
  const mapped = mapLeadToProspect(withItsConsent, profile, sourceLabel, branches);
  const marked = isTestLead(capture.isTest, mapped.prospect)
    ? { ...mapped, prospect: markedAsTest(mapped.prospect) }
    : mapped;
  // Every path into a Prospect is cleaned the same way (clean-prospect.ts).
  return cleanMapped(marked);
}
