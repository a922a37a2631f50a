/**
 * The words of the configuration's validation, in one place. Every problem that `npm start`, a
 * reload of the local file, `npm run config -- validate` (a deploy file, or `--local` FILE) and
 * the configuration store's validator function report is worded here, so the same mistake reads
 * the same wherever it is found: one line a problem, the key path as the file writes it
 * (`profiles.lp-centro.defaults.idBranch`), then what is wrong, in Portuguese (pt-BR: the people
 * who edit the configuration read Portuguese). Keys, sources and values stay as written.
 *
 * A schema's own message (`z.regex(..., 'must be a decimal id')`) is shown through
 * `schemaMessage`, which words in Portuguese those written in English by the parts of the code
 * that keep their schemas (the sources, the clients, the deploy file); a test walks every
 * configuration schema and fails on a message left in English.
 *
 * Never quotes a checked value: in the local file it may be a secret. Pure: no zod at run time.
 */
import type * as z from 'zod/mini';

/** One problem: the key path at fault (`""` for the whole file) and what is wrong with it. */
export interface ConfigProblem {
  field: string;
  message: string;
}

/** `  path: message`, the way every validator prints a problem. */
export function problemLine(problem: ConfigProblem): string {
  return problem.field ? `  ${problem.field}: ${problem.message}` : `  ${problem.message}`;
}

/** The heading line and one line a problem. */
export function problemReport(heading: string, problems: readonly ConfigProblem[]): string {
  return [heading, ...problems.map(problemLine)].join('\n');
}

/** The heading of a configuration refused; `where` is a place (`em config/local.json`). */
export function invalidHeading(where: string): string {
  return `Configuração inválida ${where}:`;
}

/** Where a file is, for headings. */
export function inFile(file: string): string {
  return `em ${file}`;
}

export const UNREADABLE_HEADING = (file: string) =>
  `Não foi possível ler a configuração ${inFile(file)}:`;
export const INVALID_JSON_HEADING = (file: string) => `JSON inválido ${inFile(file)}:`;

/** Why a configuration file cannot be read, from the error `readFileSync` threw. */
export function unreadableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'o arquivo não existe';
  if (code === 'EISDIR') return 'é uma pasta, não um arquivo';
  return `o arquivo não pôde ser lido (${code ?? String(error)})`;
}

/** lossless-json's syntax errors (functions/domain/json.ts parses the files) in Portuguese. */
const JSON_SYNTAX: readonly [RegExp, string][] = [
  [/^Comma ',' expected after value/, "falta uma vírgula ',' depois do valor"],
  [/^Colon ':' expected after property name/, "falta ':' depois do nome da chave"],
  [/^JSON value expected/, 'falta um valor'],
  [/^Array item expected/, 'falta um item da lista'],
  [/^Expected end of input/, 'o JSON deveria terminar aqui'],
  [/^Invalid number '(.*)', expecting a digit/, "número inválido '$1': falta um dígito"],
  [/^End of string '"' expected/, "falta fechar o texto com '\"'"],
  [/^Quoted object key or end of object '}' expected/, "falta uma chave entre aspas ou '}'"],
  [/^Quoted object key expected/, 'falta uma chave entre aspas'],
  [/^Duplicate key '(.*)'/, "a chave '$1' aparece duas vezes"],
  [/^Array item or end of array ']' expected/, "falta um item da lista ou ']'"],
  [/^Invalid escape character '(.*)'/, "escape inválido '$1'"],
  [/^Invalid unicode character '(.*)'/, "caractere unicode inválido '$1'"],
  [/^Invalid character '(.*)'/, "caractere inválido '$1'"],
  [/^Object value expected after ':'/, "falta o valor depois de ':'"],
];

/** 1-based line and column of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** A JSON syntax error of `text` in Portuguese, with its line and column. */
export function jsonSyntaxMessage(text: string, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const position = /\s*(?:encountered )?at position (\d+)/.exec(raw);
  let message = position ? raw.replace(position[0], '') : raw;
  message = message
    .replace(/ but got '(.*)'$/, " (veio '$1')")
    .replace(/ but reached end of input$/, ' (o arquivo terminou antes)');
  const known = JSON_SYNTAX.find(([pattern]) => pattern.test(message));
  if (known) message = message.replace(known[0], known[1]);
  if (!position?.[1]) return message;
  const { line, column } = lineAndColumn(text, Number(position[1]));
  return `${message} (linha ${line}, coluna ${column})`;
}

/**
 * Schema messages written in English where the schema lives (kernel, sources, the deploy
 * file), in Portuguese. A message not listed here is shown as written.
 */
const SCHEMA_MESSAGES: readonly [RegExp, string][] = [
  [/^must not be empty$/, 'não pode ficar vazio'],
  [/^must be greater than 0$/, 'deve ser maior que 0'],
  [/^must be at least (\d+)$/, 'deve ser no mínimo $1'],
  [/^too large$/, 'é grande demais'],
  [
    /^account names are 1 to 32 lower-case letters, digits and -$/,
    'o nome de uma conta tem de 1 a 32 letras minúsculas, dígitos e -',
  ],
  [/^needs either "password" or "passwordHash"$/, 'precisa de "password" ou de "passwordHash"'],
  [/^must name an account$/, 'deve nomear ao menos uma conta'],
  [/^must name a branch$/, 'deve nomear ao menos uma unidade'],
  [
    /^secret names are lower-case letters, digits, - and _$/,
    'o nome de um segredo leva só letras minúsculas, dígitos, - e _',
  ],
  [/^must be one of: (.*)$/, 'deve ser um de: $1'],
  [/^profile names are lower-case letters, digits, - and _$/, profileNameMessage(undefined)],
  [
    /^must be an e-mail address with (\S+) before the @, such as (\S+)$/,
    'deve ser um endereço de e-mail com $1 antes do @, como $2',
  ],
  [/^must be a decimal id$/, 'deve ser um id só de dígitos'],
  [/^lower-case letters, digits and -$/, 'só letras minúsculas, dígitos e -'],
  [/^letters, digits, \/_\+=\.@- only$/, 'só letras, dígitos e /_+=.@-'],
  [/^must be a 12-digit account id$/, 'deve ser o id de 12 dígitos de uma conta AWS'],
  [/^must be a Region$/, 'deve ser uma Region da AWS (sa-east-1, por exemplo)'],
  [/^must be a WAFv2 ARN$/, 'deve ser o ARN de um web ACL do WAFv2'],
  [/^must be an email address$/, 'deve ser um endereço de e-mail'],
  [
    /^say in a few words why no address gets the alarms$/,
    'diga em poucas palavras por que nenhum endereço recebe os alarmes',
  ],
];

/** A schema's own message, in Portuguese. */
export function schemaMessage(message: string): string {
  const known = SCHEMA_MESSAGES.find(([pattern]) => pattern.test(message));
  return known ? message.replace(known[0], known[1]) : message;
}

const EXPECTED: Record<string, string> = {
  number: 'um número',
  int: 'um número inteiro',
  string: 'um texto',
  boolean: 'true ou false',
  array: 'uma lista',
  object: 'um objeto',
};

/** What kind of value was given, never the value. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'uma lista';
  if (typeof value === 'number') return Number.isInteger(value) ? 'um número inteiro' : 'um número';
  if (typeof value === 'string') return 'um texto';
  if (typeof value === 'boolean') return 'true ou false';
  return 'um objeto';
}

const quoted = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

function tooSmall(issue: z.core.$ZodIssueTooSmall): string {
  const minimum = String(issue.minimum);
  if (issue.origin === 'array' || issue.origin === 'set') {
    return `deve ter ao menos ${minimum} ${minimum === '1' ? 'item' : 'itens'}`;
  }
  if (issue.origin === 'string') {
    return `deve ter ao menos ${minimum} ${minimum === '1' ? 'caractere' : 'caracteres'}`;
  }
  return issue.inclusive ? `deve ser no mínimo ${minimum}` : `deve ser maior que ${minimum}`;
}

function invalidFormat(issue: z.core.$ZodIssueInvalidStringFormat): string {
  if (issue.format === 'url') return 'deve ser uma URL válida';
  if (issue.format === 'email') return 'deve ser um endereço de e-mail';
  if (issue.format === 'regex') return 'não está no formato esperado';
  return `deve ser um(a) ${issue.format} válido(a)`;
}

/**
 * One zod issue in words. Parse with `reportInput: true` so that a missing key reads "é
 * obrigatório" rather than the kind of a value that is not there.
 */
export function describeConfigIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key' && issue.issues[0]) return describeConfigIssue(issue.issues[0]);
  // A message written into the schema wins; zod/mini's own is always 'Invalid input'.
  if (issue.message && issue.message !== 'Invalid input') return schemaMessage(issue.message);
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      return issue.input === undefined
        ? `é obrigatório (${expected})`
        : `deve ser ${expected}, não ${kindOf(issue.input)}`;
    }
    case 'invalid_value':
      return `deve ser um de ${quoted(issue.values)}`;
    case 'invalid_union': {
      const options = (issue as { options?: readonly unknown[] }).options;
      return options ? `deve ser um de ${quoted(options)}` : 'tem um valor que não serve';
    }
    case 'too_small':
      return tooSmall(issue);
    case 'too_big':
      return `deve ser no máximo ${String(issue.maximum)}`;
    case 'invalid_format':
      return invalidFormat(issue);
    case 'unrecognized_keys':
      return `tem chaves desconhecidas: ${issue.keys.join(', ')}`;
    default:
      return 'é inválido';
  }
}

/** An unknown key, with the known key it is closest to when it looks like a typo of one. */
export function unknownKeyMessage(
  suggestion: string | undefined,
  known: readonly string[],
): string {
  return suggestion
    ? `chave desconhecida: você quis dizer "${suggestion}"?`
    : `chave desconhecida (aqui valem: ${known.join(', ')})`;
}

/** A profile whose name cannot be its URL; `suggestion` is a valid name close to it. */
export function profileNameMessage(suggestion: string | undefined): string {
  const rule =
    'o nome de um perfil leva só letras minúsculas, dígitos, - e _ (é a URL /leads/<nome>)';
  return suggestion ? `${rule}: use "${suggestion}"` : rule;
}

/** `upstreams.default`: the name of the account of `upstream`. */
export function defaultAccountClashMessage(name: string): string {
  return `"${name}" é a conta de "upstream" (e de "report"): dê outro nome a esta`;
}

/** A profile or client naming an account that is not configured. */
export function unknownAccountMessage(account: string, known: readonly string[]): string {
  const list = known.map((name) => `"${name}"`).join(', ');
  return `nomeia a conta "${account}", que não está configurada (contas: ${list})`;
}

/** A secret value in a deploy configuration. */
export const SECRET_IN_DEPLOY_FILE =
  'um valor secreto não fica na configuração de deploy: a stack o lê do Secrets Manager (docs/deploy.md)';

/** The top level of a file that is not a JSON object. */
export const NOT_AN_OBJECT = 'o arquivo deve conter um objeto JSON';
