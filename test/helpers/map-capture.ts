/**
 * The mapping as the intake and delivery run it: the domain's `mapCapture` with the registry's
 * label of the capture's source (sources/registry.ts `sourceLabel`), for the tests that map a
 * capture the way a lead of that source would be.
 */
import type { LeadCapture, MappedLead } from '../../functions/domain/lead.ts';
import { type CaptureProfile, mapCapture as mapFor } from '../../functions/domain/map-capture.ts';
import { sourceLabel } from '../../functions/sources/registry.ts';

export function mapCapture(capture: LeadCapture, profile: CaptureProfile): MappedLead {
  return mapFor(capture, profile, sourceLabel(capture.source));
}
