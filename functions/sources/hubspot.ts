/**
 * The `hubspot` source: a HubSpot workflow's "Send a webhook" action (POST), for gyms whose
 * site forms or ads land in HubSpot first (docs/sources.md).
 *
 * - Authentication: the action's "Include request signature in header" with a HubSpot app:
 *   `X-HubSpot-Signature-v3` = base64 HMAC-SHA256, with the app's client secret (the profile's
 *   `secret`), of `POST` + the request URI + the raw body + `X-HubSpot-Request-Timestamp` (ms).
 *   The URI is the webhook URL exactly as typed into HubSpot, which the profile keeps as `url`
 *   (behind API Gateway the function cannot see the public URL), with HubSpot's decoding of
 *   `%3A %2F %3F %40 %21 %24 %27 %28 %29 %2A %2C %3B`. Missing → 401; a timestamp more than
 *   5 minutes from our clock, either way → 403 `stale_timestamp`; mismatch → 403.
 * - Body: the enrolled contact, in any of the shapes the action sends: "Include all contact
 *   properties" (`{"vid", "portal-id", "properties": {"email": {"value": ...}, ...}}`), a
 *   properties object of plain values, or a customised body of `{"<property>": "<value>"}`.
 * - Answers: every property the person may have typed (`firstname`, `lastname`, `email`,
 *   `mobilephone`, `phone`, `date_of_birth`, custom properties such as `cpf`), labelled in
 *   Portuguese for the standard ones; HubSpot's own bookkeeping (`hs_*`, `createdate`,
 *   `lifecyclestage`, `num_*`, `recent_*`...) is not. A date of birth sent as HubSpot's epoch
 *   milliseconds becomes its calendar date. `hs_analytics_source` (and its drill-downs), the
 *   last form's name and `utm_*` properties are attribution.
 * - Dedup: `hubspot:<contact id>:<recent_conversion_date>` (the contact's last form submission,
 *   when the body carries it, so a contact who converts again later is a new lead), else
 *   `hubspot:<contact id>`: HubSpot's retries (for up to 3 days) are the same lead.
 * - Answer: 200 `{"leadId", "status": "queued"}`; a workflow never retries a 4xx, so an authentic
 *   unreadable body is parked.
 * - Test leads: none (the action's "Test" sends a real contact).
 */

import * as z from 'zod/mini';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { recogniseField } from '../domain/recognise-field.ts';
import { hmacSha256 } from '../kernel/crypto.ts';
import { t } from '../kernel/language.ts';
import { attributionKeyOf } from './form.ts';
import { flattenJson, isPlainObject, scalarText } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  type Authenticity,
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  rawBodyHash,
  readJsonObject,
  secretSetting,
  sha256Hex,
  unreadable,
  verifyTimestampedSignature,
} from './source.ts';

export const HUBSPOT_SIGNATURE_HEADER = 'x-hubspot-signature-v3';
export const HUBSPOT_TIMESTAMP_HEADER = 'x-hubspot-request-timestamp';
/** How far the signed timestamp may be from the time of receipt, either way. */
export const HUBSPOT_MAX_SKEW_MS = 5 * 60 * 1000;

const DECODED: Readonly<Record<string, string>> = {
  '%3a': ':',
  '%2f': '/',
  '%3f': '?',
  '%40': '@',
  '%21': '!',
  '%24': '$',
  '%27': "'",
  '%28': '(',
  '%29': ')',
  '%2a': '*',
  '%2c': ',',
  '%3b': ';',
};

/** The request URI as HubSpot signs it: the URL with those characters decoded. */
export function hubspotUri(url: string): string {
  return url.replace(/%(3a|2f|3f|40|21|24|27|28|29|2a|2c|3b)/gi, (code) => {
    return DECODED[code.toLowerCase()] ?? code;
  });
}

/** The `X-HubSpot-Signature-v3` HubSpot sends for a POST of `body` to `url` at `timestamp`. */
export function hubspotSignature(
  secret: string,
  url: string,
  body: Uint8Array,
  timestamp: string,
): string {
  return hmacSha256(secret, `POST${hubspotUri(url)}`, Buffer.from(body), timestamp).toString(
    'base64',
  );
}

function authenticate(
  request: IntakeRequest,
  profile: { secret: string; url: string },
): Authenticity {
  return verifyTimestampedSignature(request, {
    signatureHeader: HUBSPOT_SIGNATURE_HEADER,
    timestampHeader: HUBSPOT_TIMESTAMP_HEADER,
    shownTimestamp: 'X-HubSpot-Request-Timestamp',
    missing: t(
      'X-HubSpot-Signature-v3 e X-HubSpot-Request-Timestamp são obrigatórios: marque "Include request signature in header" na ação de webhook.',
      'X-HubSpot-Signature-v3 and X-HubSpot-Request-Timestamp are required: choose "Include request signature in header" in the webhook action.',
    ),
    mismatch: t(
      'X-HubSpot-Signature-v3 não confere (o url do perfil é, letra por letra, o URL do webhook digitado na HubSpot?).',
      'X-HubSpot-Signature-v3 does not match (is the profile’s url exactly the webhook URL typed into HubSpot?).',
    ),
    maxSkewMs: HUBSPOT_MAX_SKEW_MS,
    expected: (timestamp) => hubspotSignature(profile.secret, profile.url, request.body, timestamp),
  });
}

/** HubSpot's standard contact properties a person fills in, labelled as the gym reads them. */
const LABELS: Readonly<Record<string, string>> = {
  firstname: 'Nome',
  lastname: 'Sobrenome',
  email: 'E-mail',
  mobilephone: 'Celular',
  phone: 'Telefone',
  date_of_birth: 'Data de nascimento',
  gender: 'Gênero',
  message: 'Mensagem',
  address: 'Endereço',
  city: 'Cidade',
  state: 'Estado',
  zip: 'CEP',
  country: 'País',
  company: 'Empresa',
  jobtitle: 'Cargo',
  website: 'Site',
};

/** The order answers are read in: a mobile phone is preferred to the main one. */
const FIRST = ['firstname', 'lastname', 'email', 'mobilephone', 'phone'];

/** HubSpot's bookkeeping: properties nobody typed. */
const SYSTEM = [
  /^hs_/,
  /^(?:ip|num|recent|notes|engagements|first_conversion|first_deal)_/,
  /^hubspot/,
  /^(?:hubspotscore|createdate|lastmodifieddate|lifecyclestage|closedate|days_to_close)$/,
  /^(?:associatedcompanyid|associatedcompanylastupdated|currentlyinworkflow|total_revenue)$/,
  /^(?:vid|canonical-vid|portal-id|is-contact|objectid|objecttype|id|contact_id)$/,
];

/** Attribution properties: HubSpot's source analysis and the last form submitted. */
const ATTRIBUTION: Readonly<Record<string, string>> = {
  hs_analytics_source: 'hs_analytics_source',
  hs_analytics_source_data_1: 'hs_analytics_source_data_1',
  hs_analytics_source_data_2: 'hs_analytics_source_data_2',
  recent_conversion_event_name: 'form_name',
};

/** The contact's properties as text, from whichever shape the action sent. */
function propertiesOf(payload: Record<string, unknown>): Map<string, string> {
  const found = new Map<string, string>();
  if (isPlainObject(payload.properties)) {
    for (const [name, raw] of Object.entries(payload.properties)) {
      const value = isPlainObject(raw) ? raw.value : raw;
      const text = scalarText(value).trim();
      if (text) found.set(name, text);
    }
    return found;
  }
  const fields = flattenJson(payload);
  for (const { key, value } of 'problem' in fields ? [] : fields.fields) {
    const text = value.trim();
    if (text && !found.has(key)) found.set(key, text);
  }
  return found;
}

/** The contact id: the legacy record's `vid`, `hs_object_id` or `objectId`. */
function contactId(payload: Record<string, unknown>, properties: Map<string, string>): string {
  for (const value of [
    payload['canonical-vid'],
    payload.vid,
    payload.objectId,
    properties.get('hs_object_id'),
    properties.get('vid'),
  ]) {
    const text = scalarText(value).trim();
    if (/^\d{1,20}$/.test(text)) return text;
  }
  return '';
}

/** A birthday sent as epoch milliseconds (HubSpot's date properties) as its calendar date. */
function dateValue(answer: LeadAnswer): LeadAnswer {
  const value = typeof answer.value === 'string' ? answer.value : '';
  if (!/^-?\d{9,14}$/.test(value) || recogniseField(answer)?.field !== 'birthday') return answer;
  const date = new Date(Number(value));
  return Number.isFinite(date.getTime())
    ? { ...answer, type: 'date', value: date.toISOString().slice(0, 10) }
    : answer;
}

function capture(request: IntakeRequest): CaptureResult {
  const read = readJsonObject(request.body);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const payload = read.value;
  const properties = propertiesOf(payload);
  if (properties.size === 0)
    return unreadable('o corpo não tem propriedades de contato', request.body);

  const answers: LeadAnswer[] = [];
  const attribution: Record<string, string> = {};
  const names = [...properties.keys()].sort(
    (a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0),
  );
  for (const name of names) {
    const value = properties.get(name) as string;
    const folded = name.toLowerCase();
    const attributionKey = ATTRIBUTION[folded] ?? attributionKeyOf(name);
    if (attributionKey) {
      attribution[attributionKey] ??= value;
      continue;
    }
    if (SYSTEM.some((pattern) => pattern.test(folded))) continue;
    const label = Object.hasOwn(LABELS, folded) ? LABELS[folded] : undefined;
    const type =
      folded === 'email'
        ? 'email'
        : folded === 'mobilephone' || folded === 'phone'
          ? 'phone'
          : undefined;
    answers.push(dateValue({ key: name, ...(label && { label }), ...(type && { type }), value }));
  }

  const id = contactId(payload, properties);
  const conversion = properties.get('recent_conversion_date');
  const dedupKey = id
    ? `hubspot:${id}${conversion ? `:${conversion}` : ''}`
    : rawBodyHash(request.body);
  const lead: LeadCapture = { source: 'hubspot', dedupKey, isTest: false, answers, attribution };
  if (id) lead.externalId = id;
  return { leads: [lead] };
}

function rank(name: string): number {
  const index = FIRST.indexOf(name.toLowerCase());
  return index === -1 ? FIRST.length : index;
}

export const hubspotSource = defineSource({
  name: 'hubspot',
  label: 'HubSpot',
  settings: {
    secret: secretSetting,
    /** The webhook URL exactly as typed into the workflow action (HubSpot signs it). */
    url: z.url(),
  },
  secretKeys: ['secret'],
  authenticate,
  capture,
  parkUnreadable: true,
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
  setup: {
    steps: [
      '"Automation" → "Workflows" → um fluxo de contatos (inscritos ao enviar um formulário, por exemplo) → adicione a ação "Send a webhook": método POST, "Webhook URL" = este endereço.',
      '"Authentication type": "Include request signature in header", com o app da HubSpot cujo "client secret" é a chave do perfil.',
      'O "url" do perfil precisa ser este endereço exatamente como foi digitado na HubSpot: a HubSpot o assina, e a função não enxerga o endereço público.',
      '"Request body": "Include all contact properties", ou "Customize request body" com as propriedades que quiser (firstname, lastname, email, mobilephone, cpf...).',
      'Teste: o "Test" da ação envia um contato seu de verdade; ele vira um lead de verdade.',
    ],
    secrets: {
      secret:
        'O "client secret" do app da HubSpot (aba "Auth" do app): a HubSpot assina cada envio com ele ("X-HubSpot-Signature-v3" sobre o método, o endereço, o conteúdo e a hora).',
    },
    auth: (profile) => ({
      kind: 'hmac',
      setting: 'secret',
      header: 'X-HubSpot-Signature-v3',
      prefix: '',
      encoding: 'base64',
      timestampHeader: 'X-HubSpot-Request-Timestamp',
      before: `POST${hubspotUri(profile.url)}`,
    }),
    // "Include all contact properties"; the stamp makes it another contact (another lead).
    sample: (stamp) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        vid: Number(BigInt(`0x${sha256Hex(stamp)}`) % 1_000_000_000n) + 1,
        'portal-id': 62515,
        properties: {
          firstname: { value: SAMPLE_PERSON.firstName },
          lastname: { value: SAMPLE_PERSON.lastName },
          email: { value: SAMPLE_PERSON.email(stamp) },
          mobilephone: { value: SAMPLE_PERSON.typedPhone },
          hs_analytics_source: { value: 'PAID_SOCIAL' },
          recent_conversion_event_name: { value: 'Aula experimental' },
          lifecyclestage: { value: 'lead' },
        },
      }),
    }),
    notes: [
      'A assinatura cobre a hora: um envio com mais de 5 minutos é recusado (403, "stale_timestamp"), por isso o curl calcula a assinatura na hora em que roda.',
      'Um 403 "invalid_signature" com a chave certa quer dizer que o "url" do perfil não é, letra por letra, o endereço dado à HubSpot.',
    ],
  },
  docs: () => ({
    api: {
      security: ['hubspotSignature'],
      schemes: {
        hubspotSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-HubSpot-Signature-v3',
          description:
            'Base64 HMAC-SHA256 of `POST` + the profile’s `url` + the raw body + `X-HubSpot-Request-Timestamp`, with the app’s client secret; the timestamp within 5 minutes.',
        },
      },
      authentication:
        '`X-HubSpot-Signature-v3: <base64 HMAC-SHA256 of "POST" + the profile’s url + the raw body + X-HubSpot-Request-Timestamp with the app’s client secret>`, the timestamp (ms) within 5 minutes. Missing: 401; mismatch or stale: 403.',
      bodies: {
        'application/json': {
          id: 'HubSpotWorkflowWebhook',
          description:
            'A HubSpot workflow’s webhook action: the contact with all its properties (`{"vid", "properties": {"email": {"value"}}}`) or a customised body of `{"<property>": "<value>"}`.',
          schema: z.record(z.string(), z.unknown()),
        },
      },
      answer: '200 `LeadAccepted`; an authentic but unreadable body is parked.',
    },
    request: {
      title: 'a HubSpot workflow webhook',
      note: 'Signed with config/demo.json’s secret and url, but HubSpot signatures expire after 5 minutes: this one is answered 403 stale_timestamp. It shows the shape; docs/sources.md shows how to sign a fresh one.',
      fixture: { payload: 'contact-all-properties' },
    },
  }),
});
