/**
 * An operator's correction of a lead: the Prospect fields a person typed in the console (or sent
 * with `PATCH /admin/leads/{leadId}`), kept on the lead beside what the platform sent and laid
 * over every mapping of it. Pure: no AWS, no process.env.
 *
 * Why an overlay and not a new Prospect: delivery maps every lead again with the profile's
 * current settings (a fixed `fieldMap`, a new `defaults.idBranch`), so a stored Prospect would
 * be mapped back over. The correction is kept apart and applied after the mapping, field by
 * field: what the operator typed always wins, and everything they did not touch still follows
 * the profile. `null` clears a field the mapping filled.
 *
 * Validation is the Prospect API's (each field type-checked by `prospectSchema`, one detail per
 * bad field, never its value) and stricter in two ways, because a person types these: a field
 * the Prospect does not have is refused (a typo would otherwise be sent upstream silently), and
 * an e-mail or a phone must be one (`(11) 98765-4321` becomes `ddi` 55 + `cellphone`
 * 11987654321, as the mapping writes them).
 */
import * as z from 'zod/mini';
import { cleanMapped } from './clean-prospect.ts';
import { describeIssues, type IssueDetail } from './json.ts';
import type { MappedLead } from './lead.ts';
import { normalizeEmail } from './normalize/email.ts';
import { normalizePhone } from './normalize/phone.ts';
import { listPt } from './portuguese-list.ts';
import { fieldLabel, type Prospect, prospectSchema } from './prospect.ts';

/** Prospect field → the operator's value; `null` clears the field. */
export type ProspectCorrection = { [K in keyof Prospect]?: Prospect[K] | null };

/** The Prospect's own fields (its schema's shape), in declaration order. */
export const PROSPECT_FIELDS: readonly string[] = Object.keys(prospectSchema.shape);

export type CorrectionRead =
  | { ok: true; correction: ProspectCorrection }
  | { ok: false; details: IssueDetail[] };

/**
 * Reads a correction: a JSON object of Prospect fields. Blank strings clear a field, texts are
 * trimmed, an e-mail is lower-cased, a phone is split into `ddi` and `cellphone`.
 */
export function readCorrection(input: unknown): CorrectionRead {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return {
      ok: false,
      details: [{ field: '', message: 'deve ser um objeto com campos do Prospect' }],
    };
  }
  const details: IssueDetail[] = [];
  const cleaned: Record<string, unknown> = {};
  for (const [field, raw] of Object.entries(input as Record<string, unknown>)) {
    if (!PROSPECT_FIELDS.includes(field)) {
      details.push({ field, message: 'não é um campo do Prospect' });
      continue;
    }
    cleaned[field] = typeof raw === 'string' ? raw.trim() || null : raw;
  }
  const parsed = z.partial(z.strictObject(prospectSchema.shape)).safeParse(cleaned);
  if (!parsed.success) details.push(...describeIssues(parsed.error.issues, cleaned));
  if (details.length > 0) return { ok: false, details };

  const correction: ProspectCorrection = { ...(parsed.data as ProspectCorrection) };
  if (typeof correction.email === 'string') {
    const email = normalizeEmail(correction.email);
    if ('error' in email) details.push({ field: 'email', message: email.error });
    else correction.email = email.email;
  }
  if (typeof correction.cellphone === 'string') {
    const ddi = typeof correction.ddi === 'string' ? correction.ddi.replace(/\D/g, '') : '';
    const typed = correction.cellphone;
    const phone = normalizePhone(ddi && !typed.startsWith('+') ? `+${ddi} ${typed}` : typed);
    if ('error' in phone) details.push({ field: 'cellphone', message: phone.error });
    else {
      correction.ddi = phone.ddi;
      correction.cellphone = phone.cellphone;
    }
  }
  return details.length > 0 ? { ok: false, details } : { ok: true, correction };
}

/** The notes line that tells the CRM's users which fields an operator typed. */
export function correctionNote(correction: ProspectCorrection): string | undefined {
  const fields = Object.keys(correction).filter((field) => field !== 'notes');
  return fields.length > 0
    ? `Corrigido por um operador: ${listPt(fields.map(fieldLabel))}.`
    : undefined;
}

/**
 * The mapping with the correction laid over it (see the module comment): corrected fields win,
 * cleared ones are gone, `missing` is computed again, and the notes say what was corrected.
 */
export function applyCorrection(
  mapped: MappedLead,
  correction: ProspectCorrection | undefined,
): MappedLead {
  if (!correction || Object.keys(correction).length === 0) return mapped;
  const prospect: Record<string, unknown> = { ...mapped.prospect };
  for (const [field, value] of Object.entries(correction)) {
    if (value === null || value === undefined) delete prospect[field];
    else prospect[field] = value;
  }
  const note = correctionNote(correction);
  if (note && correction.notes === undefined) {
    const notes = typeof prospect.notes === 'string' && prospect.notes ? prospect.notes : '';
    prospect.notes = notes ? `${notes}\n${note}` : note;
  }
  // What an operator typed is cleaned as any other input (clean-prospect.ts).
  return cleanMapped({ ...mapped, prospect: prospect as Prospect });
}

/** Two corrections as one: the later one's fields win. */
export function mergeCorrections(
  earlier: ProspectCorrection | undefined,
  later: ProspectCorrection,
): ProspectCorrection {
  return { ...earlier, ...later };
}
