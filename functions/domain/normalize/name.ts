/**
 * Person-name normalisation: split a full name into the seed's `name` + `lastName`, and fix the
 * case only when the typist clearly did not choose it (ALL CAPS or all lower case).
 * Pure: no AWS, no process.env, never throws.
 */

export type SplitName = { name: string; lastName?: string };

/** Portuguese surname particles, written lower case inside a name (`Maria da Silva`). */
const PARTICLES = new Set(['da', 'das', 'de', 'di', 'do', 'dos', 'du', 'e']);
const LOCALE = 'pt-BR';

/**
 * Split a full name: trim, collapse whitespace, first token → `name`, the rest → `lastName`
 * (absent when there is a single token; particles stay in `lastName`: `Maria da Silva` →
 * `Maria` / `da Silva`). Empty or non-text input gives `{ name: '' }`.
 * Case: see {@link normalizeName}; the decision is taken on the whole input.
 */
export function splitFullName(full: string): SplitName {
  const tokens = words(full);
  const [first, ...rest] = tokens;
  if (first === undefined) return { name: '' };
  const mode = caseMode(tokens.join(' '));
  const name = mode ? titleWord(first, mode) : first;
  if (rest.length === 0) return { name };
  return { name, lastName: (mode ? titleWords(rest, mode, true) : rest).join(' ') };
}

/**
 * Normalise one name part (a first name or a last name field): trim and collapse whitespace;
 * when the part is ALL CAPS or all lower case, title-case each word (`JOÃO` → `João`,
 * `ANA-CLARA` → `Ana-Clara`, `D'ÁVILA` → `D'Ávila`, `ΠΑΠΑΔΟΠΟΥΛΟΣ` → `Παπαδοπουλος` with its
 * final sigma) and write the particles da, das, de, di, do, dos, du, e in lower case
 * (`DOS SANTOS` → `dos Santos`), except a particle standing alone.
 * Mixed case is kept as typed (`McDonald`, `DiCaprio`, `de Souza`).
 */
export function normalizeName(part: string): string {
  const tokens = words(part);
  const mode = caseMode(tokens.join(' '));
  return (mode ? titleWords(tokens, mode, tokens.length > 1) : tokens).join(' ');
}

/** How the typist wrote the name: all `upper`, all `lower`, or undefined (mixed, or no letters). */
type CaseMode = 'upper' | 'lower' | undefined;

function words(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return text.split(/\s+/u).filter((token) => token.length > 0);
}

function caseMode(text: string): CaseMode {
  const upper = text.toLocaleUpperCase(LOCALE);
  const lower = text.toLocaleLowerCase(LOCALE);
  if (upper === lower) return undefined;
  if (text === upper) return 'upper';
  if (text === lower) return 'lower';
  return undefined;
}

function titleWords(tokens: readonly string[], mode: CaseMode, lowerParticles: boolean): string[] {
  return tokens.map((token) => {
    const lower = token.toLocaleLowerCase(LOCALE);
    return lowerParticles && PARTICLES.has(lower) ? lower : titleWord(token, mode);
  });
}

/** Title-case a word and each part of it after `-` or an apostrophe (`Ana-Clara`, `D'Ávila`). */
function titleWord(token: string, mode: CaseMode): string {
  return token
    .split(/([-'’])/u)
    .map((part) => titlePart(part, mode))
    .join('');
}

/**
 * Upper case for the first letter with case, lower case after it, changing only what the mode
 * says is wrong: from ALL CAPS the first letter is kept as typed and the rest lowered in context
 * (Greek final sigma), from all lower case only the first letter is raised.
 */
function titlePart(part: string, mode: CaseMode): string {
  const chars = Array.from(part);
  const index = chars.findIndex(
    (char) => char.toLocaleUpperCase(LOCALE) !== char.toLocaleLowerCase(LOCALE),
  );
  const first = chars[index];
  if (first === undefined) return part;
  const head = chars.slice(0, index).join('');
  const tail = chars.slice(index + 1).join('');
  if (mode === 'lower') return head + upperSameLength(first) + tail;
  const lowered = part.toLocaleLowerCase(LOCALE);
  const loweredPrefix = (head + first).toLocaleLowerCase(LOCALE);
  const loweredTail = lowered.startsWith(loweredPrefix)
    ? lowered.slice(loweredPrefix.length)
    : tail.toLocaleLowerCase(LOCALE);
  return head + first + loweredTail;
}

/** Upper case when it stays one character (`ß` would become `SS`; it is then left alone). */
function upperSameLength(char: string): string {
  const upper = char.toLocaleUpperCase(LOCALE);
  return upper.length === char.length ? upper : char;
}
