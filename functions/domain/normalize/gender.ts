/**
 * Gender normalisation to production's codes (M male, F female, P other).
 * Pure: no AWS, no process.env, never throws.
 *
 * Decisions:
 * - Matching ignores case, accents, surrounding space, punctuation between words (`não-binário`,
 *   `nao_binario`) and a leading `sexo`/`gênero`/`gender` label.
 * - Gender identity wins: `homem trans`/`trans man` → M, `mulher trans`/`trans woman` → F.
 * - `P` ("outro") is for answers that state a gender outside M/F: other, non-binary, agender,
 *   gender-fluid, ...
 * - **Declining to answer** (`prefiro não dizer`, `prefer not to say`, `n/a`) gives `undefined`,
 *   not `P`: the person did not say "other", and an empty field is the honest record.
 * - Anything unrecognised gives `undefined`; the caller keeps the original answer in notes.
 */
import type { GenderCode } from '../prospect.ts';

const ANSWERS: ReadonlyMap<string, GenderCode> = new Map([
  ...[
    'm',
    'h',
    'male',
    'man',
    'men',
    'masc',
    'masculino',
    'homem',
    'homem cis',
    'homem cisgenero',
    'cis homem',
    'homem trans',
    'homem transgenero',
    'trans man',
    'transgender man',
    'cis man',
  ].map((answer) => [answer, 'M'] as const),
  ...[
    'f',
    'female',
    'woman',
    'women',
    'fem',
    'feminino',
    'mulher',
    'mulher cis',
    'mulher cisgenero',
    'cis mulher',
    'mulher trans',
    'mulher transgenero',
    'trans woman',
    'transgender woman',
    'cis woman',
  ].map((answer) => [answer, 'F'] as const),
  ...[
    'p',
    'o',
    'x',
    'other',
    'outro',
    'outra',
    'outros',
    'outre',
    'nao binario',
    'nao binaria',
    'nao binarie',
    'naobinario',
    'non binary',
    'nonbinary',
    'nb',
    'enby',
    'agenero',
    'agender',
    'genero fluido',
    'genderfluid',
    'gender fluid',
    'queer',
    'intersexo',
    'intersex',
  ].map((answer) => [answer, 'P'] as const),
]);

const LABEL = /^(?:sexo|genero|gender|sex)\s*:?\s+/u;
const MAX_INPUT_LENGTH = 64;

/**
 * Map a free-text gender answer to `M`, `F` or `P`; `undefined` when unknown or declined
 * (see the module notes for the table and the decisions).
 */
export function normalizeGender(input: string): GenderCode | undefined {
  if (typeof input !== 'string' || input.length > MAX_INPUT_LENGTH) return undefined;
  const key = input
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s\-_./]+/gu, ' ')
    .trim();
  // The whole answer first: `gênero fluido` is an answer, not the label `gênero` + `fluido`.
  return ANSWERS.get(key) ?? ANSWERS.get(key.replace(LABEL, ''));
}
