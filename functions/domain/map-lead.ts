/**
 * The one mapping from a captured lead to the seed's Prospect.
 *
 * Precedence, lowest first: the profile's `defaults`, its `forms.<formId>` settings, then what the
 * lead itself says. Field names are matched after folding case, accents and punctuation, against
 * the profile's `fieldMap` first and then the Portuguese and English aliases below. Everything the
 * lead said that maps to no field (other answers, UTM parameters, click and campaign ids) is kept
 * readably in `notes`, in Portuguese, because the gym's staff read it in the CRM.
 */
import type { LeadAnswer, LeadCapture, MappedLead } from './lead.ts';
import { normalizeCpf } from './normalize/cpf.ts';
import { normalizeBirthday } from './normalize/date.ts';
import { normalizeEmail } from './normalize/email.ts';
import { normalizeGender } from './normalize/gender.ts';
import { normalizeName, splitFullName } from './normalize/name.ts';
import { normalizePhone } from './normalize/phone.ts';
import { missingRequiredFields, type Prospect } from './prospect.ts';

/** The part of a profile the mapping reads (a `Profile` from the config satisfies it). */
export interface MappingProfile {
  defaults?: Partial<Prospect> | undefined;
  fieldMap?: Record<string, string> | undefined;
  forms?: Record<string, Partial<Prospect>> | undefined;
}

/** What an answer can feed: a Prospect field, or one of the composite person fields. */
type Target =
  | 'fullName'
  | 'firstName'
  | 'lastName'
  | 'email'
  | 'phone'
  | 'cpf'
  | 'birthday'
  | 'gender'
  | 'notes'
  | 'ignore'
  | keyof Prospect;

/** Folds a key for matching: `"Qual seu CPF?"` → `qual_seu_cpf`, `E-mail` → `e_mail`. */
export function foldKey(key: string): string {
  return key
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

const ALIASES: Record<string, Target> = {};
function alias(target: Target, ...keys: string[]): void {
  for (const key of keys) ALIASES[foldKey(key)] = target;
}
alias(
  'fullName',
  'name',
  'nome',
  'full_name',
  'fullname',
  'nome_completo',
  'seu_nome',
  'your_name',
);
alias('firstName', 'first_name', 'firstname', 'primeiro_nome', 'given_name');
alias('lastName', 'last_name', 'lastname', 'sobrenome', 'surname', 'family_name', 'ultimo_nome');
alias('email', 'email', 'e_mail', 'mail', 'email_address', 'user_email', 'work_email', 'seu_email');
alias(
  'phone',
  'phone',
  'phone_number',
  'telefone',
  'celular',
  'whatsapp',
  'whats_app',
  'fone',
  'tel',
  'mobile',
  'mobile_phone',
  'personal_phone',
  'work_phone',
  'cellphone',
  'seu_telefone',
  'seu_celular',
  'seu_whatsapp',
  'telefone_celular',
  'numero_de_telefone',
);
alias(
  'cpf',
  'cpf',
  'seu_cpf',
  'qual_o_seu_cpf',
  'qual_seu_cpf',
  'numero_do_cpf',
  'documento',
  'document',
  'government_issued_id_cpf_br',
);
alias(
  'birthday',
  'birthday',
  'birthdate',
  'birth_date',
  'date_of_birth',
  'dob',
  'data_nascimento',
  'data_de_nascimento',
  'nascimento',
  'aniversario',
);
alias('gender', 'gender', 'sexo', 'genero', 'sex');
alias('rg', 'rg');

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
const NOTES_LIMIT = 4000;

function firstValue(value: LeadAnswer['value']): string {
  if (typeof value === 'string') return value.trim();
  return (value.find((v) => v.trim()) ?? '').trim();
}

function displayValue(value: LeadAnswer['value']): string {
  return typeof value === 'string' ? value.trim() : value.map((v) => v.trim()).join(', ');
}

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

function targetOf(answer: LeadAnswer, fieldMap: Map<string, string>): Target | undefined {
  const folded = foldKey(answer.key);
  const mapped = fieldMap.get(folded);
  if (mapped && FIELD_MAP_TARGETS.has(mapped)) {
    // `name` in a fieldMap means the person's name as typed, which may be a full name.
    if (mapped === 'name') return 'fullName';
    return (mapped === 'cellphone' ? 'phone' : mapped) as Target;
  }
  // RD Station prefixes its custom fields with `cf_` (`cf_celular`, `cf_data_de_nascimento`).
  const unprefixed = folded.startsWith('cf_') ? folded.slice(3) : folded;
  return ALIASES[folded] ?? DIRECT[folded] ?? ALIASES[unprefixed];
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

/**
 * Maps a capture with a profile's settings. `sourceLabel` names the platform in the notes and is
 * the marketingType when neither the profile nor the lead's `utm_source` gives one.
 */
export function mapLeadToProspect(
  capture: LeadCapture,
  profile: MappingProfile,
  sourceLabel: string,
): MappedLead {
  const formSettings = capture.formId ? profile.forms?.[capture.formId] : undefined;
  const configured = overlay(overlay({}, profile.defaults), formSettings);
  const fieldMap = new Map(
    Object.entries(profile.fieldMap ?? {}).map(([key, target]) => [foldKey(key), target]),
  );

  const own: Prospect = { ...(capture.prospect ?? {}) };
  const person: Partial<Record<'fullName' | 'firstName' | 'lastName', string>> = {};
  const answerLines: string[] = [];
  const warnings: string[] = [];
  const label = (answer: LeadAnswer) => answer.label?.trim() || answer.key;

  for (const answer of capture.answers) {
    const text = firstValue(answer.value);
    if (!text) continue;
    const target = targetOf(answer, fieldMap);
    switch (target) {
      case undefined:
      case 'notes':
        answerLines.push(`${label(answer)}: ${displayValue(answer.value)}`);
        break;
      case 'ignore':
        break;
      case 'fullName':
      case 'firstName':
      case 'lastName':
        person[target] ??= text;
        break;
      case 'email': {
        if (own.email) break;
        const result = normalizeEmail(text);
        if ('email' in result) own.email = result.email;
        else warnings.push(`E-mail não utilizado (${result.error}): ${text}`);
        break;
      }
      case 'phone': {
        if (own.cellphone) {
          answerLines.push(`${label(answer)}: ${text}`);
          break;
        }
        const result = normalizePhone(text);
        if ('error' in result) warnings.push(`Telefone não utilizado (${result.error}): ${text}`);
        else {
          own.ddi = result.ddi;
          own.cellphone = result.cellphone;
        }
        break;
      }
      case 'cpf': {
        if (own.cpf) break;
        const result = normalizeCpf(text);
        if ('cpf' in result) own.cpf = result.cpf;
        else warnings.push(`CPF não utilizado (${result.error}): ${text}`);
        break;
      }
      case 'birthday': {
        if (own.birthday) break;
        const result = normalizeBirthday(text, { order: capture.dateOrder ?? 'DMY' });
        if ('birthday' in result) own.birthday = result.birthday;
        else warnings.push(`Data de nascimento não utilizada (${result.error}): ${text}`);
        break;
      }
      case 'gender': {
        const code = normalizeGender(text);
        if (code) own.gender ??= code;
        else answerLines.push(`${label(answer)}: ${text}`);
        break;
      }
      case 'interests': {
        const list = toIntegerList(answer.value);
        if (list) own.interests ??= list;
        else warnings.push(`Interesses não utilizados (esperados ids numéricos): ${text}`);
        break;
      }
      default: {
        const fields = own as Record<string, unknown>;
        if (!INTEGER_FIELDS.has(target)) fields[target] ??= text;
        else if (toInteger(text) !== undefined) fields[target] ??= toInteger(text);
        else warnings.push(`${label(answer)} não utilizado (não é um número): ${text}`);
      }
    }
  }

  if (person.firstName || person.fullName) {
    const split = person.firstName
      ? { name: normalizeName(person.firstName), lastName: undefined }
      : splitFullName(person.fullName ?? '');
    own.name ??= split.name || undefined;
    const lastName = person.lastName ? normalizeName(person.lastName) : split.lastName;
    if (lastName) own.lastName ??= lastName;
  } else if (person.lastName) {
    own.lastName ??= normalizeName(person.lastName);
  }

  const prospect = overlay(configured, own);
  prospect.marketingType ??= capture.attribution.utm_source?.trim() || sourceLabel;
  const notes = buildNotes(
    capture,
    sourceLabel,
    configured.notes,
    own.notes,
    answerLines,
    warnings,
  );
  if (notes) prospect.notes = notes;
  return { prospect, missing: missingRequiredFields(prospect), warnings };
}

function buildNotes(
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
  if (capture.isTest) origin.push('LEAD DE TESTE');
  sections.push(`${origin.join(', ')}.`);
  if (answerLines.length) sections.push(answerLines.join('\n'));
  const attribution = Object.entries(capture.attribution).filter(([, value]) => value.trim());
  if (attribution.length) {
    sections.push(`Origem: ${attribution.map(([key, value]) => `${key}=${value}`).join('; ')}`);
  }
  if (warnings.length) sections.push(`Avisos:\n${warnings.map((w) => `- ${w}`).join('\n')}`);
  const notes = sections.join('\n\n');
  return notes.length > NOTES_LIMIT ? `${notes.slice(0, NOTES_LIMIT - 1)}…` : notes;
}
