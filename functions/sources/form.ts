/**
 * The `form` source: plain HTML forms posted straight to the endpoint, and Zapier / Make / n8n
 * style hooks (flat JSON or form data with whatever names the user typed).
 *
 * - Every field is an answer keyed by its name (`objetivo[]` is read as `objetivo`; repeated keys
 *   give a list), except: attribution fields (UTM parameters, click ids, page URL, referrer, form
 *   id and name; see {@link attributionKeyOf}), the honeypot, `idempotency_key` and `token`.
 *   Blank values are skipped, values are trimmed. The mapping (map-lead.ts) decides what each
 *   answer is; nothing here depends on the profile's fieldMap.
 * - Honeypot: the field named by the profile's `honeypotField`, default `_hp` (`website`, the
 *   other common name, is a real question on some forms, so it must be chosen explicitly).
 *   Filled, it marks the result `spam: true`; it is never an answer.
 * - Dedup: `key:<value>` from the `Idempotency-Key` header or an `idempotency_key` field, else
 *   `hash:<sha256>` of the body's fields (see {@link fieldsHash}); the use case adds the window.
 * - Auth: the profile token (`?token=` or `X-Lead-Token`).
 * - Answer: 202 `{"leadId": "...", "status": "queued"}` (`leadIds` for several): the lead is
 *   durably queued, not yet delivered, as on `POST /api/v1/prospects`.
 *
 * The helpers exported below are the rules every field-based source shares (Unbounce, Elementor,
 * Webflow reuse them).
 */
import * as z from 'zod/mini';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { foldKey } from '../domain/map-lead.ts';
import type { NamedSchema } from './docs.ts';
import { type Field, groupFields, readFields } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  outcomeFields,
  rawBodyHash,
  sha256Hex,
} from './source.ts';
import { tokenApiDoc, tokenOnly } from './token.ts';

/** The honeypot field when the profile names none. */
export const DEFAULT_HONEYPOT_FIELD = '_hp';

/** Folded field name → the attribution key it is kept under. */
const ATTRIBUTION_KEYS: ReadonlyMap<string, string> = new Map([
  ...[
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_term',
    'utm_content',
    'utm_id',
    'gclid',
    'gbraid',
    'wbraid',
    'fbclid',
    'ttclid',
    'msclkid',
    'li_fat_id',
  ].map((key) => [key, key] as const),
  ['page_url', 'page_url'],
  ['pageurl', 'page_url'],
  ['source_url', 'page_url'],
  ['referrer', 'referrer'],
  ['referer', 'referrer'],
  ['form_id', 'form_id'],
  ['formid', 'form_id'],
  ['form_name', 'form_name'],
  ['formname', 'form_name'],
]);

/**
 * The attribution key a field name stands for (`UTM_Source`, `utm-source` → `utm_source`;
 * `pageUrl`, Gravity Forms' `source_url` → `page_url`), also as the last part of a nested path
 * (`lead[utm_source]`, `tracking.gclid`), or undefined for an answer.
 */
export function attributionKeyOf(name: string): string | undefined {
  const whole = ATTRIBUTION_KEYS.get(foldKey(name));
  if (whole) return whole;
  const leaf =
    /\[([^[\]]+)\]$/.exec(name)?.[1] ?? /^[\w-]+(?:\.[\w-]+)*\.([\w-]+)$/.exec(name)?.[1];
  return leaf ? ATTRIBUTION_KEYS.get(foldKey(leaf)) : undefined;
}

const IDEMPOTENCY_FIELDS = new Set(['idempotency_key', 'idempotencykey']);
const IDEMPOTENCY_HEADER = 'idempotency-key';
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * `key:<value>` for a client idempotency key (header first, then field), undefined when there is
 * none, or a problem when it is not 1–255 visible ASCII characters.
 */
export function idempotencyKey(
  request: Pick<IntakeRequest, 'headers'>,
  fields: readonly Field[] = [],
): { dedupKey: string } | { problem: string } | undefined {
  const header = request.headers[IDEMPOTENCY_HEADER]?.trim();
  const field = fields.find((f) => isIdempotencyField(f.key) && f.value.trim())?.value.trim();
  const value = header || field;
  if (!value) return undefined;
  if (!IDEMPOTENCY_KEY.test(value)) {
    return { problem: 'a chave de idempotência deve ter de 1 a 255 caracteres ASCII visíveis' };
  }
  return { dedupKey: `key:${value}` };
}

function isIdempotencyField(key: string): boolean {
  return IDEMPOTENCY_FIELDS.has(foldKey(key));
}

/** A field that must never become an answer: it would carry the profile's secret into notes. */
function isTokenField(key: string): boolean {
  return foldKey(key) === 'token';
}

/** `objetivo[]` → `objetivo`: PHP-style list names, as checkbox groups are often named. */
function answerKey(key: string): string {
  return key.endsWith('[]') && key.length > 2 ? key.slice(0, -2) : key;
}

/** A list of values as a LeadAnswer value: trimmed, blanks dropped; undefined when none is left. */
export function answerValue(values: readonly string[]): LeadAnswer['value'] | undefined {
  const kept = values.map((v) => v.trim()).filter((v) => v !== '');
  if (kept.length === 0) return undefined;
  return kept.length === 1 ? (kept[0] as string) : kept;
}

export interface SplitFields {
  answers: LeadAnswer[];
  attribution: Record<string, string>;
  /** The honeypot field arrived with a value. */
  spam: boolean;
}

/**
 * Sorts fields into answers and attribution: see the module comment for the rules. The first
 * non-blank value of an attribution field wins.
 */
export function splitFields(fields: readonly Field[], honeypotField: string): SplitFields {
  const answers: LeadAnswer[] = [];
  const attribution: Record<string, string> = {};
  let spam = false;
  /** The label and type a list of fields gave a key (form-fields.ts `ReadOptions.fieldLists`). */
  const described = new Map<string, Pick<LeadAnswer, 'label' | 'type'>>();
  for (const { key, label, type } of fields) {
    if ((label || type) && !described.has(key)) {
      described.set(key, { ...(label && { label }), ...(type && { type }) });
    }
  }
  for (const { key: rawKey, values } of groupFields(
    fields.map((f) => ({ key: answerKey(f.key), value: f.value })),
  )) {
    const value = answerValue(values);
    if (rawKey === honeypotField) {
      if (value !== undefined) spam = true;
      continue;
    }
    if (value === undefined || isIdempotencyField(rawKey) || isTokenField(rawKey)) continue;
    const attributionKey = attributionKeyOf(rawKey);
    if (attributionKey) {
      attribution[attributionKey] ??= typeof value === 'string' ? value : (value[0] as string);
      continue;
    }
    answers.push({ key: rawKey, ...described.get(rawKey), value });
  }
  return { answers, attribution, spam };
}

/**
 * `hash:<hex sha256>` over what a lead said, independent of any profile setting and of field
 * order: the source name and the `[key, value]` pairs, values trimmed, blanks dropped, sorted,
 * as JSON. A redelivery of the same body, or the same fields in another order or encoding
 * (urlencoded, multipart, flat JSON), gives the same key.
 */
export function fieldsHash(source: string, fields: Iterable<readonly [string, string]>): string {
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of fields) {
    const text = value.trim();
    if (text) pairs.push([key.normalize('NFC'), text.normalize('NFC')]);
  }
  pairs.sort(([ak, av], [bk, bv]) => compare(ak, bk) || compare(av, bv));
  return `hash:${sha256Hex(JSON.stringify([source, pairs]))}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function captureForm(
  request: IntakeRequest,
  profile: { honeypotField?: string | undefined },
): Promise<CaptureResult> {
  const read = await readFields(request, { fieldLists: true });
  if ('problem' in read) return { problem: read.problem, dedupKey: rawBodyHash(request.body) };
  const { answers, attribution, spam } = splitFields(
    read.fields,
    profile.honeypotField ?? DEFAULT_HONEYPOT_FIELD,
  );
  const idempotency = idempotencyKey(request, read.fields);
  if (idempotency && 'problem' in idempotency) {
    return { problem: idempotency.problem, dedupKey: rawBodyHash(request.body) };
  }
  if (!spam && answers.length === 0) {
    const problem = read.fields.length
      ? 'o corpo não tem respostas, só campos ocultos ou vazios'
      : 'o corpo não tem campos';
    return { problem, dedupKey: rawBodyHash(request.body) };
  }
  const hashed = read.fields
    .filter((f) => !isIdempotencyField(f.key))
    .map((f) => [answerKey(f.key), f.value] as const);
  const capture: LeadCapture = {
    source: 'form',
    dedupKey: idempotency?.dedupKey ?? fieldsHash('form', hashed),
    isTest: false,
    answers,
    attribution,
  };
  if (attribution.form_id) capture.formId = attribution.form_id;
  return spam ? { leads: [capture], spam: true } : { leads: [capture] };
}

/**
 * A form's fields as a body schema (docs.ts), for the sources that post them as they are (form,
 * Elementor, WordPress).
 */
export function formFieldsBody(): NamedSchema {
  return {
    id: 'FormFields',
    description:
      'A form’s fields by the names the page or the form builder gave them (`nome`, `email`, `celular`, `objetivo[]`...), UTM and click ids, `_hp` (honeypot), `idempotency_key`. The profile’s `fieldMap` and the mapping (docs/sources.md) decide what each becomes.',
    schema: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  };
}

/**
 * The form source's JSON body: a form's fields, or a list of fields (domain/field-list.ts), at
 * the root or under any key.
 */
function formJsonBody(): NamedSchema {
  const entry = z.looseObject({
    name: z.optional(z.string()),
    label: z.optional(z.string()),
    question: z.optional(z.string()),
    title: z.optional(z.string()),
    key: z.optional(z.string()),
    value: z.optional(z.unknown()),
    values: z.optional(z.array(z.unknown())),
    answer: z.optional(z.unknown()),
    text: z.optional(z.unknown()),
    type: z.optional(z.string()),
  });
  return {
    id: 'FormJson',
    description:
      'A JSON object of a form’s fields, nested objects read by their last key (`{"lead": {"email": ...}}`); or a list of fields, at the root or under any key: objects with a name (`name`, `key`, `label`, `question`, `title`) and a value (`value`, `values`, `answer`, `text`), such as a widget’s `[{"id", "name", "value", "type"}]`, Meta’s `field_data` relayed by Make or Zapier, a scheduling page’s `questions_and_answers`. Phone and e-mail lists (`phones: [{"value", "label", "primary"}]`): the mobile is the cellphone, the others go to the notes (docs/sources.md).',
    schema: z.union([z.record(z.string(), z.unknown()), z.array(entry)]),
  };
}

export const formSource = defineSource({
  name: 'form',
  label: 'Site',
  ...tokenOnly,
  capture: captureForm,
  parkUnreadable: false,
  // Zapier, Make and page scripts read this answer: a lead the mapping cannot complete is kept
  // and says `parked` with the reason, as the Prospect API does.
  accepted: (leadIds, outcome) => acceptedJson(202, leadIds, outcomeFields(outcome)),
  setup: {
    steps: [
      'Uma landing page: cole na página o formulário HTML abaixo (a chave vai no endereço do "action").',
      'Zapier: uma ação "Webhooks by Zapier", método POST, este endereço, tipo de conteúdo "form" ou "json", um campo por resposta (nome, email, celular...) e o cabeçalho "X-Lead-Token" com a chave.',
      'Make: um módulo "HTTP - Make a request", método POST, este endereço, cabeçalho "X-Lead-Token", corpo "application/x-www-form-urlencoded" ou JSON com as respostas.',
      'n8n ou qualquer programa: envie (POST) as respostas como campos de formulário ou JSON simples, com o cabeçalho "X-Lead-Token" (ou a chave no endereço, "?token=").',
    ],
    secrets: {
      token:
        'Uma chave longa e aleatória, escolhida por você (o segredo de um perfil publicado já traz uma chave aleatória em "generated": serve). Vai no cabeçalho "X-Lead-Token", ou no endereço ("?token=") onde não dá para pôr cabeçalho.',
    },
    auth: () => ({ kind: 'token', setting: 'token', in: 'header' }),
    sample: (stamp) => ({
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({
        nome: SAMPLE_PERSON.fullName,
        email: SAMPLE_PERSON.email(stamp),
        celular: SAMPLE_PERSON.typedPhone,
        utm_source: 'teste',
        utm_campaign: 'kit-de-configuracao',
      }).toString(),
    }),
    notes: [
      'A resposta é 202 com o número do lead e a situação "na fila", ou "parado" com o motivo quando falta um campo que o sistema da academia exige (o lead fica guardado: corrija no console).',
      'As mesmas respostas enviadas de novo em até 10 minutos são o mesmo lead.',
      'Não é preciso achatar o que a ferramenta envia: listas de campos ([{"name": "...", "value": "..."}], o "field_data" da Meta repassado pelo Make ou Zapier, as perguntas e respostas de uma página de agendamento, um corpo que já começa com a lista) e listas de telefones com rótulo (o celular vai para o lead, os outros para as observações) são lidas como os outros campos.',
    ],
    htmlForm: true,
  },
  docs: () => {
    const fields = formFieldsBody();
    return {
      api: {
        ...tokenApiDoc(),
        bodies: {
          'application/x-www-form-urlencoded': fields,
          'multipart/form-data': fields,
          'application/json': formJsonBody(),
          'text/plain': {
            inline: {
              type: 'string',
              description: 'A JSON object, or a root list of fields, sent as text (Zapier, Make).',
            },
          },
        },
        answer:
          '202 `LeadAccepted`; a plain HTML form of a profile with `redirectUrl` is sent there (303). An unreadable body (not JSON, no answers at all): 400; never for its shape.',
      },
      // The token in the URL, as a landing page's HTML form sends it.
      request: {
        title: 'a landing-page form',
        fixture: { request: 'valid-urlencoded' },
        variable: 'siteToken',
        auth: { kind: 'token', setting: 'token', in: 'query' },
        headers: { Origin: 'https://lp.example.com' },
      },
    };
  },
});
