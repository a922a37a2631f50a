/**
 * The sandbox's validation of a Prospect body, worded like production's `{"mensagens": [...]}`:
 * one Portuguese message per bad field, naming it. The rules are the sandbox's own, written from
 * the upstream's documentation (docs/upstream.md): the field types of the interface, the five
 * fields production's Portuguese page marks required, the gender and visit codes it lists. They
 * deliberately share nothing with our own model (functions/domain/prospect.ts), so that an
 * end-to-end test catches a wrong assumption of ours about the upstream instead of agreeing
 * with it. Production's exact rules and texts are not published.
 *
 * Field names bind case-insensitively, as production's ASP.NET binder does (`AdditionalFieldName`
 * fills `additionalFieldName`). Blank optional strings (`""`) are treated as absent by the format
 * checks; blank required fields are missing.
 */

/** The JSON type a field takes (every field may also be `null`, as production's binder allows). */
type FieldType = 'string' | 'int' | 'boolean' | 'object' | 'int[]';

/** The Prospect's fields and types, in the interface's order (production's names included). */
const FIELDS: Readonly<Record<string, FieldType>> = {
  name: 'string',
  lastName: 'string',
  email: 'string',
  idBranch: 'int',
  ddi: 'string',
  cellphone: 'string',
  birthday: 'string',
  gender: 'string',
  visit: 'int',
  marketingType: 'string',
  notes: 'string',
  currentStep: 'string',
  cpf: 'string',
  rg: 'string',
  tokenPartner: 'string',
  tokenGympass: 'string',
  additionalFieldName: 'string',
  additionalFieldValue: 'string',
  validateCpf: 'boolean',
  validateCpfDuplication: 'boolean',
  temperature: 'int',
  financiallyResponsible: 'object',
  interests: 'int[]',
};

const RESPONSIBLE_FIELDS: Readonly<Record<string, FieldType>> = {
  idMember: 'int',
  name: 'string',
  email: 'string',
  cpf: 'string',
};

/** What production's Portuguese documentation marks "Sim" (required). */
const REQUIRED = ['name', 'lastName', 'email', 'idBranch', 'cellphone'] as const;

/** `gender`: M (male), F (female), P (other), as production documents it. */
const GENDERS = ['M', 'F', 'P'];

/** A stored body: the fields as sent, names in the interface's casing. */
export type ProspectBody = Record<string, unknown>;

export interface ProspectValidation {
  /** One message per bad field, in the order found; empty when the body is valid. */
  messages: string[];
  /** The body with field names in the interface's casing (only when `messages` is empty). */
  prospect?: ProspectBody;
  /** The CPF's 11 digits, when a valid one is present. */
  cpfDigits?: string;
}

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const DIGITS = /^\d+$/;
const CPF_FORMAT = /^(\d{11}|\d{3}\.\d{3}\.\d{3}-\d{2})$/;
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const TYPE_WORDS: Record<FieldType, string> = {
  string: 'um texto',
  int: 'um número inteiro',
  boolean: 'verdadeiro ou falso (true/false)',
  object: 'um objeto',
  'int[]': 'uma lista de números inteiros',
};

function hasType(value: unknown, type: FieldType): boolean {
  if (value === null || value === undefined) return true;
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'int':
      return Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isPlainObject(value);
    case 'int[]':
      return Array.isArray(value) && value.every((item) => Number.isSafeInteger(item));
  }
}

/** Valid CPF: 11 digits (or `000.000.000-00`), not all equal, both check digits right. */
export function cpfDigitsIfValid(value: string): string | undefined {
  if (!CPF_FORMAT.test(value)) return undefined;
  const digits = value.replace(/\D/g, '');
  if (/^(\d)\1{10}$/.test(digits)) return undefined;
  const numbers = [...digits].map(Number);
  for (const length of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < length; i += 1) sum += (numbers[i] ?? 0) * (length + 1 - i);
    const check = ((sum * 10) % 11) % 10;
    if (check !== numbers[length]) return undefined;
  }
  return digits;
}

/** ISO 8601 date or date-time (`1990-05-12`, `1990-05-12T00:00:00`, `...00.000Z`, `...-03:00`). */
export function isIsoDateTime(value: string): boolean {
  const match = ISO_DATE_TIME.exec(value);
  if (!match) return false;
  const [, y, m, d, hh = '0', mm = '0', ss = '0'] = match;
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth && Number(hh) < 24 && Number(mm) < 60 && Number(ss) < 60;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Renames keys that match a known field case-insensitively to the field's own casing. */
function bindCaseInsensitively(
  body: Record<string, unknown>,
  fields: readonly string[],
): Record<string, unknown> {
  const byLowerCase = new Map(fields.map((field) => [field.toLowerCase(), field]));
  const bound: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const field = byLowerCase.get(key.toLowerCase());
    const target = field && !Object.hasOwn(body, field) ? field : key;
    if (!Object.hasOwn(bound, target)) bound[target] = value;
  }
  return bound;
}

const PROSPECT_FIELDS = Object.keys(FIELDS);

function present(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/**
 * Validates a parsed JSON body. `isCpfTaken` tells whether a CPF (11 digits) already belongs to
 * a stored prospect; it is asked only when `validateCpfDuplication` is true.
 */
export function validateProspectBody(
  body: unknown,
  isCpfTaken: (cpfDigits: string) => boolean = () => false,
): ProspectValidation {
  if (!isPlainObject(body)) {
    return { messages: ['O corpo da requisição deve ser um objeto JSON (Prospect).'] };
  }
  const bound = bindCaseInsensitively(body, PROSPECT_FIELDS);
  if (isPlainObject(bound.financiallyResponsible)) {
    bound.financiallyResponsible = bindCaseInsensitively(
      bound.financiallyResponsible,
      Object.keys(RESPONSIBLE_FIELDS),
    );
  }

  const messages = new Map<string, string>();
  const add = (field: string, message: string) => {
    if (!messages.has(field)) messages.set(field, message);
  };

  // 1. Types (unknown fields are ignored, as production's binder does).
  for (const [field, type] of Object.entries(FIELDS)) {
    if (!hasType(bound[field], type))
      add(field, `O campo '${field}' deve ser ${TYPE_WORDS[type]}.`);
  }
  const responsibleIn = bound.financiallyResponsible;
  if (isPlainObject(responsibleIn)) {
    for (const [field, type] of Object.entries(RESPONSIBLE_FIELDS)) {
      const path = `financiallyResponsible.${field}`;
      if (!hasType(responsibleIn[field], type)) {
        add(path, `O campo '${path}' deve ser ${TYPE_WORDS[type]}.`);
      }
    }
  }

  // 2. Required fields; a field with a wrong type already has its message.
  for (const field of REQUIRED) {
    const value = bound[field];
    if (value === null || value === undefined || (typeof value === 'string' && !value.trim())) {
      add(field, `O campo '${field}' é obrigatório.`);
    }
  }
  const prospect: ProspectBody = bound;

  // 3. Formats, on fields whose type is right.
  const text = (field: string, value: unknown) => !messages.has(field) && present(value);
  if (text('email', bound.email) && !EMAIL.test(String(bound.email).trim())) {
    add('email', "O campo 'email' deve ser um e-mail válido.");
  }
  const gender = String(bound.gender);
  if (text('gender', bound.gender) && !GENDERS.includes(gender)) {
    add('gender', "O campo 'gender' deve ser M, F ou P.");
  }
  if (!messages.has('visit') && typeof bound.visit === 'number') {
    if (bound.visit < 1 || bound.visit > 4) {
      add('visit', "O campo 'visit' deve ser 1 (pessoal), 2 (e-mail), 3 (telefone) ou 4 (outro).");
    }
  }
  if (text('birthday', bound.birthday) && !isIsoDateTime(String(bound.birthday))) {
    add(
      'birthday',
      "O campo 'birthday' deve ser uma data ISO 8601 válida (ex.: 1990-05-12T00:00:00).",
    );
  }
  for (const field of ['ddi', 'cellphone'] as const) {
    if (text(field, bound[field]) && !DIGITS.test(String(bound[field]))) {
      add(field, `O campo '${field}' deve conter apenas dígitos.`);
    }
  }
  let cpfDigits: string | undefined;
  if (text('cpf', bound.cpf)) {
    cpfDigits = cpfDigitsIfValid(String(bound.cpf).trim());
    if (!cpfDigits) add('cpf', "O campo 'cpf' deve ser um CPF válido (11 dígitos).");
  } else if (bound.validateCpf === true && !messages.has('cpf')) {
    add('cpf', "O campo 'cpf' é obrigatório quando 'validateCpf' é verdadeiro.");
  }
  const responsible = bound.financiallyResponsible;
  if (isPlainObject(responsible)) {
    const email = 'financiallyResponsible.email';
    if (text(email, responsible.email) && !EMAIL.test(String(responsible.email).trim())) {
      add(email, `O campo '${email}' deve ser um e-mail válido.`);
    }
    const cpf = 'financiallyResponsible.cpf';
    if (text(cpf, responsible.cpf) && !cpfDigitsIfValid(String(responsible.cpf).trim())) {
      add(cpf, `O campo '${cpf}' deve ser um CPF válido (11 dígitos).`);
    }
  }

  // 4. Duplication, asked for by the client.
  if (cpfDigits && bound.validateCpfDuplication === true && isCpfTaken(cpfDigits)) {
    add('cpf', "O campo 'cpf' informado já está cadastrado (CPF duplicado).");
  }

  if (messages.size) {
    // In the model's field order (nested fields after their parent, extra fields last).
    const rank = (field: string) => {
      const index = PROSPECT_FIELDS.indexOf(field.split('.')[0] ?? field);
      return index < 0 ? PROSPECT_FIELDS.length : index;
    };
    const ordered = [...messages].sort(([a], [b]) => rank(a) - rank(b));
    return { messages: ordered.map(([, message]) => message) };
  }
  return cpfDigits ? { messages: [], prospect, cpfDigits } : { messages: [], prospect };
}
