/**
 * The `googleforms` source: Google Forms responses posted by an Apps Script trigger
 * (`onFormSubmit`) that we ship in docs/sources.md. Google Forms has no webhook of its own.
 *
 * - Authentication: the script signs the exact bytes it posts, `X-Lead-Signature:
 *   sha256=<base64 HMAC-SHA256 of the raw body with the profile's secret>`
 *   (`Utilities.computeHmacSha256Signature`). An HMAC rather than a token: the secret never
 *   travels, and a body changed on the way (or a forged one) fails. Missing → 401, mismatch → 403.
 *   Replaying a captured request is harmless: it carries the same response id (or content), so it
 *   is the same lead.
 * - Body (the script's): `{"formId", "formTitle", "responseId", "timestamp", "respondentEmail"?,
 *   "namedValues": {"<question title>": ["<answer>", ...]}}`. A spreadsheet trigger's own
 *   `e.namedValues` (no response id; its `Carimbo de data/hora` / `Timestamp` column) is read too.
 * - Answers: one per question, keyed by its title (what the person read); several values (a
 *   checkbox question) stay a list. The sheet's timestamp column is not an answer (the script's
 *   `timestamp` is the submission time). The collected respondent e-mail (`respondentEmail`, the
 *   sheet's `Endereço de e-mail` / `Email Address`) is an e-mail answer. A question titled like a UTM
 *   (`utm_source`, pre-filled through the form's link) is attribution.
 * - Dedup: `googleforms:<responseId>`; without one, `googleforms:<sha256>` of the form id and the
 *   answers (the timestamp column included, so it names one submission): a re-run of the trigger
 *   is the same lead, for as long as the ledger keeps leads.
 * - Answer: 200 `{"leadId", "status": "queued"}`; an authentic unreadable body is parked (the
 *   script would otherwise fail, and Google only e-mails the form's owner).
 * - Test leads: none.
 */

import * as z from 'zod/mini';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { foldKey } from '../domain/map-lead.ts';
import { hmacSha256 } from '../kernel/crypto.ts';
import { t } from '../kernel/language.ts';
import { answerValue, attributionKeyOf } from './form.ts';
import { isPlainObject, scalarText } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  type Authenticity,
  acceptedJson,
  type CaptureResult,
  canonicalJson,
  defineSource,
  type IntakeRequest,
  isoInstant,
  readJsonObject,
  secretSetting,
  sha256Hex,
  unreadable,
  verifySignatureHeader,
} from './source.ts';

export const LEAD_SIGNATURE_HEADER = 'x-lead-signature';

/** `sha256=<base64 HMAC-SHA256>` of `body` with `secret`: what the Apps Script sends. */
export function leadSignature(secret: string, body: Uint8Array): string {
  return `sha256=${hmacSha256(secret, Buffer.from(body)).toString('base64')}`;
}

function authenticate(request: IntakeRequest, profile: { secret: string }): Authenticity {
  return verifySignatureHeader(
    request,
    {
      name: LEAD_SIGNATURE_HEADER,
      shown: 'X-Lead-Signature',
      missing: t(
        'O cabeçalho X-Lead-Signature é obrigatório (o Apps Script de docs/sources.md).',
        'The X-Lead-Signature header is required (the Apps Script in docs/sources.md).',
      ),
    },
    () => leadSignature(profile.secret, request.body),
  );
}

/** The response sheet's timestamp column, in the languages a gym's Google account may use. */
const TIMESTAMP_COLUMNS = new Set(['timestamp', 'carimbo_de_data_hora', 'marca_temporal']);
/** The sheet's column of the e-mail a form collects (Settings → Collect email addresses). */
const EMAIL_COLUMNS = new Set([
  'email_address',
  'endereco_de_e_mail',
  'endereco_de_email',
  'direccion_de_correo_electronico',
]);

function capture(request: IntakeRequest): CaptureResult {
  const read = readJsonObject(request.body);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const payload = read.value;
  const named = payload.namedValues;
  if (!isPlainObject(named))
    return unreadable('namedValues falta ou não é um objeto', request.body);

  const answers: LeadAnswer[] = [];
  const attribution: Record<string, string> = {};
  let respondentEmail = '';
  for (const [title, raw] of Object.entries(named)) {
    const value = answerValue((Array.isArray(raw) ? raw : [raw]).map(scalarText));
    if (value === undefined) continue;
    const first = typeof value === 'string' ? value : (value[0] as string);
    // The sheet's own stamp, written in the sheet's locale and time zone: in the hash only.
    if (TIMESTAMP_COLUMNS.has(foldKey(title))) continue;
    const attributionKey = attributionKeyOf(title);
    if (attributionKey) attribution[attributionKey] ??= first;
    else if (EMAIL_COLUMNS.has(foldKey(title))) respondentEmail ||= first;
    else answers.push({ key: title, value });
  }
  respondentEmail ||= scalarText(payload.respondentEmail).trim();
  if (respondentEmail) {
    // The e-mail Google collected: an e-mail whatever the language of its column.
    answers.unshift({
      key: 'respondentEmail',
      label: 'E-mail',
      type: 'email',
      value: respondentEmail,
    });
  }
  const formTitle = scalarText(payload.formTitle).trim();
  if (formTitle) attribution.form_name ??= formTitle;

  const formId = scalarText(payload.formId).trim();
  const responseId = scalarText(payload.responseId).trim();
  const dedupKey = responseId
    ? `googleforms:${responseId}`
    : `googleforms:${sha256Hex(canonicalJson({ formId, namedValues: named }))}`;
  const lead: LeadCapture = {
    source: 'googleforms',
    dedupKey,
    isTest: false,
    answers,
    attribution,
  };
  if (responseId) lead.externalId = responseId;
  if (formId) lead.formId = formId;
  const submittedAt = isoInstant(scalarText(payload.timestamp));
  if (submittedAt) lead.submittedAt = submittedAt;
  return { leads: [lead] };
}

export const googleFormsSource = defineSource({
  name: 'googleforms',
  label: 'Google Forms',
  settings: { secret: secretSetting },
  secretKeys: ['secret'],
  authenticate,
  capture,
  parkUnreadable: true,
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
  setup: {
    steps: [
      'O Google Forms não tem webhook: abra o formulário no editor → ⋮ → "Apps Script" e cole o script de docs/sources.md (Google Forms) no lugar da função vazia.',
      '"Apps Script" → "Configurações do projeto" → "Propriedades do script": LEADS_URL = este endereço, LEADS_SECRET = a chave do perfil (fora do código do script).',
      '"Acionadores" → "Adicionar acionador": função onFormSubmit, origem "Do formulário", tipo "Ao enviar o formulário"; salve e autorize.',
      'Opcional: perguntas com o título utm_source, utm_campaign..., preenchidas por links pré-preenchidos (…/viewform?entry.123=instagram), guardam as UTMs.',
      'Teste: envie o formulário uma vez; as execuções do acionador ("Apps Script" → "Execuções") mostram um erro se a entrada recusou o envio.',
    ],
    secrets: {
      secret:
        'Qualquer texto longo e aleatório (a chave "generated" do segredo serve), na propriedade LEADS_SECRET do script: o script assina cada envio com ela ("X-Lead-Signature") e ela nunca viaja.',
    },
    auth: () => ({
      kind: 'hmac',
      setting: 'secret',
      header: 'X-Lead-Signature',
      prefix: 'sha256=',
      encoding: 'base64',
    }),
    sample: (stamp) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        formId: '1FAIpQLSeKitForm',
        formTitle: 'Aula experimental',
        responseId: `2_kit-${stamp}`,
        timestamp: '2026-01-01T12:00:00.000Z',
        respondentEmail: '',
        namedValues: {
          'Nome completo': [SAMPLE_PERSON.fullName],
          'E-mail': [SAMPLE_PERSON.email(stamp)],
          'WhatsApp (com DDD)': [SAMPLE_PERSON.typedPhone],
          utm_source: ['teste'],
        },
      }),
    }),
    notes: [
      'O exemplo é o conteúdo que o script de docs/sources.md envia; a assinatura cobre cada byte, então um conteúdo alterado no caminho é recusado (403).',
      'Um acionador que roda duas vezes para a mesma resposta é o mesmo lead (o mesmo responseId).',
    ],
  },
  docs: () => ({
    api: {
      security: ['leadSignature'],
      schemes: {
        leadSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Lead-Signature',
          description:
            '`sha256=<base64 HMAC-SHA256 of the raw body with the profile’s secret>` (the Google Forms Apps Script).',
        },
      },
      authentication:
        '`X-Lead-Signature: sha256=<base64 HMAC-SHA256 of the raw body with the profile’s secret>`, computed by the Apps Script of docs/sources.md. Missing: 401; mismatch: 403.',
      bodies: {
        'application/json': {
          id: 'GoogleFormsResponse',
          description:
            'A Google Forms response as the Apps Script of docs/sources.md posts it (signed with `X-Lead-Signature`); a spreadsheet trigger’s `namedValues` alone is read too.',
          schema: z.looseObject({
            formId: z.optional(z.string()),
            formTitle: z.optional(z.string()),
            responseId: z.optional(z.string()),
            timestamp: z.optional(
              z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T/, 'an ISO 8601 date-time')),
            ),
            respondentEmail: z.optional(z.string()),
            namedValues: z.record(z.string(), z.array(z.string())),
          }),
        },
      },
      answer: '200 `LeadAccepted`; an authentic but unreadable body is parked.',
    },
    request: {
      title: 'a Google Forms response from the Apps Script',
      note: 'Signed with config/demo.json’s secret over this exact body, as the Apps Script of docs/sources.md signs it.',
      fixture: { payload: 'form-response' },
    },
  }),
});
