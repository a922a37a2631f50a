/**
 * Google Ads lead form asset webhook: a JSON `WebhookLead` with the shared key in the body.
 *
 * - Authentication: `google_key` compared in constant time with the profile's key. There is no
 *   header, so the body must be read to authenticate: a body that is not a JSON object, or has no
 *   string `google_key`, cannot carry the key → 401 `missing_key`; a wrong key → 403
 *   `invalid_key`. Only then is an unreadable lead parked (a JSON body with the right key but
 *   no `lead_id`, say).
 * - Capture: answers from `user_column_data[]`. Standard questions are keyed by their `column_id`
 *   enum name (`FULL_NAME`, `EMAIL`, `PHONE_NUMBER`, `GOVERNMENT_ISSUED_ID_CPF_BR`...), which
 *   map-lead folds onto its aliases; a custom question (a `column_id` that is not an upper-case enum
 *   name) is keyed by its question text, `column_name`. `column_name` is always the label.
 *   Ids (form, campaign, ad group, creative, asset group; int64) and `gcl_id` go to attribution as
 *   exact strings; `is_test` marks test leads ("Send test data").
 * - Types: `EMAIL`, `WORK_EMAIL` are e-mail questions, `PHONE_NUMBER`, `WORK_PHONE` phone ones.
 * - Dates: Google has no birthday question; a date typed into a custom question is free text,
 *   read in the profile's `dateOrder` (day/month by default).
 * - Test leads ("Send test data", `is_test: true`) all carry the same `lead_id`: intake keeps
 *   their dedup key for a short while only (functions/intake/intake.ts).
 */

import * as z from 'zod/mini';
import { externalId, parseJson } from '../domain/json.ts';
import type { AnswerType, LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { safeEqual } from '../kernel/crypto.ts';
import { t } from '../kernel/language.ts';
import type { NamedSchema } from './docs.ts';
import { isPlainObject } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  type Authenticity,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  isoInstant,
  rawBodyHash,
  secretSetting,
} from './source.ts';

/**
 * `LeadFormFieldUserInputType` names: standard contact questions, government ids and the
 * vertical qualifying questions all look like this, so any such `column_id` is kept as the key.
 */
const ENUM_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

const ATTRIBUTION_IDS = [
  'form_id',
  'campaign_id',
  'adgroup_id',
  'creative_id',
  'asset_group_id',
] as const;

function readPayload(body: Buffer): Record<string, unknown> | undefined {
  try {
    const payload = parseJson(body.toString('utf8'));
    return isPlainObject(payload) ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** An int64 id as an exact decimal string (parseJson keeps big ones as strings); 0 → undefined. */
function idString(value: unknown): string | undefined {
  const raw = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (!/^\d{1,30}$/.test(text) || /^0+$/.test(text)) return undefined;
  return text;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** An unreadable body: parked under the hash of its bytes. */
function problem(message: string, body: Buffer): CaptureResult {
  return { problem: message, dedupKey: rawBodyHash(body) };
}

function authenticate(request: IntakeRequest, profile: { key: string }): Authenticity {
  const key = readPayload(request.body)?.google_key;
  if (typeof key !== 'string' || !key) {
    return {
      ok: false,
      status: 401,
      code: 'missing_key',
      message: t(
        'O corpo precisa ser um lead em JSON com "google_key".',
        'The body must be a JSON lead carrying "google_key".',
      ),
    };
  }
  if (safeEqual(key, profile.key)) return { ok: true };
  return {
    ok: false,
    status: 403,
    code: 'invalid_key',
    message: t('A google_key não é válida.', 'The google_key is not valid.'),
  };
}

/** The standard columns whose input type Google fixes. */
const COLUMN_TYPES: Readonly<Record<string, AnswerType>> = {
  EMAIL: 'email',
  WORK_EMAIL: 'email',
  PHONE_NUMBER: 'phone',
  WORK_PHONE: 'phone',
};

function answerOf(column: Record<string, unknown>): LeadAnswer | undefined {
  const value = column.string_value;
  if (typeof value !== 'string') return undefined;
  const columnId = nonEmpty(column.column_id);
  const columnName = nonEmpty(column.column_name);
  const key = columnId && ENUM_NAME.test(columnId) ? columnId : (columnName ?? columnId);
  if (!key) return undefined;
  const type =
    columnId && Object.hasOwn(COLUMN_TYPES, columnId) ? COLUMN_TYPES[columnId] : undefined;
  return { key, ...(columnName && { label: columnName }), ...(type && { type }), value };
}

function capture(request: IntakeRequest): CaptureResult {
  const payload = readPayload(request.body);
  if (!payload) return problem('o corpo não é um objeto JSON', request.body);
  const leadId = nonEmpty(payload.lead_id) ?? idString(payload.lead_id);
  if (!leadId) return problem('falta lead_id', request.body);
  const columns = payload.user_column_data ?? [];
  if (!Array.isArray(columns)) {
    return problem('user_column_data não é uma lista', request.body);
  }

  const answers: LeadAnswer[] = [];
  for (const [index, column] of columns.entries()) {
    if (!isPlainObject(column)) {
      return problem(`user_column_data[${index}] não é um objeto`, request.body);
    }
    const answer = answerOf(column);
    if (answer) answers.push(answer);
  }

  const attribution: Record<string, string> = {};
  for (const key of ATTRIBUTION_IDS) {
    const id = idString(payload[key]);
    if (id) attribution[key] = id;
  }
  const gclId = nonEmpty(payload.gcl_id);
  if (gclId) attribution.gcl_id = gclId;
  const stage = nonEmpty(payload.lead_stage);
  if (stage) attribution.lead_stage = stage;

  const lead: LeadCapture = {
    source: 'google',
    dedupKey: `google:${leadId}`,
    isTest: payload.is_test === true || payload.is_test === 'true',
    externalId: leadId,
    answers,
    attribution,
  };
  if (attribution.form_id) lead.formId = attribution.form_id;
  const submittedAt = isoInstant(nonEmpty(payload.lead_submit_time));
  if (submittedAt) lead.submittedAt = submittedAt;
  return { leads: [lead] };
}

/** Where the google sample writes the profile's key (sources/setup.ts signs it in). */
const KEY_PLACEHOLDER = '__GOOGLE_KEY__';

/** The lead form webhook as a body schema (docs.ts), as far as `capture` reads it. */
function googleLeadBody(): NamedSchema {
  return {
    id: 'GoogleAdsLead',
    description:
      'Google Ads lead form asset webhook (`WebhookLead`); `google_key` authenticates it.',
    schema: z.looseObject({
      google_key: z.string(),
      lead_id: z.optional(z.string()),
      api_version: z.optional(z.string()),
      form_id: z.optional(externalId),
      campaign_id: z.optional(externalId),
      adgroup_id: z.optional(externalId),
      creative_id: z.optional(externalId),
      gcl_id: z.optional(z.string()),
      is_test: z.optional(z.boolean()),
      user_column_data: z.array(
        z.looseObject({
          column_id: z.optional(z.string()),
          column_name: z.optional(z.string()),
          string_value: z.optional(z.string()),
        }),
      ),
    }),
  };
}

export const googleSource = defineSource({
  name: 'google',
  label: 'Google Ads',
  settings: { key: secretSetting },
  secretKeys: ['key'],
  authenticate,
  capture,
  parkUnreadable: true,
  // Google expects exactly `{}` on success.
  accepted: () => ({
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  }),
  setup: {
    steps: [
      '"Google Ads" → "Recursos" → "Formulários de lead" → o formulário → "Entrega de leads" → "Integração com webhook".',
      '"URL do webhook" = este endereço; "Chave" = a chave do perfil.',
      'Clique em "Enviar dados de teste": o Google manda um lead de teste, guardado com a situação Teste (não é entregue), para conferir no console como ele ficou.',
    ],
    secrets: {
      key: 'Uma chave aleatória escolhida por você (a chave "generated" do segredo serve), digitada como "Chave" do webhook; o Google a envia dentro de cada lead como "google_key".',
    },
    auth: () => ({ kind: 'body', setting: 'key', placeholder: KEY_PLACEHOLDER }),
    sample: (stamp) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        lead_id: `kit-${stamp}`,
        api_version: '1.0',
        form_id: 900000000001,
        campaign_id: 900000000002,
        google_key: KEY_PLACEHOLDER,
        is_test: false,
        lead_submit_time: '2026-01-01T12:00:00Z',
        user_column_data: [
          {
            column_name: 'Full Name',
            string_value: SAMPLE_PERSON.fullName,
            column_id: 'FULL_NAME',
          },
          {
            column_name: 'User Email',
            string_value: SAMPLE_PERSON.email(stamp),
            column_id: 'EMAIL',
          },
          {
            column_name: 'User Phone',
            string_value: SAMPLE_PERSON.phone,
            column_id: 'PHONE_NUMBER',
          },
        ],
      }),
    }),
    notes: [
      'O Google só olha a situação da resposta: um 200 vazio quer dizer recebido. O exemplo é um lead de verdade (não de teste): ele é entregue.',
    ],
  },
  docs: () => ({
    api: {
      security: [],
      authentication:
        "The profile's `key` as `google_key` in the JSON body. Missing: 401 `missing_key`; wrong: 403 `invalid_key`.",
      bodies: { 'application/json': googleLeadBody() },
      answer: '200 `{}`, as Google expects; an authentic but unreadable body is parked.',
    },
    request: {
      title: 'a Google Ads lead form webhook',
      fixture: { payload: 'lead', change: { google_key: '{{googleKey}}' } },
      variable: 'googleKey',
    },
  }),
});
