/**
 * The notes a Prospect carries to the gym's system: the profile's own notes, where the lead came
 * from (platform, form, lead id, a test), every answer no field took, the campaign's attribution,
 * the LGPD consent line and the warnings (`Avisos:`), within the upstream's limit. Pure.
 */
import type { LeadCapture } from './lead.ts';

const NOTES_LIMIT = 4000;

/** The notes' LGPD line: given or not, when, which version of which text. */
function consentNote(consent: NonNullable<LeadCapture['consent']>): string {
  const when = consent.at ? ` em ${consent.at}` : '';
  return consent.given
    ? `Consentimento LGPD: aceito${when} (versão ${consent.version}): "${consent.text}"`
    : `Consentimento LGPD: NÃO marcado (versão ${consent.version}): "${consent.text}"`;
}

export function buildNotes(
  capture: LeadCapture,
  sourceLabel: string,
  configuredNotes: string | null | undefined,
  ownNotes: string | null | undefined,
  answerLines: readonly string[],
  warnings: readonly string[],
): string {
  const sections: string[] = [];
  if (configuredNotes?.trim()) sections.push(configuredNotes.trim());
  if (ownNotes?.trim()) sections.push(ownNotes.trim());
  const origin = [`Lead recebido via ${sourceLabel}`];
  if (capture.formId) origin.push(`formulário ${capture.formId}`);
  if (capture.externalId) origin.push(`lead ${capture.externalId}`);
  sections.push(`${origin.join(', ')}.`);
  if (answerLines.length) sections.push(answerLines.join('\n'));
  const attribution = Object.entries(capture.attribution).filter(([, value]) => value.trim());
  if (attribution.length) {
    sections.push(`Origem: ${attribution.map(([key, value]) => `${key}=${value}`).join('; ')}`);
  }
  if (capture.consent) sections.push(consentNote(capture.consent));
  if (warnings.length) sections.push(`Avisos:\n${warnings.map((w) => `- ${w}`).join('\n')}`);
  const notes = sections.join('\n\n');
  return notes.length > NOTES_LIMIT ? `${notes.slice(0, NOTES_LIMIT - 1)}…` : notes;
}
