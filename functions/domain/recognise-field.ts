/**
 * The field recogniser: what an answer is to the person's record (their name, e-mail, phone,
 * CPF, birthday, gender, RG), judged the way a careful person reading the form would, for every
 * source. Pure: no AWS, no process.env, never throws. Clues, strongest first: the type the
 * platform declares, the key and the label turned into words (the label wins), and the value
 * only when those say nothing. Each recognition carries a confidence the mapping (map-lead.ts)
 * confirms with a value check ({@link CONFIDENT}); metadata nobody typed is recognised by its
 * key ({@link isMetadataKey}). The rules in detail: docs/architecture.md.
 */
import type { AnswerType, LeadAnswer } from './lead.ts';
import { normalizeCpf } from './normalize/cpf.ts';
import type { DateOrder } from './normalize/date.ts';
import { normalizeEmail } from './normalize/email.ts';
import { isPlaceholderPhone, normalizePhone } from './normalize/phone.ts';

/** The person fields an answer can be recognised as. */
export type PersonField =
  | 'fullName'
  | 'firstName'
  | 'lastName'
  | 'email'
  | 'phone'
  | 'cpf'
  | 'birthday'
  | 'gender'
  | 'rg';

export interface Recognition {
  field: PersonField;
  /** 0..1: how sure the recognition is before the value is checked. */
  confidence: number;
  /** The clue that decided. */
  by: 'type' | 'key' | 'label' | 'value';
  /** The question states how to write the date (`dd/mm/aaaa`, `mm/dd/yyyy`). */
  dateOrder?: DateOrder;
}

/**
 * From this confidence on, an answer whose value fails the field's check is reported as a value
 * that could not be used (notes, `Avisos:`); below it, it is kept as a plain answer line.
 */
export const CONFIDENT = 0.8;

const CONFIDENCE = {
  /** The declared type and the key or label agree. */
  typeAgreed: 0.98,
  type: 0.95,
  exact: 0.9,
  phrase: 0.85,
  word: 0.65,
  /** Two fields' words in one question (`E-mail ou WhatsApp`): the value decides. */
  eitherByValue: 0.55,
  /** A key and label that say nothing: the value alone. */
  value: 0.5,
  /** A declared e-mail or phone question about someone else (`E-mail do responsável`). */
  typeOfOther: 0.45,
  /** Taken off for `outro`, `fixo`, `recado`, `trabalho`...; and when key and label disagree. */
  secondary: 0.2,
  disagreement: 0.1,
  /** Added when key and label agree. */
  agreement: 0.05,
} as const;

// ---- words ------------------------------------------------------------------------------------

/** Lower-case ASCII words of a text: accents folded, camelCase and punctuation split. */
export function fieldWords(text: string): string[] {
  return text
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** Words that belong together: `e mail` → `email`, `whats app` → `whatsapp`, `first name`... */
const JOINED: ReadonlyArray<readonly [string, string, string]> = [
  ['e', 'mail', 'email'],
  ['whats', 'app', 'whatsapp'],
  ['cell', 'phone', 'cellphone'],
  ['tele', 'fone', 'telefone'],
  ['first', 'name', 'firstname'],
  ['given', 'name', 'firstname'],
  ['primeiro', 'nome', 'firstname'],
  ['last', 'name', 'lastname'],
  ['family', 'name', 'lastname'],
  ['ultimo', 'nome', 'lastname'],
  ['correio', 'eletronico', 'email'],
];

function joinWords(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const pair = JOINED.find(([a, b]) => a === words[i] && b === words[i + 1]);
    if (pair) {
      out.push(pair[2]);
      i++;
    } else {
      out.push(words[i] as string);
    }
  }
  return out;
}

// biome-ignore format: a vocabulary reads better as lines of words
const FILLERS: ReadonlySet<string> = new Set([
  'qual', 'quais', 'que', 'e', 'o', 'a', 'os', 'as', 'um', 'uma', 'seu', 'sua', 'seus', 'suas', 'teu', 'tua',
  'your', 'you', 'yours', 'my', 'meu', 'minha', 'the', 'is', 'are', 'what', 's', 'of', 'and', 'or', 'ou',
  'informe', 'informar', 'digite', 'digitar', 'insira', 'inserir', 'coloque', 'preencha', 'escreva',
  'enter', 'type', 'please', 'por', 'favor', 'aqui', 'here', 'melhor', 'best', 'principal', 'main', 'primary',
  'com', 'sem', 'ddd', 'dd', 'mm', 'aaaa', 'aa', 'yyyy', 'yy', 'de', 'do', 'da', 'dos', 'das', 'di', 'du',
  'para', 'pra', 'p', 'no', 'na', 'em', 'in', 'contato', 'contact', 'numero', 'number', 'n', 'nr', 'num',
  'nro', 'completo', 'full', 'obrigatorio', 'required', 'opcional', 'optional', 'campo', 'field', 'input',
  'resposta', 'answer', 'atual', 'valido', 'valida', 'valid', 'ativo', 'pessoal', 'personal', 'data', 'date',
  'dt', 'cadastro', 'oficial', 'preferido', 'preferida', 'voce', 'vc', 'ex', 'exemplo', 'example', 'cf',
  'lead', 'leads', 'cliente', 'customer', 'aluno', 'aluna', 'pessoa', 'person', 'contatos', 'usuario', 'user',
]);

// biome-ignore format: a vocabulary reads better as lines of words
const BLOCKERS: ReadonlySet<string> = new Set([
  // someone else
  'responsavel', 'responsaveis', 'mae', 'pai', 'pais', 'filho', 'filha', 'filhos', 'filhas', 'crianca',
  'criancas', 'dependente', 'dependentes', 'conjuge', 'esposa', 'esposo', 'marido', 'namorado', 'namorada',
  'amigo', 'amiga', 'amigos', 'indicacao', 'indicado', 'indicada', 'indicou', 'indicador', 'indique',
  'referral', 'referrer', 'referido', 'friend', 'parent', 'parents', 'guardian', 'child', 'children', 'kid',
  'kids', 'spouse', 'emergencia', 'emergency', 'professor', 'professora', 'trainer', 'instrutor',
  'instrutora', 'consultor', 'consultora', 'vendedor', 'vendedora', 'atendente', 'colaborador',
  'funcionario',
  // something else
  'empresa', 'empresas', 'company', 'business', 'companhia', 'cnpj', 'produto', 'product', 'products',
  'plano', 'plan', 'unidade', 'academia', 'gym', 'loja', 'filial', 'branch', 'store', 'page', 'pagina', 'form',
  'formulario', 'site', 'website', 'campaign', 'campanha', 'utm', 'ad', 'anuncio', 'evento', 'event',
  'cidade', 'city', 'estado', 'state', 'bairro', 'endereco', 'address', 'rua', 'street', 'cep', 'zip',
  'country', 'offer', 'oferta', 'purchase', 'compra', 'affiliate', 'afiliado', 'producer', 'produtor',
  'subscription', 'assinatura',
  // a consent or preference question, a code, an account elsewhere
  'aceito', 'aceita', 'aceitar', 'autorizo', 'autoriza', 'autorizacao', 'concordo', 'concorda', 'deseja',
  'desejo', 'quero', 'receber', 'receive', 'newsletter', 'optin', 'opt', 'consent', 'consentimento', 'lgpd',
  'termos', 'terms', 'politica', 'privacy', 'privacidade', 'promocoes', 'ofertas', 'mensagens', 'messages',
  'comunicacoes', 'notificacoes', 'horario', 'hora', 'time', 'como', 'how', 'prefere', 'preferencia',
  'codigo', 'code', 'token', 'otp', 'verificacao', 'verification', 'senha', 'password', 'link', 'url',
  'instagram', 'facebook', 'tiktok', 'linkedin', 'perfil', 'profile',
]);

/** Words that make a question a second choice: another phone is preferred to it. */
// biome-ignore format: a vocabulary reads better as lines of words
const SECONDARY: ReadonlySet<string> = new Set([
  'outro', 'outra', 'outros', 'alternativo', 'alternativa', 'secundario', 'secundaria', 'adicional',
  'segundo', 'segunda', 'recado', 'recados', 'fixo', 'residencial', 'comercial', 'trabalho', 'work',
  'office', 'home', 'casa', 'extra', 'reserva', 'backup', 'confirme', 'confirmar', 'confirmacao',
  'confirm', 'repita', 'repeat',
]);

const KEYWORDS: ReadonlyArray<readonly [Exclude<PersonField, 'fullName'>, readonly string[]]> = [
  ['email', ['email', 'emails', 'mail']],
  [
    'phone',
    [
      'telefone',
      'telefones',
      'celular',
      'celulares',
      'whatsapp',
      'whats',
      'zap',
      'zapzap',
      'wpp',
      'wapp',
      'fone',
      'tel',
      'phone',
      'phones',
      'mobile',
      'cellphone',
      'cell',
      'cel',
      'telemovel',
      'smartphone',
    ],
  ],
  ['cpf', ['cpf']],
  ['birthday', ['nascimento', 'birthday', 'birthdate', 'aniversario', 'nasc', 'dob', 'birth']],
  ['gender', ['sexo', 'genero', 'gender', 'sex']],
  ['rg', ['rg']],
];
const NAME_WORDS = new Set(['nome', 'name', 'nombre', 'nomes', 'names']);
const FIRST_NAME_WORDS = new Set(['firstname', 'prenome', 'fname']);
const LAST_NAME_WORDS = new Set(['lastname', 'sobrenome', 'surname', 'lname']);

/** A generated id inside a key (`6f8642e`, `q3`, `field12`, a UUID's parts): no meaning. */
function isIdWord(word: string): boolean {
  return (
    /^\d+$/.test(word) ||
    /^(?:q|f|field|input|campo|question|pergunta)\d+$/.test(word) ||
    (/\d/.test(word) && /^[0-9a-f]{5,}$/.test(word)) ||
    /^[0-9a-z]{20,}$/.test(word)
  );
}

/** The kinds of input a form builder names its fields after (`text-374`, `textarea-12`). */
const INPUT_KINDS: ReadonlySet<string> = new Set([
  'text',
  'textarea',
  'txt',
  'textfield',
  'string',
]);

/**
 * Whether an answer's key and label say nothing about it: generated ids and input kinds only
 * (Contact Form 7's `text-374`, `field_6f8642e`, `q3`), no label a person read.
 */
export function saysNothing(answer: LeadAnswer): boolean {
  return [answer.key, answer.label ?? ''].every((text) =>
    joinWords(fieldWords(text)).every(
      (word) => FILLERS.has(word) || isIdWord(word) || INPUT_KINDS.has(word),
    ),
  );
}

// ---- exact aliases ----------------------------------------------------------------------------

/** Whole keys, as words joined by `_`: the names the platforms and common forms use. */
const EXACT: ReadonlyMap<string, PersonField> = new Map(
  (
    [
      [
        'fullName',
        ['name', 'nome', 'full_name', 'fullname', 'nome_completo', 'seu_nome', 'your_name'],
      ],
      ['firstName', ['first_name', 'firstname', 'primeiro_nome', 'given_name']],
      ['lastName', ['last_name', 'lastname', 'sobrenome', 'surname', 'family_name', 'ultimo_nome']],
      [
        'email',
        ['email', 'e_mail', 'mail', 'email_address', 'user_email', 'work_email', 'seu_email'],
      ],
      [
        'phone',
        [
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
          'user_phone',
        ],
      ],
      [
        'cpf',
        [
          'cpf',
          'seu_cpf',
          'qual_o_seu_cpf',
          'qual_seu_cpf',
          'numero_do_cpf',
          'documento',
          'document',
          'government_issued_id_cpf_br',
        ],
      ],
      [
        'birthday',
        [
          'birthday',
          'birthdate',
          'birth_date',
          'date_of_birth',
          'dob',
          'data_nascimento',
          'data_de_nascimento',
          'nascimento',
          'aniversario',
        ],
      ],
      ['gender', ['gender', 'sexo', 'genero', 'sex']],
      ['rg', ['rg']],
    ] as const
  ).flatMap(([field, keys]) => keys.map((key) => [key, field] as const)),
);

// ---- metadata ---------------------------------------------------------------------------------

// biome-ignore format: a vocabulary reads better as lines of words
const METADATA: ReadonlySet<string> = new Set([
  'ip', 'ip_address', 'ipaddress', 'remote_ip', 'remoteip', 'user_ip', 'client_ip', 'x_forwarded_for',
  'user_agent', 'useragent', 'http_user_agent', 'browser', 'date_created', 'date_updated', 'created_at',
  'updated_at', 'created', 'updated', 'created_on', 'updated_on', 'timestamp', 'submitted_at',
  'submission_date', 'submit_time', 'submitted_on', 'date_submitted', 'time_submitted', 'is_read',
  'is_starred', 'is_fulfilled', 'is_spam', 'is_approved', 'read', 'starred', 'post_id', 'entry_id',
  'submission_id', 'created_by', 'updated_by', 'source_id', 'transaction_type', 'transaction_id',
  'payment_status', 'payment_date', 'payment_amount', 'payment_method', 'currency', 'status', 'id',
  'uuid', 'form_id', 'form_title', 'form_name', 'page_uuid', 'referer_title', 'queried_id', 'action',
  'nonce', 'honeypot', 'recaptcha', 'g_recaptcha_response', 'h_captcha_response',
  'cf_turnstile_response', 'captcha', 'locale', 'timezone', 'time_zone', 'webhook_id', 'owner_id',
  'profile_pic', 'live_chat_url',
]);

/**
 * A CRM webhook's envelope: its copy of the record before the change (Pipedrive's `previous`)
 * and, nested, its own metadata (`meta[webhook_id]`; a plain `meta` field is a person's goal).
 */
const PREVIOUS_STATE: ReadonlySet<string> = new Set(['previous', 'previous_data', 'old_values']);
const ENVELOPE = /^meta(?:\[|\.)/u;

/**
 * True for a key that names metadata nobody typed: the submitter's IP and user agent, entry
 * timestamps, read and star flags, entry, post and form ids (Gravity Forms' `ip`, `user_agent`,
 * `date_created`, `is_read`, `id`, `form_id`...), captcha responses, and technical fields whose
 * name starts with `_` (Contact Form 7's `_wpcf7`, `_wpnonce`). Judged by the last part of a
 * nested path (`entry[user_agent]`); a CRM's copy of the record before the change
 * (`previous[name]`) and its envelope (`meta[host]`) are metadata as a whole. Such an answer reaches neither the Prospect nor its notes.
 */
export function isMetadataKey(key: string): boolean {
  if (PREVIOUS_STATE.has(fieldWords(key.split(/[[.]/u)[0] ?? '').join('_'))) return true;
  if (ENVELOPE.test(key)) return true;
  const { leaf } = keyPath(key);
  if (leaf.trimStart().startsWith('_')) return true;
  return METADATA.has(fieldWords(leaf).join('_'));
}

// ---- keys and labels --------------------------------------------------------------------------

/** Parts of a nested path that hold the value rather than name it (`fields[email][value]`). */
const VALUE_PARTS = new Set(['value', 'values', 'raw_value', 'answer', 'val']);
const BRACKET_PATH = /^[^[\]]+(?:\[[^[\]]*\])+$/u;
const DOTTED_PATH = /^[\p{L}\p{N}_-]+(?:(?:\.|__)[\p{L}\p{N}_-]+)+$/u;

/** A key as a path: its last meaningful part (`leaf`) and the parts above it. */
function keyPath(key: string): { leaf: string; parents: string[] } {
  let parts: string[];
  if (BRACKET_PATH.test(key)) parts = key.split(/[[\]]+/u);
  else if (DOTTED_PATH.test(key)) parts = key.split(/\.|__/u);
  else parts = [key];
  parts = parts.map((part) => part.trim()).filter((part) => part.length > 0);
  let end = parts.length;
  while (end > 1 && (/^\d+$/.test(parts[end - 1] ?? '') || VALUE_PARTS.has(parts[end - 1] ?? ''))) {
    end--;
  }
  return { leaf: parts[end - 1] ?? key, parents: parts.slice(0, end - 1) };
}

/** What a key or a label says. */
type Clue =
  | { kind: 'field'; field: PersonField; confidence: number }
  | { kind: 'either'; fields: PersonField[] }
  | { kind: 'blocked' }
  | { kind: 'opaque' }
  | { kind: 'nothing' };

function readWords(raw: readonly string[], context: readonly string[]): Clue {
  if (context.some((word) => BLOCKERS.has(word))) return { kind: 'blocked' };
  const exact = EXACT.get(raw.join('_'));
  if (exact) return { kind: 'field', field: exact, confidence: CONFIDENCE.exact };
  const core = joinWords(raw).filter((word) => !FILLERS.has(word) && !isIdWord(word));
  if (core.length === 0) return { kind: 'opaque' };
  if (core.some((word) => BLOCKERS.has(word))) return { kind: 'blocked' };
  const penalty = core.some((word) => SECONDARY.has(word)) ? CONFIDENCE.secondary : 0;
  const meaningful = core.filter((word) => !SECONDARY.has(word));
  const phrase = EXACT.get(meaningful.join('_'));
  if (phrase) return { kind: 'field', field: phrase, confidence: CONFIDENCE.phrase - penalty };
  const fields = fieldsOf(meaningful);
  const [only] = fields;
  if (only && fields.length === 1) {
    // `Telefone (WhatsApp)`, `Celular/WhatsApp`: nothing but that field's words is a phrase.
    const vocabulary = vocabularyOf(only);
    const pure = meaningful.every((word) => vocabulary.has(word));
    const confidence = (pure ? CONFIDENCE.phrase : CONFIDENCE.word) - penalty;
    return { kind: 'field', field: only, confidence };
  }
  return fields.length > 1 ? { kind: 'either', fields } : { kind: 'nothing' };
}

/** The fields whose words a question has (`nome` and `sobrenome` together: a full name). */
function fieldsOf(words: readonly string[]): PersonField[] {
  const found: PersonField[] = [];
  for (const [field, keywords] of KEYWORDS) {
    if (words.some((word) => keywords.includes(word))) found.push(field);
  }
  const name = words.some((word) => NAME_WORDS.has(word));
  const first =
    words.some((word) => FIRST_NAME_WORDS.has(word)) ||
    (words.some((word) => word === 'first' || word === 'primeiro') &&
      words.some((word) => NAME_WORDS.has(word) || LAST_NAME_WORDS.has(word)));
  const last = words.some((word) => LAST_NAME_WORDS.has(word));
  if (first && last) found.push('fullName');
  else if (first) found.push('firstName');
  else if (last) found.push(name ? 'fullName' : 'lastName');
  else if (name) found.push('fullName');
  return found;
}

const NAME_VOCABULARY: ReadonlySet<string> = new Set([
  ...NAME_WORDS,
  ...FIRST_NAME_WORDS,
  ...LAST_NAME_WORDS,
  'first',
  'primeiro',
]);

function vocabularyOf(field: PersonField): ReadonlySet<string> {
  const keywords = KEYWORDS.find(([name]) => name === field)?.[1];
  return keywords ? new Set(keywords) : NAME_VOCABULARY;
}

function readKey(key: string): Clue {
  const { leaf, parents } = keyPath(key);
  // A label-less Elementor field arrives as `No Label <id>`.
  const words = fieldWords(leaf.replace(/^(?:No Label|Sem r[óo]tulo) /iu, ''));
  return readWords(
    words,
    parents.flatMap((part) => fieldWords(part)),
  );
}

function readLabel(label: string): Clue {
  return readWords(fieldWords(label), []);
}

/** Key and label together; the label (what the person read) wins when they disagree. */
function readText(answer: LeadAnswer): { clue: Clue; by: 'key' | 'label' } {
  const key = readKey(answer.key);
  const label = answer.label?.trim() ? readLabel(answer.label) : undefined;
  if (!label) return { clue: key, by: 'key' };
  if (key.kind === 'blocked' || label.kind === 'blocked')
    return { clue: { kind: 'blocked' }, by: 'label' };
  if (label.kind === 'field' && key.kind === 'field') {
    const confidence =
      label.field === key.field
        ? Math.max(label.confidence, key.confidence) + CONFIDENCE.agreement
        : label.confidence - CONFIDENCE.disagreement;
    return { clue: { ...label, confidence: Math.min(confidence, CONFIDENCE.type) }, by: 'label' };
  }
  if (label.kind === 'field' || label.kind === 'either') return { clue: label, by: 'label' };
  if (key.kind === 'field' || key.kind === 'either') return { clue: key, by: 'key' };
  return {
    clue: label.kind === 'opaque' || key.kind === 'opaque' ? { kind: 'opaque' } : label,
    by: 'label',
  };
}

// ---- values -----------------------------------------------------------------------------------

function firstText(value: LeadAnswer['value']): string {
  if (typeof value === 'string') return value.trim();
  return (value.find((v) => v.trim()) ?? '').trim();
}

/** The field a value alone shows, among `fields`: a valid e-mail, or a Brazilian phone. */
function fieldByValue(value: string, fields: readonly PersonField[]): PersonField | undefined {
  if (fields.includes('email') && 'email' in normalizeEmail(value)) return 'email';
  if (fields.includes('phone') && isBrazilianPhone(value)) return 'phone';
  return undefined;
}

function isBrazilianPhone(value: string): boolean {
  const digits = value.replace(/\D/gu, '');
  if (/^\d{11}$/.test(value.trim()) && 'cpf' in normalizeCpf(value)) return false;
  if (isPlaceholderPhone(value) || digits.length < 10) return false;
  const phone = normalizePhone(value);
  return !('error' in phone) && phone.ddi === '55';
}

/** The date order a question states: `(dd/mm/aaaa)` is day first, `(mm/dd/yyyy)` month first. */
function statedDateOrder(answer: LeadAnswer): DateOrder | undefined {
  const text = `${answer.label ?? ''} ${answer.key}`.toLowerCase();
  if (/\bdd\W{0,3}mm\W{0,3}(?:aaaa|yyyy|aa|yy)\b/u.test(text)) return 'DMY';
  if (/\bmm\W{0,3}dd\W{0,3}(?:aaaa|yyyy|aa|yy)\b/u.test(text)) return 'MDY';
  return undefined;
}

// ---- the recogniser ---------------------------------------------------------------------------

const TYPED_FIELD: Partial<Record<AnswerType, PersonField>> = { email: 'email', phone: 'phone' };

/**
 * What `answer` is to the person's record, with a confidence; undefined when it is none of the
 * person fields (it then belongs in notes, unless {@link isMetadataKey}). See the module comment
 * for the clues and their order.
 */
export function recogniseField(answer: LeadAnswer): Recognition | undefined {
  const recognition = recognise(answer);
  if (recognition?.field !== 'birthday') return recognition;
  const dateOrder = statedDateOrder(answer);
  return dateOrder ? { ...recognition, dateOrder } : recognition;
}

function recognise(answer: LeadAnswer): Recognition | undefined {
  const { clue, by } = readText(answer);
  const typed =
    answer.type && Object.hasOwn(TYPED_FIELD, answer.type) ? TYPED_FIELD[answer.type] : undefined;
  if (typed) {
    if (clue.kind === 'blocked') {
      return { field: typed, confidence: CONFIDENCE.typeOfOther, by: 'type' };
    }
    const agreed = clue.kind === 'field' && clue.field === typed;
    return {
      field: typed,
      confidence: agreed ? CONFIDENCE.typeAgreed : CONFIDENCE.type,
      by: 'type',
    };
  }
  switch (answer.type) {
    case 'date':
      return clue.kind === 'field' && clue.field === 'birthday'
        ? { field: 'birthday', confidence: CONFIDENCE.typeAgreed, by: 'type' }
        : undefined;
    case 'choice':
      return clue.kind === 'field' && clue.field === 'gender'
        ? { field: 'gender', confidence: CONFIDENCE.typeAgreed, by: 'type' }
        : undefined;
    case 'number':
      return clue.kind === 'field' && ['phone', 'cpf', 'birthday', 'rg'].includes(clue.field)
        ? { field: clue.field, confidence: clue.confidence, by }
        : undefined;
    default:
      break;
  }
  switch (clue.kind) {
    case 'field':
      return { field: clue.field, confidence: clue.confidence, by };
    case 'either': {
      const field = fieldByValue(firstText(answer.value), clue.fields);
      return field ? { field, confidence: CONFIDENCE.eitherByValue, by: 'value' } : undefined;
    }
    case 'opaque': {
      const field = fieldByValue(firstText(answer.value), ['email', 'phone']);
      return field ? { field, confidence: CONFIDENCE.value, by: 'value' } : undefined;
    }
    default:
      return undefined;
  }
}
