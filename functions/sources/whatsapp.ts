/**
 * WhatsApp: Click-to-WhatsApp ads, through the WhatsApp Cloud API `messages` webhook (a Meta app
 * subscribed to the WhatsApp Business Account); handshake and signature are Meta's
 * (meta/platform.ts). An ad conversation (`referral`) or a reply to the bot is one lead per
 * person (`whatsapp:<wa_id>`, 72 hours); a WhatsApp Flows answer is a lead of its own; anything
 * else is acknowledged and no lead. No e-mail arrives: `emailPlaceholder` or parked. The form id
 * is the business number's id. Each message kind in detail: docs/architecture.md.
 */
import * as z from 'zod/mini';
import { externalId, parseJson } from '../domain/json.ts';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import type { NamedSchema } from './docs.ts';
import { isPlainObject, scalarText } from './form-fields.ts';
import {
  hubHandshake,
  metaId,
  metaSignatureScheme,
  metaTime,
  verifyHubSignature,
} from './meta/platform.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  readJsonObject,
  secretSetting,
  sha256Hex,
  unreadable,
} from './source.ts';

/** A WhatsApp id: the person's number in international form, digits only (`5511987654321`). */
const WA_ID = /^\d{8,15}$/;

/** What a placeholder e-mail template must look like: `{phone}` once, then `@domain.tld`. */

/** The message's own words, whatever its type (text, a media caption, a button). */
function messageText(message: Record<string, unknown>): string | undefined {
  const type = typeof message.type === 'string' ? message.type : '';
  const part = isPlainObject(message[type]) ? message[type] : undefined;
  if (type === 'text' && typeof part?.body === 'string') return part.body;
  if (typeof part?.caption === 'string') return part.caption;
  if (type === 'button' && typeof part?.text === 'string') return part.text;
  if (type === 'interactive' && part) {
    for (const reply of ['button_reply', 'list_reply']) {
      const chosen = part[reply];
      if (isPlainObject(chosen) && typeof chosen.title === 'string') return chosen.title;
    }
  }
  return undefined;
}

/** The contact the message came from (its `wa_id`, its profile name). */
function contactOf(
  value: Record<string, unknown>,
  message: Record<string, unknown>,
): { waId?: string; name?: string } {
  const contacts = Array.isArray(value.contacts) ? value.contacts.filter(isPlainObject) : [];
  const from = typeof message.from === 'string' ? message.from.trim() : undefined;
  const contact =
    contacts.find((c) => typeof c.wa_id === 'string' && c.wa_id.trim() === from) ?? contacts[0];
  const waId = typeof contact?.wa_id === 'string' ? contact.wa_id.trim() : from;
  const profile = isPlainObject(contact?.profile) ? contact.profile : undefined;
  const name = typeof profile?.name === 'string' && profile.name.trim() ? profile.name : undefined;
  return {
    ...(waId && WA_ID.test(waId) && { waId }),
    ...(name && { name }),
  };
}

/** The person's own answers every WhatsApp lead starts with: their profile name and number. */
function personAnswers(waId: string, name: string | undefined): LeadAnswer[] {
  return [
    ...(name ? [{ key: 'nome', value: name }] : []),
    { key: 'whatsapp', type: 'phone' as const, value: `+${waId}` },
  ];
}

/** The ad behind a referral, as attribution (ids and the ad's own texts, never the person's). */
function referralAttribution(referral: Record<string, unknown>): Record<string, string> {
  const attribution: Record<string, string> = {};
  const sourceType = typeof referral.source_type === 'string' ? referral.source_type.trim() : '';
  const sourceId = metaId(referral.source_id);
  if (sourceId) attribution[sourceType === 'post' ? 'post_id' : 'ad_id'] = sourceId;
  if (sourceType) attribution.source_type = sourceType;
  for (const key of ['ctwa_clid', 'source_url', 'headline'] as const) {
    const text = referral[key];
    if (typeof text === 'string' && text.trim()) attribution[key] = text.trim();
  }
  return attribution;
}

/**
 * A Flow Builder key (`screen_0_Email_1`) as a label: the screen prefix and the index dropped
 * (`Email`); a key the Flow's author chose (`email`, `objetivo`) stays as it is.
 */
function flowLabel(key: string): string | undefined {
  const stripped = key.replace(/^screen_\d+_/i, '').replace(/_\d+$/, '');
  return stripped !== key && stripped ? stripped.replace(/_/g, ' ') : undefined;
}

/** A Flow's answers: each field of `response_json` but its `flow_token`, nested ones by path. */
function flowAnswers(response: Record<string, unknown>, prefix = ''): LeadAnswer[] {
  const answers: LeadAnswer[] = [];
  for (const [key, value] of Object.entries(response)) {
    if (!prefix && key === 'flow_token') continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(value)) {
      answers.push(...flowAnswers(value, path));
      continue;
    }
    const label = flowLabel(key);
    const text = Array.isArray(value)
      ? value.map(scalarText).filter((v) => v !== '')
      : scalarText(value);
    if (text === '' || (Array.isArray(text) && text.length === 0)) continue;
    answers.push({ key: path, ...(label && { label }), value: text });
  }
  return answers;
}

interface Conversation {
  value: Record<string, unknown>;
  message: Record<string, unknown>;
  where: string;
  phoneNumberId: string | undefined;
}

/** A lead from the message that opened an ad conversation; a problem when it names nobody. */
function adConversationLead(c: Conversation, referral: Record<string, unknown>) {
  const { waId, name } = contactOf(c.value, c.message);
  if (!waId) return `${c.where} has a referral but no WhatsApp id (wa_id / from)`;
  const text = messageText(c.message);
  const lead: LeadCapture = {
    source: 'whatsapp',
    dedupKey: `whatsapp:${waId}`,
    isTest: false,
    answers: [
      ...personAnswers(waId, name),
      ...(text?.trim() ? [{ key: 'mensagem', label: 'Primeira mensagem', value: text }] : []),
    ],
    attribution: referralAttribution(referral),
  };
  return finish(lead, c);
}

/** A lead from a WhatsApp Flows answer; a problem when it cannot be read. */
function flowLead(c: Conversation, reply: Record<string, unknown>) {
  const { waId, name } = contactOf(c.value, c.message);
  const messageId = typeof c.message.id === 'string' ? c.message.id.trim() : '';
  if (!waId) return `${c.where} é uma resposta de Flow, mas não tem id do WhatsApp (wa_id / from)`;
  if (!messageId) return `${c.where} is a Flow answer without a message id`;
  let response: unknown;
  try {
    response = typeof reply.response_json === 'string' ? parseJson(reply.response_json) : undefined;
  } catch {
    response = undefined;
  }
  if (!isPlainObject(response)) {
    return `${c.where}.interactive.nfm_reply.response_json não é um objeto JSON`;
  }
  const attribution: Record<string, string> = {};
  if (typeof response.flow_token === 'string' && response.flow_token.trim()) {
    attribution.flow_token = response.flow_token.trim();
  }
  const lead: LeadCapture = {
    source: 'whatsapp',
    dedupKey: `whatsapp-flow:${messageId}`,
    isTest: false,
    // What the person typed in the Flow first: its name beats the WhatsApp profile's.
    answers: [...flowAnswers(response), ...personAnswers(waId, name)],
    attribution,
  };
  return finish(lead, c);
}

/** The row or button a reply chose: its id (named by the bot's author) and its title. */
function chosenReply(message: Record<string, unknown>): { id: string; title: string } | undefined {
  const interactive = isPlainObject(message.interactive) ? message.interactive : undefined;
  const kind = interactive?.type;
  const chosen =
    (kind === 'list_reply' || kind === 'button_reply') && isPlainObject(interactive?.[kind])
      ? interactive[kind]
      : undefined;
  const button = message.type === 'button' && isPlainObject(message.button) ? message.button : {};
  const title = chosen ? chosen.title : button.text;
  const id = chosen ? chosen.id : button.payload;
  if (typeof title !== 'string' || !title.trim()) return undefined;
  return { id: typeof id === 'string' ? id.trim() : '', title: title.trim() };
}

/** A lead from a reply to the bot's list or buttons; a problem when it names nobody. */
function replyLead(c: Conversation, reply: { id: string; title: string }) {
  const { waId, name } = contactOf(c.value, c.message);
  if (!waId) return `${c.where} é uma resposta ao menu, mas não tem id do WhatsApp (wa_id / from)`;
  const answer: LeadAnswer = {
    key: reply.id || 'resposta_menu',
    label: reply.id ? `Escolha no menu (${reply.id})` : 'Escolha no menu',
    value: reply.title,
  };
  const lead: LeadCapture = {
    source: 'whatsapp',
    dedupKey: `whatsapp:${waId}`,
    isTest: false,
    answers: [...personAnswers(waId, name), answer],
    attribution: {},
  };
  return finish(lead, c);
}

function finish(lead: LeadCapture, c: Conversation): LeadCapture {
  if (c.phoneNumberId) lead.formId = c.phoneNumberId;
  const submittedAt = metaTime(c.message.timestamp);
  if (submittedAt) lead.submittedAt = submittedAt;
  return lead;
}

function capture(request: IntakeRequest): CaptureResult {
  const read = readJsonObject(request.body);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const payload = read.value;
  if (!Array.isArray(payload.entry))
    return unreadable('o corpo não tem a lista "entry"', request.body);

  const leads: LeadCapture[] = [];
  for (const [e, entry] of payload.entry.entries()) {
    if (!isPlainObject(entry)) return unreadable(`entry[${e}] não é um objeto`, request.body);
    const changes = Array.isArray(entry.changes) ? entry.changes : [];
    for (const [c, change] of changes.entries()) {
      if (!isPlainObject(change) || change.field !== 'messages') continue;
      const value = change.value;
      if (!isPlainObject(value)) continue;
      const metadata = isPlainObject(value.metadata) ? value.metadata : {};
      const messages = Array.isArray(value.messages) ? value.messages : [];
      for (const [m, message] of messages.entries()) {
        if (!isPlainObject(message)) continue;
        const conversation: Conversation = {
          value,
          message,
          where: `entry[${e}].changes[${c}].value.messages[${m}]`,
          phoneNumberId: metaId(metadata.phone_number_id),
        };
        const interactive = isPlainObject(message.interactive) ? message.interactive : undefined;
        let lead: LeadCapture | string | undefined;
        if (isPlainObject(message.referral)) {
          lead = adConversationLead(conversation, message.referral);
        } else if (interactive?.type === 'nfm_reply' && isPlainObject(interactive.nfm_reply)) {
          lead = flowLead(conversation, interactive.nfm_reply);
        } else {
          const reply = chosenReply(message);
          if (reply) lead = replyLead(conversation, reply);
        }
        // One unreadable lead parks the whole request: capturing the others would hide it.
        if (typeof lead === 'string') return unreadable(lead, request.body);
        if (lead) leads.push(lead);
      }
    }
  }
  return { leads };
}

/** The `messages` webhook as a body schema (docs.ts), as far as `capture` reads it. */
function whatsappWebhookBody(): NamedSchema {
  const message = z.looseObject({
    from: z.optional(z.string()),
    id: z.string(),
    timestamp: z.optional(z.string()),
    type: z.string(),
    referral: z.optional(
      z.looseObject({
        source_id: z.optional(externalId),
        source_type: z.optional(z.string()),
        ctwa_clid: z.optional(z.string()),
      }),
    ),
    interactive: z.optional(z.looseObject({ type: z.string() })),
  });
  const value = z.looseObject({
    metadata: z.optional(z.looseObject({ phone_number_id: z.optional(externalId) })),
    contacts: z.optional(
      z.array(
        z.looseObject({
          wa_id: z.string(),
          profile: z.optional(z.looseObject({ name: z.optional(z.string()) })),
        }),
      ),
    ),
    messages: z.optional(z.array(message)),
    statuses: z.optional(z.array(z.looseObject({ status: z.string() }))),
  });
  return {
    id: 'WhatsAppWebhook',
    description:
      'The WhatsApp Cloud API `messages` webhook: a message with `referral` (a Click-to-WhatsApp ad), a Flows answer (`interactive.nfm_reply`) or a reply to the bot’s list or buttons (`interactive.list_reply` / `button_reply`, a template’s quick-reply `button`) is a lead; statuses and later messages are acknowledged.',
    schema: z.looseObject({
      object: z.string(),
      entry: z.array(
        z.looseObject({
          id: z.optional(externalId),
          changes: z.array(z.looseObject({ field: z.string(), value })),
        }),
      ),
    }),
  };
}

export const whatsappSource = defineSource({
  name: 'whatsapp',
  label: 'WhatsApp (Click-to-WhatsApp)',
  settings: {
    /** The Meta app's App Secret (the Cloud API signs each POST with it). */
    appSecret: secretSetting,
    /** Chosen by us, typed into the app's webhook form. */
    verifyToken: secretSetting,
    // `emailPlaceholder` is every profile's (sources/source.ts); WhatsApp's leads need it most.
  },
  secretKeys: ['appSecret', 'verifyToken'],
  authenticate: (request, profile) => verifyHubSignature(request, profile.appSecret),
  capture,
  parkUnreadable: true,
  // Meta only looks at the 200; the body says what became of the request, for people testing.
  accepted: (leadIds) =>
    acceptedJson(200, leadIds, { status: leadIds.length ? 'queued' : 'no_lead' }),
  handshake: (request, profile) => hubHandshake(request, profile.verifyToken),
  setup: {
    steps: [
      'developers.facebook.com → o seu app → "WhatsApp" → "Configuration" → "Webhook" → "Edit": "Callback URL" = este endereço, "Verify token" = o verifyToken do perfil → "Verify and save" (a Meta chama o endereço uma vez, GET, para conferir).',
      'Campos do webhook: assine "messages".',
      'A conta do WhatsApp Business precisa estar ligada ao app (POST /<WABA_ID>/subscribed_apps; o cadastro incorporado já faz isso).',
      'Teste: toque num dos seus anúncios de clique para o WhatsApp num celular e mande a mensagem sugerida; a primeira mensagem da conversa é o lead.',
    ],
    secrets: {
      appSecret:
        'O "App Secret" do app da Meta ("App settings" → "Basic"): a Cloud API assina cada envio com ele ("X-Hub-Signature-256").',
      verifyToken:
        'Uma chave aleatória escolhida por você (a chave "generated" do segredo serve), digitada como "Verify token" do webhook.',
    },
    auth: () => ({
      kind: 'hmac',
      setting: 'appSecret',
      header: 'X-Hub-Signature-256',
      prefix: 'sha256=',
      encoding: 'hex',
    }),
    // The first message of an ad conversation; the stamp makes it another WhatsApp number, so
    // that each test lead is a new conversation (one number is one lead for 72 hours).
    sample: (stamp) => {
      const waId = `551197${stampDigits(stamp, 7)}`;
      return {
        contentType: 'application/json',
        // No e-mail in a conversation: its number finds the lead (the last 9 digits, within any
        // way the console writes it).
        search: waId.slice(-9),
        body: JSON.stringify({
          object: 'whatsapp_business_account',
          entry: [
            {
              id: '102290129340398',
              changes: [
                {
                  field: 'messages',
                  value: {
                    messaging_product: 'whatsapp',
                    metadata: {
                      display_phone_number: '551140028922',
                      phone_number_id: '106540352242922',
                    },
                    contacts: [{ profile: { name: SAMPLE_PERSON.fullName }, wa_id: waId }],
                    messages: [
                      {
                        from: waId,
                        id: `wamid.kit-${stamp}`,
                        timestamp: '1767225600',
                        type: 'text',
                        text: { body: 'Olá! Quero saber dos planos.' },
                        referral: {
                          source_url: 'https://fb.me/kit',
                          source_id: '120226305854810726',
                          source_type: 'ad',
                          headline: 'Aula experimental grátis',
                          ctwa_clid: `kit-${stamp}`,
                        },
                      },
                    ],
                  },
                },
              ],
            },
          ],
        }),
      };
    },
    notes: [
      'Uma conversa do WhatsApp não traz e-mail, que o sistema da academia exige: sem o "emailPlaceholder" do perfil, o lead do exemplo fica parado esperando o e-mail (preencha no console); com "{phone}@whatsapp.invalid" ele é entregue com esse endereço.',
      'Um número de WhatsApp é um lead por 72 horas (a janela da conversa do anúncio): mandar o curl de novo é o mesmo lead; cada lead de teste do console usa outro número.',
      'São leads a primeira mensagem de uma conversa de anúncio (ela traz "referral"), a resposta de um Flow e a escolha numa lista ou num botão do seu robô; o exemplo "Test" do campo "messages" no painel não é nenhuma delas e é aceito sem lead.',
      'Uma escolha na lista ou num botão é uma resposta como as de um formulário: o "id" da linha diz a pergunta e o título é a resposta. Dê às linhas de uma lista de unidades ids que comecem por "unidade" (unidade_moema, unidade_paulista) para que a unidade escolhida vá para o lead pelo nome.',
    ],
  },
  docs: () => ({
    api: {
      security: ['metaSignature'],
      schemes: { metaSignature: metaSignatureScheme() },
      authentication:
        '`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the Meta app secret>`. Missing: 401; mismatch: 403. `GET` is the subscription handshake, as Meta’s.',
      bodies: { 'application/json': whatsappWebhookBody() },
      answer:
        '200 `LeadAccepted` (`status: "no_lead"` and no ids for statuses and later messages); an authentic but unreadable body is parked and answered 200.',
    },
    request: {
      title: 'a Click-to-WhatsApp ad conversation',
      note: 'Signed with config/demo.json’s appSecret over this exact body; one conversation (wa_id) is one lead.',
      fixture: { payload: 'ctwa-first-message' },
    },
  }),
});

/** `length` digits that a stamp stands for (a test lead's WhatsApp number). */
function stampDigits(stamp: string, length: number): string {
  return BigInt(`0x${sha256Hex(stamp)}`)
    .toString()
    .slice(-length);
}
