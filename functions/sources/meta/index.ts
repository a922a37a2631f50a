/**
 * Meta (Facebook / Instagram) Lead Ads: the `leadgen` page webhook.
 *
 * - Handshake (GET): `hub.mode=subscribe` and `hub.verify_token` (or PHP's `hub_mode`,
 *   `hub_verify_token`) equal to the profile's verifyToken → 200 text/plain echoing
 *   `hub.challenge`; anything else → 403.
 * - Authentication (POST): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(raw body, appSecret)>`.
 *   Missing → 401, mismatch → 403. A request signed only with the legacy `X-Hub-Signature:
 *   sha1=<hex>` is refused (401 `sha1_signature_refused`: SHA-1 is deprecated and Meta sends the
 *   256 header with every webhook) unless the profile opts in with `allowSha1: true`; then the
 *   SHA-1 header is checked when the 256 one is absent.
 * - Capture: one lead per `leadgen` change (entries × changes; other fields are ignored). The
 *   webhook carries ids only, so every capture is `pending` a Graph lookup; the forwarder fetches
 *   the lead (functions/sources/meta/graph.ts) and merges it with `completeMetaCapture`.
 *
 * Test leads: the webhook cannot tell them apart (organic leads also lack `ad_id`), so a capture is
 * never marked as a test here. After the lookup, a lead whose answers are the Lead Ads Testing
 * Tool's placeholders (`<test lead: dummy data for email>`) is marked as a test. A test lead
 * created through `POST /{form_id}/test_leads` with real-looking `field_data` cannot be told from
 * an organic lead by any field, and is delivered as a real one.
 */

import * as z from 'zod/mini';
import { externalId } from '../../domain/json.ts';
import type { LeadCapture } from '../../domain/lead.ts';
import { t } from '../../kernel/language.ts';
import type { NamedSchema } from '../docs.ts';
import { isPlainObject } from '../form-fields.ts';
import { SAMPLE_PERSON } from '../setup.ts';
import {
  type Authenticity,
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  type PlatformResponse,
  readJsonObject,
  secretSetting,
  unreadable,
} from '../source.ts';
import { metaBackfill } from './backfill.ts';
import { createMetaGraph, DEFAULT_GRAPH_BASE_URL, type MetaGraphLead } from './graph.ts';
import {
  hubHandshake,
  metaId,
  metaSignatureScheme,
  metaTime,
  verifyHubSignature,
} from './platform.ts';

/** Meta ids, exact decimal strings (shared with the other Meta-platform sources). */

/** Webhook `created_time`: epoch seconds (number or digits) or an ISO string → ISO 8601. */
const createdAt = metaTime;

function authenticate(
  request: IntakeRequest,
  profile: { appSecret: string; allowSha1?: boolean | undefined },
): Authenticity {
  const legacyOnly =
    request.headers['x-hub-signature-256'] === undefined &&
    Boolean(request.headers['x-hub-signature']?.trim());
  if (legacyOnly && profile.allowSha1 !== true) {
    return {
      ok: false,
      status: 401,
      code: 'sha1_signature_refused',
      message: t(
        'O cabeçalho X-Hub-Signature-256 é obrigatório: um envio assinado só com o X-Hub-Signature antigo (SHA-1) é recusado, a menos que o perfil tenha "allowSha1": true.',
        'The X-Hub-Signature-256 header is required: a request signed only with the legacy SHA-1 X-Hub-Signature is refused unless the profile sets "allowSha1": true.',
      ),
    };
  }
  return verifyHubSignature(request, profile.appSecret, { sha1: profile.allowSha1 === true });
}

function capture(request: IntakeRequest): CaptureResult {
  const read = readJsonObject(request.body);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const payload = read.value;
  if (!Array.isArray(payload.entry)) {
    return unreadable('o corpo não tem a lista "entry"', request.body);
  }

  const leads: LeadCapture[] = [];
  for (const [e, entry] of payload.entry.entries()) {
    if (!isPlainObject(entry)) return unreadable(`entry[${e}] não é um objeto`, request.body);
    // Entries of other subscriptions (messaging...) have no `changes`; they carry no lead.
    if (entry.changes === undefined) continue;
    if (!Array.isArray(entry.changes)) {
      return unreadable(`entry[${e}].changes não é uma lista`, request.body);
    }
    for (const [c, change] of entry.changes.entries()) {
      if (!isPlainObject(change)) {
        return unreadable(`entry[${e}].changes[${c}] não é um objeto`, request.body);
      }
      if (change.field !== 'leadgen') continue;
      const value = change.value;
      const where = `entry[${e}].changes[${c}].value`;
      if (!isPlainObject(value)) return unreadable(`${where} não é um objeto`, request.body);
      const leadgenId = metaId(value.leadgen_id);
      // One unreadable lead parks the whole request: capturing the others would hide it.
      if (!leadgenId) {
        return unreadable(`${where}.leadgen_id falta ou não é um id`, request.body);
      }
      leads.push(leadFromChange(leadgenId, value, metaId(entry.id)));
    }
  }
  return { leads };
}

function leadFromChange(
  leadgenId: string,
  value: Record<string, unknown>,
  entryId: string | undefined,
): LeadCapture {
  const attribution: Record<string, string> = {};
  const ids = {
    page_id: metaId(value.page_id) ?? entryId,
    ad_id: metaId(value.ad_id),
    adgroup_id: metaId(value.adgroup_id),
    form_id: metaId(value.form_id),
  };
  for (const [key, id] of Object.entries(ids)) if (id) attribution[key] = id;
  const lead: LeadCapture = {
    source: 'meta',
    dedupKey: `meta:${leadgenId}`,
    isTest: false,
    externalId: leadgenId,
    answers: [],
    attribution,
    // Meta's own date question (date_of_birth, typed `date` by graph.ts) is MM/DD/YYYY;
    // custom questions are free text and follow the profile's dateOrder.
    dateOrder: 'MDY',
    pending: { kind: 'meta-graph', leadgenId },
  };
  if (ids.form_id) lead.formId = ids.form_id;
  const submittedAt = createdAt(value.created_time);
  if (submittedAt) lead.submittedAt = submittedAt;
  return lead;
}

/**
 * The capture once its Graph lookup is done: the answers from Graph, the webhook's ids completed
 * (never overwritten) by Graph's, `isTest` set when Graph shows a testing-tool lead, and no
 * longer pending. Pure; the forwarder calls it before `mapLeadToProspect`.
 */
export function completeMetaCapture(capture: LeadCapture, graphLead: MetaGraphLead): LeadCapture {
  // Idempotent: a capture already completed (or never pending) is returned as it is.
  if (!capture.pending) return capture;
  const { pending: _done, ...rest } = capture;
  const completed: LeadCapture = {
    ...rest,
    answers: [...capture.answers, ...graphLead.answers],
    attribution: { ...graphLead.attribution, ...capture.attribution },
    isTest: capture.isTest || graphLead.isTest === true,
  };
  const formId = capture.formId ?? graphLead.formId;
  if (formId) {
    completed.formId = formId;
    completed.attribution.form_id ??= formId;
  }
  const submittedAt = capture.submittedAt ?? graphLead.createdTime;
  if (submittedAt) completed.submittedAt = submittedAt;
  return completed;
}

function handshake(request: IntakeRequest, profile: { verifyToken: string }): PlatformResponse {
  return hubHandshake(request, profile.verifyToken);
}

/**
 * The set-up kit's sample lead as Meta's Graph knows it: `npm start` registers it in the
 * sandbox's Graph, so that the sample webhook completes and is delivered locally. A deployed
 * Graph does not know it (see the kit's notes).
 */
/** The e-mail of the sample's Graph lead: what the kit's test lead arrives with. */
const META_SAMPLE_EMAIL = SAMPLE_PERSON.email('meta');

export const META_SAMPLE_LEAD = {
  id: '900000000000001',
  form_id: '900000000000002',
  ad_id: '900000000000003',
  campaign_id: '900000000000004',
  platform: 'ig',
  is_organic: false,
  field_data: [
    { name: 'full_name', values: [SAMPLE_PERSON.fullName] },
    { name: 'email', values: [META_SAMPLE_EMAIL] },
    { name: 'phone_number', values: [SAMPLE_PERSON.phone] },
  ],
} as const;
const META_SAMPLE_PAGE = '900000000000000';

/** The `leadgen` webhook as a body schema (docs.ts), as far as `capture` reads it. */
function metaWebhookBody(): NamedSchema {
  return {
    id: 'MetaLeadgenWebhook',
    description:
      'Meta’s `leadgen` page webhook: ids only; the lead itself is fetched from the Graph API at delivery.',
    schema: z.looseObject({
      object: z.string(),
      entry: z.array(
        z.looseObject({
          id: z.optional(externalId),
          time: z.optional(z.number()),
          changes: z.array(
            z.looseObject({
              field: z.string(),
              value: z.looseObject({
                leadgen_id: z.optional(externalId),
                form_id: z.optional(externalId),
                page_id: z.optional(externalId),
                ad_id: z.optional(externalId),
                adgroup_id: z.optional(externalId),
                created_time: z.optional(z.number()),
              }),
            }),
          ),
        }),
      ),
    }),
  };
}

export const metaSource = defineSource({
  name: 'meta',
  label: 'Facebook/Instagram Lead Ads',
  settings: {
    appSecret: secretSetting,
    verifyToken: secretSetting,
    pageAccessToken: secretSetting,
    graphBaseUrl: z._default(z.url(), DEFAULT_GRAPH_BASE_URL),
    /**
     * Accept a request signed only with the legacy SHA-1 `X-Hub-Signature` (no
     * `X-Hub-Signature-256`). Off by default: SHA-1 is deprecated.
     */
    allowSha1: z.optional(z.boolean()),
  },
  secretKeys: ['appSecret', 'verifyToken', 'pageAccessToken'],
  authenticate,
  capture,
  parkUnreadable: true,
  // Meta ignores the body of its 200; it carries the lead ids for people testing with curl.
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
  handshake,
  /** A period's leads, form by form, through the Graph API (backfill.ts). */
  backfill: metaBackfill,
  setup: {
    steps: [
      'No "Meta for Developers": o seu app → "Webhooks" → "Page" → "Subscribe to this object": "Callback URL" = este endereço, "Verify token" = o verifyToken do perfil. A Meta chama o endereço uma vez (GET) para conferir.',
      'Assine o campo "leadgen" do objeto "Page".',
      'Dê ao app acesso à página: "Meta Business Suite" → "Configurações" → "Integrações" → "Acesso a leads": permita o app (e o usuário do CRM) a receber os leads.',
      'Teste com a ferramenta de teste de anúncios de cadastro (developers.facebook.com/tools/lead-ads-testing): crie um lead de teste para o formulário e veja-o chegar no console.',
    ],
    secrets: {
      appSecret:
        'O "App Secret" do app ("App settings" → "Basic"): a Meta assina cada envio com ele ("X-Hub-Signature-256").',
      verifyToken:
        'Uma chave aleatória escolhida por você (a chave "generated" do segredo serve), digitada como "Verify token" do webhook.',
      pageAccessToken:
        'Uma chave de acesso da página, de longa duração, com a permissão "leads_retrieval" ("Graph API Explorer" ou um usuário do sistema): a entrega lê com ela as respostas de cada lead na Graph.',
    },
    auth: () => ({
      kind: 'hmac',
      setting: 'appSecret',
      header: 'X-Hub-Signature-256',
      prefix: 'sha256=',
      encoding: 'hex',
    }),
    // The webhook carries ids only: the sample's lead is the one the sandbox's Graph knows.
    sample: () => ({
      contentType: 'application/json',
      // The lead arrives with the Graph lead's e-mail, whatever the stamp.
      search: META_SAMPLE_EMAIL,
      body: JSON.stringify({
        object: 'page',
        entry: [
          {
            id: META_SAMPLE_PAGE,
            time: 1767225600,
            changes: [
              {
                field: 'leadgen',
                value: {
                  leadgen_id: META_SAMPLE_LEAD.id,
                  page_id: META_SAMPLE_PAGE,
                  form_id: META_SAMPLE_LEAD.form_id,
                  ad_id: META_SAMPLE_LEAD.ad_id,
                  created_time: 1767225600,
                },
              },
            ],
          },
        ],
      }),
    }),
    notes: [
      'O aviso da Meta traz só o número do lead; a entrega lê as respostas na Graph com a chave da página. O número do exemplo só existe no ambiente de teste do "npm start": enviado a uma instalação publicada, o exemplo confirma o endereço e a assinatura, e o lead fica parado porque a Graph não o conhece. Para um lead de ponta a ponta, use a ferramenta de teste da Meta.',
      'O exemplo tem um número de lead fixo: enviá-lo de novo é o mesmo lead (os reenvios da própria Meta são reconhecidos do mesmo jeito).',
    ],
    sandbox: [{ path: '/_sandbox/meta-leads', body: META_SAMPLE_LEAD }],
  },
  /** The Graph lookup of a webhook's leadgen id: the answers, merged with `completeMetaCapture`. */
  async complete(capture, profile, context) {
    const graph = createMetaGraph(context.fetch ? { fetch: context.fetch } : {});
    const graphLead = await graph.fetchLead(capture.pending?.leadgenId ?? '', {
      graphBaseUrl: profile.graphBaseUrl,
      accessToken: profile.pageAccessToken,
      appSecret: profile.appSecret,
    });
    return completeMetaCapture(capture, graphLead);
  },
  docs: () => ({
    api: {
      security: ['metaSignature'],
      schemes: { metaSignature: metaSignatureScheme() },
      authentication:
        '`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the app secret>` (or the legacy `X-Hub-Signature: sha1=`). Missing: 401; mismatch: 403. `GET` is the subscription handshake.',
      bodies: { 'application/json': metaWebhookBody() },
      answer: '200 `LeadAccepted`; an authentic but unreadable body is parked and answered 200.',
    },
    request: {
      title: 'a Meta Lead Ads webhook',
      note: 'Signed with config/demo.json’s appSecret over this exact body; the leads are looked up in Graph at delivery.',
      fixture: { payload: 'webhook-two-entries' },
    },
  }),
});
