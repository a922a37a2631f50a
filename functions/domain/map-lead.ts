/**
 * The one mapping from a captured lead to the seed's Prospect. Precedence, lowest first: the
 * profile's `defaults`, its `forms.<formId>` settings, then what the lead says; each answer goes
 * by `fieldMap`, a Prospect field's own key, metadata (dropped) or the field recogniser
 * (recognise-field.ts), and the most confident answer that passes its field's check wins. Every
 * answer a person typed reaches a Prospect field or the notes (pt-BR, read by the gym's staff).
 * Names, dates and what goes to notes: docs/architecture.md.
 */
import { type BranchAnswer, type BranchChoice, chooseBranch } from './branch-answer.ts';
import { isBranchQuestion, type NamedBranch } from './branch-match.ts';
import type { LeadAnswer, LeadCapture, MappedLead } from './lead.ts';
import { normalizeCpf } from './normalize/cpf.ts';
import { type DateOrder, normalizeBirthday, readTypedBirthday } from './normalize/date.ts';
import { normalizeEmail } from './normalize/email.ts';
import { normalizeGender } from './normalize/gender.ts';
import { looksLikePersonName, normalizeName, splitFullName } from './normalize/name.ts';
import { isPlaceholderPhone, normalizePhone } from './normalize/phone.ts';
import { missingRequiredFields, type Prospect } from './prospect.ts';
import { buildNotes } from './prospect-notes.ts';
import {
  CONFIDENT,
  isMetadataKey,
  type PersonField,
  recogniseField,
  saysNothing,
} from './recognise-field.ts';

/** The part of a profile the mapping reads (a `Profile` from the config satisfies it). */
export interface MappingProfile {
  defaults?: Partial<Prospect> | undefined;
  fieldMap?: Record<string, string> | undefined;
  forms?: Record<string, Partial<Prospect>> | undefined;
  /** How free-text numeric dates are read: day/month (`DMY`, the default) or month/day. */
  dateOrder?: DateOrder | undefined;
  /** The lastName of a person who typed one name; default {@link DEFAULT_LAST_NAME_STAND_IN}. */
  lastNameStandIn?: string | undefined;
  /**
   * The e-mail of a lead that gave none but has a phone, `{phone}` standing for its ddi and
   * cellphone digits (`{phone}@whatsapp.invalid` → `5511987654321@whatsapp.invalid`): only
   * sources whose leads rarely carry an e-mail offer it (WhatsApp). Unset: such a lead is
   * parked for its e-mail. The notes say when it was used.
   */
  emailPlaceholder?: string | undefined;
}

/** `{phone}` in an `emailPlaceholder`. */
export const EMAIL_PLACEHOLDER_PHONE = '{phone}';

/** The lastName a one-word name is delivered with when the profile chooses none. */
export const DEFAULT_LAST_NAME_STAND_IN = '(não informado)';

/** Folds a key for matching: `"Qual seu CPF?"` → `qual_seu_cpf`, `E-mail` → `e_mail`. */
export function foldKey(key: string): string {
  return key
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** Prospect fields a lead may carry under their own names (a hidden `idBranch` field, say). */
const DIRECT: Record<string, keyof Prospect> = Object.fromEntries(
  (
    [
      'idBranch',
      'marketingType',
      'currentStep',
      'visit',
      'temperature',
      'interests',
      'tokenPartner',
      'additionalFieldName',
      'additionalFieldValue',
    ] as const
  ).map((field) => [foldKey(field), field]),
);

const INTEGER_FIELDS = new Set<keyof Prospect>(['idBranch', 'visit', 'temperature']);

/** What a profile's `fieldMap` may map a key to. */
export const FIELD_MAP_TARGETS: ReadonlySet<string> = new Set([
  'fullName',
  'firstName',
  'lastName',
  'email',
  'phone',
  'cpf',
  'birthday',
  'gender',
  'notes',
  'ignore',
  'name',
  'cellphone',
  'rg',
  ...Object.values(DIRECT),
]);

const PERSON_TARGETS: Readonly<Record<string, PersonField>> = {
  fullName: 'fullName',
  // `name` in a fieldMap means the person's name as typed, which may be a full name.
  name: 'fullName',
  firstName: 'firstName',
  lastName: 'lastName',
  email: 'email',
  phone: 'phone',
  cellphone: 'phone',
  cpf: 'cpf',
  birthday: 'birthday',
  gender: 'gender',
  rg: 'rg',
};

/** The person fields, in the order they are resolved. */
const PERSON_FIELDS: readonly PersonField[] = [
  'email',
  'phone',
  'cpf',
  'birthday',
  'gender',
  'rg',
  'fullName',
  'firstName',
  'lastName',
];

/** How the notes name a field whose value could not be used. */
const UNUSED: Readonly<Record<PersonField, string>> = {
  fullName: 'Nome não utilizado',
  firstName: 'Nome não utilizado',
  lastName: 'Sobrenome não utilizado',
  email: 'E-mail não utilizado',
  phone: 'Telefone não utilizado',
  cpf: 'CPF não utilizado',
  birthday: 'Data de nascimento não utilizada',
  gender: 'Gênero não utilizado',
  rg: 'RG não utilizado',
};

function firstValue(value: LeadAnswer['value']): string {
  if (typeof value === 'string') return value.trim();
  return (value.find((v) => v.trim()) ?? '').trim();
}

function displayValue(value: LeadAnswer['value']): string {
  return typeof value === 'string' ? value.trim() : value.map((v) => v.trim()).join(', ');
}

function toInteger(text: string): number | undefined {
  return /^-?\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

function toIntegerList(value: LeadAnswer['value']): number[] | undefined {
  const parts = (typeof value === 'string' ? value.split(/[,;\s]+/) : value).filter((p) =>
    p.trim(),
  );
  const numbers = parts.map(toInteger);
  return numbers.every((n) => n !== undefined) && numbers.length
    ? (numbers as number[])
    : undefined;
}

/** Merges settings without letting `null`/`undefined` erase a value set before. */
function overlay(base: Prospect, top: Partial<Prospect> | undefined): Prospect {
  const out: Prospect = { ...base };
  for (const [key, value] of Object.entries(top ?? {})) {
    if (value !== undefined && value !== null) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** An answer that may fill a person field. */
interface Candidate {
  index: number;
  answer: LeadAnswer;
  text: string;
  field: PersonField;
  confidence: number;
  /** Mapped by the profile's fieldMap. */
  explicit: boolean;
  /** The question states its date format. */
  dateOrder?: DateOrder;
}

/** A value check: what the field gets, or why the value cannot be used. */
type Checked =
  | { ok: true; same: string; apply(own: Prospect): void; notice?: string }
  | { ok: false; reason: string; placeholder?: true };

function checkValue(candidate: Candidate, capture: LeadCapture, profile: MappingProfile): Checked {
  const { text } = candidate;
  switch (candidate.field) {
    case 'email': {
      const result = normalizeEmail(text);
      if ('error' in result) return { ok: false, reason: result.error };
      return { ok: true, same: result.email, apply: (own) => (own.email = result.email) };
    }
    case 'phone': {
      if (isPlaceholderPhone(text))
        return { ok: false, reason: 'telefone de exemplo', placeholder: true };
      const result = normalizePhone(text);
      if ('error' in result) return { ok: false, reason: result.error };
      return {
        ok: true,
        same: result.e164,
        apply: (own) => {
          own.ddi = result.ddi;
          own.cellphone = result.cellphone;
        },
      };
    }
    case 'cpf': {
      const result = normalizeCpf(text);
      if ('error' in result) return { ok: false, reason: result.error };
      return { ok: true, same: result.cpf, apply: (own) => (own.cpf = result.cpf) };
    }
    case 'birthday':
      return checkBirthday(candidate, capture, profile);
    case 'gender': {
      const code = normalizeGender(text);
      if (!code) return { ok: false, reason: 'não é um gênero conhecido' };
      return { ok: true, same: code, apply: (own) => (own.gender = code) };
    }
    case 'rg':
      return { ok: true, same: text, apply: (own) => (own.rg = text) };
    default: {
      // Kept as typed unless it is plainly not a name: no letters (a phone in the name field), an
      // e-mail address or a web address.
      if (!/\p{L}/u.test(text) || text.includes('@') || /:\/\//u.test(text)) {
        return { ok: false, reason: 'não parece um nome' };
      }
      const same = text.normalize('NFKC').toLocaleLowerCase('pt-BR').replace(/\s+/gu, ' ');
      // Names are composed after every answer is read (see composeName).
      return { ok: true, same, apply: () => undefined };
    }
  }
}

function dayMonthYear(iso: string): string {
  const [year, month, day] = iso.slice(0, 10).split('-');
  return `${day}/${month}/${year}`;
}

function checkBirthday(
  candidate: Candidate,
  capture: LeadCapture,
  profile: MappingProfile,
): Checked {
  const { text, answer } = candidate;
  const platformDate = answer.type === 'date' && capture.dateOrder !== undefined;
  if (platformDate) {
    const result = normalizeBirthday(text, { order: capture.dateOrder });
    if ('error' in result) return { ok: false, reason: result.error };
    return { ok: true, same: result.birthday, apply: (own) => (own.birthday = result.birthday) };
  }
  const order = candidate.dateOrder ?? profile.dateOrder ?? 'DMY';
  const result = readTypedBirthday(text, { order });
  if ('error' in result) return { ok: false, reason: result.error };
  const read = dayMonthYear(result.birthday);
  const apply = (own: Prospect) => {
    own.birthday = result.birthday;
  };
  if (result.swapped) {
    const as = order === 'DMY' ? 'mês/dia/ano' : 'dia/mês/ano';
    const notice = `Data de nascimento lida como ${as}, pois a outra ordem é impossível (${read}): ${text}`;
    return { ok: true, same: result.birthday, apply, notice };
  }
  if (result.ambiguous && !candidate.dateOrder) {
    const as = order === 'DMY' ? 'dia/mês/ano' : 'mês/dia/ano';
    const notice = `Data de nascimento ambígua, lida como ${as} (${read}); confira: ${text}`;
    return { ok: true, same: result.birthday, apply, notice };
  }
  return { ok: true, same: result.birthday, apply };
}

/** What a fieldMap entry says of an answer: by its key first, then by its label. */
function mappedTarget(answer: LeadAnswer, fieldMap: Map<string, string>): string | undefined {
  const byKey = fieldMap.get(foldKey(answer.key));
  if (byKey && FIELD_MAP_TARGETS.has(byKey)) return byKey;
  const byLabel = answer.label ? fieldMap.get(foldKey(answer.label)) : undefined;
  return byLabel && FIELD_MAP_TARGETS.has(byLabel) ? byLabel : undefined;
}

/** The direct Prospect field a key names (`idBranch`; RD Station's `cf_` prefix removed). */
function directField(key: string): keyof Prospect | undefined {
  const folded = foldKey(key);
  // Own keys only: a key such as `constructor` names no field.
  const own = (key: string) => (Object.hasOwn(DIRECT, key) ? DIRECT[key] : undefined);
  return own(folded) ?? (folded.startsWith('cf_') ? own(folded.slice(3)) : undefined);
}

/**
 * Maps a capture with a profile's settings. `sourceLabel` names the platform in the notes and is
 * the marketingType when neither the profile nor the lead's `utm_source` gives one.
 */
export function mapLeadToProspect(
  capture: LeadCapture,
  profile: MappingProfile,
  sourceLabel: string,
  branches: readonly NamedBranch[] = [],
): MappedLead {
  const formSettings = capture.formId ? profile.forms?.[capture.formId] : undefined;
  const configured = overlay(overlay({}, profile.defaults), formSettings);
  const fieldMap = new Map(
    Object.entries(profile.fieldMap ?? {}).map(([key, target]) => [foldKey(key), target]),
  );

  const own: Prospect = { ...(capture.prospect ?? {}) };
  const lines: Array<{ index: number; line: string }> = [];
  const warnings: string[] = [];
  const notices: string[] = [];
  const candidates: Candidate[] = [];
  /** Answers that ask for the branch ("Qual unidade?"), when the account names its branches. */
  const branchAnswers: BranchAnswer[] = [];
  /** Answers whose key and label say nothing and whose value is plainly a person's name. */
  const unnamed: Pick<Candidate, 'index' | 'answer' | 'text'>[] = [];
  const label = (answer: LeadAnswer) => answer.label?.trim() || answer.key;
  const noteLine = (index: number, answer: LeadAnswer) =>
    lines.push({ index, line: `${label(answer)}: ${displayValue(answer.value)}` });

  for (const [index, answer] of capture.answers.entries()) {
    const text = firstValue(answer.value);
    if (!text) continue;
    const mapped = mappedTarget(answer, fieldMap);
    if (mapped === 'ignore') continue;
    if (mapped === 'notes') {
      noteLine(index, answer);
      continue;
    }
    const person = mapped ? PERSON_TARGETS[mapped] : undefined;
    if (person) {
      candidates.push({ index, answer, text, field: person, confidence: 1, explicit: true });
      continue;
    }
    const direct = (mapped as keyof Prospect | undefined) ?? directField(answer.key);
    if (direct) {
      setDirect(own, direct, answer, text, warnings, label(answer));
      continue;
    }
    if (isMetadataKey(answer.key)) continue;
    if (branches.length > 0 && (isBranchQuestion(answer.key) || isBranchQuestion(label(answer)))) {
      branchAnswers.push({ index, text });
      noteLine(index, answer);
      continue;
    }
    const recognition = recogniseField(answer);
    if (!recognition) {
      noteLine(index, answer);
      if (saysNothing(answer) && looksLikePersonName(text)) unnamed.push({ index, answer, text });
      continue;
    }
    const { field, confidence, dateOrder } = recognition;
    candidates.push({
      index,
      answer,
      text,
      field,
      confidence,
      explicit: false,
      ...(dateOrder && { dateOrder }),
    });
  }

  const names: Partial<Record<'fullName' | 'firstName' | 'lastName', Candidate>> = {};
  for (const field of PERSON_FIELDS) {
    const ranked = candidates
      .filter((c) => c.field === field)
      .sort(
        (a, b) =>
          Number(b.explicit) - Number(a.explicit) ||
          b.confidence - a.confidence ||
          a.index - b.index,
      );
    let winner: string | undefined;
    for (const candidate of ranked) {
      const checked = checkValue(candidate, capture, profile);
      if (checked.ok && winner === undefined) {
        winner = checked.same;
        if (field === 'fullName' || field === 'firstName' || field === 'lastName') {
          names[field] = candidate;
        } else if (
          (own as Record<string, unknown>)[fieldOf(field)] === undefined ||
          (own as Record<string, unknown>)[fieldOf(field)] === null
        ) {
          checked.apply(own);
          if (checked.notice) notices.push(checked.notice);
        } else {
          // The Prospect API's own value wins; an answer saying otherwise goes to notes.
          noteLine(candidate.index, candidate.answer);
        }
      } else if (checked.ok) {
        if (checked.same !== winner) noteLine(candidate.index, candidate.answer);
      } else if (checked.placeholder) {
        warnings.push(`Telefone de exemplo, não utilizado: ${candidate.text}`);
      } else if ((candidate.explicit || candidate.confidence >= CONFIDENT) && field !== 'gender') {
        warnings.push(`${UNUSED[field]} (${checked.reason}): ${candidate.text}`);
      } else {
        noteLine(candidate.index, candidate.answer);
      }
    }
  }

  const branch = applyBranch(branchAnswers, branches, configured, own, warnings);
  const guessed = nameFromUnnamed(names, unnamed, own);
  if (guessed) {
    names.fullName = { ...guessed, field: 'fullName', confidence: 0.5, explicit: false };
    lines.splice(
      lines.findIndex((line) => line.index === guessed.index),
      1,
    );
    warnings.push(`Nome lido de um campo sem rótulo (${label(guessed.answer)}): ${guessed.text}`);
  }
  const name = composeName(names, noteLine);
  if (name.name) own.name ??= name.name;
  if (name.lastName) own.lastName ??= name.lastName;
  if (name.name && !own.lastName && !configured.lastName) {
    const standIn = profile.lastNameStandIn?.trim() || DEFAULT_LAST_NAME_STAND_IN;
    own.lastName = standIn;
    notices.push(`Sobrenome não informado; usado "${standIn}".`);
  }

  const prospect = overlay(configured, own);
  const placeholder = emailPlaceholderFor(prospect, profile.emailPlaceholder);
  if (placeholder) {
    prospect.email = placeholder;
    notices.push(`E-mail não informado; usado "${placeholder}".`);
  }
  prospect.marketingType ??= capture.attribution.utm_source?.trim() || sourceLabel;
  const answerLines = lines.sort((a, b) => a.index - b.index).map((l) => l.line);
  const notes = buildNotes(capture, sourceLabel, configured.notes, own.notes, answerLines, [
    ...warnings,
    ...notices,
  ]);
  if (notes) prospect.notes = notes;
  return {
    prospect,
    missing: missingRequiredFields(prospect),
    warnings,
    notices,
    ...(branch && { branch }),
  };
}

/** The branch the answers choose (branch-answer.ts) set on `own`, its warning noted. */
function applyBranch(
  answers: readonly BranchAnswer[],
  branches: readonly NamedBranch[],
  configured: Prospect,
  own: Prospect,
  warnings: string[],
): BranchChoice | undefined {
  if (answers.length === 0) return undefined;
  const { choice, warning } = chooseBranch(answers, branches, configured.idBranch ?? undefined);
  if (choice.kind === 'answer') own.idBranch ??= choice.idBranch;
  if (warning) warnings.push(warning);
  return choice;
}

/**
 * A form whose fields carry only generated ids (Contact Form 7's `text-374`) names nobody: when
 * no answer was recognised as the person's name, the form's only answer that is plainly a name
 * (two to four words of letters), beside a recognised e-mail or phone, is taken for it.
 */
function nameFromUnnamed(
  names: Partial<Record<'fullName' | 'firstName' | 'lastName', Candidate>>,
  unnamed: readonly Pick<Candidate, 'index' | 'answer' | 'text'>[],
  own: Prospect,
): Pick<Candidate, 'index' | 'answer' | 'text'> | undefined {
  if (names.fullName || names.firstName || own.name) return undefined;
  if (unnamed.length !== 1 || !(own.email || own.cellphone)) return undefined;
  return unnamed[0];
}

/** The placeholder e-mail of a Prospect without one but with a phone; undefined otherwise. */
function emailPlaceholderFor(prospect: Prospect, template: string | undefined): string | undefined {
  if (!template?.includes(EMAIL_PLACEHOLDER_PHONE) || prospect.email?.trim()) return undefined;
  const digits = `${prospect.ddi ?? ''}${prospect.cellphone ?? ''}`.replace(/\D/g, '');
  if (!prospect.cellphone?.trim() || !digits) return undefined;
  return template.replace(EMAIL_PLACEHOLDER_PHONE, digits).toLowerCase();
}

/** The Prospect field a person field fills (names are composed apart). */
function fieldOf(field: PersonField): keyof Prospect {
  return field === 'phone' ? 'cellphone' : (field as keyof Prospect);
}

function setDirect(
  own: Prospect,
  target: keyof Prospect,
  answer: LeadAnswer,
  text: string,
  warnings: string[],
  label: string,
): void {
  const fields = own as Record<string, unknown>;
  if (target === 'interests') {
    const list = toIntegerList(answer.value);
    if (list) own.interests ??= list;
    else warnings.push(`Interesses não utilizados (esperados ids numéricos): ${text}`);
  } else if (!INTEGER_FIELDS.has(target)) {
    fields[target] ??= text;
  } else if (toInteger(text) !== undefined) {
    fields[target] ??= toInteger(text);
  } else {
    warnings.push(`${label} não utilizado (não é um número): ${text}`);
  }
}

function words(text: string): string[] {
  return text.split(/\s+/u).filter((w) => w.length > 0);
}

/** `full` without `part` at its start (or end): what is left, or undefined when it is not there. */
function without(full: string, part: string, at: 'start' | 'end'): string | undefined {
  const f = words(full);
  const p = words(part);
  if (p.length >= f.length) return undefined;
  const fold = (w: string) => w.normalize('NFKC').toLocaleLowerCase('pt-BR');
  const slice = at === 'start' ? f.slice(0, p.length) : f.slice(f.length - p.length);
  if (slice.map(fold).join(' ') !== p.map(fold).join(' ')) return undefined;
  return (at === 'start' ? f.slice(p.length) : f.slice(0, f.length - p.length)).join(' ');
}

/**
 * The person's name and lastName from the winning name answers: a full name split (compound
 * first names kept together); a first name and a last name as typed; a full name next to one of
 * them fills in the other part (`Nome` + `Sobrenome` forms).
 */
function composeName(
  names: Partial<Record<'fullName' | 'firstName' | 'lastName', Candidate>>,
  noteLine: (index: number, answer: LeadAnswer) => void,
): { name?: string; lastName?: string } {
  const full = names.fullName?.text;
  let first = names.firstName?.text;
  let last = names.lastName?.text;
  if (full !== undefined) {
    if (first === undefined && last === undefined) return splitName(full);
    if (first === undefined) {
      first = without(full, last ?? '', 'end') ?? full;
    } else if (last === undefined) {
      last = without(full, first, 'start');
      if (last === undefined && names.fullName)
        noteLine(names.fullName.index, names.fullName.answer);
    } else if (names.fullName && `${first} ${last}`.toLowerCase() !== full.toLowerCase()) {
      noteLine(names.fullName.index, names.fullName.answer);
    }
  }
  if (first !== undefined && last === undefined) return splitName(first);
  const out: { name?: string; lastName?: string } = {};
  if (first !== undefined) out.name = normalizeName(first);
  if (last !== undefined) out.lastName = normalizeName(last);
  return out;
}

function splitName(full: string): { name?: string; lastName?: string } {
  const split = splitFullName(full);
  const out: { name?: string; lastName?: string } = {};
  if (split.name) out.name = split.name;
  if (split.lastName) out.lastName = split.lastName;
  return out;
}
