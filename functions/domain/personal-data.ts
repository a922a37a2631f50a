/**
 * Personal data in a lead, as LGPD asks us to find and remove it (docs/privacy.md). Pure: no AWS,
 * no I/O.
 *
 * A *subject* is one way a person can be named: `email:<normalised address>`,
 * `phone:<E.164>` or `cpf:<11 digits>`, normalised exactly as the mapping normalises them, so
 * that `Ana.Souza@Example.com` and `ana.souza@example.com`, or `(11) 98765-4321` and
 * `+5511987654321`, are one subject. The ledger keeps, per subject, a pointer item keyed by the
 * subject's SHA-256 that lists the lead ids recorded with it (ledger/lead-ledger-dynamodb.ts), so
 * an erasure request finds a person's leads with one read per subject instead of reading every
 * lead.
 *
 * `redactCapture` is what is left of a capture once its personal data is removed: the source,
 * the form id, the test flag and when it was submitted. Nothing a person typed, no platform lead
 * id, no click ids.
 *
 * `erasureMarks` is what an erasure remembers of a lead so that a platform cannot bring the
 * person back by sending the same lead again: the lead's dedup key and a digest of what the
 * person sent (`submissionDigest`). The ledger keeps them salted with a secret, never as they
 * are (ledger/erasure-dynamodb.ts), and checks every new lead's marks before recording it.
 */
import { createHash } from 'node:crypto';
import type { ConsentRecord, LeadCapture } from './lead.ts';
import type { ProspectCorrection } from './lead-correction.ts';
import { foldKey } from './map-lead.ts';
import { normalizeCpf } from './normalize/cpf.ts';
import { normalizeEmail } from './normalize/email.ts';
import { normalizePhone } from './normalize/phone.ts';
import type { Prospect } from './prospect.ts';

export type SubjectKind = 'email' | 'phone' | 'cpf';

/** What a person (or the operator on their behalf) gives to be found. */
export interface SubjectQuery {
  email?: string;
  phone?: string;
  cpf?: string;
}

const emailSubject = (text: string) => {
  const result = normalizeEmail(text);
  return 'email' in result ? `email:${result.email}` : undefined;
};
const phoneSubject = (text: string) => {
  const result = normalizePhone(text);
  return 'e164' in result ? `phone:${result.e164}` : undefined;
};
const cpfSubject = (text: string) => {
  const result = normalizeCpf(text);
  return 'cpf' in result ? `cpf:${result.cpf}` : undefined;
};

/** The dedup key of a redacted lead and of its capture: the key is personal data too. */
export const REDACTED = 'redacted';

/** Looks like a phone number or a CPF: digits and the usual punctuation, 8 to 20 characters. */
const NUMERIC = /^[+()\d\s.\-/]{8,20}$/u;

/** The subjects one free answer names: an e-mail address, a CPF, a phone number. */
function subjectsOfValue(value: string): string[] {
  const text = value.trim();
  if (text.includes('@')) {
    const email = emailSubject(text);
    return email ? [email] : [];
  }
  if (!NUMERIC.test(text)) return [];
  return [cpfSubject(text), phoneSubject(text)].filter((s): s is string => s !== undefined);
}

/** The contact fields of a Prospect, or of an operator's correction (where `null` clears one). */
type ContactFields = Pick<ProspectCorrection, 'email' | 'cpf' | 'cellphone' | 'ddi'> & {
  financiallyResponsible?: { email?: string | null; cpf?: string | null } | null;
};

/**
 * Every subject a lead names: its answers (whatever the field is called: a value that reads as
 * an e-mail, a valid CPF or a valid phone number), the Prospect's e-mail, phone and CPF
 * (including the financially responsible person's) and those an operator typed in a
 * `correction`. Sorted, without repeats.
 */
export function subjectsOf(
  capture: LeadCapture,
  prospect?: Prospect,
  correction?: ProspectCorrection,
): string[] {
  const found = new Set<string>();
  const add = (subject: string | undefined) => {
    if (subject) found.add(subject);
  };
  for (const answer of capture.answers) {
    for (const value of [answer.value].flat()) {
      for (const subject of subjectsOfValue(String(value))) found.add(subject);
    }
  }
  const contacts: (ContactFields | undefined)[] = [prospect, capture.prospect, correction];
  for (const p of contacts) {
    if (!p) continue;
    if (p.email) add(emailSubject(p.email));
    if (p.cpf) add(cpfSubject(p.cpf));
    if (p.cellphone) add(phoneSubject(`+${p.ddi ?? '55'}${p.cellphone}`));
    if (p.financiallyResponsible?.email) add(emailSubject(p.financiallyResponsible.email));
    if (p.financiallyResponsible?.cpf) add(cpfSubject(p.financiallyResponsible.cpf));
  }
  return [...found].sort();
}

/** A field of the query that cannot name anybody, and why. */
export interface SubjectProblem {
  field: SubjectKind;
  message: string;
}

/**
 * The subjects an erasure request names (each given field, normalised), or the problems with it:
 * a field that is not a valid e-mail, phone or CPF, or no field at all.
 */
export function subjectsOfQuery(
  query: SubjectQuery,
): { subjects: string[] } | { problems: SubjectProblem[] } {
  const subjects: string[] = [];
  const problems: SubjectProblem[] = [];
  const check = (field: SubjectKind, subject: string | undefined, what: string) => {
    if (subject) subjects.push(subject);
    else problems.push({ field, message: `${field} is not ${what}` });
  };
  if (query.email !== undefined) check('email', emailSubject(query.email), 'an e-mail address');
  if (query.phone !== undefined) check('phone', phoneSubject(query.phone), 'a valid phone number');
  if (query.cpf !== undefined) check('cpf', cpfSubject(query.cpf), 'a valid CPF');
  if (problems.length > 0) return { problems };
  if (subjects.length === 0) {
    return {
      problems: [{ field: 'email', message: 'give at least one of email, phone or cpf' }],
    };
  }
  return { subjects };
}

/**
 * The capture without anything personal: source, form, test flag and submission time are kept
 * (an anonymous trace that a lead came in), the answers, attribution (click ids), the platform's
 * lead id, what was pending and the Prospect API's body are dropped.
 */
export function redactCapture(capture: LeadCapture): LeadCapture {
  return {
    source: capture.source,
    dedupKey: REDACTED,
    isTest: capture.isTest,
    ...(capture.formId !== undefined && { formId: capture.formId }),
    ...(capture.submittedAt !== undefined && { submittedAt: capture.submittedAt }),
    answers: [],
    attribution: {},
    // What the person consented to, its version and time: proof, nothing personal.
    ...(capture.consent !== undefined && { consent: capture.consent }),
  };
}

/** JSON with object keys sorted at every level: equal content, equal text. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A digest (SHA-256, hex) of what a person sent in one submission: the source, the form, the
 * platform's lead id and submission time when it gives them, every answer, the attribution and
 * the Prospect API's body. The same for every delivery of that submission, whatever its dedup
 * key (a new Idempotency-Key, a content-hash window that ended) and whenever it arrives: what
 * we add on receipt (the consent's time, a test flag, what is pending) is left out, and so is
 * the order of answers and keys.
 */
export function submissionDigest(capture: LeadCapture): string {
  const content = {
    source: capture.source,
    formId: capture.formId,
    externalId: capture.externalId,
    submittedAt: capture.submittedAt,
    answers: capture.answers
      .map((answer) => sortedJson([answer.key, answer.value]))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    attribution: capture.attribution,
    prospect: capture.prospect,
  };
  return createHash('sha256').update(sortedJson(content), 'utf8').digest('hex');
}

/**
 * Dedup keys that name a person rather than one submission: a WhatsApp conversation
 * (`whatsapp:<wa_id>`, the person's number) is one lead for 72 hours, but remembering it after
 * an erasure would turn away every conversation the person starts later.
 */
const PERSON_DEDUP_KINDS: ReadonlySet<string> = new Set(['whatsapp']);

/**
 * What an erasure remembers of a lead, so that the same lead sent again is recognised and
 * dropped (docs/privacy.md): `dedup:<its dedup key>` (a platform's lead id, an Idempotency-Key,
 * a content hash) unless the key names the person (PERSON_DEDUP_KINDS), and
 * `content:<submissionDigest>` (the same submission under another dedup key). None for a
 * platform's test lead: it names nobody, and remembering it would turn away the platform's next
 * test (Google sends every test with the same lead id). None for a capture already redacted
 * (nothing of what was sent is left to recognise). The ledger salts each before it keeps or
 * looks for it.
 */
export function erasureMarks(capture: LeadCapture, dedupKey: string): string[] {
  if (capture.isTest || dedupKey === REDACTED || capture.dedupKey === REDACTED) return [];
  const kind = dedupKey.slice(0, Math.max(0, dedupKey.indexOf(':')));
  return [
    ...(PERSON_DEDUP_KINDS.has(kind) ? [] : [`dedup:${dedupKey}`]),
    `content:${submissionDigest(capture)}`,
  ];
}

/** A profile's consent field (`consent` in its settings). */
export interface ConsentSetting {
  /** The answer's key (folded as fieldMap keys are: `Aceito os termos` = `aceito_os_termos`). */
  field: string;
  /** The consent text the form shows, word for word. */
  text: string;
  /** The version of that text (`2026-01`, `v3`). */
  version: string;
}

/** Values of a consent checkbox that mean "not ticked". */
const NOT_GIVEN = /^(?:|0|false|off|no|n|nao|não|unchecked|recuso)$/iu;

/**
 * The capture with its consent recorded when the profile maps a consent field: given when the
 * answer is there with a value that is not empty or negative (checkboxes send `on`, `true`, `1`,
 * `sim` or the label itself). `at` is when it was given. A capture that already holds a consent
 * (recorded at intake) keeps it; a capture still waiting for its answers (pending) is left as is.
 */
export function withConsent(
  capture: LeadCapture,
  setting: ConsentSetting | undefined,
  at: string | undefined,
): LeadCapture {
  if (!setting || capture.consent || capture.pending) return capture;
  const key = foldKey(setting.field);
  const answer = capture.answers.find((a) => foldKey(a.key) === key);
  const values = answer ? [answer.value].flat().map((v) => String(v).trim()) : [];
  const consent: ConsentRecord = {
    field: setting.field,
    given: values.some((value) => !NOT_GIVEN.test(value)),
    text: setting.text,
    version: setting.version,
    ...(at !== undefined && { at }),
  };
  return { ...capture, consent };
}
