/**
 * The `tally` source: Tally's form webhook (docs/sources.md).
 *
 * - Authentication: `Tally-Signature` = base64 HMAC-SHA256 of the raw body with the webhook's
 *   signing secret (the profile's `secret`). Missing → 401, mismatch → 403. Tally signs only when
 *   the webhook has a signing secret, so a webhook without one is refused (401).
 * - Body: `{"eventId", "eventType": "FORM_RESPONSE", "createdAt", "data": {"responseId",
 *   "submissionId", "respondentId", "formId", "formName", "createdAt", "fields": [{"key",
 *   "label", "type", "value", "options"?}]}}`. Other event types are acknowledged with no lead.
 * - Answers: one per field, keyed by its `key`, labelled by its `label` (the question the person
 *   read), typed by Tally's type (`INPUT_EMAIL`, `INPUT_PHONE_NUMBER`, `INPUT_DATE`...). Choice
 *   values are option ids, resolved to their `options[].text`; a checkbox group also sends one
 *   boolean field per option (`<key>_<option id>`), which repeats the group and is skipped.
 *   Hidden fields named like UTMs or click ids are attribution; other hidden fields are answers.
 *   Calculated fields are Tally's own arithmetic, not answers.
 * - Dedup: `tally:<responseId>` (a retry carries the same response).
 * - Answer: 200 `{"leadId", "status": "queued"}`; Tally retries anything else (5 min, 30 min,
 *   1 h, 6 h, 1 day), so an authentic unreadable body is parked and answered 200.
 * - Test leads: Tally has none (a preview is not submitted).
 */

import * as z from 'zod/mini';
import type { AnswerType, LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { hmacSha256 } from '../kernel/crypto.ts';
import { t } from '../kernel/language.ts';
import type { NamedSchema } from './docs.ts';
import { attributionKeyOf } from './form.ts';
import { isPlainObject, scalarText } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  type Authenticity,
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  isoInstant,
  readJsonObject,
  secretSetting,
  unreadable,
  verifySignatureHeader,
} from './source.ts';

export const TALLY_SIGNATURE_HEADER = 'tally-signature';

/** The `Tally-Signature` Tally sends for `body`: base64 HMAC-SHA256 with the signing secret. */
export function tallySignature(secret: string, body: Uint8Array): string {
  return hmacSha256(secret, Buffer.from(body)).toString('base64');
}

function authenticate(request: IntakeRequest, profile: { secret: string }): Authenticity {
  return verifySignatureHeader(
    request,
    {
      name: TALLY_SIGNATURE_HEADER,
      shown: 'Tally-Signature',
      missing: t(
        'O cabeçalho Tally-Signature é obrigatório: dê ao webhook um segredo de assinatura (signing secret).',
        'The Tally-Signature header is required: give the webhook a signing secret.',
      ),
    },
    () => tallySignature(profile.secret, request.body),
  );
}

/** Tally's field types and the input they declare. */
const FIELD_TYPES: Readonly<Record<string, AnswerType>> = {
  INPUT_TEXT: 'text',
  TEXTAREA: 'text',
  INPUT_EMAIL: 'email',
  INPUT_PHONE_NUMBER: 'phone',
  INPUT_DATE: 'date',
  INPUT_NUMBER: 'number',
  LINEAR_SCALE: 'number',
  RATING: 'number',
  MULTIPLE_CHOICE: 'choice',
  DROPDOWN: 'choice',
  CHECKBOXES: 'choice',
  MULTI_SELECT: 'choice',
  RANKING: 'choice',
};

/** Option id → text, from a field's `options` (or a matrix's `rows` and `columns`). */
function optionTexts(...lists: unknown[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const option of list) {
      if (!isPlainObject(option)) continue;
      const id = scalarText(option.id);
      const text = scalarText(option.text).trim();
      if (id && text) texts.set(id, text);
    }
  }
  return texts;
}

/** The text of one value: an option id resolved, a file as its URL, a payment as its amount. */
function valueText(value: unknown, options: Map<string, string>): string | undefined {
  if (value === null || value === undefined || typeof value === 'boolean') return undefined;
  if (isPlainObject(value)) {
    if (typeof value.url === 'string') return value.url;
    if (value.price !== undefined) {
      return [scalarText(value.price), scalarText(value.currency)].filter(Boolean).join(' ');
    }
    return undefined;
  }
  const text = scalarText(value).trim();
  if (!text) return undefined;
  return options.get(text) ?? text;
}

/** A field's value as answer text: a list for several choices, files or matrix rows. */
function fieldValue(field: Record<string, unknown>): LeadAnswer['value'] | undefined {
  const options = optionTexts(field.options, field.rows, field.columns);
  const raw = field.value;
  let values: string[];
  if (Array.isArray(raw)) {
    values = raw.map((item) => valueText(item, options)).filter((v): v is string => !!v);
  } else if (field.type === 'MATRIX' && isPlainObject(raw)) {
    values = Object.entries(raw).flatMap(([row, columns]) => {
      const picked = (Array.isArray(columns) ? columns : [columns])
        .map((column) => valueText(column, options))
        .filter((v): v is string => !!v);
      return picked.length ? [`${options.get(row) ?? row}: ${picked.join(', ')}`] : [];
    });
  } else {
    const text = valueText(raw, options);
    values = text ? [text] : [];
  }
  if (values.length === 0) return undefined;
  return values.length === 1 ? (values[0] as string) : values;
}

function capture(request: IntakeRequest): CaptureResult {
  const read = readJsonObject(request.body);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const payload = read.value;
  if (payload.eventType !== undefined && payload.eventType !== 'FORM_RESPONSE') {
    return { leads: [] };
  }
  const data = payload.data;
  if (!isPlainObject(data)) return unreadable('data falta ou não é um objeto', request.body);
  const responseId = scalarText(data.responseId).trim() || scalarText(data.submissionId).trim();
  if (!responseId) return unreadable('falta data.responseId', request.body);
  if (data.fields !== undefined && !Array.isArray(data.fields)) {
    return unreadable('data.fields não é uma lista', request.body);
  }

  const fields = (data.fields ?? []) as unknown[];
  const groupKeys = new Set(
    fields.flatMap((f) => (isPlainObject(f) && f.type === 'CHECKBOXES' ? [scalarText(f.key)] : [])),
  );
  const answers: LeadAnswer[] = [];
  const attribution: Record<string, string> = {};
  for (const [index, field] of fields.entries()) {
    if (!isPlainObject(field)) {
      return unreadable(`data.fields[${index}] não é um objeto`, request.body);
    }
    const key = scalarText(field.key).trim();
    const type = scalarText(field.type);
    if (!key || type === 'CALCULATED_FIELDS') continue;
    // A checkbox group's per-option booleans repeat the group's own answer.
    if (typeof field.value === 'boolean' && [...groupKeys].some((g) => key.startsWith(`${g}_`))) {
      continue;
    }
    const value = fieldValue(field);
    if (value === undefined) continue;
    const label = scalarText(field.label).trim();
    if (type === 'HIDDEN_FIELDS') {
      const attributionKey = attributionKeyOf(label || key);
      if (attributionKey) {
        attribution[attributionKey] ??= typeof value === 'string' ? value : (value[0] as string);
        continue;
      }
    }
    const declared = Object.hasOwn(FIELD_TYPES, type) ? FIELD_TYPES[type] : undefined;
    answers.push({ key, ...(label && { label }), ...(declared && { type: declared }), value });
  }
  const formName = scalarText(data.formName).trim();
  if (formName) attribution.form_name ??= formName;

  const lead: LeadCapture = {
    source: 'tally',
    dedupKey: `tally:${responseId}`,
    isTest: false,
    externalId: responseId,
    answers,
    attribution,
  };
  const formId = scalarText(data.formId).trim();
  if (formId) lead.formId = formId;
  const submittedAt = isoInstant(scalarText(data.createdAt) || scalarText(payload.createdAt));
  if (submittedAt) lead.submittedAt = submittedAt;
  return { leads: [lead] };
}

/** Tally's webhook as a body schema (docs.ts), as far as `capture` reads it. */
function tallyWebhookBody(): NamedSchema {
  return {
    id: 'TallyWebhook',
    description:
      'Tally’s `FORM_RESPONSE` webhook: the answered fields with their label, type and value (choice values are option ids).',
    schema: z.looseObject({
      eventId: z.string(),
      eventType: z.string(),
      createdAt: z.optional(z.string()),
      data: z.looseObject({
        responseId: z.string(),
        submissionId: z.optional(z.string()),
        formId: z.optional(z.string()),
        formName: z.optional(z.string()),
        createdAt: z.optional(z.string()),
        fields: z.array(
          z.looseObject({
            key: z.string(),
            label: z.optional(z.nullable(z.string())),
            type: z.string(),
            value: z.unknown(),
            options: z.optional(z.array(z.looseObject({ id: z.string(), text: z.string() }))),
          }),
        ),
      }),
    }),
  };
}

export const tallySource = defineSource({
  name: 'tally',
  label: 'Tally',
  settings: { secret: secretSetting },
  secretKeys: ['secret'],
  authenticate,
  capture,
  parkUnreadable: true,
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
  setup: {
    steps: [
      'O formulário → "Integrations" → "Webhooks" → "Connect": "Endpoint URL" = este endereço, "Signing secret" = a chave do perfil.',
      'Opcional: campos ocultos chamados utm_source, utm_medium, utm_campaign guardam as UTMs do endereço do formulário.',
      'Teste: envie o formulário uma vez (a pré-visualização não envia); o registro de eventos do webhook no Tally mostra a nossa resposta.',
    ],
    secrets: {
      secret:
        'O "Signing secret" do webhook, digitado no Tally (qualquer texto longo e aleatório; a chave "generated" do segredo serve): o Tally assina cada envio com ele ("Tally-Signature"). Sem ele o Tally não assina nada e o envio é recusado.',
    },
    auth: () => ({
      kind: 'hmac',
      setting: 'secret',
      header: 'Tally-Signature',
      prefix: '',
      encoding: 'base64',
    }),
    sample: (stamp) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        eventId: `kit-${stamp}`,
        eventType: 'FORM_RESPONSE',
        createdAt: '2026-01-01T12:00:00.000Z',
        data: {
          responseId: `kit-${stamp}`,
          submissionId: `kit-${stamp}`,
          respondentId: 'kit',
          formId: 'kitForm',
          formName: 'Aula experimental',
          createdAt: '2026-01-01T12:00:00.000Z',
          fields: [
            {
              key: 'question_nome',
              label: 'Nome completo',
              type: 'INPUT_TEXT',
              value: SAMPLE_PERSON.fullName,
            },
            {
              key: 'question_email',
              label: 'E-mail',
              type: 'INPUT_EMAIL',
              value: SAMPLE_PERSON.email(stamp),
            },
            {
              key: 'question_whatsapp',
              label: 'WhatsApp',
              type: 'INPUT_PHONE_NUMBER',
              value: SAMPLE_PERSON.phone,
            },
            {
              key: 'question_utm',
              label: 'utm_source',
              type: 'HIDDEN_FIELDS',
              value: 'teste',
            },
          ],
        },
      }),
    }),
    notes: ['Uma nova tentativa da mesma resposta é o mesmo lead (o mesmo responseId).'],
  },
  docs: () => ({
    api: {
      security: ['tallySignature'],
      schemes: {
        tallySignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Tally-Signature',
          description: 'Base64 HMAC-SHA256 of the raw body with the profile’s secret.',
        },
      },
      authentication:
        '`Tally-Signature: <base64 HMAC-SHA256 of the raw body with the webhook’s signing secret>`. Missing: 401; mismatch: 403.',
      bodies: { 'application/json': tallyWebhookBody() },
      answer: '200 `LeadAccepted`; an authentic but unreadable body is parked.',
    },
    request: {
      title: 'a Tally webhook',
      note: 'Signed with config/demo.json’s secret over this exact body.',
      fixture: { payload: 'form-response' },
    },
  }),
});
