import * as z from 'zod/mini';
import type { AnswerType, LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { hmacSha256 } from '../kernel/crypto.ts';
import { t } from '../kernel/language.ts';
import { attributionKeyOf } from './form.ts';
import { isPlainObject } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  type Authenticity,
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  isoInstant,
  outcomeFields,
  readJsonObject,
  secretSetting,
  unreadable,
  verifySignatureHeader,
} from './source.ts';

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** An unreadable body: parked under the hash of its bytes. */

function authenticate(request: IntakeRequest, profile: { secret: string }): Authenticity {
  return verifySignatureHeader(
    request,
    {
      name: 'typeform-signature',
      shown: 'Typeform-Signature',
      missing: t(
        'O cabeçalho Typeform-Signature é obrigatório.',
        'The Typeform-Signature header is required.',
      ),
    },
    () => `sha256=${hmacSha256(profile.secret, request.body).toString('base64')}`,
  );
}

/** Question titles by field id and by ref, groups' inner fields included. */
function titles(definition: unknown): Map<string, string> {
  const byKey = new Map<string, string>();
  const visit = (fields: unknown): void => {
    if (!Array.isArray(fields)) return;
    for (const field of fields) {
      if (!isPlainObject(field)) continue;
      const title = typeof field.title === 'string' ? field.title.trim() : '';
      if (title) {
        if (typeof field.id === 'string') byKey.set(`id:${field.id}`, title);
        if (typeof field.ref === 'string') byKey.set(`ref:${field.ref}`, title);
      }
      if (isPlainObject(field.properties)) visit(field.properties.fields);
    }
  };
  if (isPlainObject(definition)) visit(definition.fields);
  return byKey;
}

/**
 * The input type an answer's `type` declares: e-mail and phone questions are recognised as such
 * whatever their ref (Typeform gives questions random refs unless someone edits them).
 */
const ANSWER_TYPES: Readonly<Record<string, AnswerType>> = {
  text: 'text',
  email: 'email',
  phone_number: 'phone',
  date: 'date',
  number: 'number',
  choice: 'choice',
  choices: 'choice',
  boolean: 'choice',
};

/** An answer's value by its type; undefined when the answer carries nothing usable. */
function answerValue(answer: Record<string, unknown>): string | string[] | undefined {
  const type = typeof answer.type === 'string' ? answer.type : '';
  const raw = answer[type];
  switch (type) {
    case 'boolean':
      return typeof raw === 'boolean' ? (raw ? 'Sim' : 'Não') : undefined;
    case 'choice': {
      if (!isPlainObject(raw)) return undefined;
      return scalar(raw.label) ?? scalar(raw.other);
    }
    case 'choices': {
      if (!isPlainObject(raw)) return undefined;
      const labels = Array.isArray(raw.labels) ? raw.labels : [];
      const values = [...labels, raw.other].map(scalar).filter((v): v is string => !!v);
      return values.length ? values : undefined;
    }
    case 'payment': {
      if (!isPlainObject(raw)) return undefined;
      return scalar(raw.amount);
    }
    default:
      // text, email, phone_number, date, number, url, file_url and future scalar types.
      return scalar(raw);
  }
}

function capture(request: IntakeRequest): CaptureResult {
  const read = readJsonObject(request.body);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const payload = read.value;
  if (payload.event_type !== undefined && payload.event_type !== 'form_response') {
    return { leads: [] };
  }
  const response = payload.form_response;
  if (!isPlainObject(response)) return unreadable('falta form_response', request.body);
  const token = scalar(response.token)?.trim();
  if (!token) return unreadable('falta form_response.token', request.body);
  if (response.answers !== undefined && !Array.isArray(response.answers)) {
    return unreadable('form_response.answers não é uma lista', request.body);
  }

  const labels = titles(response.definition);
  const answers: LeadAnswer[] = [];
  for (const [index, answer] of (response.answers ?? []).entries()) {
    if (!isPlainObject(answer)) {
      return unreadable(`form_response.answers[${index}] não é um objeto`, request.body);
    }
    const field = isPlainObject(answer.field) ? answer.field : {};
    const ref = scalar(field.ref);
    const id = scalar(field.id);
    const key = ref ?? id;
    const value = answerValue(answer);
    if (!key || value === undefined) continue;
    const label = (id && labels.get(`id:${id}`)) ?? (ref && labels.get(`ref:${ref}`));
    const type =
      typeof answer.type === 'string' && Object.hasOwn(ANSWER_TYPES, answer.type)
        ? ANSWER_TYPES[answer.type]
        : undefined;
    answers.push({ key, ...(label && { label }), ...(type && { type }), value });
  }

  const attribution: Record<string, string> = {};
  if (isPlainObject(response.hidden)) {
    for (const [name, raw] of Object.entries(response.hidden)) {
      const value = scalar(raw)?.trim();
      if (!value) continue;
      const attributionKey = attributionKeyOf(name);
      if (attributionKey) attribution[attributionKey] ??= value;
      else answers.push({ key: name, value });
    }
  }

  const lead: LeadCapture = {
    source: 'typeform',
    dedupKey: `typeform:${token}`,
    isTest: false,
    externalId: token,
    answers,
    attribution,
  };
  const formId = scalar(response.form_id)?.trim();
  if (formId) lead.formId = formId;
  const submittedAt = isoInstant(scalar(response.submitted_at));
  if (submittedAt) lead.submittedAt = submittedAt;
  return { leads: [lead] };
}

export const typeformSource = defineSource({
  name: 'typeform',
  label: 'Typeform',
  settings: { secret: secretSetting },
  secretKeys: ['secret'],
  authenticate,
  capture,
  parkUnreadable: true,
  // Typeform reads the status only; the body says what became of the lead, for people testing.
  accepted: (leadIds, outcome) => acceptedJson(200, leadIds, outcomeFields(outcome)),
  setup: {
    steps: [
      'O formulário → "Connect" → "Webhooks" → "Add a webhook": "Endpoint" = este endereço.',
      'Nas configurações do webhook, preencha o "Secret" (a chave do perfil) e ligue-o; o Typeform assina cada envio com ela ("Typeform-Signature").',
      'Opcional: dê às perguntas as referências nome, email, celular e crie campos ocultos utm_source, utm_medium, utm_campaign para levar as UTMs da página.',
      '"View deliveries" → "Send test request" confere o endereço e a assinatura.',
    ],
    secrets: {
      secret:
        'O "Secret" do webhook, digitado nas configurações dele (qualquer texto longo e aleatório; a chave "generated" do segredo serve).',
    },
    auth: () => ({
      kind: 'hmac',
      setting: 'secret',
      header: 'Typeform-Signature',
      prefix: 'sha256=',
      encoding: 'base64',
    }),
    sample: (stamp) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        event_id: `kit-${stamp}`,
        event_type: 'form_response',
        form_response: {
          form_id: 'KitForm',
          token: `kit-${stamp}`,
          submitted_at: '2026-01-01T12:00:00Z',
          hidden: { utm_source: 'teste', utm_campaign: 'kit-de-configuracao' },
          definition: {
            id: 'KitForm',
            title: 'Aula experimental',
            fields: [
              { id: 'f1', title: 'Qual é o seu nome?', type: 'short_text', ref: 'nome' },
              { id: 'f2', title: 'E-mail', type: 'email', ref: 'email' },
              { id: 'f3', title: 'WhatsApp', type: 'phone_number', ref: 'celular' },
            ],
          },
          answers: [
            {
              type: 'text',
              text: SAMPLE_PERSON.fullName,
              field: { id: 'f1', type: 'short_text', ref: 'nome' },
            },
            {
              type: 'email',
              email: SAMPLE_PERSON.email(stamp),
              field: { id: 'f2', type: 'email', ref: 'email' },
            },
            {
              type: 'phone_number',
              phone_number: SAMPLE_PERSON.phone,
              field: { id: 'f3', type: 'phone_number', ref: 'celular' },
            },
          ],
        },
      }),
    }),
  },
  docs: () => ({
    api: {
      security: ['typeformSignature'],
      schemes: {
        typeformSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Typeform-Signature',
          description: '`sha256=<base64 HMAC-SHA256 of the raw body with the profile’s secret>`.',
        },
      },
      authentication:
        '`Typeform-Signature: sha256=<base64 HMAC-SHA256 of the raw body with the webhook secret>`. Missing: 401; mismatch: 403.',
      bodies: {
        'application/json': {
          id: 'TypeformWebhook',
          description: 'Typeform’s `form_response` webhook.',
          schema: z.looseObject({
            event_id: z.string(),
            event_type: z.string(),
            form_response: z.looseObject({
              form_id: z.string(),
              token: z.string(),
              submitted_at: z.optional(z.string()),
              hidden: z.optional(z.record(z.string(), z.unknown())),
              definition: z.optional(z.looseObject({ fields: z.optional(z.array(z.unknown())) })),
              answers: z.array(z.looseObject({ type: z.string(), field: z.looseObject({}) })),
            }),
          }),
        },
      },
      answer: '200 `LeadAccepted`; an authentic but unreadable body is parked.',
    },
    request: {
      title: 'a Typeform webhook',
      note: 'Signed with config/demo.json’s secret over this exact body.',
      fixture: { payload: 'form-response' },
    },
  }),
});
