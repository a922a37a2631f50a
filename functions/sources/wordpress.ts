/**
 * The `wordpress` source: WordPress form plugins' webhook add-ons, as presets of the generic form
 * source (form.ts), chosen with the profile's `plugin` (docs/sources.md):
 *
 * - `contact-form-7`: a webhook add-on (CF7 to Webhook and the like) posting the form's fields by
 *   their CF7 names, as JSON or form data: `your-name`, `your-email`, `tel-123`, `date-456`...
 *   CF7's generated names say the field's type (`tel-` a phone, `email-` an e-mail, `date-` a
 *   date, `menu-`/`radio-`/`checkbox-` a choice), which the recogniser takes as the declared
 *   type. `_wpcf7` (the form's id) is the form id; the other `_wpcf7...` fields are metadata.
 *   No submission id: a content hash (10 minutes).
 * - `wpforms`: WPForms' Webhooks add-on posting the keys the site owner mapped (JSON or form).
 *   Map the smart tags `{entry_id}` and `{form_id}` as `entry_id` and `form_id` and each entry is
 *   recognised for as long as the ledger keeps leads; otherwise a content hash. A smart tag left
 *   unexpanded (`{entry_id}`) is ignored.
 * - `gravity-forms`: Gravity Forms' Webhooks Add-On with Request Body "All Fields": the entry,
 *   fields keyed by id (`2`, `3`), a multi-input field by `<id>.<input>`. A Name field's inputs
 *   (`.3` first, `.4` middle, `.6` last; `.2` prefix, `.8` suffix) become the first and last name
 *   as typed; other multi-input fields (Address, Checkboxes) one answer of their inputs. The
 *   entry's `id` and `form_id` are the dedup key, `date_created` (UTC) the submission time; its
 *   metadata (IP, user agent, flags) is dropped. "Select Fields" bodies (your keys) are read as
 *   they come.
 *
 * Authentication: none of these add-ons signs its requests; the profile's `token` goes in the
 * webhook URL (`?token=`) or, where the add-on sets headers (Gravity Forms, WPForms), in
 * `X-Lead-Token`. Answer: 200 `{"leadId", "status": "queued"}`; nobody is waiting to fix a bad
 * request and the add-ons do not retry, so an authentic unreadable body is parked.
 * Test leads: none.
 */
import * as z from 'zod/mini';
import type { AnswerType, LeadCapture } from '../domain/lead.ts';
import {
  DEFAULT_HONEYPOT_FIELD,
  fieldsHash,
  formFieldsBody,
  idempotencyKey,
  splitFields,
} from './form.ts';
import { type Field, readFields } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  isoInstant,
  secretSetting,
  unreadable,
} from './source.ts';
import { authenticateToken, tokenApiDoc } from './token.ts';

export const WORDPRESS_PLUGINS = ['contact-form-7', 'wpforms', 'gravity-forms'] as const;
export type WordPressPlugin = (typeof WORDPRESS_PLUGINS)[number];

/** What a preset makes of the fields before they are sorted into answers. */
interface Preset {
  fields: Field[];
  /** The dedup key when the body names its entry. */
  entryKey?: string;
  formId?: string;
  submittedAt?: string;
  /** Declared input types by field name. */
  types?: Map<string, AnswerType>;
}

const fieldText = (fields: readonly Field[], key: string) =>
  fields.find((f) => f.key === key)?.value.trim() || undefined;

// ---- Contact Form 7 ---------------------------------------------------------------------------

const CF7_TYPES: Readonly<Record<string, AnswerType>> = {
  tel: 'phone',
  email: 'email',
  date: 'date',
  number: 'number',
  menu: 'choice',
  select: 'choice',
  radio: 'choice',
  checkbox: 'choice',
};

function contactForm7(fields: readonly Field[]): Preset {
  const types = new Map<string, AnswerType>();
  for (const { key } of fields) {
    const prefix = /^([a-z]+)-\d+(?:\[\])?$/.exec(key)?.[1];
    const type = prefix && Object.hasOwn(CF7_TYPES, prefix) ? CF7_TYPES[prefix] : undefined;
    if (type) types.set(key.replace(/\[\]$/, ''), type);
  }
  const formId = fieldText(fields, '_wpcf7');
  return { fields: [...fields], types, ...(formId && { formId }) };
}

// ---- WPForms ----------------------------------------------------------------------------------

const SMART_TAG = /^\{[a-z_]+\}$/;

function wpForms(fields: readonly Field[]): Preset {
  const kept = fields.filter((f) => !SMART_TAG.test(f.value.trim()));
  const entryId = fieldText(kept, 'entry_id');
  const formId = fieldText(kept, 'form_id');
  return {
    fields: kept,
    ...(entryId && { entryKey: `wordpress:wpforms:${formId ?? '-'}:${entryId}` }),
    ...(formId && { formId }),
  };
}

// ---- Gravity Forms ----------------------------------------------------------------------------

const NAME_INPUTS = new Set(['2', '3', '4', '6', '8']);

function gravityForms(fields: readonly Field[]): Preset {
  const groups = new Map<string, Map<string, string>>();
  for (const { key, value } of fields) {
    const match = /^(\d+)\.(\d+)$/.exec(key);
    if (!match) continue;
    const group = groups.get(match[1] as string) ?? new Map<string, string>();
    group.set(match[2] as string, value);
    groups.set(match[1] as string, group);
  }
  const out: Field[] = [];
  const done = new Set<string>();
  for (const field of fields) {
    const id = /^(\d+)\.\d+$/.exec(field.key)?.[1];
    if (id === undefined) {
      out.push(field);
      continue;
    }
    if (done.has(id)) continue;
    done.add(id);
    const inputs = groups.get(id) as Map<string, string>;
    const isName =
      [...inputs.keys()].every((input) => NAME_INPUTS.has(input)) &&
      (inputs.has('3') || inputs.has('6'));
    if (!isName) {
      for (const value of inputs.values()) out.push({ key: id, value });
      continue;
    }
    const part = (input: string) => inputs.get(input)?.trim() ?? '';
    const first = part('3');
    const last = [part('4'), part('6')].filter(Boolean).join(' ');
    if (first && last)
      out.push({ key: 'first_name', value: first }, { key: 'last_name', value: last });
    else out.push({ key: id, value: first || last });
    if (part('2')) out.push({ key: 'Tratamento', value: part('2') });
    if (part('8')) out.push({ key: 'Sufixo', value: part('8') });
  }
  const entryId = fieldText(fields, 'id');
  const formId = fieldText(fields, 'form_id');
  const created = fieldText(fields, 'date_created');
  const submittedAt =
    created && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(created)
      ? isoInstant(`${created.replace(' ', 'T')}Z`)
      : undefined;
  return {
    fields: out,
    ...(entryId && formId && { entryKey: `wordpress:gravityforms:${formId}:${entryId}` }),
    ...(formId && { formId }),
    ...(submittedAt && { submittedAt }),
  };
}

const PRESETS: Record<WordPressPlugin, (fields: readonly Field[]) => Preset> = {
  'contact-form-7': contactForm7,
  wpforms: wpForms,
  'gravity-forms': gravityForms,
};

async function capture(
  request: IntakeRequest,
  profile: { plugin: WordPressPlugin; honeypotField?: string | undefined },
): Promise<CaptureResult> {
  const read = await readFields(request);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const preset = PRESETS[profile.plugin](read.fields);
  const { answers, attribution, spam } = splitFields(
    preset.fields,
    profile.honeypotField ?? DEFAULT_HONEYPOT_FIELD,
  );
  if (!spam && answers.length === 0) {
    return unreadable('o corpo não tem respostas, só campos ocultos ou vazios', request.body);
  }
  const idempotency = idempotencyKey(request, read.fields);
  const dedupKey =
    preset.entryKey ??
    (idempotency && 'dedupKey' in idempotency ? idempotency.dedupKey : undefined) ??
    fieldsHash(
      'wordpress',
      read.fields.map((f) => [f.key, f.value] as const),
    );
  const typed = answers.map((answer) => {
    const type = preset.types?.get(answer.key);
    return type ? { ...answer, type } : answer;
  });
  const lead: LeadCapture = {
    source: 'wordpress',
    dedupKey,
    isTest: false,
    answers: typed,
    attribution,
  };
  const entryId = preset.entryKey?.split(':').pop();
  if (entryId) lead.externalId = entryId;
  const formId = preset.formId ?? attribution.form_id;
  if (formId) lead.formId = formId;
  if (preset.submittedAt) lead.submittedAt = preset.submittedAt;
  return spam ? { leads: [lead], spam: true } : { leads: [lead] };
}

export const wordpressSource = defineSource({
  name: 'wordpress',
  label: 'WordPress',
  settings: {
    token: secretSetting,
    /** Which plugin's webhook add-on posts to this profile. */
    plugin: z.enum(WORDPRESS_PLUGINS),
  },
  secretKeys: ['token'],
  authenticate: (request, profile) => authenticateToken(request, profile.token),
  capture,
  parkUnreadable: true,
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
  setup: {
    steps: [
      'O "plugin" do perfil diz qual complemento envia para ele (contact-form-7, wpforms ou gravity-forms): um perfil por complemento.',
      'Contact Form 7: o CF7 não tem webhook próprio; um complemento de webhook ("CF7 to Webhook" e parecidos) envia os campos com os nomes do CF7 ("your-name", "your-email", "tel-123"...) em JSON ou formulário: dê a ele este endereço (ele leva a chave).',
      'WPForms: o formulário → "Settings" → "Webhooks" → "Request URL" = este endereço, método POST, formato JSON, cabeçalho "X-Lead-Token" com a chave; relacione os campos às suas chaves (nome, email, whatsapp...) e as smart tags {entry_id} e {form_id} a entry_id e form_id.',
      'Gravity Forms: "Forms" → "Settings" → "Webhooks" → "Add New": este endereço, POST, JSON, cabeçalho "X-Lead-Token" com a chave, "Request Body" = "All Fields" (ou "Select Fields" com as suas chaves).',
      'Teste: envie o formulário uma vez no site e veja o lead chegar no console.',
    ],
    secrets: {
      token:
        'Uma chave longa e aleatória sua (a chave "generated" do segredo serve): no cabeçalho "X-Lead-Token" onde o complemento aceita cabeçalhos (WPForms, Gravity Forms), senão no endereço. Nenhum desses complementos assina os envios.',
    },
    auth: (profile) => ({
      kind: 'token',
      setting: 'token',
      in: profile.plugin === 'contact-form-7' ? 'query' : 'header',
    }),
    sample: (stamp, profile) => ({
      contentType: 'application/json',
      body: JSON.stringify(wordpressSample(profile.plugin, stamp)),
    }),
    notes: [
      'O Contact Form 7 não envia número de resposta: as mesmas respostas enviadas de novo em até 10 minutos são o mesmo lead. As respostas do WPForms (com entry_id e form_id) e do Gravity Forms ("All Fields") são reconhecidas enquanto o registro guardar os leads.',
    ],
  },
  docs: () => {
    const fields = formFieldsBody();
    return {
      api: {
        ...tokenApiDoc(),
        bodies: {
          'application/json': fields,
          'application/x-www-form-urlencoded': fields,
          'multipart/form-data': fields,
        },
        answer:
          '200 `LeadAccepted` (Contact Form 7, WPForms or Gravity Forms, by the profile’s `plugin`); an authentic but unreadable body is parked.',
      },
      request: {
        title: 'a Contact Form 7 webhook, profile plugin contact-form-7',
        fixture: { request: 'contact-form-7' },
        variable: 'wordpressToken',
      },
    };
  },
});

/** What each plugin's add-on posts for the kit's sample person. */
function wordpressSample(plugin: WordPressPlugin, stamp: string): Record<string, string> {
  const email = SAMPLE_PERSON.email(stamp);
  switch (plugin) {
    case 'contact-form-7':
      return {
        'your-name': SAMPLE_PERSON.fullName,
        'your-email': email,
        'tel-123': SAMPLE_PERSON.typedPhone,
        utm_source: 'teste',
        _wpcf7: '87',
        _wpcf7_version: '6.0.1',
      };
    case 'wpforms':
      return {
        nome: SAMPLE_PERSON.fullName,
        email,
        whatsapp: SAMPLE_PERSON.typedPhone,
        utm_source: 'teste',
        entry_id: `kit-${stamp}`,
        form_id: '120',
      };
    case 'gravity-forms':
      return {
        id: `kit-${stamp}`,
        form_id: '3',
        date_created: '2026-01-01 12:00:00',
        is_starred: '0',
        ip: '203.0.113.7',
        '1.3': SAMPLE_PERSON.firstName,
        '1.6': SAMPLE_PERSON.lastName,
        '2': email,
        '3': SAMPLE_PERSON.typedPhone,
      };
  }
}
