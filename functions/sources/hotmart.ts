/**
 * The `hotmart` source: Hotmart's purchase webhooks (API version 2.0.0), for personal trainers and
 * gyms selling programs there (docs/sources.md).
 *
 * - Authentication: the `X-HOTMART-HOTTOK` header, the account's Hottok (Hotmart → Ferramentas →
 *   Webhook), compared in constant time with the profile's `hottok`. Missing → 401, wrong → 403.
 *   Hotmart signs nothing else.
 * - Which events are leads (**a decision**, the profile's `leadEvents` overrides it): someone who
 *   bought (`PURCHASE_APPROVED`, `PURCHASE_COMPLETE`), who generated a boleto or PIX and has not
 *   paid yet (`PURCHASE_BILLET_PRINTED`), or who left the checkout after typing their details
 *   (`PURCHASE_OUT_OF_SHOPPING_CART`, abandoned cart). Every other event (cancelled, refunded,
 *   chargeback, expired, delayed, subscriptions, club access...) is about a person already known
 *   and is acknowledged with no lead.
 * - Answers: the buyer (`data.buyer`): `name` (else `first_name` + `last_name`), `email`,
 *   `checkout_phone` (abandoned carts: `phone`), `document` (a CPF when `document_type` says so or
 *   says nothing; a CNPJ stays in the notes), the address as one line; and what they bought
 *   (product, plan, price, payment type) for the notes. The product id is the form id, so
 *   `forms.<product id>` sends each program to its own branch.
 * - Dedup: `hotmart:<purchase.transaction>`, so the events of one purchase (boleto printed, then
 *   approved, then complete) are one lead; an abandoned cart has no transaction:
 *   `hotmart:event:<id>`.
 * - Test leads: the webhook screen's test sends Hotmart's sample purchase, whose product id is 0
 *   (`Produto test postback2`); a real product's id never is.
 * - Answer: 200 `{"leadId", "status": "queued"}` (200 `{"status": "ignored"}` for other events);
 *   Hotmart retries anything else, so an authentic unreadable body is parked.
 */

import * as z from 'zod/mini';
import { externalId } from '../domain/json.ts';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { safeEqual } from '../kernel/crypto.ts';
import { t } from '../kernel/language.ts';
import type { NamedSchema } from './docs.ts';
import { isPlainObject, scalarText } from './form-fields.ts';
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
  unreadable,
} from './source.ts';

export const HOTTOK_HEADER = 'x-hotmart-hottok';

/** The Hotmart events that are leads unless the profile says otherwise. */
export const DEFAULT_LEAD_EVENTS = [
  'PURCHASE_APPROVED',
  'PURCHASE_COMPLETE',
  'PURCHASE_BILLET_PRINTED',
  'PURCHASE_OUT_OF_SHOPPING_CART',
] as const;

function authenticate(request: IntakeRequest, profile: { hottok: string }): Authenticity {
  const hottok = request.headers[HOTTOK_HEADER]?.trim();
  if (!hottok) {
    return {
      ok: false,
      status: 401,
      code: 'missing_hottok',
      message: t(
        'O cabeçalho X-HOTMART-HOTTOK é obrigatório (webhook na versão 2.0.0 da API).',
        'The X-HOTMART-HOTTOK header is required (webhook API version 2.0.0).',
      ),
    };
  }
  if (safeEqual(hottok, profile.hottok)) return { ok: true };
  return {
    ok: false,
    status: 403,
    code: 'invalid_hottok',
    message: t(
      'O cabeçalho X-HOTMART-HOTTOK não é o Hottok deste perfil.',
      'The X-HOTMART-HOTTOK header is not this profile’s Hottok.',
    ),
  };
}

const text = (value: unknown): string => scalarText(value).trim();
const object = (value: unknown): Record<string, unknown> => (isPlainObject(value) ? value : {});

/** Epoch milliseconds (Hotmart's dates) as ISO 8601; undefined otherwise. */
function fromMillis(value: unknown): string | undefined {
  const digits = text(value);
  if (!/^\d{12,14}$/.test(digits)) return undefined;
  return new Date(Number(digits)).toISOString();
}

function buyerAnswers(buyer: Record<string, unknown>): LeadAnswer[] {
  const answers: LeadAnswer[] = [];
  const push = (key: string, label: string, value: string, type?: LeadAnswer['type']) => {
    if (value) answers.push({ key, label, ...(type && { type }), value });
  };
  const name = text(buyer.name);
  if (name) push('name', 'Nome', name);
  else {
    push('first_name', 'Primeiro nome', text(buyer.first_name));
    push('last_name', 'Sobrenome', text(buyer.last_name));
  }
  push('email', 'E-mail', text(buyer.email), 'email');
  push('checkout_phone', 'Telefone', text(buyer.checkout_phone) || text(buyer.phone), 'phone');
  push('checkout_phone_code', 'Código do telefone', text(buyer.checkout_phone_code));
  const document = text(buyer.document);
  const documentType = text(buyer.document_type).toUpperCase();
  if (documentType === '' || documentType === 'CPF') push('document', 'CPF', document);
  else push('document', documentType, document);
  const address = object(buyer.address);
  const line = [
    'address',
    'number',
    'complement',
    'neighborhood',
    'city',
    'state',
    'zipcode',
    'country',
  ]
    .map((key) => text(address[key]))
    .filter(Boolean)
    .join(', ');
  push('address', 'Endereço', line);
  return answers;
}

function purchaseAnswers(data: Record<string, unknown>): LeadAnswer[] {
  const answers: LeadAnswer[] = [];
  const product = object(data.product);
  const purchase = object(data.purchase);
  const plan = object(object(data.subscription).plan);
  const price = object(purchase.price);
  const priceText = [text(price.value), text(price.currency_value)].filter(Boolean).join(' ');
  const entries: Array<[string, string, string]> = [
    ['product', 'Produto', text(product.name)],
    ['plan', 'Plano', text(plan.name)],
    ['price', 'Valor', priceText],
    ['payment', 'Pagamento', text(object(purchase.payment).type)],
  ];
  for (const [key, label, value] of entries) if (value) answers.push({ key, label, value });
  return answers;
}

function attributionOf(event: string, data: Record<string, unknown>): Record<string, string> {
  const purchase = object(data.purchase);
  const origin = object(purchase.origin);
  const affiliate = Array.isArray(data.affiliates) ? object(data.affiliates[0]) : {};
  const entries: Array<[string, string]> = [
    ['hotmart_event', event],
    ['product_id', text(object(data.product).id)],
    ['transaction', text(purchase.transaction)],
    ['offer', text(object(purchase.offer).code) || text(object(data.offer).code)],
    ['src', text(origin.src)],
    ['sck', text(origin.sck)],
    ['xcod', text(origin.xcod)],
    ['affiliate', text(affiliate.name)],
  ];
  return Object.fromEntries(entries.filter(([, value]) => value));
}

function capture(
  request: IntakeRequest,
  profile: { leadEvents?: readonly string[] | undefined },
): CaptureResult {
  const read = readJsonObject(request.body);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const payload = read.value;
  const event = text(payload.event);
  if (!event) return unreadable('falta event', request.body);
  const leadEvents: readonly string[] = profile.leadEvents ?? DEFAULT_LEAD_EVENTS;
  if (!leadEvents.includes(event)) return { leads: [] };
  const data = payload.data;
  if (!isPlainObject(data)) return unreadable('data falta ou não é um objeto', request.body);
  if (!isPlainObject(data.buyer)) return unreadable('falta data.buyer', request.body);

  const productId = text(object(data.product).id);
  const transaction = text(object(data.purchase).transaction);
  const eventId = text(payload.id);
  const dedupKey = transaction
    ? `hotmart:${transaction}`
    : eventId
      ? `hotmart:event:${eventId}`
      : rawBodyHash(request.body);
  const lead: LeadCapture = {
    source: 'hotmart',
    dedupKey,
    isTest: productId === '0',
    answers: [...buyerAnswers(data.buyer), ...purchaseAnswers(data)],
    attribution: attributionOf(event, data),
  };
  const externalId = transaction || eventId;
  if (externalId) lead.externalId = externalId;
  if (productId && productId !== '0') lead.formId = productId;
  const submittedAt =
    fromMillis(object(data.purchase).order_date) ??
    fromMillis(payload.creation_date) ??
    fromMillis(payload.creationDate);
  if (submittedAt) lead.submittedAt = submittedAt;
  return { leads: [lead] };
}

/** Hotmart's webhook as a body schema (docs.ts), as far as `capture` reads it. */
function hotmartWebhookBody(): NamedSchema {
  return {
    id: 'HotmartWebhook',
    description:
      'Hotmart’s webhook, API version 2.0.0 (`X-HOTMART-HOTTOK`): the event and, for purchases and abandoned carts, the buyer.',
    schema: z.looseObject({
      id: z.string(),
      event: z.string(),
      version: z.optional(z.string()),
      creation_date: z.optional(z.number()),
      data: z.looseObject({
        product: z.optional(
          z.looseObject({ id: z.optional(externalId), name: z.optional(z.string()) }),
        ),
        buyer: z.optional(
          z.looseObject({
            name: z.optional(z.string()),
            email: z.optional(z.string()),
            checkout_phone: z.optional(z.string()),
            phone: z.optional(z.string()),
            document: z.optional(z.string()),
          }),
        ),
        purchase: z.optional(z.looseObject({ transaction: z.optional(z.string()) })),
      }),
    }),
  };
}

export const hotmartSource = defineSource({
  name: 'hotmart',
  label: 'Hotmart',
  settings: {
    hottok: secretSetting,
    /** The Hotmart events that are leads; default {@link DEFAULT_LEAD_EVENTS}. */
    leadEvents: z.optional(z.array(z.string().check(z.regex(/^[A-Z_]{3,60}$/)))),
  },
  secretKeys: ['hottok'],
  authenticate,
  capture,
  parkUnreadable: true,
  accepted: (leadIds) =>
    leadIds.length
      ? acceptedJson(200, leadIds, { status: 'queued' })
      : {
          statusCode: 200,
          headers: { 'content-type': 'application/json' },
          body: '{"status":"ignored"}',
        },
  setup: {
    steps: [
      '"Hotmart" → "Ferramentas" → "Webhook (API e notificações)" → "Cadastrar webhook": URL = este endereço, versão 2.0.0, o(s) produto(s).',
      'Eventos: "Compra aprovada" (PURCHASE_APPROVED), "Compra completa" (PURCHASE_COMPLETE), "Boleto impresso" (PURCHASE_BILLET_PRINTED) e "Abandono de carrinho" (PURCHASE_OUT_OF_SHOPPING_CART); os outros eventos são respondidos como ignorados (o leadEvents do perfil muda a lista).',
      'Copie o "Hottok" mostrado nessa tela para o hottok do perfil: a Hotmart o envia no cabeçalho "X-HOTMART-HOTTOK".',
      'Teste: o teste da tela do webhook envia a compra de exemplo da Hotmart (produto 0): ela fica com a situação Teste e não é entregue.',
    ],
    secrets: {
      hottok:
        'O "Hottok" da conta ("Ferramentas" → "Webhook"): a Hotmart o envia no cabeçalho "X-HOTMART-HOTTOK" de cada notificação, e não assina mais nada.',
    },
    auth: () => ({ kind: 'header', setting: 'hottok', header: 'X-HOTMART-HOTTOK' }),
    // An abandoned cart: the person typed their details at the checkout and left.
    sample: (stamp) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        id: `kit-${stamp}`,
        creation_date: 1767225600000,
        event: 'PURCHASE_OUT_OF_SHOPPING_CART',
        version: '2.0.0',
        data: {
          product: { id: 4817263, name: 'Desafio 30 dias' },
          buyer: {
            name: SAMPLE_PERSON.fullName,
            email: SAMPLE_PERSON.email(stamp),
            phone: SAMPLE_PERSON.typedPhone,
          },
          offer: { code: 'kit' },
          checkout_country: { name: 'Brasil', iso: 'BR' },
        },
      }),
    }),
    notes: [
      'Os eventos de uma compra (boleto impresso, aprovada, completa) são um lead só (a transação); um carrinho abandonado é identificado pelo número do evento.',
    ],
  },
  docs: () => ({
    api: {
      security: ['hotmartHottok'],
      schemes: {
        hotmartHottok: {
          type: 'apiKey',
          in: 'header',
          name: 'X-HOTMART-HOTTOK',
          description: 'The Hotmart account’s Hottok, the profile’s `hottok`.',
        },
      },
      authentication:
        '`X-HOTMART-HOTTOK`, the account’s Hottok, compared with the profile’s `hottok`. Missing: 401 `missing_hottok`; wrong: 403 `invalid_hottok`.',
      bodies: { 'application/json': hotmartWebhookBody() },
      answer:
        '200 `LeadAccepted` for the events that are leads (purchases, boletos, abandoned carts), 200 `{"status": "ignored"}` for the others; an authentic but unreadable body is parked.',
    },
    request: {
      title: 'a Hotmart purchase webhook',
      fixture: { payload: 'purchase-approved' },
      variable: 'hotmartHottok',
    },
  }),
});
