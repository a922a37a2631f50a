/**
 * The `kommo` source: Kommo (ex-amoCRM) webhooks, for gyms whose WhatsApp and site leads land in
 * Kommo's pipeline first (docs/sources.md).
 *
 * - Authentication: Kommo signs nothing, so the profile's `token` travels in the webhook URL
 *   (`?token=`), compared in constant time (token.ts). Missing → 401, wrong → 403.
 * - Body: urlencoded, PHP-style brackets: `leads[add][0][id]=...&leads[add][0][status_id]=...
 *   &leads[add][0][pipeline_id]=...&account[id]=...&account[subdomain]=...`. Each lead added
 *   (`leads[add]`) is a lead; a lead moved to a stage the profile lists in `statusIds`
 *   (`leads[status]`) is one too (for pipelines where the interesting moment is "Agendou
 *   aula"). Other events (contacts, updates, deletions) are acknowledged with no lead.
 * - The webhook carries **ids only**: every lead is recorded `pending`, and at delivery
 *   `complete()` reads it from Kommo's API with the profile's long-lived `accessToken`:
 *   `GET <apiBaseUrl>/api/v4/leads/<id>?with=contacts`, then the main contact's
 *   `GET <apiBaseUrl>/api/v4/contacts/<id>`. Failures are settled like Meta's Graph lookup: a
 *   lead Kommo no longer has (204/404) is parked, a refused token waits for an operator, 429
 *   waits for Retry-After, anything else is retried.
 * - Answers: the contact's `first_name` + `last_name` (else `name`), its custom fields by
 *   `field_name` (`PHONE` and `EMAIL` typed as such, a mobile number first; birthday and date
 *   fields, Unix seconds, as calendar dates), and the lead's custom fields. Kommo's tracking
 *   fields (`UTM_SOURCE`... `GCLID`, `FBCLID`) are attribution, with the pipeline and stage ids.
 * - Dedup: `kommo:<account id>:<lead id>`, so a lead added and later moved is one lead.
 * - Form id: the pipeline id, so `forms.<pipeline_id>` sends each pipeline to its branch.
 * - Answer: 200 `{"leadIds", "status": "queued"}` (Kommo disables a hook that fails 100 times
 *   in two hours), an authentic unreadable body parked.
 * - Test leads: none.
 */
import * as z from 'zod/mini';
import { parseJson } from '../domain/json.ts';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { parseRetryAfter } from '../kernel/http.ts';
import { attributionKeyOf } from './form.ts';
import {
  isNestedObject,
  isPlainObject,
  type Nested,
  type NestedObject,
  nestBrackets,
  readFields,
  scalarText,
  textOf,
} from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  type CompletionContext,
  defineSource,
  type IntakeRequest,
  SourceLookupError,
  type SourceLookupErrorKind,
  secretSetting,
  unreadable,
} from './source.ts';
import { authenticateToken, tokenSchemes } from './token.ts';

export const KOMMO_PENDING_KIND = 'kommo-api';
export const KOMMO_TIMEOUT_MS = 10_000;
const MAX_QUOTE = 200;

// ---- the webhook ------------------------------------------------------------------------------

/** The entries of `leads[<event>]`, in order. */
function entriesOf(node: Nested | undefined): NestedObject[] {
  if (!isNestedObject(node)) return [];
  return Object.values(node).filter(isNestedObject);
}

function idOf(value: Nested | undefined): string | undefined {
  const text = textOf(value)?.trim() ?? '';
  return /^\d{1,20}$/.test(text) && !/^0+$/.test(text) ? text : undefined;
}

async function capture(
  request: IntakeRequest,
  profile: { statusIds?: readonly number[] | undefined },
): Promise<CaptureResult> {
  const read = await readFields(request);
  if ('problem' in read) return unreadable(read.problem, request.body);
  if (read.fields.length === 0) return unreadable('o corpo não tem campos', request.body);
  const nested = nestBrackets(read.fields);
  const account = isNestedObject(nested.account) ? nested.account : {};
  const accountId = idOf(account.id);
  const leads = isNestedObject(nested.leads) ? nested.leads : {};
  const statuses = new Set((profile.statusIds ?? []).map(String));

  const wanted = [
    ...entriesOf(leads.add).map((entry) => ({ event: 'add', entry })),
    ...entriesOf(leads.status)
      .filter((entry) => statuses.has(textOf(entry.status_id)?.trim() ?? ''))
      .map((entry) => ({ event: 'status', entry })),
  ];
  const captures: LeadCapture[] = [];
  for (const [index, { event, entry }] of wanted.entries()) {
    const leadId = idOf(entry.id);
    if (!leadId)
      return unreadable(`o item ${index} de leads[${event}] não tem id de lead`, request.body);
    const attribution: Record<string, string> = {};
    for (const key of ['pipeline_id', 'status_id'] as const) {
      const id = idOf(entry[key]);
      if (id) attribution[key] = id;
    }
    const subdomain = textOf(account.subdomain)?.trim();
    if (subdomain) attribution.kommo_account = subdomain;
    const lead: LeadCapture = {
      source: 'kommo',
      dedupKey: `kommo:${accountId ?? '-'}:${leadId}`,
      isTest: false,
      externalId: leadId,
      answers: [],
      attribution,
      pending: { kind: KOMMO_PENDING_KIND, leadgenId: leadId },
    };
    if (attribution.pipeline_id) lead.formId = attribution.pipeline_id;
    const created = idOf(entry.created_at) ?? idOf(entry.date_create);
    if (created) lead.submittedAt = new Date(Number(created) * 1000).toISOString();
    captures.push(lead);
  }
  // The same lead twice in one request (added and moved): one lead.
  const unique = [...new Map(captures.map((c) => [c.dedupKey, c])).values()];
  return { leads: unique };
}

// ---- Kommo's API ------------------------------------------------------------------------------

/** A lead and its main contact as Kommo's API returns them. */
export interface KommoRecords {
  lead: Record<string, unknown>;
  contact?: Record<string, unknown>;
}

/** A failed Kommo API call, in the sources' lookup vocabulary. */
export class KommoApiError extends SourceLookupError {
  override readonly name = 'KommoApiError';
  override readonly service = 'Kommo API';
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_QUOTE ? `${flat.slice(0, MAX_QUOTE)}…` : flat;
}

function kindOf(status: number): SourceLookupErrorKind {
  if (status === 429) return 'rate-limited';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 408 || status === 425 || status >= 500) return 'unavailable';
  return 'rejected';
}

/** GET one entity (`leads/<id>`, `contacts/<id>`) of Kommo's API v4. */
async function getEntity(
  path: string,
  settings: { apiBaseUrl: string; accessToken: string },
  context: CompletionContext,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const doFetch = context.fetch ?? globalThis.fetch;
  const url = `${settings.apiBaseUrl.replace(/\/+$/, '')}/api/v4/${path}`;
  const route = `GET /api/v4/${path.split('?')[0]}`;
  let status: number;
  let body: string;
  let retryAfter: string | null;
  try {
    const response = await doFetch(url, {
      method: 'GET',
      headers: { accept: 'application/json', authorization: `Bearer ${settings.accessToken}` },
      signal,
      redirect: 'manual',
    });
    status = response.status;
    retryAfter = response.headers.get('retry-after');
    body = await response.text();
  } catch (error) {
    if (signal.aborted) {
      throw new KommoApiError('unavailable', `${route} timed out (${KOMMO_TIMEOUT_MS} ms in all)`);
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new KommoApiError('unavailable', `${route} failed: ${quote(reason)}`);
  }
  if (status === 204 || status === 404) {
    throw new KommoApiError('rejected', `${route}: Kommo has no such record (${status})`, {
      status,
    });
  }
  if (status >= 200 && status < 300) {
    try {
      const parsed = parseJson(body);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // reported below
    }
    throw new KommoApiError('unavailable', `${route} answered ${status} without a record`, {
      status,
    });
  }
  const kind = kindOf(status);
  const wait = kind === 'rate-limited' ? parseRetryAfter(retryAfter, Date.now()) : undefined;
  throw new KommoApiError(kind, `${route} answered ${status}: ${quote(body) || 'no body'}`, {
    status,
    ...(wait && { retryAfterMs: wait.afterMs }),
  });
}

/**
 * The lead and its main contact (the first when none is marked main): two calls within one
 * {@link KOMMO_TIMEOUT_MS}, the time delivery's lease allows a lookup.
 */
export async function fetchKommoRecords(
  leadId: string,
  settings: { apiBaseUrl: string; accessToken: string },
  context: CompletionContext = {},
): Promise<KommoRecords> {
  if (!/^\d{1,20}$/.test(leadId)) throw new KommoApiError('rejected', 'a lead id is a number');
  const signal = AbortSignal.timeout(KOMMO_TIMEOUT_MS);
  const lead = await getEntity(`leads/${leadId}?with=contacts`, settings, context, signal);
  const embedded = isPlainObject(lead._embedded) ? lead._embedded : {};
  const contacts = Array.isArray(embedded.contacts) ? embedded.contacts.filter(isPlainObject) : [];
  const main = contacts.find((c) => c.is_main === true) ?? contacts[0];
  const contactId = scalarText(main?.id).trim();
  if (!/^\d{1,20}$/.test(contactId)) return { lead };
  return { lead, contact: await getEntity(`contacts/${contactId}`, settings, context, signal) };
}

// ---- completing the capture -------------------------------------------------------------------

const DATE_TYPES = new Set(['birthday', 'date', 'date_time']);

/** Unix seconds at a local midnight → that calendar date (time zones from UTC−12 to UTC+11). */
function calendarDate(seconds: number): string {
  return new Date((seconds + 12 * 3600) * 1000).toISOString().slice(0, 10);
}

/** The answers of one entity's `custom_fields_values`, and its tracking fields. */
function customFields(
  values: unknown,
  answers: LeadAnswer[],
  attribution: Record<string, string>,
): void {
  if (!Array.isArray(values)) return;
  for (const field of values.filter(isPlainObject)) {
    const code = scalarText(field.field_code).trim();
    const name = scalarText(field.field_name).trim();
    const type = scalarText(field.field_type).trim();
    const key = code || `field_${scalarText(field.field_id).trim()}`;
    const entries = (Array.isArray(field.values) ? field.values : []).filter(isPlainObject);
    // A mobile number before a work one: the cellphone is the one a gym calls.
    entries.sort((a, b) => Number(b.enum_code === 'MOB') - Number(a.enum_code === 'MOB'));
    const texts = entries
      .map((entry) => {
        const raw = entry.value;
        if (typeof raw === 'boolean') return raw ? 'Sim' : 'Não';
        if (DATE_TYPES.has(type) && /^-?\d{1,12}$/.test(scalarText(raw))) {
          return calendarDate(Number(raw));
        }
        return scalarText(raw).trim();
      })
      .filter(Boolean);
    if (texts.length === 0) continue;
    const attributionKey = attributionKeyOf(code) ?? attributionKeyOf(name);
    if (attributionKey) {
      attribution[attributionKey] ??= texts[0] as string;
      continue;
    }
    const declared =
      code === 'PHONE'
        ? 'phone'
        : code === 'EMAIL'
          ? 'email'
          : DATE_TYPES.has(type)
            ? 'date'
            : undefined;
    const multi = code === 'PHONE' || code === 'EMAIL';
    const values: Array<string | string[]> = multi
      ? texts
      : [texts.length === 1 ? (texts[0] as string) : texts];
    for (const value of values) {
      answers.push({
        key,
        ...(name && { label: name }),
        ...(declared && { type: declared }),
        value,
      });
    }
  }
}

/**
 * The capture once Kommo's records are read: the contact's name and fields, the lead's fields,
 * the tracking fields as attribution (the webhook's ids kept), and no longer pending. Pure.
 */
export function completeKommoCapture(capture: LeadCapture, records: KommoRecords): LeadCapture {
  if (!capture.pending) return capture;
  const { pending: _done, ...rest } = capture;
  const answers: LeadAnswer[] = [];
  const attribution: Record<string, string> = {};
  const contact = records.contact ?? {};
  const first = scalarText(contact.first_name).trim();
  const last = scalarText(contact.last_name).trim();
  const name = scalarText(contact.name).trim();
  if (first && last) {
    answers.push({ key: 'first_name', value: first }, { key: 'last_name', value: last });
  } else if (name || first || last) {
    answers.push({ key: 'name', label: 'Nome', value: name || first || last });
  }
  customFields(contact.custom_fields_values, answers, attribution);
  customFields(records.lead.custom_fields_values, answers, attribution);
  const completed: LeadCapture = {
    ...rest,
    answers: [...capture.answers, ...answers],
    attribution: { ...attribution, ...capture.attribution },
  };
  const created = Number(scalarText(records.lead.created_at));
  if (!completed.submittedAt && Number.isSafeInteger(created) && created > 0) {
    completed.submittedAt = new Date(created * 1000).toISOString();
  }
  return completed;
}

/**
 * The set-up kit's sample lead as Kommo's API knows it (`POST /_sandbox/kommo-leads`): `npm
 * start` registers it in the sandbox, so that the sample webhook (ids only) is completed and
 * delivered locally.
 */
/** The e-mail of the sample's API contact: what the kit's test lead arrives with. */
const KOMMO_SAMPLE_EMAIL = SAMPLE_PERSON.email('kommo');

export const KOMMO_SAMPLE = {
  accountId: '39000001',
  subdomain: 'academia-kit',
  lead: {
    id: 39000101,
    name: 'Aula experimental',
    pipeline_id: 39000201,
    status_id: 39000301,
    created_at: 1767225600,
    custom_fields_values: [
      {
        field_code: 'UTM_SOURCE',
        field_name: 'utm_source',
        field_type: 'tracking_data',
        values: [{ value: 'teste' }],
      },
    ],
  },
  contacts: [
    {
      id: 39000401,
      name: SAMPLE_PERSON.fullName,
      first_name: SAMPLE_PERSON.firstName,
      last_name: SAMPLE_PERSON.lastName,
      custom_fields_values: [
        {
          field_code: 'PHONE',
          field_name: 'Telefone',
          field_type: 'multitext',
          values: [{ value: SAMPLE_PERSON.phone, enum_code: 'MOB' }],
        },
        {
          field_code: 'EMAIL',
          field_name: 'E-mail',
          field_type: 'multitext',
          values: [{ value: KOMMO_SAMPLE_EMAIL, enum_code: 'WORK' }],
        },
      ],
    },
  ],
} as const;

export const kommoSource = defineSource({
  name: 'kommo',
  label: 'Kommo',
  settings: {
    token: secretSetting,
    /** A long-lived token of a Kommo private integration (Settings → Integrations). */
    accessToken: secretSetting,
    /** `https://<subdomain>.kommo.com` (locally the sandbox's `/kommo`). */
    apiBaseUrl: z.url(),
    /** Pipeline stages whose `leads[status]` events are leads too. */
    statusIds: z.optional(z.array(z.int().check(z.positive()))),
  },
  secretKeys: ['token', 'accessToken'],
  authenticate: (request, profile) => authenticateToken(request, profile.token),
  capture,
  parkUnreadable: true,
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
  setup: {
    steps: [
      '"Kommo" → "Settings" → "Integrations" → "Web hooks" → "Add": este endereço (ele leva a chave do perfil), eventos "Lead added" (e "Lead status changed" quando o perfil define statusIds).',
      '"Settings" → "Integrations" → "Create integration" (privada) → "Keys and scopes" → uma chave de acesso de longa duração: o accessToken do perfil; o apiBaseUrl do perfil é https://<subdominio>.kommo.com.',
      'Teste: adicione ao funil um lead com um contato (nome, telefone, e-mail) e veja-o chegar no console.',
    ],
    secrets: {
      token:
        'Uma chave longa e aleatória sua (a chave "generated" do segredo serve), no endereço do webhook: o Kommo não assina os webhooks.',
      accessToken:
        'Uma chave de acesso de longa duração de uma integração privada do Kommo: com ela a entrega lê cada lead e o contato principal na API do Kommo (o aviso traz só números).',
    },
    auth: () => ({ kind: 'token', setting: 'token', in: 'query' }),
    sample: () => ({
      contentType: 'application/x-www-form-urlencoded',
      // The lead arrives with the API contact's e-mail, whatever the stamp.
      search: KOMMO_SAMPLE_EMAIL,
      body: new URLSearchParams({
        'leads[add][0][id]': String(KOMMO_SAMPLE.lead.id),
        'leads[add][0][status_id]': String(KOMMO_SAMPLE.lead.status_id),
        'leads[add][0][pipeline_id]': String(KOMMO_SAMPLE.lead.pipeline_id),
        'leads[add][0][created_at]': String(KOMMO_SAMPLE.lead.created_at),
        'account[id]': KOMMO_SAMPLE.accountId,
        'account[subdomain]': KOMMO_SAMPLE.subdomain,
      }).toString(),
    }),
    notes: [
      'O aviso do Kommo traz só números; a entrega lê o lead e o contato na API do Kommo com a chave de acesso. O lead do exemplo só existe no ambiente de teste do "npm start": enviado a uma instalação publicada, ele confirma o endereço e a chave, e o lead fica parado porque o Kommo não o tem. Para um lead de ponta a ponta, crie um no Kommo.',
      'O exemplo tem um número de lead fixo: enviá-lo de novo é o mesmo lead.',
    ],
    sandbox: [
      {
        path: '/_sandbox/kommo-leads',
        body: { lead: KOMMO_SAMPLE.lead, contacts: KOMMO_SAMPLE.contacts },
      },
    ],
  },
  async complete(capture, profile, context) {
    const records = await fetchKommoRecords(capture.pending?.leadgenId ?? '', profile, context);
    return completeKommoCapture(capture, records);
  },
  docs: () => ({
    api: {
      security: ['leadToken'],
      schemes: { leadToken: tokenSchemes().leadToken },
      authentication:
        'Kommo signs nothing: the profile’s `token` as `?token=` in the webhook URL. Missing: 401 `missing_token`; wrong: 403 `invalid_token`.',
      bodies: {
        'application/x-www-form-urlencoded': {
          id: 'KommoWebhook',
          description:
            'Kommo’s webhook (urlencoded, PHP brackets): `leads[add][0][id]`, `leads[add][0][pipeline_id]`, `leads[status][0][status_id]`..., `account[id]`, `account[subdomain]`. Ids only: the lead is read from Kommo’s API at delivery.',
          schema: z.record(z.string(), z.string()),
        },
      },
      answer:
        '200 `LeadAccepted` (`leadIds` for several); other events: no lead. An authentic but unreadable body is parked.',
    },
    request: {
      title: 'a Kommo webhook, ids only',
      note: 'The lead is read from Kommo’s API at delivery: register it in the sandbox first (POST /_sandbox/kommo-leads, docs/sources.md), or it is parked.',
      fixture: { request: 'lead-added' },
      variable: 'kommoToken',
    },
  }),
});
