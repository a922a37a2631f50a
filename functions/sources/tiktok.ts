/**
 * TikTok Lead Generation: the TikTok API for Business lead webhook (a `LEAD` subscription of the
 * ad account, `POST /subscription/subscribe/`), and its lead download for lookups and backfill.
 *
 * - Authentication: TikTok documents no signature for this webhook (its developer platform's
 *   `TikTok-Signature` covers other products), so the callback URL carries the profile's token:
 *   `?token=<token>` (or the `X-Lead-Token` header). Missing → 401, wrong → 403.
 * - Capture: one lead per `entry` (`object` 1 or `LEAD`): its `id` (the dedup key
 *   `tiktok:<id>`), the instant form's `page_id` (the form id, for `forms.<page_id>`), the ad
 *   account, campaign, ad group and ad ids and names, `create_time`, and the answers as
 *   `changes[]` `{field, value}`. An entry without answers is recorded pending a lookup: at
 *   delivery the form's leads are downloaded (tiktok-api.ts) and the lead's answers taken from
 *   there, as Meta's leads are looked up in Graph.
 * - Test leads: TikTok's webhook documents no marker; an entry or a downloaded row saying
 *   `is_test` (true) is a test lead. A test lead made in Ads Manager with real-looking answers
 *   cannot be told apart and is delivered as real.
 * - Backfill: the configured forms' downloads, filtered to the period by `create_time`.
 */
import * as z from 'zod/mini';
import { externalId } from '../domain/json.ts';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import type { NamedSchema } from './docs.ts';
import { isPlainObject, scalarText } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type Backfill,
  type BackfillPeriod,
  type CaptureResult,
  type CompletionContext,
  defineSource,
  type IntakeRequest,
  readJsonObject,
  secretSetting,
  unreadable,
} from './source.ts';
import {
  createTikTokApi,
  DEFAULT_TIKTOK_API_BASE_URL,
  TikTokApiError,
  type TikTokLead,
  tiktokId,
  tiktokTime,
} from './tiktok-api.ts';
import { authenticateToken, tokenApiDoc } from './token.ts';

/** TikTok keeps leads downloadable far longer; 90 days keeps one backfill's download bounded. */
export const TIKTOK_BACKFILL_MAX_DAYS = 90;

/** The entry's own attributes kept as attribution (ids exact, names as given). */
const ID_KEYS = ['page_id', 'advertiser_id', 'campaign_id', 'adgroup_id', 'ad_id'] as const;
const NAME_KEYS = ['page_name', 'campaign_name', 'adgroup_name', 'ad_name'] as const;

interface TikTokProfile {
  accessToken: string;
  advertiserId?: string | undefined;
  apiBaseUrl: string;
}

function isTestFlag(value: unknown): boolean {
  return value === true || (typeof value === 'string' && /^(true|1)$/i.test(value.trim()));
}

/** `changes[]` `{field, value}` as answers (a list value stays a list). */
function changeAnswers(changes: unknown[]): LeadAnswer[] {
  const answers: LeadAnswer[] = [];
  for (const change of changes) {
    if (!isPlainObject(change) || typeof change.field !== 'string' || !change.field.trim())
      continue;
    const value = Array.isArray(change.value)
      ? change.value.map(scalarText).filter((v) => v !== '')
      : scalarText(change.value);
    answers.push({ key: change.field.trim(), value });
  }
  return answers;
}

function leadFromEntry(entry: Record<string, unknown>, id: string): LeadCapture {
  const attribution: Record<string, string> = {};
  for (const key of ID_KEYS) {
    const value = tiktokId(entry[key]);
    if (value) attribution[key] = value;
  }
  for (const key of NAME_KEYS) {
    const value = entry[key];
    if (typeof value === 'string' && value.trim()) attribution[key] = value.trim();
  }
  if (typeof entry.lead_source === 'string' && entry.lead_source.trim()) {
    attribution.lead_source = entry.lead_source.trim();
  }
  const changes = Array.isArray(entry.changes) ? entry.changes : [];
  const answers = changeAnswers(changes);
  const lead: LeadCapture = {
    source: 'tiktok',
    dedupKey: `tiktok:${id}`,
    isTest: isTestFlag(entry.is_test),
    externalId: id,
    answers,
    attribution,
  };
  if (attribution.page_id) lead.formId = attribution.page_id;
  const submittedAt = tiktokTime(entry.create_time);
  if (submittedAt) lead.submittedAt = submittedAt;
  if (answers.length === 0) lead.pending = { kind: 'tiktok-lead', leadgenId: id };
  return lead;
}

function capture(request: IntakeRequest): CaptureResult {
  const read = readJsonObject(request.body);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const payload = read.value;
  // Other subscriptions (ad review statuses, suspensions...) carry no lead.
  if (payload.object !== undefined && payload.object !== 1 && payload.object !== 'LEAD') {
    return { leads: [] };
  }
  if (!Array.isArray(payload.entry))
    return unreadable('o corpo não tem a lista "entry"', request.body);
  const leads: LeadCapture[] = [];
  for (const [e, entry] of payload.entry.entries()) {
    if (!isPlainObject(entry)) return unreadable(`entry[${e}] não é um objeto`, request.body);
    const id = tiktokId(entry.id ?? entry.lead_id);
    // One unreadable lead parks the whole request: capturing the others would hide it.
    if (!id) return unreadable(`entry[${e}].id falta ou não é um id de lead`, request.body);
    leads.push(leadFromEntry(entry, id));
  }
  return { leads };
}

/** A downloaded lead as the capture the webhook would have given, complete. */
export function captureFromDownload(lead: TikTokLead, formId: string): LeadCapture {
  const pageId = lead.pageId ?? formId;
  const capture: LeadCapture = {
    source: 'tiktok',
    dedupKey: `tiktok:${lead.id}`,
    isTest: lead.isTest,
    externalId: lead.id,
    formId: pageId,
    answers: [...lead.answers],
    attribution: { page_id: pageId, ...lead.attribution },
  };
  if (lead.createdTime) capture.submittedAt = lead.createdTime;
  return capture;
}

/** The advertiser whose leads these are: the webhook's, else the profile's. */
function advertiserOf(profile: TikTokProfile, capture?: LeadCapture): string {
  const advertiserId = capture?.attribution.advertiser_id ?? profile.advertiserId;
  if (!advertiserId) {
    throw new TikTokApiError(
      'rejected',
      'no advertiser id: the webhook gave none and the profile sets no advertiserId',
    );
  }
  return advertiserId;
}

/**
 * The capture of a webhook that carried ids only, completed from its form's download: the
 * answers, the ids the download adds (never overwriting the webhook's), `isTest` when either says.
 */
async function complete(
  capture: LeadCapture,
  profile: TikTokProfile,
  context: CompletionContext,
): Promise<LeadCapture> {
  if (!capture.pending) return capture;
  const leadId = capture.pending.leadgenId;
  const pageId = capture.formId;
  if (!pageId) {
    throw new TikTokApiError('rejected', `lead ${leadId} names no instant form (page_id)`);
  }
  const api = createTikTokApi(context.fetch ? { fetch: context.fetch } : {});
  const leads = await api.downloadLeads(pageId, {
    apiBaseUrl: profile.apiBaseUrl,
    accessToken: profile.accessToken,
    advertiserId: advertiserOf(profile, capture),
  });
  const found = leads.find((lead) => lead.id === leadId);
  if (!found) {
    throw new TikTokApiError('rejected', `lead ${leadId} is not among form ${pageId}'s leads`);
  }
  const downloaded = captureFromDownload(found, pageId);
  const { pending: _done, ...rest } = capture;
  const completed: LeadCapture = {
    ...rest,
    answers: [...capture.answers, ...downloaded.answers],
    attribution: { ...downloaded.attribution, ...capture.attribution },
    isTest: capture.isTest || downloaded.isTest,
  };
  const submittedAt = capture.submittedAt ?? downloaded.submittedAt;
  if (submittedAt) completed.submittedAt = submittedAt;
  return completed;
}

async function list(
  profile: TikTokProfile,
  formIds: readonly string[],
  period: BackfillPeriod,
  context: CompletionContext,
): Promise<LeadCapture[]> {
  const api = createTikTokApi(context.fetch ? { fetch: context.fetch } : {});
  const advertiserId = advertiserOf(profile);
  const captures: LeadCapture[] = [];
  for (const formId of formIds) {
    const leads = await api.downloadLeads(formId, {
      apiBaseUrl: profile.apiBaseUrl,
      accessToken: profile.accessToken,
      advertiserId,
      ...(context.signal && { signal: context.signal }),
    });
    for (const lead of leads) {
      const at = lead.createdTime ? Date.parse(lead.createdTime) : Number.NaN;
      // A row without its time cannot be placed in the period: left out.
      if (at >= period.since.getTime() && at < period.until.getTime()) {
        captures.push(captureFromDownload(lead, formId));
      }
    }
  }
  return captures;
}

const tiktokBackfill: Backfill<TikTokProfile> = {
  maxDays: TIKTOK_BACKFILL_MAX_DAYS,
  keeper: 'O TikTok',
  list,
};

/**
 * The set-up kit's sample lead as TikTok's lead download knows it: `npm start` registers it in
 * the sandbox, so that the sample webhook (ids only) is completed and delivered locally. Its
 * instant form is none of the demo's, so backfills of the demo forms never list it.
 */
/** The e-mail of the sample's downloaded lead: what the kit's test lead arrives with. */
const TIKTOK_SAMPLE_EMAIL = SAMPLE_PERSON.email('tiktok');

export const TIKTOK_SAMPLE_LEAD = {
  lead_id: '7490000000000000001',
  page_id: '7490000000000000002',
  advertiser_id: '7490000000000000003',
  ad_id: '7490000000000000004',
  create_time: 1767225600,
  page_name: 'Aula experimental (kit)',
  answers: {
    name: SAMPLE_PERSON.fullName,
    email: TIKTOK_SAMPLE_EMAIL,
    phone_number: SAMPLE_PERSON.phone,
  },
} as const;

/** The `LEAD` webhook as a body schema (docs.ts), as far as `capture` reads it. */
function tiktokWebhookBody(): NamedSchema {
  return {
    id: 'TikTokLeadWebhook',
    description:
      'The TikTok API for Business `LEAD` webhook: one lead per entry, its answers as `changes` (or ids only: the answers are then downloaded at delivery).',
    schema: z.looseObject({
      request_id: z.optional(z.string()),
      object: z.optional(z.union([z.number(), z.string()])),
      time: z.optional(z.number()),
      entry: z.array(
        z.looseObject({
          id: z.optional(externalId),
          page_id: z.optional(externalId),
          advertiser_id: z.optional(externalId),
          campaign_id: z.optional(externalId),
          adgroup_id: z.optional(externalId),
          ad_id: z.optional(externalId),
          create_time: z.optional(z.union([z.number(), z.string()])),
          is_test: z.optional(z.boolean()),
          changes: z.optional(
            z.array(z.looseObject({ field: z.string(), value: z.optional(z.unknown()) })),
          ),
        }),
      ),
    }),
  };
}

export const tiktokSource = defineSource({
  name: 'tiktok',
  label: 'TikTok Lead Generation',
  settings: {
    /** In the callback URL (`?token=`): TikTok signs nothing on this webhook. */
    token: secretSetting,
    /** An API for Business access token with Lead Management permission (lookups, backfill). */
    accessToken: secretSetting,
    /** The ad account (`advertiser_id`) the forms belong to; needed by backfill. */
    advertiserId: z.optional(z.string().check(z.regex(/^\d{1,30}$/, 'must be a decimal id'))),
    apiBaseUrl: z._default(z.url(), DEFAULT_TIKTOK_API_BASE_URL),
  },
  secretKeys: ['token', 'accessToken'],
  authenticate: (request, profile) => authenticateToken(request, profile.token),
  capture,
  parkUnreadable: true,
  // TikTok looks at the 200 only; the body carries the lead ids for people testing with curl.
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
  complete,
  backfill: tiktokBackfill,
  setup: {
    steps: [
      '"TikTok API for Business": assine os leads do formulário instantâneo (POST /subscription/subscribe/ com subscribe_entity LEAD, o anunciante e o page_id do formulário) com este endereço como "callback URL"; ou cole-o em "Ads Manager" → "Tools" → "Leads Center" → "CRM integration" → "Custom API / webhook".',
      'O endereço leva a chave do perfil: o TikTok não assina nada neste webhook, então guarde o endereço com o mesmo cuidado que a chave.',
      'Dê ao perfil uma chave de acesso da "API for Business" com o escopo "Lead Management" (accessToken) e a conta de anúncios (advertiserId): um aviso que traz só números é completado pelo download de leads do formulário.',
      'Teste: crie um lead de teste para o formulário instantâneo no "Ads Manager" ("Leads Center") e veja-o chegar no console; ele fica com a situação Teste.',
    ],
    secrets: {
      token:
        'Uma chave longa e aleatória sua (a chave "generated" do segredo serve), no endereço de retorno.',
      accessToken:
        'Uma chave de acesso da "API for Business" com o escopo "Lead Management": com ela a entrega baixa as respostas de um aviso que traz só números, e a recuperação de leads antigos lista os leads.',
    },
    auth: () => ({ kind: 'token', setting: 'token', in: 'query' }),
    // Ids only, as TikTok often sends them: the answers come from the (sandbox's) download.
    sample: () => ({
      contentType: 'application/json',
      // The lead arrives with the download's e-mail, whatever the stamp.
      search: TIKTOK_SAMPLE_EMAIL,
      body: JSON.stringify({
        object: 1,
        entry: [
          {
            id: TIKTOK_SAMPLE_LEAD.lead_id,
            page_id: TIKTOK_SAMPLE_LEAD.page_id,
            advertiser_id: TIKTOK_SAMPLE_LEAD.advertiser_id,
            ad_id: TIKTOK_SAMPLE_LEAD.ad_id,
            create_time: TIKTOK_SAMPLE_LEAD.create_time,
          },
        ],
      }),
    }),
    notes: [
      'O exemplo traz só os números do lead; a entrega baixa as respostas com a chave de acesso. O lead do exemplo só existe no ambiente de teste do "npm start": enviado a uma instalação publicada, ele confirma o endereço e a chave, e o lead fica parado porque o TikTok não o conhece. Para um lead de ponta a ponta, crie um lead de teste no "Ads Manager".',
      'O exemplo tem um número de lead fixo: enviá-lo de novo é o mesmo lead (as novas tentativas do próprio TikTok, por até 72 horas, são reconhecidas do mesmo jeito).',
    ],
    sandbox: [{ path: '/_sandbox/tiktok-leads', body: TIKTOK_SAMPLE_LEAD }],
  },
  docs: () => {
    const token = tokenApiDoc();
    return {
      api: {
        ...token,
        authentication: `${token.authentication} TikTok documents no signature for its lead webhook: the token goes in the callback URL.`,
        bodies: { 'application/json': tiktokWebhookBody() },
        answer: '200 `LeadAccepted`; an authentic but unreadable body is parked and answered 200.',
      },
      request: {
        title: 'a TikTok Lead Generation webhook',
        note: 'TikTok signs nothing on this webhook: the token is in the callback URL.',
        fixture: { payload: 'webhook-lead' },
        variable: 'tiktokToken',
      },
    };
  },
});
