/**
 * Lists of fields inside a body: the one recogniser of the shapes in which chatbots, scheduling
 * pages, CRMs and relays pass a lead's answers as an array rather than as named keys. Pure: no
 * AWS, no process.env, never throws.
 *
 * - **A list of fields**: an array of objects each with a name-like key (`name`, `key`, `label`,
 *   `question`, `title`) and a value-like key (`value`, `values`, `answer`, `text`), at the root
 *   of the body or under any key. A site widget's `[{"id", "name", "value", "type"}]`, Meta's
 *   `field_data` relayed by Make or Zapier (`[{"name": "full_name", "values": ["..."]}]`), a
 *   scheduling page's `questions_and_answers: [{"question", "answer", "position"}]`. Each entry is
 *   one field named by its name (under the list's path, so that `empresa[campos]` still names
 *   the company), labelled by its label or question (what the person read), typed by its `type`
 *   when it is one the recogniser knows (`email`, `tel`, `date`, `number`), and valued by its
 *   value(s); `id`, `position` and the like are not answers. The mapping then reads it by the same
 *   rules as any other field (recognise-field.ts).
 * - **A labelled contact list**: under a key that names a phone or an e-mail (`phones`, `phone`,
 *   `emails`), an array of `{value, label, primary}` (Pipedrive's persons). The phone kept as the
 *   person's is the mobile: by its label (`mobile`, `celular`, `whatsapp`), then by its shape (a
 *   Brazilian mobile: 11 digits, the ninth digit 9), then the primary one; every other number is
 *   kept under a label saying what it is (`Telefone (trabalho)`), so it reaches the notes. For
 *   e-mails the primary one comes first.
 * - **A typed value**: `{"type": "varchar", "value": "..."}` (Pipedrive's `custom_fields`) is its
 *   value, named by its key.
 */
import type { AnswerType } from './lead.ts';
import { isBrazilianMobile } from './normalize/phone.ts';
import { recogniseField } from './recognise-field.ts';

/** One field read from a list. */
export interface ListedField {
  key: string;
  label?: string;
  type?: AnswerType;
  /** The value(s) as text, blanks included (the caller drops them). */
  values: string[];
}

const NAME_KEYS = ['name', 'key'] as const;
const LABEL_KEYS = ['label', 'question', 'title'] as const;
const VALUE_KEYS = ['value', 'values', 'answer', 'text'] as const;
const CONTACT_VALUE_KEYS = ['value', 'number', 'phone', 'email', 'address'] as const;

const TYPES: Readonly<Record<string, AnswerType>> = {
  email: 'email',
  tel: 'phone',
  phone: 'phone',
  phone_number: 'phone',
  telephone: 'phone',
  date: 'date',
  number: 'number',
};

/** A label of a contact's number or address, in Portuguese. */
const CONTACT_LABELS: Readonly<Record<string, string>> = {
  work: 'trabalho',
  office: 'trabalho',
  business: 'comercial',
  home: 'residencial',
  mobile: 'celular',
  cell: 'celular',
  cellphone: 'celular',
  other: 'outro',
  main: 'principal',
  personal: 'pessoal',
  private: 'pessoal',
  fax: 'fax',
};

const MOBILE_LABEL = /^(?:mobile|cell|cellphone|celular|cel|whats ?app|wpp|m[oó]vel|zap)$/iu;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean', 'bigint'].includes(typeof value);
}

function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/** The first of `keys` whose value is non-blank text in `item`. */
function textAt(item: Json, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = item[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}

/** The values of an entry: the first value-like key holding a scalar or a list of scalars. */
function valuesOf(item: Json): string[] | undefined {
  for (const key of VALUE_KEYS) {
    if (!Object.hasOwn(item, key)) continue;
    const value = item[key];
    if (isScalar(value)) return [text(value)];
    if (Array.isArray(value) && value.every(isScalar)) return value.map(text);
  }
  return undefined;
}

/** A name inside a bracket path: its brackets would split it. */
function segment(name: string): string {
  return name.replace(/\[/gu, '(').replace(/\]/gu, ')');
}

/** One entry of a list of fields, or undefined when the item is not one. */
function entryOf(item: unknown, path: string): ListedField | undefined {
  if (!isObject(item)) return undefined;
  const values = valuesOf(item);
  const label = textAt(item, LABEL_KEYS);
  const name = textAt(item, NAME_KEYS) ?? (label ? textAt(item, ['id']) : undefined) ?? label;
  if (values === undefined || name === undefined) return undefined;
  const key = path ? `${path}[${segment(name)}]` : name;
  const type = typeof item.type === 'string' ? TYPES[item.type.trim().toLowerCase()] : undefined;
  return {
    key,
    ...((label ?? (path ? name : undefined)) && { label: label ?? name }),
    ...(type && { type }),
    values,
  };
}

/** The contact field (phone or e-mail) a list's path names, if any. */
function contactFieldOf(path: string): 'phone' | 'email' | undefined {
  if (!path) return undefined;
  const field = recogniseField({ key: path, value: '' })?.field;
  return field === 'phone' || field === 'email' ? field : undefined;
}

interface ContactEntry {
  value: string;
  label?: string;
  primary: boolean;
  index: number;
}

function contactEntryOf(item: unknown, index: number): ContactEntry | undefined {
  if (!isObject(item) || textAt(item, ['name', 'question']) !== undefined) return undefined;
  const value = CONTACT_VALUE_KEYS.map((key) => item[key]).find(
    (v) => (typeof v === 'string' && v.trim()) || typeof v === 'number',
  );
  if (value === undefined) return undefined;
  const label = textAt(item, ['label', 'type', 'kind']);
  const primary = item.primary === true || item.primary === 'true' || item.primary === 1;
  return { value: text(value).trim(), ...(label && { label }), primary, index };
}

function rank(entry: ContactEntry, field: 'phone' | 'email'): number {
  const primary = entry.primary ? 1 : 0;
  if (field === 'email') return primary;
  const byLabel = entry.label && MOBILE_LABEL.test(entry.label.trim()) ? 4 : 0;
  return byLabel + (isBrazilianMobile(entry.value) ? 2 : 0) + primary;
}

/** What an entry's label says, in Portuguese (`work` → `trabalho`); `outro` without one. */
function saidOf(entry: ContactEntry): string {
  const label = entry.label?.trim() ?? '';
  return CONTACT_LABELS[label.toLowerCase()] ?? (label || 'outro');
}

function contactLabel(entry: ContactEntry, field: 'phone' | 'email'): string {
  if (!entry.label) return field === 'phone' ? 'Outro telefone' : 'Outro e-mail';
  return `${field === 'phone' ? 'Telefone' : 'E-mail'} (${saidOf(entry)})`;
}

/** A labelled contact list, the person's own entry first (see the module comment). */
function contactList(path: string, items: readonly unknown[]): ListedField[] | undefined {
  const field = contactFieldOf(path);
  if (!field) return undefined;
  const entries = items.map(contactEntryOf);
  if (!entries.every((entry): entry is ContactEntry => entry !== undefined)) return undefined;
  const ranked = entries
    .map((entry) => ({ entry, rank: rank(entry, field) }))
    .sort((a, b) => b.rank - a.rank || a.entry.index - b.entry.index)
    .map(({ entry }) => entry);
  return ranked.map((entry, position) =>
    position === 0
      ? { key: path, values: [entry.value] }
      : {
          // Named by its label, not as the phone itself: the person's own number comes first.
          key: `${path}[${segment(saidOf(entry))} ${entry.index}]`,
          label: contactLabel(entry, field),
          values: [entry.value],
        },
  );
}

/**
 * The value of a typed value (`{"type": "varchar", "value": "Natação"}`, a CRM's custom field):
 * an object of a scalar `value` and at most its `type`; undefined for any other object.
 */
export function typedValueOf(item: unknown): string | undefined {
  if (!isObject(item) || !Object.hasOwn(item, 'value') || !isScalar(item.value)) return undefined;
  const keys = Object.keys(item);
  return keys.every((key) => key === 'value' || key === 'type') ? text(item.value) : undefined;
}

/**
 * The fields an array under `path` (a bracket path, `''` at the root) stands for when it is a
 * list of fields or a labelled contact list; undefined when it is neither (an empty array, plain
 * values, objects of another shape): the caller reads it as it reads any other array.
 */
export function readFieldList(path: string, items: readonly unknown[]): ListedField[] | undefined {
  if (items.length === 0 || !items.every(isObject)) return undefined;
  const contacts = contactList(path, items);
  if (contacts) return contacts;
  const entries = items.map((item) => entryOf(item, path));
  return entries.every((entry): entry is ListedField => entry !== undefined) ? entries : undefined;
}
