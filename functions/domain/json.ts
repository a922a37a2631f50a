/**
 * JSON from outside, without losing big ids, and zod/mini issues turned into readable messages
 * (in Portuguese: people read them, in the console, the CLI and a Prospect API's answer).
 *
 * `JSON.parse` silently rounds integers above 2^53 (Meta lead ids have 15-16 digits, Google's
 * form and campaign ids are int64). `parseJson` keeps every integer that is not exactly
 * representable as its decimal string; all other numbers parse as usual.
 */
import { isSafeNumber, parse } from 'lossless-json';
import * as z from 'zod/mini';

const INTEGER = /^-?\d+$/;

function parseNumber(text: string): number | string {
  if (isSafeNumber(text)) return Number(text);
  return INTEGER.test(text) ? text : Number(text);
}

/** Parses JSON text; integers beyond Number.MAX_SAFE_INTEGER stay decimal strings. */
export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

/**
 * An integer id that came from outside: a safe integer stays a number, a bigger one is kept
 * as its decimal string (never rounded). Digit strings are accepted as sent.
 */
export const externalId = z.union([
  z.int(),
  z.string().check(z.regex(/^\d{1,30}$/, 'deve ser um id numérico')),
]);
export type ExternalId = z.infer<typeof externalId>;

export interface IssueDetail {
  /** Dotted path of the offending field, `""` for the whole body. */
  field: string;
  message: string;
}

interface IssueLike {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly expected?: unknown;
  readonly input?: unknown;
  readonly keys?: readonly string[];
  readonly values?: readonly unknown[];
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly format?: unknown;
  readonly options?: readonly unknown[];
}

/** Dotted path (`profiles.meta.appSecret`, `interests.2`). */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

const EXPECTED: Record<string, string> = {
  int: 'um número inteiro',
  number: 'um número',
  string: 'um texto',
  boolean: 'true ou false',
  array: 'uma lista',
  object: 'um objeto',
};

function describeExpected(expected: unknown): string {
  return EXPECTED[String(expected)] ?? String(expected);
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'uma lista';
  if (typeof value === 'number') return Number.isInteger(value) ? 'um número inteiro' : `${value}`;
  if (typeof value === 'string') return 'um texto';
  if (typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'um objeto' : typeof value;
}

/**
 * One readable sentence for a zod issue; zod/mini ships no locale, so we word them here.
 * `input` is the value that was parsed, to say what was received.
 */
export function describeIssue(issue: IssueLike, input?: unknown): string {
  // A message written into the schema wins; zod/mini's own is always 'Invalid input'.
  if (issue.message && issue.message !== 'Invalid input') return issue.message;
  switch (issue.code) {
    case 'invalid_type': {
      const received = issue.input !== undefined ? issue.input : valueAt(input, issue.path);
      if (received === undefined) return `é obrigatório (${describeExpected(issue.expected)})`;
      return `deve ser ${describeExpected(issue.expected)}, não ${describeValue(received)}`;
    }
    case 'invalid_value':
      return `deve ser um de ${(issue.values ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return `deve ser no mínimo ${String(issue.minimum)}`;
    case 'too_big':
      return `deve ser no máximo ${String(issue.maximum)}`;
    case 'invalid_format':
      return `não está no formato ${String(issue.format)}`;
    case 'unrecognized_keys':
      return `tem chaves desconhecidas: ${(issue.keys ?? []).join(', ')}`;
    case 'invalid_union':
      return issue.options
        ? `deve ser um de ${issue.options.map((v) => JSON.stringify(v)).join(', ')}`
        : 'tem um valor inválido';
    default:
      return 'é inválido';
  }
}

export function describeIssues(issues: readonly IssueLike[], input?: unknown): IssueDetail[] {
  return issues.map((issue) => ({
    field: issuePath(issue.path),
    message: describeIssue(issue, input),
  }));
}
