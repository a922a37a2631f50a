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
 * Common Brazilian compound first names, folded (lower case, no accents): "Ana Paula de Souza"
 * is Ana Paula + de Souza, not Ana + Paula de Souza. Pairs whose second word is as often a
 * surname (João Batista) are left out, as are particle names that are also common surnames
 * (Maria da Conceição, Maria de Jesus): splitting after the first word is then the safer reading.
 */
// biome-ignore format: one line per first word reads better than one name per line
const COMPOUND_FIRST_NAMES: ReadonlySet<string> = new Set([
  'ana paula', 'ana clara', 'ana carolina', 'ana caroline', 'ana beatriz', 'ana luiza', 'ana luisa', 'ana julia', 'ana laura', 'ana livia', 'ana lucia', 'ana maria', 'ana vitoria', 'ana sophia', 'ana sofia', 'ana cecilia', 'ana alice', 'ana flavia', 'ana claudia', 'ana cristina', 'ana rita', 'ana helena', 'ana leticia', 'ana elisa', 'ana gabriela', 'ana karolina', 'ana liz', 'ana luz', 'ana heloisa', 'ana lara',
  'anna julia', 'anna clara', 'anna luiza', 'anna beatriz',
  'maria eduarda', 'maria clara', 'maria fernanda', 'maria jose', 'maria julia', 'maria luiza', 'maria luisa', 'maria alice', 'maria cecilia', 'maria helena', 'maria vitoria', 'maria sophia', 'maria sofia', 'maria valentina', 'maria isabel', 'maria beatriz', 'maria gabriela', 'maria laura', 'maria lucia', 'maria cristina', 'maria aparecida', 'maria antonia', 'maria rita', 'maria teresa', 'maria tereza', 'maria carolina', 'maria paula', 'maria amelia', 'maria elisa', 'maria flor', 'maria ines', 'maria joana', 'maria heloisa', 'maria emilia', 'maria madalena', 'maria olivia', 'maria angelica', 'maria regina', 'maria celia', 'maria livia', 'maria giovanna', 'maria isis', 'maria lara',
  'maria de fatima', 'maria de lourdes', 'maria das gracas', 'maria do carmo', 'maria do socorro', 'maria da penha', 'maria do rosario', 'maria das dores', 'maria de nazare', 'rita de cassia',
  'joao pedro', 'joao paulo', 'joao vitor', 'joao victor', 'joao gabriel', 'joao lucas', 'joao miguel', 'joao guilherme', 'joao carlos', 'joao marcos', 'joao henrique', 'joao felipe', 'joao rafael', 'joao otavio', 'joao arthur', 'joao luiz', 'joao luis', 'joao antonio', 'joao ricardo', 'joao augusto', 'joao emanuel', 'joao bosco',
  'jose carlos', 'jose roberto', 'jose antonio', 'jose luiz', 'jose luis', 'jose maria', 'jose paulo', 'jose ricardo', 'jose eduardo', 'jose augusto', 'jose henrique', 'jose francisco', 'jose fernando', 'jose marcos',
  'luiz fernando', 'luiz carlos', 'luiz henrique', 'luiz gustavo', 'luiz eduardo', 'luiz felipe', 'luiz antonio', 'luiz otavio', 'luiz paulo', 'luiz guilherme', 'luiz miguel',
  'luis fernando', 'luis carlos', 'luis henrique', 'luis gustavo', 'luis eduardo', 'luis felipe', 'luis antonio', 'luis otavio', 'luis miguel',
  'carlos eduardo', 'carlos alberto', 'carlos henrique', 'carlos augusto', 'carlos roberto', 'carlos daniel',
  'pedro henrique', 'pedro lucas', 'pedro paulo', 'pedro miguel', 'pedro arthur', 'pedro gabriel', 'pedro augusto',
  'paulo henrique', 'paulo cesar', 'paulo roberto', 'paulo sergio', 'paulo ricardo',
  'marco antonio', 'marcos antonio', 'marcos paulo', 'marcos vinicius', 'marco aurelio',
  'antonio carlos', 'antonio marcos', 'andre luiz', 'andre luis', 'jean carlos', 'juan carlos', 'julio cesar', 'caio cesar',
  'victor hugo', 'vitor hugo', 'davi lucas', 'davi luiz', 'enzo gabriel', 'lucas gabriel', 'gabriel henrique', 'matheus henrique', 'mario sergio', 'rosa maria',
]);

/** Letters without accents, lower case: how the compound list is written. */
function folded(word: string): string {
  return word.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase(LOCALE);
}

/**
 * How many of the leading words form the first name: 3 or 2 for a common compound first name
 * (`Maria de Fátima`, `Ana Paula`), else 1.
 */
function firstNameLength(tokens: readonly string[]): number {
  for (const length of [3, 2]) {
    if (tokens.length < length) continue;
    if (COMPOUND_FIRST_NAMES.has(tokens.slice(0, length).map(folded).join(' '))) return length;
  }
  return 1;
}

/** True when `text` is one of the common compound first names, as typed in any case. */
export function isCompoundFirstName(text: string): boolean {
  const tokens = words(text);
  return tokens.length > 1 && firstNameLength(tokens) === tokens.length;
}

/**
 * Split a full name: trim, collapse whitespace, the first name → `name`, the rest → `lastName`
 * (absent when nothing is left; particles stay in `lastName`: `Maria da Silva` → `Maria` /
 * `da Silva`). The first name is the first word, or the first two or three when they are a
 * common Brazilian compound first name (`Ana Paula de Souza` → `Ana Paula` / `de Souza`,
 * `Maria de Fátima Lima` → `Maria de Fátima` / `Lima`). Empty or non-text input gives
 * `{ name: '' }`. Case: see {@link normalizeName}; the decision is taken on the whole input.
 */
export function splitFullName(full: string): SplitName {
  const tokens = words(full);
  if (tokens.length === 0) return { name: '' };
  const length = firstNameLength(tokens);
  const first = tokens.slice(0, length);
  const rest = tokens.slice(length);
  const mode = caseMode(tokens.join(' '));
  const name = (mode ? titleWords(first, mode, first.length > 1) : first).join(' ');
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
  return nameCharacters(text)
    .split(/\s+/u)
    .filter((token) => token.length > 0);
}

/**
 * What of a typed name is the name: markup typed into a form goes (`<img src=x onerror=…>Eve` →
 * `Eve`: HTML tags, a tag left open at the end), and so do emoji and decorations (`Mariana Costa
 * 🏋️‍♀️`, `★ Ana ★`, `Bia | Personal`): only letters, accents, digits, spaces, parentheses and
 * the apostrophes, hyphens and dots of names (`D'Ávila`, `Ana-Clara`, `Jr.`) stay. Nobody's name
 * holds the rest, and the gym's system shows the name in pages of its own.
 */
export function nameCharacters(text: string): string {
  return text
    .replace(/<[^>]*>/gu, ' ')
    .replace(/<[^>]*$/u, ' ')
    .replace(/[^\p{L}\p{M}\p{N}\s'’.()-]/gu, ' ')
    .replace(/(?<![\p{L}\p{M}])\p{M}+/gu, ' ');
}

/** Words that are answers, not names (`Sim quero`, `Manhã ou tarde`). */
const NOT_NAMES = new Set(
  'sim nao não quero talvez ok manha manhã tarde noite ou e obrigado obrigada oi ola olá bom dia boa noite plano mensal anual trimestral semestral musculacao musculação pilates crossfit natacao natação aula experimental gratis grátis agora depois'.split(
    ' ',
  ),
);

/**
 * Whether a value is plainly a person's name: two to four words of letters (accents,
 * apostrophes and hyphens allowed; the particles `da`, `de`, `dos`... too), none of them a word
 * that answers a question (`sim`, `manhã`, `plano`...).
 */
export function looksLikePersonName(text: string): boolean {
  const tokens = text.trim().split(/\s+/u);
  if (tokens.length < 2 || tokens.length > 4 || text.length > 60) return false;
  return tokens.every((token) => {
    const lower = token.toLocaleLowerCase(LOCALE);
    if (NOT_NAMES.has(lower)) return false;
    if (PARTICLES.has(lower)) return true;
    return /^\p{L}[\p{L}\p{M}'’-]*\p{L}\.?$/u.test(token);
  });
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
