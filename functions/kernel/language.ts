/**
 * The language of what the HTTP layer says to a person: Brazilian Portuguese unless the request
 * prefers English. The people who run a gym chain read Portuguese: the console (which sends
 * `Accept-Language: pt-BR`), the operator CLI, and anyone with curl. A program that wants English
 * asks for it (`Accept-Language: en`); a request without the header is answered in Portuguese.
 * Programs read the stable English `code` of an error, never its `message`.
 *
 * A message the HTTP layer writes is a `Text` (`t(pt, en)`), and `say` picks the request's
 * language: each Lambda handler runs its use case `inRequestLanguage(headers, ...)`, and every
 * answer made while it runs (kernel/http.ts `problem`) reads that language, however deep the
 * refusal was raised. Outside a request (a test, a script), Portuguese. The pure domain's own
 * messages (normalisers' reasons, the mapping's warnings, a parked lead's reason) are written in
 * Portuguese once, because they are stored with the lead and sent to the gym's system.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type Language = 'pt-BR' | 'en';

/** The language when the request names none we speak. */
export const DEFAULT_LANGUAGE: Language = 'pt-BR';

/** One message in both languages. */
export interface Text {
  readonly pt: string;
  readonly en: string;
}

/** A message in Portuguese and in English. */
export function t(pt: string, en: string): Text {
  return { pt, en };
}

export function isText(value: unknown): value is Text {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Text).pt === 'string' &&
    typeof (value as Text).en === 'string'
  );
}

/** A header's language ranges read at most (no one prefers 20 languages). */
const MAX_RANGES = 20;

/**
 * The language an `Accept-Language` header prefers between Portuguese and English: English only
 * when an `en` range weighs more than every `pt` range (`en-US,en;q=0.9`, `en, pt;q=0.5`,
 * `fr, en;q=0.5`); Portuguese otherwise, including no header, `*`, `en;q=0` and languages we do
 * not speak. A dozen lines rather than a negotiation library: `negotiator` measured about 4 ms
 * more per cold start (9 KB minified) for this two-way choice (docs/architecture.md).
 */
export function preferredLanguage(acceptLanguage: string | undefined): Language {
  let pt = 0;
  let en = 0;
  for (const range of (acceptLanguage ?? '').split(',').slice(0, MAX_RANGES)) {
    const [tag = '', ...params] = range.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find(Boolean);
    const weight = q === undefined ? 1 : Math.min(1, Number(q));
    const primary = tag.trim().split('-')[0];
    if (primary === 'pt') pt = Math.max(pt, weight);
    if (primary === 'en') en = Math.max(en, weight);
  }
  return en > pt ? 'en' : DEFAULT_LANGUAGE;
}

const current = new AsyncLocalStorage<Language>();

/** Runs `work` answering in `language` (every `say` inside it, however deep). */
export function inLanguage<T>(language: Language, work: () => T): T {
  return current.run(language, work);
}

/** Runs `work` answering in the language the request's `Accept-Language` prefers. */
export function inRequestLanguage<T>(
  headers: Readonly<Record<string, string | undefined>> | null | undefined,
  work: () => T,
): T {
  const name = Object.keys(headers ?? {}).find((key) => key.toLowerCase() === 'accept-language');
  return inLanguage(preferredLanguage(name === undefined ? undefined : headers?.[name]), work);
}

/** The language of the request being answered (Portuguese outside one). */
export function currentLanguage(): Language {
  return current.getStore() ?? DEFAULT_LANGUAGE;
}

/** The message in the request's language; a plain string is said as it is. */
export function say(message: string | Text): string {
  if (typeof message === 'string') return message;
  return currentLanguage() === 'en' ? message.en : message.pt;
}
