/**
 * Form-like request bodies → an ordered list of `key = value` text fields, whatever the encoding
 * the sender chose. Used by the sources whose payload is a bag of named fields (plain forms,
 * Zapier-style hooks, Unbounce, Elementor). Pure: no AWS, no process.env; never throws.
 *
 * Encodings, by the media type of the request (`IntakeRequest.contentType`):
 * - `application/x-www-form-urlencoded`: repeated keys kept in order, `+` is a space, a bad
 *   percent sequence (`%zz`, a lone `%`) stays as written. Each name and value is read as UTF-8,
 *   or as Windows-1252 when its bytes are not valid UTF-8 (a page served as ISO-8859-1);
 * - `multipart/form-data`: parsed by the platform (`Response.formData()`), which needs the full
 *   Content-Type header with its boundary. File parts are ignored: `files` lists their field
 *   names (never the file names, which can be personal);
 * - `application/json`, `text/json`, `*+json`: a JSON object, flattened (see {@link flattenJson});
 * - `text/plain` or no content type: a JSON object if the text is one (a `fetch` that avoids the
 *   CORS preflight), else urlencoded;
 * - anything else is a problem.
 *
 * Problems describe the structure only, never the content (a body carries personal data).
 */
import { readFieldList, typedValueOf } from '../domain/field-list.ts';
import { parseJson } from '../domain/json.ts';
import type { AnswerType } from '../domain/lead.ts';
import type { IntakeRequest } from './source.ts';

export interface Field {
  key: string;
  value: string;
  /** What the person read, when a list of fields gives it (domain/field-list.ts). */
  label?: string;
  /** The input type a list of fields declares. */
  type?: AnswerType;
}

/** How JSON bodies are read. */
export interface ReadOptions {
  /**
   * Lists of fields and labelled contact lists (domain/field-list.ts) are read as the fields
   * they stand for, and a body whose root is an array is read too: the generic `form` source,
   * whose senders put answers in whatever shape their tool has.
   */
  fieldLists?: boolean;
}

export type FieldsResult =
  /** `files`: names of the file fields that were ignored. */
  { fields: Field[]; files: string[] } | { problem: string };

/** The part of a request that {@link readFields} reads. */
export type BodyRequest = Pick<IntakeRequest, 'body' | 'contentType' | 'headers'>;

/** More fields than any lead form has: a body beyond it is refused rather than read. */
export const MAX_FIELDS = 1000;
/** Deeper JSON than any form payload: refused rather than flattened. */
const MAX_JSON_DEPTH = 32;

/**
 * Reads the fields of a request body, switching on its content type (see the module comment).
 * An empty body gives no fields, not a problem: whether that is acceptable is the source's call.
 * Async because multipart parsing is.
 */
export async function readFields(
  request: BodyRequest,
  options: ReadOptions = {},
): Promise<FieldsResult> {
  const type = request.contentType;
  if (isBlank(request.body)) return { fields: [], files: [] };
  const lists = (read: FieldsResult): FieldsResult =>
    options.fieldLists && 'fields' in read ? { ...read, fields: bracketLists(read.fields) } : read;
  if (type === 'application/x-www-form-urlencoded') {
    return lists(limited(parseUrlencoded(request.body)));
  }
  if (type === 'multipart/form-data') return lists(await readMultipart(request));
  if (isJsonType(type)) {
    const parsed = parseJsonText(request.body);
    return 'problem' in parsed ? parsed : flattenJson(parsed.value, options);
  }
  if (type === 'text/plain' || type === '') {
    const parsed = parseJsonText(request.body);
    const readable =
      !('problem' in parsed) &&
      (isPlainObject(parsed.value) || (options.fieldLists && Array.isArray(parsed.value)));
    if (readable) return flattenJson(parsed.value, options);
    return lists(limited(parseUrlencoded(request.body)));
  }
  return { problem: `tipo de conteúdo "${type.slice(0, 100)}" não suportado` };
}

/** `application/json`, `text/json` and the `+json` family (`application/json-patch+json`). */
export function isJsonType(type: string): boolean {
  return type === 'application/json' || type === 'text/json' || type.endsWith('+json');
}

function isBlank(body: Uint8Array): boolean {
  for (const byte of body) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  }
  return true;
}

function limited(fields: Field[]): FieldsResult {
  if (fields.length > MAX_FIELDS) return { problem: `mais de ${MAX_FIELDS} campos` };
  return { fields, files: [] };
}

// ---- application/x-www-form-urlencoded --------------------------------------------------------

const AMPERSAND = 0x26;
const EQUALS = 0x3d;
const PLUS = 0x2b;
const PERCENT = 0x25;
const SPACE = 0x20;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const windows1252 = new TextDecoder('windows-1252');

/**
 * Parses urlencoded bytes (or text) as the URL standard does, in order, keeping repeated keys;
 * empty `&&` sequences are skipped and a sequence without `=` is a key with an empty value.
 * Unlike `URLSearchParams`, a name or value whose bytes are not UTF-8 is read as Windows-1252
 * instead of turning its accents into U+FFFD.
 */
export function parseUrlencoded(input: Uint8Array | string): Field[] {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const fields: Field[] = [];
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(AMPERSAND, start);
    if (end === -1) end = bytes.length;
    if (end > start) {
      const sequence = bytes.subarray(start, end);
      const equals = sequence.indexOf(EQUALS);
      const name = equals === -1 ? sequence : sequence.subarray(0, equals);
      const value = equals === -1 ? new Uint8Array() : sequence.subarray(equals + 1);
      fields.push({ key: decodeComponent(name), value: decodeComponent(value) });
    }
    start = end + 1;
  }
  return fields;
}

function decodeComponent(raw: Uint8Array): string {
  const out = new Uint8Array(raw.length);
  let length = 0;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i] as number;
    if (byte === PLUS) {
      out[length++] = SPACE;
    } else if (byte === PERCENT && i + 2 < raw.length && isHex(raw[i + 1]) && isHex(raw[i + 2])) {
      out[length++] = (hexValue(raw[i + 1] as number) << 4) | hexValue(raw[i + 2] as number);
      i += 2;
    } else {
      out[length++] = byte;
    }
  }
  return decodeText(out.subarray(0, length));
}

/** UTF-8 when the bytes are UTF-8, else Windows-1252 (which decodes any byte sequence). */
function decodeText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return windows1252.decode(bytes);
  }
}

function isHex(byte: number | undefined): boolean {
  return (
    byte !== undefined &&
    ((byte >= 0x30 && byte <= 0x39) ||
      (byte >= 0x41 && byte <= 0x46) ||
      (byte >= 0x61 && byte <= 0x66))
  );
}

function hexValue(byte: number): number {
  if (byte <= 0x39) return byte - 0x30;
  return (byte | 0x20) - 0x61 + 10;
}

// ---- multipart/form-data ----------------------------------------------------------------------

async function readMultipart(request: BodyRequest): Promise<FieldsResult> {
  const contentType = request.headers['content-type'] ?? '';
  if (!/;\s*boundary=/i.test(contentType)) {
    return { problem: 'multipart/form-data sem boundary no Content-Type' };
  }
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(request.body), {
      headers: { 'content-type': contentType },
    }).formData();
  } catch {
    return { problem: 'o corpo multipart/form-data não pôde ser lido (o boundary confere?)' };
  }
  const fields: Field[] = [];
  const files: string[] = [];
  for (const [key, value] of form.entries()) {
    if (typeof value === 'string') fields.push({ key, value });
    else files.push(key);
  }
  if (fields.length > MAX_FIELDS) return { problem: `mais de ${MAX_FIELDS} campos` };
  return { fields, files };
}

// ---- JSON -------------------------------------------------------------------------------------

const utf8Text = new TextDecoder('utf-8');

/** Parses a JSON body with {@link parseJson} (big integers stay strings). */
export function parseJsonText(body: Uint8Array): { value: unknown } | { problem: string } {
  try {
    return { value: parseJson(utf8Text.decode(body)) };
  } catch {
    return { problem: 'o corpo não é um JSON válido' };
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Flattens a parsed JSON object into fields: a nested object's keys become bracket keys
 * (`{"a": {"b": 1}}` → `a[b]=1`), an array of plain values repeats its key (`{"a": [1, 2]}` →
 * `a=1`, `a=2`), an object or array inside an array is indexed (`a[0][b]`). Numbers keep their
 * digits (`parseJson` leaves big integers as strings), booleans are `true`/`false`, `null` is an
 * empty value. Only an object can be flattened; anything else is a problem. With `fieldLists`,
 * a list of fields or a labelled contact list (domain/field-list.ts) becomes the fields it
 * stands for (`{"f": [{"name": "email", "value": "x"}]}` → `f[email]=x`, labelled `email`), and
 * a root array is read too: a list of fields at the root is named without a path, the objects
 * of any other root array are read as if each were the root; a typed value
 * (`{"type": "varchar", "value": "x"}`) is its value.
 */
export function flattenJson(value: unknown, options: ReadOptions = {}): FieldsResult {
  const lists = options.fieldLists === true;
  if (!isPlainObject(value) && !(lists && Array.isArray(value))) {
    return { problem: 'o corpo JSON não é um objeto' };
  }
  const fields: Field[] = [];
  const ok = Array.isArray(value)
    ? flattenRootArray(fields, value)
    : flattenInto(fields, value, '', 0, lists);
  if (!ok) return { problem: `o corpo JSON tem mais de ${MAX_JSON_DEPTH} níveis` };
  return limited(fields);
}

function flattenRootArray(fields: Field[], items: readonly unknown[]): boolean {
  if (pushFieldList(fields, '', items)) return true;
  return items.every((item) => !isPlainObject(item) || flattenInto(fields, item, '', 1, true));
}

/** The fields of a list of fields at `key`, pushed; false when the array is not one. */
function pushFieldList(fields: Field[], key: string, items: readonly unknown[]): boolean {
  const listed = readFieldList(key, items);
  if (!listed) return false;
  for (const { key: name, label, type, values } of listed) {
    for (const value of values.length ? values : ['']) {
      fields.push({ key: name, value, ...(label && { label }), ...(type && { type }) });
    }
  }
  return true;
}

function flattenInto(
  fields: Field[],
  value: unknown,
  key: string,
  depth: number,
  lists = false,
): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    if (lists && pushFieldList(fields, key, value)) return true;
    return value.every((item, index) =>
      typeof item === 'object' && item !== null
        ? flattenInto(fields, item, `${key}[${index}]`, depth + 1, lists)
        : flattenInto(fields, item, key, depth + 1, lists),
    );
  }
  if (isPlainObject(value)) {
    const typed = lists && key ? typedValueOf(value) : undefined;
    if (typed !== undefined) {
      fields.push({ key, value: typed });
      return true;
    }
    return Object.entries(value).every(([name, item]) =>
      flattenInto(fields, item, key ? `${key}[${name}]` : name, depth + 1, lists),
    );
  }
  fields.push({ key, value: scalarText(value) });
  return true;
}

/** A JSON scalar as form text: digits kept, `null` empty. */
export function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return JSON.stringify(value) ?? '';
}

/** `fields[0][name]`: an entry of a list written as bracket keys (prefix, index, key). */
const LIST_ENTRY = /^(.+)\[(\d{1,4})\]\[([^[\]]+)\]$/u;

/**
 * Lists of fields written as bracket keys (`fields[0][name]=email&fields[0][value]=x`, as a
 * form-encoded relay sends an array) read as the fields they stand for (domain/field-list.ts),
 * in the place of the list's first key; every other field as it is.
 */
export function bracketLists(fields: readonly Field[]): Field[] {
  const lists = new Map<string, Array<Record<string, string>>>();
  for (const { key, value } of fields) {
    const match = LIST_ENTRY.exec(key);
    if (!match) continue;
    const [, prefix, index, name] = match as unknown as [string, string, string, string];
    const items = lists.get(prefix) ?? [];
    lists.set(prefix, items);
    const item = items[Number(index)] ?? {};
    items[Number(index)] = item;
    item[name] = value;
  }
  const read = new Map<string, Field[]>();
  for (const [prefix, items] of lists) {
    const listed: Field[] = [];
    // Dense, from index 0: `fields[5][name]` alone is no list (and holes are never read).
    const dense = Array.from(items);
    if (dense.some((item) => item === undefined) || !pushFieldList(listed, prefix, dense)) continue;
    read.set(prefix, listed);
  }
  if (read.size === 0) return [...fields];
  const out: Field[] = [];
  const placed = new Set<string>();
  for (const field of fields) {
    const prefix = LIST_ENTRY.exec(field.key)?.[1];
    const listed = prefix === undefined ? undefined : read.get(prefix);
    if (!listed) out.push(field);
    else if (!placed.has(prefix as string)) {
      placed.add(prefix as string);
      out.push(...listed);
    }
  }
  return out;
}

// ---- fields → structure -----------------------------------------------------------------------

/** A value rebuilt from bracket keys: text, repeated text, or an object of more of them. */
export type Nested = string | string[] | NestedObject;
export interface NestedObject {
  [key: string]: Nested | undefined;
}

const MAX_BRACKET_DEPTH = 20;

/**
 * Turns PHP/qs-style bracket keys into nested objects, as PHP would read them:
 * `fields[email][value]=x` → `{ fields: { email: { value: 'x' } } }`; `a[]=x&a[]=y` → `{ a: ['x', 'y'] }`;
 * a repeated plain key becomes an array too (`a=x&a=y`); an empty segment inside a key is the
 * next index (`a[][b]`, as `a[0][b]`, `a[1][b]`...). Numeric segments stay object keys
 * (`raw_value[0]`): read lists with {@link listOf}. A key both given a value and sub-keys keeps the
 * sub-keys. A key that is not well formed (`a[b`, `[x]`) is kept whole as a plain key.
 * The objects have no prototype, so `__proto__` or `constructor` keys are plain data.
 */
export function nestBrackets(fields: readonly Field[]): NestedObject {
  const root: NestedObject = Object.create(null);
  for (const { key, value } of fields) {
    const segments = bracketSegments(key);
    const append = segments.length > 1 && segments[segments.length - 1] === '';
    if (append) segments.pop();
    let node = root;
    for (const segment of segments.slice(0, -1)) {
      const name = segment === '' ? String(Object.keys(node).length) : segment;
      const child = node[name];
      if (isNestedObject(child)) node = child;
      else {
        const created: NestedObject = Object.create(null);
        node[name] = created;
        node = created;
      }
    }
    const last = segments[segments.length - 1] as string;
    const leaf = last === '' ? String(Object.keys(node).length) : last;
    const existing = node[leaf];
    if (isNestedObject(existing)) continue;
    if (existing === undefined) node[leaf] = append ? [value] : value;
    else if (typeof existing === 'string') node[leaf] = [existing, value];
    else existing.push(value);
  }
  return root;
}

function bracketSegments(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0) return [key];
  const segments = [key.slice(0, open)];
  let rest = key.slice(open);
  while (rest) {
    const match = /^\[([^[\]]*)\]/.exec(rest);
    if (!match) return [key];
    if (segments.length > MAX_BRACKET_DEPTH) {
      // Too deep: the rest is one more literal segment, as qs does.
      segments.push(rest);
      break;
    }
    segments.push(match[1] as string);
    rest = rest.slice(match[0].length);
  }
  return segments;
}

export function isNestedObject(value: Nested | undefined): value is NestedObject {
  return typeof value === 'object' && !Array.isArray(value);
}

/** The text of a nested value, when it is text (the first of repeated text). */
export function textOf(value: Nested | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value[0];
  return undefined;
}

/** Every text in a nested value, in order: `'x'` → `['x']`, `{0: 'a', 1: 'b'}` → `['a', 'b']`. */
export function listOf(value: Nested | undefined): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return [...value];
  return Object.values(value).flatMap(listOf);
}

/**
 * Groups fields by key, keeping the order in which each key first appears and every value of a
 * repeated key in order: what a checkbox group sends.
 */
export function groupFields(fields: readonly Field[]): Array<{ key: string; values: string[] }> {
  const groups = new Map<string, string[]>();
  for (const { key, value } of fields) {
    const values = groups.get(key);
    if (values) values.push(value);
    else groups.set(key, [value]);
  }
  return [...groups].map(([key, values]) => ({ key, values }));
}
