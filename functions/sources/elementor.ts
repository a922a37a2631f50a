/**
 * The `elementor` source: Elementor Pro's form "Webhook" action (docs/sources.md), sent by
 * `wp_remote_post` as urlencoded, in one of two shapes:
 *
 * - default mode (`get_formatted_data(true)`): one key per field *label* (a field without a label
 *   is `No Label <id>`), the enabled meta entries keyed by their (translated) titles — Date, Time,
 *   Page URL, Page Title, User Agent, Remote IP, Powered by — and `form_id`, `form_name`;
 * - "Advanced Data" mode: `form[id]`, `form[name]`,
 *   `fields[<id>][id|type|title|value|raw_value|required]`, `meta[<key>][title|value]`; a
 *   checkbox group's `raw_value` is a list (`raw_value[0]`, `raw_value[1]`...).
 *
 * Answers are keyed by label (default mode) or by field id with the title as label (advanced);
 * blanks, the honeypot (`honeypotField`, default `_hp`), and layout-only field types are skipped.
 * UTMs and click ids in hidden fields, the page URL and title, and the form name are attribution;
 * `form_id` is `formId`. The user agent, remote IP, date, time and credit meta are not kept
 * anywhere, not even in the dedup hash (`hash:` of form id, answers and attribution).
 *
 * Auth: the profile token. Elementor needs exactly HTTP 200 and never retries, so unreadable
 * bodies are parked and the answer is 200 `{"leadId": "...", "status": "queued"}`.
 */
import type { AnswerType, LeadAnswer, LeadCapture } from '../domain/lead.ts';
import {
  answerValue,
  attributionKeyOf,
  DEFAULT_HONEYPOT_FIELD,
  fieldsHash,
  formFieldsBody,
} from './form.ts';
import {
  type Field,
  groupFields,
  isNestedObject,
  listOf,
  type NestedObject,
  nestBrackets,
  readFields,
  textOf,
} from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  outcomeFields,
  rawBodyHash,
} from './source.ts';
import { tokenApiDoc, tokenOnly } from './token.ts';

/**
 * Meta titles of default mode → what they become: an attribution key, or `null` for dropped.
 * English titles are Elementor's; the Portuguese ones are pt_BR translations as commonly seen
 * [unconfirmed]. Date and time stay dropped only in English: a Portuguese form may well have a
 * question labelled "Data", and a kept meta value does less harm than a lost answer.
 */
const META_TITLES: ReadonlyMap<string, string | null> = new Map([
  ['Date', null],
  ['Time', null],
  ['Page URL', 'page_url'],
  ['URL da página', 'page_url'],
  ['Page Title', 'page_title'],
  ['Título da página', 'page_title'],
  ['User Agent', null],
  ['Agente de usuário', null],
  ['Agente do usuário', null],
  ['Remote IP', null],
  ['IP remoto', null],
  ['IP Remoto', null],
  ['Powered by', null],
  ['Desenvolvido por', null],
  ['Distribuído por', null],
]);

/** Advanced-mode meta keys kept as attribution; every other meta entry is dropped. */
const META_KEYS: ReadonlyMap<string, string> = new Map([
  ['page_url', 'page_url'],
  ['page_title', 'page_title'],
]);

/** Elementor field types → the input type they declare (`tel`: a phone, whatever its title). */
const ANSWER_TYPES: Readonly<Record<string, AnswerType>> = {
  text: 'text',
  textarea: 'text',
  email: 'email',
  tel: 'phone',
  date: 'date',
  number: 'number',
  select: 'choice',
  radio: 'choice',
  checkbox: 'choice',
  acceptance: 'choice',
};

/** Field types that carry no answer. */
const SKIPPED_TYPES = new Set(['honeypot', 'html', 'step', 'recaptcha', 'recaptcha_v3']);

const NO_LABEL = /^(?:No Label|Sem rótulo|Sem Rótulo) (.+)$/u;

interface Collected {
  answers: LeadAnswer[];
  attribution: Record<string, string>;
  formId?: string;
  spam: boolean;
}

async function captureElementor(
  request: IntakeRequest,
  profile: { honeypotField?: string | undefined },
): Promise<CaptureResult> {
  const read = await readFields(request);
  if ('problem' in read) return { problem: read.problem, dedupKey: rawBodyHash(request.body) };
  if (read.fields.length === 0) {
    return { problem: 'o corpo não tem campos', dedupKey: rawBodyHash(request.body) };
  }
  const honeypot = profile.honeypotField ?? DEFAULT_HONEYPOT_FIELD;
  const advanced = read.fields.some(
    (f) => f.key.startsWith('fields[') || f.key.startsWith('form['),
  );
  const collected = advanced
    ? collectAdvanced(nestBrackets(read.fields), honeypot)
    : collectDefault(read.fields, honeypot);
  if (!collected) {
    return {
      problem: 'corpo do modo avançado sem o objeto fields[...]',
      dedupKey: rawBodyHash(request.body),
    };
  }
  const { answers, attribution, formId, spam } = collected;
  const hashed: Array<[string, string]> = [
    ['form_id', formId ?? ''],
    ...answers.flatMap((a) =>
      (typeof a.value === 'string' ? [a.value] : a.value).map(
        (v) => [a.key, v] as [string, string],
      ),
    ),
    ...Object.entries(attribution).map(([k, v]) => [`@${k}`, v] as [string, string]),
  ];
  const capture: LeadCapture = {
    source: 'elementor',
    dedupKey: fieldsHash('elementor', hashed),
    isTest: false,
    answers,
    attribution,
  };
  if (formId) capture.formId = formId;
  return spam ? { leads: [capture], spam: true } : { leads: [capture] };
}

function collectDefault(fields: readonly Field[], honeypot: string): Collected {
  const result: Collected = { answers: [], attribution: {}, spam: false };
  for (const { key: rawKey, values } of groupFields(fields)) {
    const value = answerValue(values);
    const key = NO_LABEL.exec(rawKey)?.[1] ?? rawKey;
    if (key === honeypot) {
      result.spam ||= value !== undefined;
      continue;
    }
    if (value === undefined || key === 'token') continue;
    const first = typeof value === 'string' ? value : (value[0] as string);
    if (key === 'form_id') {
      result.formId ??= first;
      continue;
    }
    const meta = META_TITLES.get(key);
    if (meta === null) continue;
    const attributionKey = meta ?? attributionKeyOf(key);
    if (attributionKey) result.attribution[attributionKey] ??= first;
    else result.answers.push({ key, value });
  }
  return result;
}

function collectAdvanced(tree: NestedObject, honeypot: string): Collected | undefined {
  const fields = tree.fields;
  if (!isNestedObject(fields)) return undefined;
  const result: Collected = { answers: [], attribution: {}, spam: false };
  const form = isNestedObject(tree.form) ? tree.form : undefined;
  const formId = textOf(form?.id)?.trim();
  if (formId) result.formId = formId;
  const formName = textOf(form?.name)?.trim();
  if (formName) result.attribution.form_name = formName;

  for (const [fieldKey, field] of Object.entries(fields)) {
    if (!isNestedObject(field)) continue;
    const id = textOf(field.id)?.trim() || fieldKey;
    const type = textOf(field.type)?.trim() ?? '';
    const title = textOf(field.title)?.trim();
    // A checkbox group's raw_value is the list; `value` is the same joined with ", ".
    const value = answerValue(
      isNestedObject(field.raw_value) || Array.isArray(field.raw_value)
        ? listOf(field.raw_value)
        : listOf(field.value ?? field.raw_value),
    );
    if (id === honeypot) {
      result.spam ||= value !== undefined;
      continue;
    }
    if (value === undefined || SKIPPED_TYPES.has(type) || id === 'token') continue;
    const attributionKey = attributionKeyOf(id);
    if (attributionKey) {
      result.attribution[attributionKey] ??=
        typeof value === 'string' ? value : (value[0] as string);
      continue;
    }
    const declared = Object.hasOwn(ANSWER_TYPES, type) ? ANSWER_TYPES[type] : undefined;
    result.answers.push({
      key: id,
      ...(title && { label: title }),
      ...(declared && { type: declared }),
      value,
    });
  }

  const meta = isNestedObject(tree.meta) ? tree.meta : undefined;
  for (const [metaKey, entry] of Object.entries(meta ?? {})) {
    const kept = META_KEYS.get(metaKey);
    const text = isNestedObject(entry) ? textOf(entry.value)?.trim() : undefined;
    if (kept && text) result.attribution[kept] ??= text;
  }
  return result;
}

export const elementorSource = defineSource({
  name: 'elementor',
  label: 'Elementor',
  ...tokenOnly,
  capture: captureElementor,
  parkUnreadable: true,
  // Elementor reads the status only (200, else "Webhook error" to the visitor); the body says
  // what became of the lead, for people testing.
  accepted: (leadIds, outcome) => acceptedJson(200, leadIds, outcomeFields(outcome)),
  setup: {
    steps: [
      'A página no Elementor → o widget "Form" → "Actions After Submit" → adicione "Webhook".',
      '"Webhook" → "Webhook URL" = este endereço (com a chave nele). "Advanced Data" ligado ou desligado: os dois são lidos.',
      'Crie campos ocultos chamados utm_source, utm_medium, utm_campaign (valor padrão: a tag dinâmica "Request Parameter") para guardar as UTMs.',
      'Atualize a página, envie o formulário uma vez e veja o lead chegar no console.',
    ],
    secrets: {
      token:
        'Uma chave longa e aleatória sua, no endereço do webhook (a chave "generated" do segredo serve).',
    },
    auth: () => ({ kind: 'token', setting: 'token', in: 'query' }),
    sample: (stamp) => ({
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({
        'Nome completo': SAMPLE_PERSON.fullName,
        'E-mail': SAMPLE_PERSON.email(stamp),
        WhatsApp: SAMPLE_PERSON.typedPhone,
        'No Label utm_source': 'teste',
        'Page URL': 'https://academia.example.com/aula-experimental/',
        form_id: 'kitform',
        form_name: 'Aula experimental',
      }).toString(),
    }),
  },
  docs: () => ({
    api: {
      ...tokenApiDoc(),
      bodies: { 'application/x-www-form-urlencoded': formFieldsBody() },
      answer: '200 `LeadAccepted` (Elementor needs exactly 200); an unreadable body is parked.',
    },
    request: {
      title: 'an Elementor Pro form webhook',
      fixture: { request: 'default-mode' },
      variable: 'elementorToken',
    },
  }),
});
