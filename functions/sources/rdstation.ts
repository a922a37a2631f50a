/**
 * RD Station Marketing webhooks, current and legacy (API 1.x) payloads.
 *
 * - Authentication: RD signs nothing, so the URL carries the profile's token: `?token=` or the
 *   `X-Lead-Token` header, compared in constant time. Missing → 401, wrong → 403.
 * - Payloads: a current event `{event_type, event_identifier, event_timestamp, contact: {...}}`
 *   (or an array of them), or `{"leads": [...]}` with legacy leads (or current events) in it. Every
 *   lead of a request is one capture.
 * - Answers: the person's fields, name, e-mail and phones first, the mobile before the personal
 *   phone (the first phone becomes the cellphone); then the other contact fields, the custom
 *   fields (`cf_*` keys as sent, so `cf_cpf` reaches the cpf alias; legacy `custom_fields`
 *   entries), then the last conversion's form content minus what repeats a contact field (same
 *   key, or same value) and minus UTM-like keys, which are attribution.
 * - Attribution: the conversion origin (legacy `conversion_origin`, current `funnel.origin`) as
 *   `utm_source`, `utm_medium`, `utm_campaign` and `channel` (placeholders such as `(direct)`
 *   dropped; a plain-text `funnel.origin` is the `channel`); the tags, joined; the conversion
 *   identifier (`conversion`), which is also the capture's formId, so that `forms.<identifier>`
 *   settings apply.
 * - Answer: 200 `{"leadId"|"leadIds", "status": "queued"}` (RD reads only the status).
 * - Dedup: `rd:<uuid>:<event_identifier>:<event_timestamp>` (current),
 *   `rd:<uuid>:<last_conversion.created_at>` (legacy); a lead lacking those parts is deduplicated
 *   by a hash of its content.
 */
import * as z from 'zod/mini';
import { parseJson } from '../domain/json.ts';
import type { AnswerType, LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { foldKey } from '../domain/map-lead.ts';
import type { NamedSchema } from './docs.ts';
import { attributionKeyOf } from './form.ts';
import { isPlainObject } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  canonicalJson,
  defineSource,
  type IntakeRequest,
  outcomeFields,
  rawBodyHash,
  sha256Hex,
} from './source.ts';
import { tokenApiDoc, tokenOnly } from './token.ts';

/** Person fields read first, in this order: the first phone found becomes the cellphone. */
const FIRST = ['name', 'email', 'mobile_phone', 'personal_phone'] as const;

/** The contact fields whose input RD Station fixes. */
const FIELD_TYPES: Readonly<Record<string, AnswerType>> = {
  email: 'email',
  mobile_phone: 'phone',
  personal_phone: 'phone',
};

/** Contact keys that are not answers (ids, bookkeeping, or read separately). */
const NOT_ANSWERS = new Set([
  ...FIRST,
  'id',
  'uuid',
  'tags',
  'legal_bases',
  'funnel',
  'links',
  'extra_emails',
  'created_at',
  'updated_at',
  'opportunity',
  'number_conversions',
  'user',
  'lead_stage',
  'public_url',
  'fit_score',
  'interest',
  'last_marked_opportunity_date',
  'first_conversion',
  'last_conversion',
  'custom_fields',
  'company',
]);

type Json = Record<string, unknown>;

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function nonEmpty(value: unknown): string | undefined {
  const text = scalar(value)?.trim();
  return text ? text : undefined;
}

/** A field value as an answer value: text, or a list of texts (multi-select custom fields). */
function answerValue(value: unknown): string | string[] | undefined {
  if (Array.isArray(value)) {
    const list = value.map(scalar).filter((v): v is string => v !== undefined && !!v.trim());
    return list.length ? list : undefined;
  }
  const text = scalar(value);
  return text?.trim() ? text : undefined;
}

function isoDate(value: unknown): string | undefined {
  const text = nonEmpty(value);
  if (!text) return undefined;
  const date = new Date(text);
  return Number.isFinite(date.getTime()) ? date.toISOString() : undefined;
}

/** One lead of a request: the person's record and the event around it. */
interface Delivery {
  person: Json;
  event: Json;
}

/** Splits a payload into its leads; a string is the structural problem. */
function deliveries(payload: unknown): Delivery[] | string {
  const fromItem = (item: unknown, where: string, envelope: Json): Delivery | string => {
    if (!isPlainObject(item)) return `${where} não é um objeto`;
    if (item.contact === undefined) return { person: item, event: envelope };
    if (!isPlainObject(item.contact)) return `${where}.contact não é um objeto`;
    return { person: item.contact, event: item };
  };
  const fromList = (list: unknown[], where: string, envelope: Json): Delivery[] | string => {
    const out: Delivery[] = [];
    for (const [index, item] of list.entries()) {
      const one = fromItem(item, `${where}[${index}]`, envelope);
      if (typeof one === 'string') return one;
      out.push(one);
    }
    return out;
  };
  if (Array.isArray(payload)) return fromList(payload, 'body', {});
  if (!isPlainObject(payload)) return 'o corpo não é um objeto JSON';
  if (payload.contact !== undefined) {
    const one = fromItem(payload, 'body', {});
    return typeof one === 'string' ? one : [one];
  }
  if (payload.leads !== undefined) {
    if (!Array.isArray(payload.leads)) return 'leads não é uma lista';
    return fromList(payload.leads, 'leads', payload);
  }
  return 'o corpo não tem "contact" nem "leads"';
}

/** The conversion the lead came from: the last one, else the first. */
function conversionOf(person: Json): Json | undefined {
  if (isPlainObject(person.last_conversion)) return person.last_conversion;
  return isPlainObject(person.first_conversion) ? person.first_conversion : undefined;
}

function originAttribution(origin: unknown, attribution: Record<string, string>): void {
  if (typeof origin === 'string' && origin.trim()) {
    attribution.channel ??= origin.trim();
    return;
  }
  if (!isPlainObject(origin)) return;
  const names = { source: 'utm_source', medium: 'utm_medium', campaign: 'utm_campaign' };
  for (const [from, to] of Object.entries(names)) {
    const value = nonEmpty(origin[from]);
    // `(direct)`, `(none)`, `(not set)`: analytics placeholders, not a source.
    if (value && !/^\(.*\)$/.test(value)) attribution[to] ??= value;
  }
  const channel = nonEmpty(origin.channel);
  if (channel) attribution.channel ??= channel;
}

function collect(person: Json, attribution: Record<string, string>): LeadAnswer[] {
  const answers: LeadAnswer[] = [];
  const add = (key: string, raw: unknown): void => {
    const value = answerValue(raw);
    const type = Object.hasOwn(FIELD_TYPES, key) ? FIELD_TYPES[key] : undefined;
    if (value !== undefined) answers.push({ key, ...(type && { type }), value });
  };
  for (const key of FIRST) add(key, person[key]);
  // Legacy leads often repeat one number as both phones: keep it once.
  const [mobile, personal] = ['mobile_phone', 'personal_phone'].map((key) =>
    answers.find((a) => a.key === key),
  );
  if (mobile && personal && digits(mobile.value) === digits(personal.value)) {
    answers.splice(answers.indexOf(personal), 1);
  }
  for (const [key, value] of Object.entries(person)) {
    if (!NOT_ANSWERS.has(key)) add(key, value);
  }
  const company = isPlainObject(person.company) ? person.company.name : person.company;
  add('company', company);
  if (isPlainObject(person.custom_fields)) {
    for (const [key, value] of Object.entries(person.custom_fields)) add(key, value);
  }

  const content = conversionOf(person)?.content;
  if (isPlainObject(content)) {
    const keys = new Set(answers.map((a) => foldKey(a.key)));
    const values = new Set(
      answers.flatMap((a) => (typeof a.value === 'string' ? [a.value] : a.value)).map(comparable),
    );
    for (const [key, raw] of Object.entries(content)) {
      const folded = foldKey(key);
      const value = answerValue(raw);
      if (value === undefined || folded === 'identificador' || keys.has(folded)) continue;
      const attributionKey = attributionKeyOf(key);
      if (attributionKey && typeof value === 'string') {
        attribution[attributionKey] ??= value.trim();
        continue;
      }
      const texts = typeof value === 'string' ? [value] : value;
      if (texts.every((text) => values.has(comparable(text)))) continue;
      answers.push({ key, value });
    }
  }
  return answers;
}

function digits(value: LeadAnswer['value']): string {
  return (typeof value === 'string' ? value : value.join('')).replace(/\D/g, '');
}

function comparable(text: string): string {
  return text.trim().toLowerCase();
}

function leadOf(delivery: Delivery): LeadCapture {
  const { person, event } = delivery;
  const attribution: Record<string, string> = {};
  const conversion = conversionOf(person);
  const content = isPlainObject(conversion?.content) ? conversion.content : {};
  const identifier =
    nonEmpty(event.event_identifier) ?? nonEmpty(content.identificador) ?? undefined;
  if (identifier) attribution.conversion = identifier;
  originAttribution(conversion?.conversion_origin, attribution);
  if (isPlainObject(person.funnel)) originAttribution(person.funnel.origin, attribution);
  const answers = collect(person, attribution);
  if (Array.isArray(person.tags)) {
    const tags = person.tags.map(nonEmpty).filter((t): t is string => t !== undefined);
    if (tags.length) attribution.tags = tags.join(', ');
  }

  const uuid = nonEmpty(person.uuid);
  const eventTime = nonEmpty(event.event_timestamp) ?? nonEmpty(event.timestamp);
  const conversionTime = nonEmpty(conversion?.created_at);
  let dedupKey: string;
  if (uuid && eventTime)
    dedupKey = `rd:${uuid}:${nonEmpty(event.event_identifier) ?? ''}:${eventTime}`;
  else if (uuid && conversionTime) dedupKey = `rd:${uuid}:${conversionTime}`;
  else dedupKey = `hash:${sha256Hex(canonicalJson(['rdstation', person, event]))}`;

  const lead: LeadCapture = {
    source: 'rdstation',
    dedupKey,
    isTest: false,
    answers,
    attribution,
  };
  if (uuid) lead.externalId = uuid;
  if (identifier) lead.formId = identifier;
  const submittedAt = isoDate(eventTime ?? conversionTime);
  if (submittedAt) lead.submittedAt = submittedAt;
  return lead;
}

function capture(request: IntakeRequest): CaptureResult {
  const problem = (message: string): CaptureResult => ({
    problem: message,
    dedupKey: rawBodyHash(request.body),
  });
  let payload: unknown;
  try {
    payload = parseJson(request.body.toString('utf8'));
  } catch {
    return problem('o corpo não é JSON');
  }
  const found = deliveries(payload);
  if (typeof found === 'string') return problem(found);
  return { leads: found.map(leadOf) };
}

/** RD Station's webhook as a body schema (docs.ts), as far as `capture` reads it. */
function rdStationWebhookBody(): NamedSchema {
  const event = z.looseObject({
    event_type: z.optional(z.string()),
    event_identifier: z.optional(z.string()),
    event_timestamp: z.optional(z.string()),
    contact: z.looseObject({ email: z.optional(z.string()) }),
  });
  return {
    id: 'RdStationWebhook',
    description:
      'RD Station Marketing: a current event (or an array of them), or `{"leads": [...]}` with legacy leads.',
    schema: z.union([
      event,
      z.array(event),
      z.looseObject({ leads: z.array(z.looseObject({ email: z.optional(z.string()) })) }),
    ]),
  };
}

export const rdstationSource = defineSource({
  name: 'rdstation',
  label: 'RD Station',
  ...tokenOnly,
  capture,
  parkUnreadable: true,
  // RD Station reads the status only; the body says what became of the leads, for people testing.
  accepted: (leadIds, outcome) => acceptedJson(200, leadIds, outcomeFields(outcome)),
  setup: {
    steps: [
      '"RD Station Marketing" → "Integrações" → "Webhooks" → "Criar webhook": URL = este endereço (com a chave nele: o RD Station não assina nada).',
      'Gatilho: "Conversão" (WEBHOOK.CONVERTED) ou "Marcado como oportunidade".',
      'Salve, converta uma vez numa landing page do RD Station e veja o lead chegar no console.',
    ],
    secrets: {
      token:
        'Uma chave longa e aleatória sua, no endereço do webhook (a chave "generated" do segredo serve).',
    },
    auth: () => ({ kind: 'token', setting: 'token', in: 'query' }),
    sample: (stamp) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        event_type: 'WEBHOOK.CONVERTED',
        entity_type: 'CONTACT',
        event_identifier: 'kit-de-configuracao',
        timestamp: '2026-01-01T12:00:01.000Z',
        event_timestamp: '2026-01-01T12:00:00.000Z',
        contact: {
          uuid: `kit-${stamp}`,
          email: SAMPLE_PERSON.email(stamp),
          name: SAMPLE_PERSON.fullName,
          mobile_phone: SAMPLE_PERSON.typedPhone,
          tags: ['teste'],
        },
      }),
    }),
  },
  docs: () => ({
    api: {
      ...tokenApiDoc(),
      bodies: { 'application/json': rdStationWebhookBody() },
      answer: '200 `LeadAccepted` (`leadIds` for several leads); an unreadable body is parked.',
    },
    request: {
      title: 'an RD Station Marketing webhook',
      fixture: { payload: 'current' },
      variable: 'rdToken',
    },
  }),
});
